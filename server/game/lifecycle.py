"""The race lifecycle as one table that the code runs on (h11's ``_state.py`` is the model).

Every state, every transition and the Lua script that performs it live here, and nowhere
else: the services ask this module whether a race in a state accepts an event
(:func:`accepts`, :func:`next_state`), what a move meets (:func:`move_gate`), which timer a
state arms (:data:`TIMERS`); :class:`~solrace.server.store.RaceRecord.state` is a
:class:`RaceState`. The scripts in :mod:`solrace.server.store.lua` make each transition happen
atomically in Redis; each checks the state it starts from by name, and
tests/server/test_lifecycle.py holds every script's checks and writes to :data:`TABLE`.

    lobby ──all racers ready (≥2)──▶ countdown ──starts_at reached──▶ running
      │                                                                  │
      └──last racer leaves──▶ closed          every racer done, or time ─┴─▶ finished

The module is pure (no I/O): race rules are tested against it in microseconds.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class RaceState(enum.StrEnum):
    """A race's state as its record stores it (a ``str``: the wire and Redis carry the value)."""

    LOBBY = "lobby"
    COUNTDOWN = "countdown"
    RUNNING = "running"
    FINISHED = "finished"
    CLOSED = "closed"


class RaceEvent(enum.Enum):
    JOIN = "join"
    LEAVE = "leave"
    READY = "ready"
    ALL_READY = "all_ready"
    EMPTY = "empty"
    START = "start"
    MOVE = "move"
    RESIGN = "resign"
    ALL_DONE = "all_done"
    TIME_UP = "time_up"
    VERDICT = "verdict"  # the solver's verdict on a finished race's deal, recorded once


@dataclass(frozen=True, slots=True)
class Transition:
    """``event`` takes a race from ``source`` to ``target``; ``scripts`` are the Lua scripts
    (names in :mod:`solrace.server.store.lua` / :mod:`~solrace.server.store.deal_lua`) that
    perform it — each checks ``source`` before it writes."""

    source: RaceState
    event: RaceEvent
    target: RaceState
    scripts: tuple[str, ...]


S, E = RaceState, RaceEvent

#: The state a new race is created in.
INITIAL = S.LOBBY

TABLE: tuple[Transition, ...] = (
    Transition(S.LOBBY, E.JOIN, S.LOBBY, ("JOIN",)),
    Transition(S.LOBBY, E.LEAVE, S.LOBBY, ("LEAVE",)),
    Transition(S.LOBBY, E.READY, S.LOBBY, ("READY", "JOIN")),  # JOIN: joining ready
    # the racer who makes everyone ready (by READY, by joining ready, or by the last unready
    # racer leaving) starts the countdown in the same script
    Transition(S.LOBBY, E.ALL_READY, S.COUNTDOWN, ("READY", "JOIN", "LEAVE")),
    Transition(S.LOBBY, E.EMPTY, S.CLOSED, ("LEAVE",)),
    Transition(S.COUNTDOWN, E.START, S.RUNNING, ("START",)),
    Transition(S.RUNNING, E.MOVE, S.RUNNING, ("MOVE", "BATCH")),
    Transition(S.RUNNING, E.RESIGN, S.RUNNING, ("RESIGN",)),
    Transition(S.RUNNING, E.ALL_DONE, S.FINISHED, ("FINISH",)),
    Transition(S.RUNNING, E.TIME_UP, S.FINISHED, ("FINISH",)),
    Transition(S.FINISHED, E.VERDICT, S.FINISHED, ("VERDICT",)),
)

TRANSITIONS: dict[RaceState, dict[RaceEvent, RaceState]] = {s: {} for s in RaceState}
for _t in TABLE:
    TRANSITIONS[_t.source][_t.event] = _t.target
del _t

#: States a race never leaves.
TERMINAL = frozenset(s for s, row in TRANSITIONS.items() if set(row.values()) <= {s})
#: States in which the race can still change: it is listed, followed, swept and timed.
LIVE = frozenset(RaceState) - TERMINAL
#: Live states past the lobby: the racers are fixed, and a clock runs.
UNDERWAY = frozenset(s for s in LIVE if s is not INITIAL)
#: States in which the deal has been dealt: each racer has a board (a sync sends it).
DEALT = frozenset({TRANSITIONS[S.COUNTDOWN][E.START]}) | frozenset(
    t.target for t in TABLE if t.source is S.RUNNING)
#: The timed transition of a state: the record field holding its time (ms since the epoch),
#: and the event that any process may then try (the scripts make it happen once).
TIMERS: dict[RaceState, tuple[str, RaceEvent]] = {
    S.COUNTDOWN: ("starts_at", E.START),
    S.RUNNING: ("ends_at", E.TIME_UP),
}


class BadTransition(Exception):
    pass


def next_state(state: RaceState | str, event: RaceEvent) -> RaceState:
    """The state after ``event``; :class:`BadTransition` when the table has no such edge."""
    try:
        return TRANSITIONS[RaceState(state)][event]
    except (KeyError, ValueError):
        raise BadTransition(f"{event.value} is not possible in {state}") from None


def accepts(state: RaceState | str, event: RaceEvent) -> bool:
    """Whether the table has ``event`` from ``state`` (an unknown state accepts nothing)."""
    try:
        return event in TRANSITIONS[RaceState(state)]
    except ValueError:
        return False


def scripts_for(event: RaceEvent) -> frozenset[str]:
    """The Lua scripts that carry out ``event`` (for the script checks and the docs)."""
    return frozenset(name for t in TABLE if t.event is event for name in t.scripts)


def is_over(state: RaceState | str) -> bool:
    return state in TERMINAL


class Gate(enum.Enum):
    """What a move (or a batch) meets in a race of a given state — the one rule every move
    path asks (:func:`move_gate`)."""

    #: the race takes moves
    PLAY = "play"
    #: counting down: try the start (its time may have come), then ask again
    START_FIRST = "start_first"
    #: over: only the retry of a move already logged is answered (a duplicate ack)
    RETRY_ONLY = "retry_only"
    #: ``not_running``
    REFUSE = "refuse"


def move_gate(state: RaceState | str) -> Gate:
    if accepts(state, E.MOVE):
        return Gate.PLAY
    if accepts(state, E.START):
        return Gate.START_FIRST
    if state in DEALT:
        return Gate.RETRY_ONLY
    return Gate.REFUSE
