"""Race events, declared once (sans-I/O): docs/protocol.md section 7.1.

An event is stored in the race's log as its **body** — ``k`` and the fields of its kind — to
which the store adds ``v`` (the version) and ``at`` (the Redis clock) as it appends it; the
server sends it as ``{"t": "event", "race": <id>, **event}``, and ``synced`` / ``watching``
carry the stored form. The lobby's events (``join``, ``leave``, ``ready``, ``countdown``,
``closed``) are written by the store's Lua scripts; ``start``, ``end`` and ``verdict`` by the
server from these classes (``Start(...).body()``); ``progress`` is packed by hand on the move
path (:mod:`.frames`). The tests check every event they receive against these declarations
(:func:`check_event`), whoever wrote it.

Fields only spectators receive (:data:`~.messages.SPECTATOR_ONLY`) are optional here: a
racer's form leaves them out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from solrace.shared.protocol.shapes import ABSENT, Shape, ShapeError, declare

EVENTS: dict[str, type[RaceEvent]] = {}


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceEvent(Shape):
    """Base of the event kinds: ``KIND`` is its ``k``."""

    TYPE: ClassVar[str] = "event"
    KIND: ClassVar[str] = ""

    def _label(self) -> str:
        return f"event {self.KIND}"

    def body(self) -> dict[str, Any]:
        """The event as the store appends it: ``k`` and the fields (no ``v``, ``at``)."""
        out: dict[str, Any] = {"k": self.KIND}
        for spec in self.SPECS:
            value = getattr(self, spec.attr)
            if value is not ABSENT:
                out[spec.wire] = value
        return out


def event(kind: str) -> Any:
    """Declare an event class for ``k`` = ``kind``."""

    def wrap(cls: type[RaceEvent]) -> type[RaceEvent]:
        cls = dataclass(frozen=True, slots=True, kw_only=True)(cls)
        cls.KIND = kind
        EVENTS[kind] = declare(cls)  # type: ignore[assignment]
        return cls

    return wrap


Result = Literal["won", "lost", "resigned"]


@event("join")
class Join(RaceEvent):
    player: str
    name: str
    title: str = ABSENT


@event("leave")
class Leave(RaceEvent):
    player: str


@event("ready")
class Ready(RaceEvent):
    player: str


@event("countdown")
class Countdown(RaceEvent):
    starts_at: int
    commitment: str
    racers: int


@event("start")
class Start(RaceEvent):
    started_at: int
    ends_at: int
    view: dict
    legal: list


@event("progress")
class Progress(RaceEvent):
    player: str
    home: int
    moves: int
    elapsed: int = ABSENT  # the store adds it as it logs the move
    result: Result = ABSENT
    move: str = ABSENT  # spectators only, like delta and reveal
    delta: dict = ABSENT
    reveal: dict = ABSENT


@event("closed")
class Closed(RaceEvent):
    pass


@event("end")
class End(RaceEvent):
    reason: Literal["done", "time"]
    commitment: str
    standings: list
    seed: int = ABSENT
    verdict: dict = ABSENT
    boards: dict = ABSENT  # spectators only


@event("verdict")
class Verdict(RaceEvent):
    verdict: dict


def parse_event(stored: dict[str, Any]) -> RaceEvent:
    """A stored (or racer's, or spectator's) event as its typed value: ``v`` and ``at``
    checked and left out; :class:`ShapeError` when it is not as declared."""
    fields = dict(stored)
    kind = fields.pop("k", None)
    cls = EVENTS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ShapeError(f"unknown event kind {kind!r}")
    for name in ("v", "at"):
        value = fields.pop(name, None)
        if not isinstance(value, int) or isinstance(value, bool) or (value < 1 and name == "v"):
            raise ShapeError(f"event {kind}: {name} must be a positive integer, not {value!r}")
    return cls.from_fields(fields)  # type: ignore[return-value]


def check_event(stored: dict[str, Any]) -> None:
    """Raise :class:`ShapeError` unless ``stored`` is an event as declared."""
    parse_event(stored)
