"""The suspicion score: named signals, each with a weight and a documented threshold.

Why explainable and additive: a moderator has to see *why* a result was held, and a player who
appeals has to be told something true. Each signal compares one measured value with one
threshold and, when it fires, adds its weight; a game whose total reaches
:data:`HOLD_THRESHOLD` is held for review. No single weak signal (a new account, a game at
par) can hold a result alone; the machine-only signals can. The table of signals, with what
each catches and what it misses, is docs/fairplay.md.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from solrace.shared.fairplay.evidence import History

#: A game whose fired weights add up to this is held for review.
HOLD_THRESHOLD = 1.0

#: Median time between two actions below which play is beyond a person: reading the board,
#: choosing and placing one card takes most people over a second; 400 ms is already the pace
#: of someone clicking through moves they planned — over a *whole* game nobody keeps it.
INSTANT_MEDIAN_MS = 400
#: Actions a game must have before its median means anything.
MIN_ACTIONS = 10
#: Coefficient of variation of think times below which the rhythm is a machine's. People's
#: think times are heavy-tailed (quick obvious moves, long pauses before hard ones): their
#: spread is about as large as their mean (CV near or above 1). A bot drawing waits from a
#: narrow range stays far below.
REGULAR_CV = 0.35
#: Think times needed before their spread is judged.
MIN_GAPS = 20
#: A first action sooner than this after the start, with at least :data:`READ_CARDS` cards
#: face up, is made before the board could have been read.
FAST_FIRST_MS = 1500
READ_CARDS = 20
#: A won game this many moves over the deal's par or fewer (par: the solver's line).
PAR_SLACK = 0
#: An account younger than this (days) with fewer than :data:`NEW_GAMES` ranked games is new:
#: throwaway accounts are how a banned cheater comes back.
NEW_DAYS = 1.0
NEW_GAMES = 3
#: Distinct open reports that count as a signal.
REPORTS = 2
#: The account-level signal: the mean of the last :data:`RECENT` game totals at or above
#: :data:`RECENT_MEAN`, over at least :data:`RECENT_MIN` games. A bot that hides each game's
#: worst signal still scores a little every time; a person's totals are mostly 0.
RECENT = 10
RECENT_MIN = 5
RECENT_MEAN = 0.45

WEIGHTS = {
    "instant_play": 1.0,
    "machine_rhythm": 0.6,
    "fast_first_move": 0.4,
    "at_par": 0.5,
    "new_account": 0.2,
    "reported": 0.3,
    "suspicious_history": 0.6,
}


@dataclass(frozen=True)
class Signal:
    """One measured value against its threshold."""

    name: str
    value: float
    threshold: float
    weight: float
    fired: bool
    why: str

    def to_wire(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "threshold": self.threshold,
                "weight": self.weight, "fired": self.fired, "why": self.why}


@dataclass(frozen=True)
class Score:
    """The signals of one game and their sum."""

    total: float
    threshold: float
    held: bool
    signals: tuple[Signal, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"total": self.total, "threshold": self.threshold, "held": self.held,
                "signals": [s.to_wire() for s in self.signals]}

    @classmethod
    def from_wire(cls, d: dict[str, Any]) -> Score:
        return cls(total=float(d["total"]), threshold=float(d["threshold"]),
                   held=bool(d["held"]),
                   signals=tuple(Signal(**s) for s in d["signals"]))


def _signal(name: str, value: float | None, threshold: float, fires: Callable[[float], bool],
            why: str) -> Signal:
    """A signal that fires when ``value`` is known and ``fires(value)``."""
    weight = WEIGHTS[name]
    fired = value is not None and fires(value)
    return Signal(name, -1.0 if value is None else round(float(value), 4), float(threshold),
                  weight, fired, why)


def score(evidence: dict[str, Any], history: History) -> Score:
    """Score one game from its :func:`~.evidence.evidence` and the account's history."""
    median = evidence["think_median_ms"] if evidence["actions"] >= MIN_ACTIONS else None
    cv = evidence["think_cv"] if len(evidence["think_ms"]) >= MIN_GAPS else None
    first = evidence["first_ms"] if evidence["face_up_at_start"] >= READ_CARDS else None
    recent = history.recent_scores[-RECENT:]
    mean_recent = statistics.fmean(recent) if len(recent) >= RECENT_MIN else None
    new = history.account_age_days < NEW_DAYS and history.ranked_games < NEW_GAMES
    signals = (
        _signal("instant_play", median, INSTANT_MEDIAN_MS, lambda v: v < INSTANT_MEDIAN_MS,
                "median time between actions faster than a person plays a whole game"),
        _signal("machine_rhythm", cv, REGULAR_CV, lambda v: v < REGULAR_CV,
                "think times too even: people pause longer before hard moves"),
        _signal("fast_first_move", first, FAST_FIRST_MS, lambda v: v < FAST_FIRST_MS,
                "first move before the board could be read"),
        _signal("at_par", evidence["over_par"], PAR_SLACK, lambda v: v <= PAR_SLACK,
                "won in no more moves than the solver's line"),
        _signal("new_account", history.account_age_days, NEW_DAYS, lambda v: new,
                f"account younger than a day with fewer than {NEW_GAMES} ranked games"),
        _signal("reported", history.open_reports, REPORTS, lambda v: v >= REPORTS,
                "several players reported this account"),
        _signal("suspicious_history", mean_recent, RECENT_MEAN, lambda v: v >= RECENT_MEAN,
                f"the last {RECENT} ranked games kept scoring"),
    )
    total = round(sum(s.weight for s in signals if s.fired), 4)
    return Score(total=total, threshold=HOLD_THRESHOLD, held=total >= HOLD_THRESHOLD,
                 signals=signals)


__all__ = ["HOLD_THRESHOLD", "WEIGHTS", "Score", "Signal", "score"]
