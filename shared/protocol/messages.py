"""From a decoded map to a request (:func:`parse_request`), and the messages the server builds:
replies, errors, and race events as a racer may see them (sans-I/O)."""

from __future__ import annotations

import dataclasses
import types

try:
    import cython
except ImportError:  # Cython is optional at run time: its declarations are then no-ops
    from solrace.shared import nocython as cython

import typing
from typing import Any

from solrace.shared.protocol.accounts import ACCOUNT_REQUESTS
from solrace.shared.protocol.events import check_event
from solrace.shared.protocol.moderation import MODERATION_REQUESTS
from solrace.shared.protocol.replies import MESSAGES
from solrace.shared.protocol.requests import (
    _RACES_OK,
    MAX_INT,
    Analysis,
    Autoplay,
    CreateRace,
    DailyInfo,
    DailyStart,
    Finish,
    Hello,
    Hint,
    JoinRace,
    Leaderboard,
    LeaveRace,
    Legal,
    LiveRaces,
    MakeMove,
    MyRaces,
    Ping,
    PracticeStart,
    Profile,
    QuickCancel,
    QuickPair,
    Ready,
    Rematch,
    Request,
    RequestId,
    Resign,
    Sync,
    Unwatch,
    Watch,
    Winnable,
)
from solrace.shared.protocol.shapes import ShapeError
from solrace.shared.protocol.tournaments import TOURNAMENT_REQUESTS
from solrace.shared.protocol.wire import ERROR_CODES, ProtocolError, decode

_REQUESTS: dict[str, type[Request]] = {
    cls.TYPE: cls
    for cls in (
        Hello, CreateRace, JoinRace, LeaveRace, Ready, Resign, Sync, MakeMove, QuickPair,
        QuickCancel, Ping, MyRaces, Watch, Unwatch, LiveRaces, DailyInfo, DailyStart,
        Leaderboard, Profile, Hint, PracticeStart, Autoplay, Finish, Legal, Rematch, Analysis,
        Winnable,
        *ACCOUNT_REQUESTS,
        *MODERATION_REQUESTS,
        *TOURNAMENT_REQUESTS,
    )
}


def _type_ok(value: Any, annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(_type_ok(value, a) for a in typing.get_args(annotation))
    if annotation is type(None):
        return value is None
    if annotation is bool:
        return isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin is dict or annotation is dict:
        return isinstance(value, dict)
    if origin is list or annotation is list:  # items are checked by the request itself
        return isinstance(value, list)
    if isinstance(annotation, type):
        return isinstance(value, annotation)
    return False


def _checker(annotation: Any) -> Any:
    """A fast type test for one field annotation (built once per request class)."""
    exact = {int: int, str: str, bool: bool}
    options = typing.get_args(annotation) if typing.get_origin(annotation) in (
        typing.Union, types.UnionType) else (annotation,)
    simple = [exact.get(a) for a in options]
    if all(simple) or (type(None) in options and all(
            exact.get(a) for a in options if a is not type(None))):
        allowed = tuple(exact[a] for a in options if a is not type(None))
        nullable = type(None) in options
        # type() is exact: a bool is never accepted where an int is expected
        return lambda v: type(v) in allowed or (nullable and v is None)
    return lambda v: _type_ok(v, annotation)


#: Per request class, per field: (name, type check, required, default, default factory,
#: setter).
_FIELDS: dict[type, tuple[tuple[str, Any, bool, Any, Any, Any], ...]] = {}
_MISSING = dataclasses.MISSING
_new = object.__new__


def _fields(cls: type[Request]) -> tuple[tuple[str, Any, bool, Any, Any, Any], ...]:
    """(name, type check, required, default, default factory, setter) per field of a request
    class, cached. The setter is the ``__set__`` of the field's slot: what ``object.__setattr__``
    ends in when a frozen dataclass's ``__init__`` sets the field, without the lookup."""
    spec = _FIELDS.get(cls)
    if spec is None:
        hints = typing.get_type_hints(cls)
        spec = _FIELDS[cls] = tuple(
            (f.name, _checker(hints[f.name]),
             f.default is _MISSING and f.default_factory is _MISSING,
             f.default, f.default_factory, _slot(cls, f.name).__set__)
            for f in dataclasses.fields(cls)
        )
    return spec


def _slot(cls: type, name: str) -> Any:
    """The slot descriptor of field ``name`` (every request class is a slotted dataclass)."""
    for klass in cls.__mro__:
        desc = klass.__dict__.get(name)
        if desc is not None and type(desc).__name__ == "member_descriptor":
            return desc
    raise TypeError(f"{cls.__name__}.{name} is not a slot")


def parse_request(msg: dict[str, Any]) -> Request:
    """A validated request from a decoded map; :class:`ProtocolError` otherwise.

    The request is built as its dataclass ``__init__`` would build it — every field set with
    its slot in field order (the given value, else its default or a fresh
    ``default_factory()``), then ``__post_init__`` — but here, in one loop with the type
    checks: the generated ``__init__`` is interpreted Python taking keyword arguments, and cost
    more than the whole rest of a move's parsing (``tests/shared/test_protocol.py`` checks the
    two give equal requests and equal errors)."""
    kind = msg.get("t")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "missing type field 't'")
    cls = _REQUESTS.get(kind)
    if cls is None:
        raise ProtocolError("unknown_type", f"unknown request type {kind!r}")
    if cls is MakeMove and type(msg) is dict:
        req = _move(msg)
        if req is not None:
            return req
    spec = _FIELDS.get(cls)
    if spec is None:
        spec = _fields(cls)
    values: list[Any] = []
    given = 0
    for name, ok, required, default, factory, _ in spec:
        if name in msg:
            value = msg[name]
            if not ok(value):
                raise ProtocolError("bad_message", f"{kind}: field {name!r} has the wrong type")
            given += 1
        elif required:
            raise ProtocolError("bad_message", f"{kind}: missing field {name!r}")
        elif factory is not _MISSING:
            value = factory()
        else:
            value = default
        values.append(value)
    if len(msg) != given + 1:
        extra = set(msg) - {f[0] for f in spec} - {"t"}
        raise ProtocolError("bad_message", f"{kind}: unknown field {sorted(map(repr, extra))[0]}")
    req = _new(cls)
    for field, value in zip(spec, values):
        field[5](req, value)
    req.__post_init__()
    return req


_MOVE_SETTERS: tuple[Any, ...] = ()  # MakeMove's slot setters: id, race, seq, move, auto
if cython.compiled:
    # ``object.__setattr__``'s own C function (the frozen class's ``__setattr__`` bypassed, as
    # its dataclass ``__init__`` bypasses it): a slot set without a Python call. Calling the
    # slots' ``__set__`` (what runs from source) costs a call, an argument tuple and its checks
    # — ~400 instructions a field, a sixth of a move request's parsing.
    from cython.cimports.cpython.object import PyObject_GenericSetAttr as _set


def _move_setters() -> tuple[Any, ...]:
    """MakeMove's slot setters in field order (checked: :func:`_move` sets them by position)."""
    spec = _FIELDS.get(MakeMove) or _fields(MakeMove)
    if tuple(f[0] for f in spec) != ("id", "race", "seq", "move", "auto"):
        raise AssertionError("MakeMove's fields changed: update _move")
    return tuple(f[5] for f in spec)


@cython.ccall
@cython.locals(msg=dict, size=cython.Py_ssize_t, setters=tuple)
def _move(msg: dict[str, Any]) -> MakeMove | None:
    """:func:`parse_request` of a ``move`` map of the common shape — every field of its exact
    type, none unknown, every check passing at a glance: the same request, without the
    general loop and the four ``__post_init__`` calls (a fifth of a move's protocol work). A
    map of any other shape, or one a check might refuse, returns None and takes the general
    path, so the errors (and their order) are the general path's own."""
    global _MOVE_SETTERS
    race = msg.get("race")
    seq = msg.get("seq")
    move = msg.get("move")
    if type(race) is not str or type(seq) is not int or type(move) is not str:
        return None
    size = 4  # t, race, seq, move
    rid = msg.get("id")
    if rid is not None:
        size += 1
        if type(rid) is str:
            if len(rid) > 64:
                return None
        elif type(rid) is not int:
            return None
    elif "id" in msg:
        size += 1
    auto = msg.get("auto", False)
    if "auto" in msg:
        size += 1
        if type(auto) is not bool:
            return None
    if (len(msg) != size or race not in _RACES_OK or seq < 0 or seq > MAX_INT
            or len(move) > 16):
        return None
    setters = _MOVE_SETTERS
    if not setters:
        setters = _MOVE_SETTERS = _move_setters()
    req = _new(MakeMove)
    if cython.compiled:  # the slots set by the C call ``object.__setattr__`` ends in
        _set(req, "id", rid)
        _set(req, "race", race)
        _set(req, "seq", seq)
        _set(req, "move", move)
        _set(req, "auto", auto)
    else:
        setters[0](req, rid)
        setters[1](req, race)
        setters[2](req, seq)
        setters[3](req, move)
        setters[4](req, auto)
    return req


def decode_request(data: bytes | str) -> Request:
    return parse_request(decode(data))


def request_types() -> dict[str, type[Request]]:
    return dict(_REQUESTS)


# ----------------------------------------------------------------------------- events

#: Fields of race events that only spectators receive: a racer sees rivals' progress, never
#: their boards (the moves and the view deltas they produce; the spectator form's reveals and
#: final boards, see shared/masking.py, are never in the stored events but are listed too).
SPECTATOR_ONLY = frozenset({"move", "delta", "reveal", "boards"})


def last_event(event: dict[str, Any]) -> bool:
    """Whether ``event`` is a race's last: its ``end`` — unless that says the deal's verdict
    is still pending, then the ``verdict`` that follows it."""
    kind = event.get("k")
    if kind == "verdict":
        return True
    verdict = event.get("verdict")
    return kind == "end" and not (isinstance(verdict, dict)
                                  and verdict.get("outcome") == "pending")


_SPECTATOR_KEYS = tuple(sorted(SPECTATOR_ONLY))


def racer_event(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` as a racer may receive it."""
    if type(event) is dict:
        return _racer_dict(event)
    if SPECTATOR_ONLY.isdisjoint(event):
        return event
    out = event.copy()  # then the spectator fields out: the other keys keep their order
    for k in SPECTATOR_ONLY:
        out.pop(k, None)
    return out


@cython.locals(event=dict, out=dict)
def _racer_dict(event: dict[str, Any]) -> dict[str, Any]:
    """:func:`racer_event` of a plain dict: four key lookups instead of a pass over the
    event's keys, a copy and four pops by the dict's C calls (a rival's every event)."""
    for k in _SPECTATOR_KEYS:
        if k in event:
            break
    else:
        return event
    out = event.copy()  # then the spectator fields out: the other keys keep their order
    for k in _SPECTATOR_KEYS:
        out.pop(k, None)
    return out


# ----------------------------------------------------------------------------- replies


def reply(req_id: RequestId | None, kind: str, **fields: Any) -> dict[str, Any]:
    """The reply ``kind`` to request ``req_id`` as the codec writes it, built through its
    declaration in :mod:`.replies` (so a field of the wrong name or type fails here, as a
    :class:`~.shapes.ShapeError`: a server bug, never a client's). Fields are given by their
    wire names (``**{"from": rid}``)."""
    cls = MESSAGES.get(kind)
    if cls is None:
        raise ShapeError(f"no message type {kind!r} is declared")
    return cls.from_fields(fields).wire(req_id)


def push(kind: str, **fields: Any) -> dict[str, Any]:
    """An unsolicited message (no ``re``), built as :func:`reply` builds one."""
    return reply(None, kind, **fields)


def error(req_id: RequestId | None, code: str, reason: str, **extra: Any) -> dict[str, Any]:
    if code not in ERROR_CODES:
        raise ValueError(f"unknown error code {code!r}")
    return reply(req_id, "error", code=code, reason=reason, **extra)


def ack_reply(req_id: RequestId | None, rid: str, ack: dict[str, Any]) -> dict[str, Any]:
    """``reply(req_id, "ack", race=rid, **ack)`` — the same message, keys in the same order
    (so the same bytes on the wire) — built as one dict: a call with ``**`` keywords costs
    about 14k instructions, this about 5k (docs/performance.md, "The synchronous move start")."""
    msg = {"t": "ack", "race": rid, **ack}
    if req_id is not None:
        msg["re"] = req_id
    return msg


# ----------------------------------------------------------------------------- checking


def check_message(msg: dict[str, Any]) -> None:
    """Raise :class:`~.shapes.ShapeError` unless ``msg`` — a decoded server frame: a reply,
    an unsolicited message, an event or a batch of them — is as declared in :mod:`.replies`
    and :mod:`.events`, the events inside ``synced`` and ``watching`` included. For client
    authors and the tests (which check every frame they receive); the server builds its
    replies through the declarations already."""
    kind = msg.get("t")
    if kind == "batch":
        msgs = msg.get("msgs")
        if not isinstance(msgs, list) or len(msg) != 2:
            raise ShapeError("batch: msgs must be the only field, a list")
        for inner in msgs:
            check_message(inner)
        return
    fields = dict(msg)
    fields.pop("t", None)
    if "re" in fields:
        re = fields.pop("re")
        if type(re) not in (int, str):
            raise ShapeError(f"{kind}: re must be an integer or a string")
    if kind == "event":
        if type(fields.pop("race", None)) is not str:
            raise ShapeError("event: race must be a string")
        check_event(fields)
        return
    cls = MESSAGES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ShapeError(f"unknown message type {kind!r}")
    cls.from_fields(fields)
    for event in fields.get("events") or ():
        check_event(event)
    if kind == "watching" and "end" in fields:
        check_event(fields["end"])
