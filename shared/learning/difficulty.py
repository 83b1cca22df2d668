"""How hard a certified deal is: easy, medium or hard, from solver effort and players' results.

Why solver effort: a deal is certified by a search, and a deal that search wins in few positions
is one whose winning line is easy to stumble on; a deal it needs thousands of positions for has
few winning lines among many losing ones. ``bench/difficulty.py`` checks that this is what the
practice bots feel: they win the deals rated hard less often (docs/leaderboards.md, "Difficulty").

* **Effort** (:func:`measure`): the positions (nodes) the variant's default search expands
  before its first win, within :data:`RATING_NODES` — a node budget, so the same deal gives the
  same effort on every machine with the same search (docs/solver.md) — and the length of the
  line it found (par). A deal not won within the budget (certified with a larger one) is hard.
* **Work**: ``nodes × par``. Where the search wins most deals in a few dozen nodes (Unlimited)
  the product separates them better than nodes alone: there a longer line is a harder deal.
* **Solver score** (:func:`solver_score`): the work on a log scale through the variant's two
  thresholds (:data:`THRESHOLDS`, the terciles of the work of winnable deals, measured by
  ``bench/difficulty.py --calibrate``): 0 at 1, 1/3 at the easy/medium threshold, 2/3 at the
  medium/hard one, 1 at ten times that. The band of the score is the rating (:func:`band`).
* **Players** (:func:`player_score`), once :data:`MIN_PLAYERS` ranked attempts are in:
  ``0.75·(1 − win rate) + 0.25·slowness``, slowness being the median winning time per move of
  par, 1 s to 5 s mapped to 0 to 1 (no winner: 1).
* **Blend** (:func:`blend`): ``(1 − w)·solver + w·players`` with ``w = n / (n + MIN_PLAYERS)``
  for ``n ≥ MIN_PLAYERS`` attempts (½ at the threshold, 5/6 at 100), the solver score alone
  below it. The rating of a score: easy below 1/3, medium below 2/3, hard from 2/3.

Pure and synchronous; :func:`measure` runs a search (up to seconds of CPU): a worker's job.
"""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass

#: The node budget of the rating search: the pool's and the smaller daily budgets' scale, so a
#: rating costs at most what certifying one candidate does.
RATING_NODES = 20_000
#: Ranked attempts of a deal before players' results enter its rating.
MIN_PLAYERS = 20
#: Median winning time per move of par counted as not slow at all, and as fully slow (ms).
FAST_MS_PER_MOVE, SLOW_MS_PER_MOVE = 1_000, 5_000
PLAYER_WIN_WEIGHT = 0.75  # the rest of the players' score is slowness


class Difficulty(enum.Enum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


DIFFICULTIES = tuple(d.value for d in Difficulty)

#: Per variant, (easy below, hard from): work (nodes × par) at RATING_NODES, the terciles of
#: the work of the winnable deals among seeds 1..300 (Seven by Five: 1..100) with the daily
#: options, ``bench/difficulty.py --calibrate``. A variant not listed uses DEFAULT_THRESHOLDS.
THRESHOLDS: dict[str, tuple[int, int]] = {
    "unlimited": (5_704, 7_514),
    "double-aces-and-kings": (234_415, 573_624),
    "sixes-and-sevens": (29_559, 50_267),
    "forty-and-eight": (2_228_814, 3_180_127),
    "seven-by-five": (187_776, 409_731),
}
DEFAULT_THRESHOLDS = (1_000, 5_000)


@dataclass(frozen=True, slots=True)
class Effort:
    """What the rating search spent on one deal: ``nodes`` until its first win (the budget
    when it found none) and that win's length, ``par`` (None: no win within the budget)."""

    nodes: int
    par: int | None

    @property
    def won(self) -> bool:
        return self.par is not None

    @property
    def work(self) -> int | None:
        """``nodes × par``: positions searched, weighted by the length of the line found
        (None without a win). The product rates better than nodes alone where the search
        wins most deals in a few dozen nodes (Unlimited): there a longer line is harder."""
        return None if self.par is None else max(1, self.nodes) * max(1, self.par)


@dataclass(frozen=True, slots=True)
class Results:
    """Players' ranked results on one deal: attempts, wins and the median winning time."""

    attempts: int
    wins: int
    median_ms: int | None = None  # of the wins; None when nobody won


def measure(variant: str, options: Mapping[str, str] | None, seed: int) -> Effort:
    """The effort of a deal: the variant's default search within :data:`RATING_NODES` nodes
    (deterministic). Seconds of CPU at most: run it off the event loop."""
    from solrace.shared.solver import Budget, solve

    result = solve((variant, dict(options or {}), seed), Budget(nodes=RATING_NODES,
                                                                 seconds=None))
    if not result.won:
        return Effort(RATING_NODES, None)
    return Effort(result.nodes, result.par)


def thresholds(variant: str) -> tuple[int, int]:
    return THRESHOLDS.get(variant, DEFAULT_THRESHOLDS)


def band(variant: str, effort: Effort) -> Difficulty:
    """The rating of the effort alone: easy when its work is below the variant's first
    threshold, hard from its second (or when the rating search found no win), medium
    between."""
    lo, hi = thresholds(variant)
    if effort.work is None or effort.work >= hi:
        return Difficulty.HARD
    return Difficulty.EASY if effort.work < lo else Difficulty.MEDIUM


def solver_score(variant: str, effort: Effort) -> float:
    """0..1 on a log scale of work through (1, 0), (easy, ⅓), (hard, ⅔), (10 × hard, 1);
    kept inside the effort's :func:`band` (so the score and the band never disagree)."""
    if effort.work is None:
        return 1.0
    lo, hi = thresholds(variant)
    points = [(1, 0.0), (lo, 1 / 3), (hi, 2 / 3), (10 * hi, 1.0)]
    n = effort.work
    score = 1.0
    for (n0, s0), (n1, s1) in itertools.pairwise(points):
        if n < n1:
            frac = math.log(n / n0) / math.log(n1 / n0) if n1 > n0 else 0.0
            score = s0 + (s1 - s0) * frac
            break
    level = band(variant, effort)
    floor = {Difficulty.EASY: 0.0, Difficulty.MEDIUM: 1 / 3, Difficulty.HARD: 2 / 3}[level]
    ceiling = 1.0 if level is Difficulty.HARD else floor + 1 / 3 - 1e-9
    return min(max(score, floor), ceiling)


def player_score(results: Results, par: int | None) -> float | None:
    """0..1 from the players' results (None below :data:`MIN_PLAYERS` attempts)."""
    if results.attempts < MIN_PLAYERS:
        return None
    loss = 1 - min(results.wins, results.attempts) / results.attempts
    if results.median_ms is None or not results.wins:
        slow = 1.0
    else:
        per_move = results.median_ms / max(1, par or 1)
        slow = (per_move - FAST_MS_PER_MOVE) / (SLOW_MS_PER_MOVE - FAST_MS_PER_MOVE)
        slow = min(1.0, max(0.0, slow))
    return PLAYER_WIN_WEIGHT * loss + (1 - PLAYER_WIN_WEIGHT) * slow


def blend(solver: float, players: float | None, attempts: int) -> float:
    """The solver's score, moved towards the players' once enough of them have played."""
    if players is None or attempts < MIN_PLAYERS:
        return solver
    w = attempts / (attempts + MIN_PLAYERS)
    return (1 - w) * solver + w * players


def of_score(score: float) -> Difficulty:
    if score < 1 / 3:
        return Difficulty.EASY
    return Difficulty.MEDIUM if score < 2 / 3 else Difficulty.HARD


def rate(variant: str, effort: Effort, results: Results | None = None) -> Difficulty:
    """The deal's difficulty: from the effort alone, or blended with players' results."""
    players = None if results is None else player_score(results, effort.par)
    if results is None or players is None:
        return band(variant, effort)
    return of_score(blend(solver_score(variant, effort), players, results.attempts))
