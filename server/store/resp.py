"""RESP packing of the store's script calls (``EVALSHA sha numkeys *keys *args``), for the batch
pipeline of :mod:`.batch`: what redis-py's encoder and packer build argument by argument, for
the only argument types the store passes (bytes, str, int).

A module of its own, with no I/O, so that it is compiled (``shared/accel.py``, ``SERVER``):
every move's script call is packed here.
"""

from __future__ import annotations

from typing import Any

#: ``*count EVALSHA sha numkeys`` in RESP, per (sha, keys, args) shape: the same for every
#: call of a script with the same number of arguments, so built once.
_HEADS: dict[tuple[bytes, int, int], bytes] = {}
#: ``$n\r\n``, the head of a bulk string of n bytes, for the usual lengths (formatting it per
#: argument cost more than the rest of the packing).
_SHORT = 512
_LENGTHS = tuple(b"$%d\r\n" % n for n in range(_SHORT))
#: The decimal digits of the small integers (a move's sequence number, its cards home).
_SMALL = 4096
_DIGITS = tuple(b"%d" % n for n in range(_SMALL))


def pack(sha: bytes, keys: list[Any], args: list[Any]) -> bytes:
    """``EVALSHA sha len(keys) *keys *args`` in RESP, byte for byte as redis-py packs it."""
    shape = (sha, len(keys), len(args))
    head = _HEADS.get(shape)
    if head is None:
        if len(_HEADS) > 1024:  # shapes are few (one or two per script); never unbounded
            _HEADS.clear()
        n = str(len(keys)).encode()
        head = _HEADS[shape] = b"*%d\r\n$7\r\nEVALSHA\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (
            3 + len(keys) + len(args), len(sha), sha, len(n), n)
    parts = [head]
    for a in (*keys, *args):
        kind = type(a)
        if kind is str:
            a = a.encode()
        elif kind is int:
            a = _DIGITS[a] if 0 <= a < _SMALL else b"%d" % a
        elif kind is not bytes:
            if isinstance(a, bytes):
                a = bytes(a)
            elif isinstance(a, int) and not isinstance(a, bool):
                a = b"%d" % a
            else:
                raise TypeError(f"a script argument must be bytes, str or int, not {a!r}")
        n = len(a)
        parts.append(_LENGTHS[n] if n < _SHORT else b"$%d\r\n" % n)
        parts.append(a)
        parts.append(b"\r\n")
    return b"".join(parts)


def sha_of(script: Any) -> bytes:
    """The script's SHA as bytes (redis-py keeps it as text)."""
    sha = script.sha
    return sha if isinstance(sha, bytes) else sha.encode()


def pack_command(*words: Any) -> bytes:
    """Any command in RESP (bytes, str or int words): the batch connection's set-up
    (``AUTH``, ``SELECT``, ``CLIENT SETNAME``)."""
    parts = [b"*%d\r\n" % len(words)]
    for w in words:
        b = w if isinstance(w, bytes) else str(w).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(b), b))
    return b"".join(parts)
