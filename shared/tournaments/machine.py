"""A tournament's lifecycle as one table (the races' ``server/game/lifecycle.py`` is the
model): states, events, transitions; an unknown transition raises.

    scheduled ──entries open──▶ open ──start──▶ running ──time up / all done──▶ finished
        │                        │                 │  (knockout: round done ⟲)      │
        └───────cancel───────────┴──too few────▶ cancelled          review cleared ──▶ final

Entering is accepted while ``open``, and while ``running`` for an arena until its late-entry
cut-off (:func:`may_enter`). Results are provisional in ``finished`` — until the fair-play
review has cleared the top places — and final in ``final``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class TournamentState(enum.StrEnum):
    SCHEDULED = "scheduled"
    OPEN = "open"
    RUNNING = "running"
    FINISHED = "finished"
    FINAL = "final"
    CANCELLED = "cancelled"


class TournamentEvent(enum.Enum):
    OPEN_ENTRIES = "open_entries"
    ENTER = "enter"
    WITHDRAW = "withdraw"
    START = "start"
    PLAY = "play"  # a deal's result recorded
    ROUND_DONE = "round_done"  # knockout: every match of a round decided
    TIME_UP = "time_up"
    ALL_DONE = "all_done"
    REVIEW_CLEARED = "review_cleared"
    CANCEL = "cancel"


class Format(enum.StrEnum):
    ARENA = "arena"
    EVENT = "event"
    KNOCKOUT = "knockout"


S, E = TournamentState, TournamentEvent


@dataclass(frozen=True, slots=True)
class Transition:
    source: TournamentState
    event: TournamentEvent
    target: TournamentState
    formats: frozenset[Format] = frozenset(Format)


ALL = frozenset(Format)
TABLE: tuple[Transition, ...] = (
    Transition(S.SCHEDULED, E.OPEN_ENTRIES, S.OPEN),
    Transition(S.SCHEDULED, E.CANCEL, S.CANCELLED),
    Transition(S.OPEN, E.ENTER, S.OPEN),
    Transition(S.OPEN, E.WITHDRAW, S.OPEN),
    Transition(S.OPEN, E.START, S.RUNNING),
    Transition(S.OPEN, E.CANCEL, S.CANCELLED),
    Transition(S.RUNNING, E.ENTER, S.RUNNING, frozenset({Format.ARENA})),
    Transition(S.RUNNING, E.WITHDRAW, S.RUNNING),
    Transition(S.RUNNING, E.PLAY, S.RUNNING),
    Transition(S.RUNNING, E.ROUND_DONE, S.RUNNING, frozenset({Format.KNOCKOUT})),
    Transition(S.RUNNING, E.TIME_UP, S.FINISHED, frozenset({Format.ARENA, Format.EVENT})),
    Transition(S.RUNNING, E.ALL_DONE, S.FINISHED),
    Transition(S.FINISHED, E.REVIEW_CLEARED, S.FINAL),
)
TRANSITIONS: dict[tuple[TournamentState, TournamentEvent, Format], TournamentState] = {
    (t.source, t.event, f): t.target for t in TABLE for f in t.formats
}
TERMINAL = frozenset({S.FINAL, S.CANCELLED})


class BadTransition(Exception):
    """An event the tournament's state does not accept (a bug, or a request to refuse)."""


def next_state(fmt: Format, state: TournamentState, event: TournamentEvent
               ) -> TournamentState:
    try:
        return TRANSITIONS[(state, event, fmt)]
    except KeyError:
        raise BadTransition(f"a {fmt} tournament that is {state} does not take "
                            f"{event.value}") from None


def accepts(fmt: Format, state: TournamentState, event: TournamentEvent) -> bool:
    return (state, event, fmt) in TRANSITIONS


def may_enter(fmt: Format, state: TournamentState, now_ms: int, cutoff_ms: int | None) -> bool:
    """Whether an entry is taken now: while open; an arena also while running, until its
    late-entry cut-off."""
    if not accepts(fmt, state, E.ENTER):
        return False
    return state is S.OPEN or cutoff_ms is None or now_ms < cutoff_ms
