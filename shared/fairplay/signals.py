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
#: The account-level signal: the mean of the last :data:`RECENT` games' own totals
#: (:attr:`Score.game_total`) at or above
#: :data:`RECENT_MEAN`, over at least :data:`RECENT_MIN` games. A bot that hides each game's
#: worst signal still scores a little every time; a person's totals are mostly 0.
RECENT = 10
RECENT_MIN = 5
RECENT_MEAN = 0.45
#: Solver agreement (shared/fairplay/analysis.py) at or above which a won line is the solver's:
#: solver lines replayed score 0.6–1.0 (most 1.0), the synthetic humans of bench/fairplay.py
#: 0–0.4. Judged over at least :data:`AGREE_MIN` decided samples.
AGREE = 0.6
AGREE_MIN = 5
#: Share of a won game's moves that brought back an earlier position: padding a line with
#: out-and-back shuffles to get over par shows here.
PADDING = 0.05
#: A rated race lost, resigned or timed out after fewer moves than this was thrown: the
#: feeder's side of win trading, and sandbagging (losing on purpose to lower a rating).
THROWN_MOVES = 10
#: One opponent met at least this often in the player's last 20 rated races, with one side
#: of the pair winning at least :data:`PAIR_SHARE` of those races.
PAIR_GAMES = 5
PAIR_SHARE = 0.8

WEIGHTS = {
    "instant_play": 1.0,
    "machine_rhythm": 0.6,
    "fast_first_move": 0.4,
    "at_par": 0.5,
    "new_account": 0.2,
    "reported": 0.3,
    "suspicious_history": 0.6,
    "solver_agreement": 0.6,
    "padding": 0.3,
    "thrown_game": 0.7,
    "same_opponent": 0.3,
}


#: Signals about the account rather than the game: they are left out of the game's own total,
#: the figure the account's history keeps, so that context (a rival met often, reports) does
#: not snowball into ``suspicious_history`` game after game.
ACCOUNT_SIGNALS = frozenset({"new_account", "reported", "suspicious_history", "same_opponent"})


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

    @property
    def game_total(self) -> float:
        """The fired weights of the game's own signals (what the history keeps)."""
        return round(sum(s.weight for s in self.signals
                         if s.fired and s.name not in ACCOUNT_SIGNALS), 4)

    def to_wire(self) -> dict[str, Any]:
        return {"total": self.total, "game_total": self.game_total,
                "threshold": self.threshold, "held": self.held,
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


def score(evidence: dict[str, Any], history: History,
          analysis: dict[str, Any] | None = None) -> Score:
    """Score one game from its :func:`~.evidence.evidence`, the account's history and, once
    the worker pool has run it, the solver's :func:`~.analysis.analyse` of its line."""
    median = evidence["think_median_ms"] if evidence["actions"] >= MIN_ACTIONS else None
    cv = evidence["think_cv"] if len(evidence["think_ms"]) >= MIN_GAPS else None
    first = evidence["first_ms"] if evidence["face_up_at_start"] >= READ_CARDS else None
    recent = history.recent_scores[-RECENT:]
    mean_recent = statistics.fmean(recent) if len(recent) >= RECENT_MIN else None
    new = history.account_age_days < NEW_DAYS and history.ranked_games < NEW_GAMES
    won = bool(evidence["won"])
    agree = None
    padding = None
    if analysis is not None and won:
        decided = analysis["samples"] - analysis["undecided"]
        agree = analysis["agreement"] if decided >= AGREE_MIN else None
        padding = analysis["wasted"] / evidence["moves"] if evidence["moves"] else None
    thrown = evidence["moves"] if evidence["kind"] == "race" and not won else None
    pair = history.pair_share if history.pair_games >= PAIR_GAMES else None
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
        _signal("solver_agreement", agree, AGREE, lambda v: v >= AGREE,
                "won by playing the solver's own move at most sampled positions"),
        _signal("padding", padding, PADDING, lambda v: v >= PADDING,
                "many moves only went back to an earlier position"),
        _signal("thrown_game", thrown, THROWN_MOVES, lambda v: v < THROWN_MOVES,
                "a rated race given up after a handful of moves"),
        _signal("same_opponent", pair, PAIR_SHARE, lambda v: v >= PAIR_SHARE,
                f"one opponent met {PAIR_GAMES}+ times in the last 20 rated races, "
                "one side nearly always winning"),
    )
    total = round(sum(s.weight for s in signals if s.fired), 4)
    return Score(total=total, threshold=HOLD_THRESHOLD, held=total >= HOLD_THRESHOLD,
                 signals=signals)


__all__ = ["ACCOUNT_SIGNALS", "HOLD_THRESHOLD", "WEIGHTS", "Score", "Signal", "score"]
