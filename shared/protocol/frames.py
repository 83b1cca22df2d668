"""The move path's msgpack frames joined from parts: the progress event for the store, the
mover's ack and the rival's event, each byte for byte what :func:`~.wire.encode` of its dict
gives, at a fraction of the cost (docs/performance.md, "Frames from parts"). Split from
:mod:`.messages`, which builds the same messages as dicts (sans-I/O)."""

from __future__ import annotations

import struct

try:
    import cython
except ImportError:  # Cython is optional at run time: its declarations are then no-ops
    from solrace.shared import nocython as cython

from typing import Any

from solrace.shared.protocol.messages import SPECTATOR_ONLY, ack_reply, racer_event
from solrace.shared.protocol.requests import RequestId
from solrace.shared.protocol.wire import encode

# ----------------------------------------------------------------------------- frames from parts
#
# msgpack output concatenates: a map's bytes are its header, then each key's and each value's
# bytes in order. So a frame whose keys and most values are known before the message is (a
# race's ``t``/``race`` pair, a move's text, a delta packed already for the store) can be
# joined from bytes packed once, with only the few changing values packed per frame — the same
# bytes as :func:`encode` of the dict, without building the dict or packing its constants again
# (docs/performance.md, "Frames from parts"). The helpers below pack one value each, as
# :func:`encode` would; whatever they do not know goes through :func:`encode` itself. They are
# ``ccall`` (cpdef when compiled): a call between them and the frames below is a C call, not
# a Python one (~300 instructions each, as much as the packing).

#: The bytes of 0..127: one byte each (msgpack's positive fixint).
_SMALL = tuple(bytes((i,)) for i in range(128))
_FIXMAP = tuple(bytes((0x80 | i,)) for i in range(16))
_FIXARRAY = tuple(bytes((0x90 | i,)) for i in range(16))
_U8 = struct.Struct(">BB").pack
_U16 = struct.Struct(">BH").pack
_U32 = struct.Struct(">BI").pack
_U64 = struct.Struct(">BQ").pack
#: Packed short strings (keys, move texts, statuses, ids), packed once; emptied when full.
_STRS: dict[str, bytes] = {}
STRS_CAP = 8192
SHORT = 64  # characters: longer strings are packed every time (they are not the hot ones)


if cython.compiled:
    from cython.cimports.cpython.bytes import PyBytes_AS_STRING, PyBytes_FromStringAndSize


@cython.cfunc
@cython.locals(u=cython.ulonglong, n=cython.Py_ssize_t, i=cython.Py_ssize_t, p=cython.p_uchar)
def _uint_c(x: int) -> bytes:
    """msgpack's uint 8/16/32/64 of ``128 <= x < 2**64`` written into a new ``bytes`` by C
    stores (compiled only): the ``struct`` packers below are a Python call each (~300
    instructions, as much as the rest of a part)."""
    u = x
    if u < 0x100:
        n = 1
    elif u < 0x10000:
        n = 2
    elif u < 0x100000000:
        n = 4
    else:
        n = 8
    out = PyBytes_FromStringAndSize(cython.NULL, n + 1)
    p = cython.cast(cython.p_uchar, PyBytes_AS_STRING(out))
    p[0] = 0xCC if n == 1 else 0xCD if n == 2 else 0xCE if n == 4 else 0xCF
    i = n
    while i > 0:
        p[i] = u & 0xFF
        u >>= 8
        i -= 1
    return out


@cython.ccall
def packed_int(x: Any) -> bytes:
    """:func:`encode` of one value, fast for a non-negative ``int`` (every version, count and
    time on the move path); anything else through :func:`encode`."""
    if type(x) is int and x >= 0:
        if x < 128:
            return _SMALL[x]
        if cython.compiled and x < 0x10000000000000000:
            return _uint_c(x)
        if x < 0x100:
            return _U8(0xCC, x)
        if x < 0x10000:
            return _U16(0xCD, x)
        if x < 0x100000000:
            return _U32(0xCE, x)
        if x < 0x10000000000000000:
            return _U64(0xCF, x)
    return encode(x)


@cython.ccall
@cython.locals(table=dict)
def packed_str(s: Any) -> bytes:
    """:func:`encode` of one value, a short ``str`` from a table (a key, a move's text, a race
    or player id: the same few recur on every move); anything else through :func:`encode`."""
    if type(s) is str:
        table = _STRS  # (typed: the dict's C calls, not attribute lookups)
        b = table.get(s)
        if b is not None:
            return b
        b = encode(s)
        if len(s) <= SHORT:
            if len(table) >= STRS_CAP:
                table.clear()
            table[s] = b
        return b
    return encode(s)


@cython.ccall
def packed_value(v: Any) -> bytes:
    """:func:`encode` of one value: :func:`packed_int` or :func:`packed_str` for an exact
    ``int`` or ``str``, :func:`encode` for the rest."""
    t = type(v)
    if t is int:
        return packed_int(v)
    if t is str:
        return packed_str(v)
    return encode(v)


@cython.ccall
def map_head(n: int) -> bytes:
    """The header of a msgpack map of ``n`` entries."""
    if n < 16:
        return _FIXMAP[n]
    if n < 0x10000:
        return _U16(0xDE, n)
    return b"\xdf" + n.to_bytes(4, "big")


@cython.ccall
def array_head(n: int) -> bytes:
    """The header of a msgpack array of ``n`` items."""
    if n < 16:
        return _FIXARRAY[n]
    if n < 0x10000:
        return _U16(0xDC, n)
    return b"\xdd" + n.to_bytes(4, "big")


# ----------------------------------------------------------------------------- frames from parts
#
# The move path's three msgpack frames joined from parts (wire.py, "frames from parts"): the
# progress event for the store, the mover's ack and the rival's event. Each is byte for byte
# :func:`encode` of the dict it stands for (tests/shared/test_frames.py checks it on random
# ones); a message of another shape takes the general path, so the bytes never depend on
# which way was taken.

_ACK_KEYS = ("seq", "delta", "v", "elapsed", "status", "move", "moves", "legal")
_ACK_HEAD = encode("t") + encode("ack") + encode("race")
_EVENT_HEAD = encode("t") + encode("event") + encode("race")
_K_SEQ, _K_DELTA, _K_V, _K_ELAPSED, _K_STATUS, _K_MOVE, _K_MOVES, _K_LEGAL, _K_RE = (
    encode(k) for k in (*_ACK_KEYS, "re"))
_ONE = array_head(1)
#: A racer's stored progress event without and with ``result``: t, race, k, player, home,
#: moves, [result], elapsed, at, v (``move`` and ``delta`` are a spectator's only).
_FIXMAP_9, _FIXMAP_10 = map_head(9), map_head(10)


def progress_body(event: dict[str, Any]) -> tuple[bytes, bytes | None]:
    """``encode(event)`` — and, packed on the way, ``encode(event["delta"])`` (None when there
    is no ``delta``), which the mover's ack carries too (:func:`ack_frame`): a move's delta is
    packed once, not twice."""
    if type(event) is not dict:
        return encode(event), None
    return _body(event)


#: A progress event as ``racemoves._apply`` builds it (``result`` when the game ends), and as
#: the store delivers it locally (``elapsed``, ``at``, ``v`` added): its keys' bytes are
#: constants, joined without a lookup per key.
_PROGRESS = ("k", "player", "home", "moves", "move", "delta")
_PROGRESS_END = (*_PROGRESS, "result")
_STORED = (*_PROGRESS, "elapsed", "at", "v")
_STORED_END = (*_PROGRESS_END, "elapsed", "at", "v")
_K_PLAYER = encode("k") + encode("progress") + encode("player")
_K_HOME, _K_RESULT, _K_AT = encode("home"), encode("result"), encode("at")


@cython.cfunc
@cython.locals(event=dict, parts=list, keys=tuple)
def _body(event: dict[str, Any]) -> tuple[bytes, bytes | None]:
    keys = tuple(event)
    if keys in (_PROGRESS, _PROGRESS_END) and event["k"] == "progress":
        delta = encode(event["delta"])
        parts = [map_head(len(keys)), _K_PLAYER, packed_str(event["player"]),
                 _K_HOME, packed_int(event["home"]), _K_MOVES, packed_int(event["moves"]),
                 _K_MOVE, packed_str(event["move"]), _K_DELTA, delta]
        if len(keys) == 7:
            parts.append(_K_RESULT)
            parts.append(packed_str(event["result"]))
        return b"".join(parts), delta
    parts = [map_head(len(event))]
    delta = None
    for k, v in event.items():
        parts.append(packed_value(k))
        b = packed_value(v)
        if k == "delta":
            delta = b
        parts.append(b)
    return b"".join(parts), delta


@cython.cfunc
@cython.locals(ack=dict, parts=list, legal=list)
def _ack_parts(req_id: Any, rid: str, ack: dict[str, Any], delta: bytes) -> bytes:
    move = ack["move"]
    moves = ack["moves"]
    legal = ack["legal"]
    pm = packed_str(move)
    parts = [b"\x8a" if req_id is None else b"\x8b", _ACK_HEAD, packed_str(rid),
             _K_SEQ, packed_int(ack["seq"]), _K_DELTA, delta,
             _K_V, packed_int(ack["v"]), _K_ELAPSED, packed_int(ack["elapsed"]),
             _K_STATUS, packed_str(ack["status"]), _K_MOVE, pm, _K_MOVES]
    if type(moves) is list and len(moves) == 1 and moves[0] is move:
        parts.append(_ONE)
        parts.append(pm)
    else:
        parts.append(encode(moves))
    parts.append(_K_LEGAL)
    parts.append(array_head(len(legal)))
    for text in legal:
        parts.append(packed_str(text))
    if req_id is not None:
        parts.append(_K_RE)
        parts.append(packed_value(req_id))
    return b"".join(parts)


def ack_frame(req_id: RequestId | None, rid: str, ack: dict[str, Any],
              delta: bytes | None) -> bytes:
    """``encode(ack_reply(req_id, rid, ack))`` of a move's ack (the fields
    :meth:`~solrace.server.game.racemoves.MovePath._acked` returns, in its order), ``delta`` being
    ``encode(ack["delta"])`` as :func:`progress_body` packed it for the store: the frame from
    parts, about a fifth of the work of building the dict and packing it. An ack of another
    shape (a duplicate's, a new field) is encoded from its dict."""
    if (delta is None or type(ack) is not dict or len(ack) != 8 or tuple(ack) != _ACK_KEYS
            or type(ack["legal"]) is not list or type(rid) is not str):
        return encode(ack_reply(req_id, rid, ack))
    return _ack_parts(req_id, rid, ack, delta)


def event_frame(rid: str, event: dict[str, Any]) -> bytes:
    """``encode({"t": "event", "race": rid, **racer_event(event)})``: a race event as a racer's
    msgpack connection gets it, from parts — the spectator-only fields (:data:`SPECTATOR_ONLY`:
    a rival's move and delta) left out as :func:`racer_event` leaves them, without copying the
    event or building the frame's dict."""
    if type(event) is not dict or type(rid) is not str or "t" in event or "race" in event:
        return encode({"t": "event", "race": rid, **racer_event(event)})
    return _event_parts(rid, event)


@cython.cfunc
@cython.locals(event=dict, parts=list, n=cython.Py_ssize_t, keys=tuple)
def _event_parts(rid: str, event: dict[str, Any]) -> bytes:
    keys = tuple(event) if len(event) >= 9 else ()  # (the tuple only when it may match)
    if keys in (_STORED, _STORED_END) and event["k"] == "progress":
        parts = [_FIXMAP_9 if len(keys) == 9 else _FIXMAP_10, _EVENT_HEAD, packed_str(rid),
                 _K_PLAYER, packed_str(event["player"]), _K_HOME, packed_int(event["home"]),
                 _K_MOVES, packed_int(event["moves"])]
        if len(keys) == 10:
            parts.append(_K_RESULT)
            parts.append(packed_str(event["result"]))
        parts += [_K_ELAPSED, packed_int(event["elapsed"]), _K_AT, packed_int(event["at"]),
                  _K_V, packed_int(event["v"])]
        return b"".join(parts)
    parts = [b"", _EVENT_HEAD, packed_str(rid)]
    n = 2
    for k, v in event.items():
        if k in SPECTATOR_ONLY:
            continue
        parts.append(packed_value(k))
        parts.append(packed_value(v))
        n += 1
    parts[0] = map_head(n)
    return b"".join(parts)
