"""From a decoded map to a request (:func:`parse_request`), and the messages the server builds:
replies, errors, and race events as a racer may see them (sans-I/O)."""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

from solrace.shared.protocol.accounts import ACCOUNT_REQUESTS
from solrace.shared.protocol.requests import (
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
)
from solrace.shared.protocol.wire import ERROR_CODES, ProtocolError, decode

_REQUESTS: dict[str, type[Request]] = {
    cls.TYPE: cls
    for cls in (
        Hello, CreateRace, JoinRace, LeaveRace, Ready, Resign, Sync, MakeMove, QuickPair,
        QuickCancel, Ping, MyRaces, Watch, Unwatch, LiveRaces, DailyInfo, DailyStart,
        Leaderboard, Profile, Hint, PracticeStart, Autoplay, Finish, Legal, Rematch,
        *ACCOUNT_REQUESTS,
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


_FIELDS: dict[type, tuple[tuple[str, Any, bool], ...]] = {}


def _fields(cls: type[Request]) -> tuple[tuple[str, Any, bool], ...]:
    """(name, type check, required) per field of a request class, cached."""
    spec = _FIELDS.get(cls)
    if spec is None:
        hints = typing.get_type_hints(cls)
        spec = _FIELDS[cls] = tuple(
            (f.name, _checker(hints[f.name]),
             f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
            for f in dataclasses.fields(cls)
        )
    return spec


def parse_request(msg: dict[str, Any]) -> Request:
    """A validated request from a decoded map; :class:`ProtocolError` otherwise."""
    kind = msg.get("t")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "missing type field 't'")
    cls = _REQUESTS.get(kind)
    if cls is None:
        raise ProtocolError("unknown_type", f"unknown request type {kind!r}")
    kwargs: dict[str, Any] = {}
    for name, ok, required in _fields(cls):
        if name in msg:
            value = msg[name]
            if not ok(value):
                raise ProtocolError("bad_message", f"{kind}: field {name!r} has the wrong type")
            kwargs[name] = value
        elif required:
            raise ProtocolError("bad_message", f"{kind}: missing field {name!r}")
    if len(msg) != len(kwargs) + 1:
        extra = set(msg) - set(kwargs) - {"t"}
        raise ProtocolError("bad_message", f"{kind}: unknown field {sorted(map(repr, extra))[0]}")
    return cls(**kwargs)


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


def racer_event(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` as a racer may receive it."""
    if SPECTATOR_ONLY.isdisjoint(event):
        return event
    out = event.copy()  # then the spectator fields out: the other keys keep their order
    for k in SPECTATOR_ONLY:
        out.pop(k, None)
    return out


# ----------------------------------------------------------------------------- replies


def reply(req_id: RequestId | None, kind: str, **fields: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"t": kind, **fields}
    if req_id is not None:
        msg["re"] = req_id
    return msg


def error(req_id: RequestId | None, code: str, reason: str, **extra: Any) -> dict[str, Any]:
    if code not in ERROR_CODES:
        raise ValueError(f"unknown error code {code!r}")
    return reply(req_id, "error", code=code, reason=reason, **extra)
