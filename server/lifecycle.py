"""The race lifecycle as one table (h11's ``_state.py`` is the model).

Rule 1: every state and transition of a race lives here. The Lua scripts in
:mod:`solrace.server.store` perform the transitions atomically in Redis; each script checks the
state it starts from by name, and a test holds those names to this table.

    lobby ──all racers ready (≥2)──▶ countdown ──starts_at reached──▶ running
      │                                                                  │
      └──last racer leaves──▶ closed          every racer done, or time ─┴─▶ finished
"""

from __future__ import annotations

import enum


class RaceState(enum.Enum):
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


S, E = RaceState, RaceEvent

TRANSITIONS: dict[RaceState, dict[RaceEvent, RaceState]] = {
    S.LOBBY: {
        E.JOIN: S.LOBBY,
        E.LEAVE: S.LOBBY,
        E.READY: S.LOBBY,
        E.ALL_READY: S.COUNTDOWN,
        E.EMPTY: S.CLOSED,
    },
    S.COUNTDOWN: {E.START: S.RUNNING},
    S.RUNNING: {
        E.MOVE: S.RUNNING,
        E.RESIGN: S.RUNNING,
        E.ALL_DONE: S.FINISHED,
        E.TIME_UP: S.FINISHED,
    },
    S.FINISHED: {},
    S.CLOSED: {},
}

TERMINAL = frozenset(s for s, moves in TRANSITIONS.items() if not moves)


class BadTransition(Exception):
    pass


def next_state(state: RaceState, event: RaceEvent) -> RaceState:
    """The state after ``event``; :class:`BadTransition` when the table has no such edge."""
    try:
        return TRANSITIONS[state][event]
    except KeyError:
        raise BadTransition(f"{event.value} is not possible in {state.value}") from None


def accepts(state: str, event: RaceEvent) -> bool:
    try:
        return event in TRANSITIONS[RaceState(state)]
    except ValueError:
        return False
