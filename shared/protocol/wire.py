"""The frame level of the wire protocol: versions, error codes, the msgpack codec and the
subprotocols (sans-I/O).

Every frame is one binary websocket message holding one msgpack map (or, with the
``solrace.json.v1`` subprotocol, one JSON text frame: :mod:`solrace.shared.jsonwire`).
:func:`decode` applies the size limits before anything else reads a frame.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import msgpack

try:
    import cython
except ImportError:  # Cython is optional at run time: its declarations are then no-ops
    from solrace.shared import nocython as cython

PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS = frozenset({1})

MAX_FRAME = 64 * 1024  # bytes; the server's websocket max_size as well

# Stable error codes (docs/protocol.md lists each with its meaning).
ERROR_CODES = (
    "bad_message",  # not msgpack, not a map, a field missing or of the wrong type
    "unknown_type",  # the type field names no request
    "too_large",  # frame above the size limit
    "unsupported_version",  # hello with a protocol version this server does not speak
    "not_authenticated",  # a request before hello
    "already_authenticated",  # a second hello on one connection
    "bad_name",  # display name fails the rules
    "name_taken",  # another live session holds that name
    "bad_token",  # unknown or expired session token
    "bad_option",  # unknown variant, option or value; bad seats or time limit
    "race_not_found",  # no such race id or invite code
    "race_full",  # every seat is taken
    "race_started",  # join/leave/ready after the lobby closed
    "not_in_race",  # the race exists but the caller is not a racer in it
    "not_watching",  # unwatch of a race this connection does not watch
    "not_watchable",  # daily and practice games cannot be watched (their deal is secret)
    "already_played",  # the ranked daily attempt of the day is used up (practice is allowed)
    "not_practice",  # hint in a game that is not a practice game (races, ranked dailies)
    "player_not_found",  # profile of a name no player holds
    "not_your_game",  # acting on a game that belongs to someone else
    "not_running",  # a move or resign when the race is not running
    "already_finished",  # the caller's game is over
    "illegal_move",  # the rules forbid the move (detail says why)
    "no_legal_move",  # a move naming only its source (t3, w): nothing may move from there
    "cannot_finish",  # finish while the rest of the game does not play itself (reason says why)
    "bad_notation",  # the move text does not parse
    "stale_seq",  # seq is not the number of moves applied; reply carries the current seq
    "no_rematch",  # race.rematch of a race that is not over, or of a daily or practice game
    "already_queued",  # quick pairing twice
    "pool_empty",  # winnable race: no certified deal ready in time (retry_after: seconds)
    "too_many_analyses",  # the caller's fresh analyses of the hour are used up (retry_after)
    "rate_limited",  # too many messages, or too many wrong passwords (retry_after: seconds)
    "account_required",  # ranked play (rated races, the ranked daily) by a guest: register
    "bad_password",  # a new password fails the length rules (reason says which)
    "bad_credentials",  # login or password check: wrong name or password
    "already_registered",  # register from a session that is already an account's
    "session_not_found",  # session.revoke of an id that is not one of the account's sessions
    "forbidden",  # a moderator request without the moderator role (mod.audit: admin)
    "banned",  # login to an account a moderator banned (told only with the right password)
    "bots_not_allowed",  # ranked play by a BOT account; account.bot after ranked games
    "already_reported",  # report of a player this reporter already has an open report on
    "case_not_found",  # mod.case / mod.clear of a case id that names no stored case
    "tournament_not_found",  # no tournament with that id or invite code
    "not_entered",  # tournament.play before tournament.join
    "entries_closed",  # tournament.join after the arena's late-entry cut-off
    "watched",  # tournament.join by a player who watched its deals while it ran
    "deal_not_ready",  # the next arena deal after a resignation, too soon (retry_after)
    "tournament_full",  # tournament.join of a knockout whose max_entrants are in
    "no_match",  # tournament.play in a knockout with no match to play now (out, or waiting)
    "unavailable",  # the server cannot reach its store right now; retry
    "internal",  # a bug: reported, the connection survives
)


class ProtocolError(Exception):
    """A request the server refuses; ``code`` is one of :data:`ERROR_CODES`."""

    def __init__(self, code: str, reason: str, **extra: Any) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.extra = extra


# ----------------------------------------------------------------------------- codec


_PACKERS = threading.local()  # one msgpack Packer per thread: a Packer is not thread-safe


def _plain(obj: Any) -> Any:
    """The Packer's ``default`` under ``strict_types``: what msgpack's non-strict packing makes
    of an instance of a subclass of a type it packs (a tuple or named tuple: an array; an
    ``IntEnum``: its integer; a ``str``, ``dict``, ``list``... subclass: its base value) as a
    value of the exact type, so that the strict Packer writes the same bytes; anything else
    is refused with msgpack's own error."""
    if isinstance(obj, tuple):
        return list(tuple.__iter__(obj))
    if isinstance(obj, int):  # (bool cannot be subclassed, and True/False never get here)
        return int.__index__(obj)
    if isinstance(obj, float):
        return float.__float__(obj)
    if isinstance(obj, (bytes, bytearray)):
        return bytes(memoryview(obj))
    if isinstance(obj, str):
        return str.__str__(obj)
    if isinstance(obj, dict):
        return dict(obj.items())
    if isinstance(obj, list):
        return list.copy(obj)
    raise TypeError(f"can not serialize {type(obj).__name__!r} object")


def encode(message: dict[str, Any]) -> bytes:
    """``msgpack.packb(message, use_bin_type=True)``, by a Packer kept per thread (building
    one per message cost a fifth of the packing of an ack; the bytes are the same). The Packer
    checks types exactly (``strict_types``: a fifth less work per object than its subclass
    checks, measured on an ack); the rare value of a subclass (a tuple, an enum) goes
    through :func:`_plain` and packs to the same bytes as before."""
    try:
        pack = _PACKERS.pack
    except AttributeError:
        pack = _PACKERS.pack = msgpack.Packer(use_bin_type=True, strict_types=True,
                                              default=_plain).pack
    return pack(message)


#: ``{"t": "batch", "msgs": `` — the head of a batch frame, before the array of messages
_BATCH_HEAD = b"\x82" + msgpack.packb("t") + msgpack.packb("batch") + msgpack.packb("msgs")


def batch_frame(frames: list[bytes]) -> bytes:
    """One frame ``{"t": "batch", "msgs": [m1, m2, ...]}`` from already encoded messages, in
    order, each exactly as it would have been sent alone (a client that asked for batches in
    ``hello`` unpacks them in order). Built by concatenation: no message is encoded twice."""
    n = len(frames)
    head = bytes((0x90 | n,)) if n < 16 else b"\xdc" + n.to_bytes(2, "big")
    return b"".join((_BATCH_HEAD, head, *frames))


def unbatch(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages of a received frame: those of a ``batch`` frame, else the frame itself."""
    if message.get("t") == "batch" and isinstance(message.get("msgs"), list):
        return message["msgs"]
    return [message]


def decode(data: bytes | str) -> dict[str, Any]:
    """Bytes to a map, with size limits; :class:`ProtocolError` on anything else."""
    if isinstance(data, str):
        raise ProtocolError("bad_message", "frames must be binary msgpack, not text")
    if len(data) > MAX_FRAME:
        raise ProtocolError("too_large", f"frame of {len(data)} bytes exceeds {MAX_FRAME}")
    if _FLAT and type(data) is bytes:
        try:
            flat = _flat_map(data)
        except Exception:  # msgpack's own decoding below says what is wrong, as before
            flat = None
        if flat is not None:
            return flat
    try:
        obj = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            max_str_len=4096,
            max_bin_len=4096,
            max_array_len=1024,
            max_map_len=64,
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack raises several unrelated types
        raise ProtocolError("bad_message", f"not a msgpack frame ({type(exc).__name__})") from None
    if not isinstance(obj, dict):
        raise ProtocolError("bad_message", "a frame must be a msgpack map")
    return obj


#: Whether :func:`decode` tries :func:`_flat_map` first: only compiled (interpreted, its loop
#: costs more than msgpack's C decoder; the tests check it either way).
_FLAT = cython.compiled


@cython.cfunc
@cython.locals(data=bytes, i=cython.Py_ssize_t, length=cython.Py_ssize_t, a=cython.Py_ssize_t,
               b=cython.Py_ssize_t)
def _known(data: bytes, i: int, length: int) -> str | None:
    """The string of ``data[i:i + length]`` when it is one of a move frame's keys or its type
    (``t``, ``id``, ``race``, ``seq``, ``move``, ``auto``), as the module's own constant (a
    string whose hash is known: the map's insertion and every lookup of it then skip hashing
    a fresh string); None for any other bytes (then decoded as usual). Read byte by byte:
    cheaper compiled than slicing the bytes to compare them."""
    if length == 1:
        return "t" if data[i] == 0x74 else None
    if length == 2:
        return "id" if data[i] == 0x69 and data[i + 1] == 0x64 else None
    if length == 3:
        if data[i] == 0x73 and data[i + 1] == 0x65 and data[i + 2] == 0x71:
            return "seq"
        return None
    if length != 4:
        return None
    a, b = data[i], data[i + 1]
    if a == 0x6D and b == 0x6F and data[i + 2] == 0x76 and data[i + 3] == 0x65:
        return "move"
    if a == 0x72 and b == 0x61 and data[i + 2] == 0x63 and data[i + 3] == 0x65:
        return "race"
    if a == 0x61 and b == 0x75 and data[i + 2] == 0x74 and data[i + 3] == 0x6F:
        return "auto"
    return None


@cython.ccall
@cython.locals(data=bytes, size=cython.Py_ssize_t, i=cython.Py_ssize_t, n=cython.Py_ssize_t,
               _k=cython.Py_ssize_t, b=cython.Py_ssize_t, length=cython.Py_ssize_t, out=dict)
def _flat_map(data: bytes) -> dict[str, Any] | None:
    """``decode`` of a frame that is one small flat map — at most 15 entries, keys and string
    values of at most 31 bytes (fixstr), integers, booleans and nil — as msgpack decodes it
    (the same dict, keys in order, a repeated key's last value); None for any other frame,
    which :func:`decode` then hands to msgpack (so its errors are msgpack's). Why: every move
    is such a frame, and msgpack's ``unpackb`` spends ~8k instructions on one, most of it
    before and after the ten objects; read byte by byte in the compiled module, ~2k."""
    size = len(data)
    if size == 0:
        return None
    b = data[0]
    if b & 0xF0 != 0x80:
        return None
    n = b & 0x0F
    i = 1
    out = {}
    for _k in range(n):
        if i >= size:
            return None
        b = data[i]
        if b & 0xE0 != 0xA0:  # a key: fixstr only
            return None
        length = b & 0x1F
        i += 1
        if i + length > size:
            return None
        key = _known(data, i, length)
        if key is None:
            key = data[i:i + length].decode("utf-8")
        i += length
        if i >= size:
            return None
        b = data[i]
        i += 1
        if b < 0x80:
            value: Any = b
        elif b & 0xE0 == 0xA0:
            length = b & 0x1F
            if i + length > size:
                return None
            value = _known(data, i, length)
            if value is None:
                value = data[i:i + length].decode("utf-8")
            i += length
        elif b >= 0xE0:  # negative fixint
            value = b - 0x100
        elif b == 0xCC:
            if i + 1 > size:
                return None
            value = data[i]
            i += 1
        elif b == 0xCD:
            if i + 2 > size:
                return None
            value = (data[i] << 8) | data[i + 1]
            i += 2
        elif b == 0xCE:
            if i + 4 > size:
                return None
            value = int.from_bytes(data[i:i + 4], "big")
            i += 4
        elif b == 0xC0:
            value = None
        elif b == 0xC2:
            value = False
        elif b == 0xC3:
            value = True
        else:
            return None
        out[key] = value
    if i != size:  # trailing bytes: msgpack refuses them (ExtraData)
        return None
    return out


# ----------------------------------------------------------------------------- encodings

#: Websocket subprotocols a client may offer; none (or the msgpack one) means msgpack over
#: binary frames, ``solrace.json.v1`` means JSON over text frames (:mod:`jsonwire`).
MSGPACK_SUBPROTOCOL = "solrace.msgpack.v1"
JSON_SUBPROTOCOL = "solrace.json.v1"
SUBPROTOCOLS = (JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL)


@dataclass(frozen=True, slots=True)
class Codec:
    """How one connection turns maps into frames and back, chosen once at the handshake."""

    name: str
    encode: Any  # Callable[[dict], bytes | str]
    decode: Any  # Callable[[bytes | str], dict]


def codec_for(subprotocol: str | None) -> Codec:
    """The codec of a negotiated subprotocol (``None``: the default, msgpack)."""
    if subprotocol == JSON_SUBPROTOCOL:
        from solrace.shared.jsonwire import decode_json, encode_json

        return Codec(JSON_SUBPROTOCOL, encode_json, decode_json)
    return Codec(MSGPACK_SUBPROTOCOL, encode, decode)


def select_subprotocol(offered: list[str] | tuple[str, ...]) -> str | None:
    """The subprotocol to accept from those a client offers: ours in our order of preference,
    else none (the client then speaks msgpack, as every client did before negotiation)."""
    for name in SUBPROTOCOLS:
        if name in offered:
            return name
    return None
