"""An arena's scoring (docs/tournaments.md, "Arena"): points per deal, streaks, berserk, and
the standings with their tie-breaks. Pure: the server feeds it the deals' results; a player
or a third party can recompute any standings from the published results.

The rules, as the doc states them for players:

* A deal **won** scores ``WIN`` (4) points, +1 if won within half its time limit (a fast win),
  +1 if the entrant went **berserk** on it (half the time limit, chosen before the first
  move).
* A deal **not won** (time up, resigned, or no move left) scores
  ``floor(PROGRESS × cards brought home / cards to bring home)``: 0, 1 or 2 points for how far
  the entrant got. "Cards brought home" is the most the entrant ever had on the foundations
  during the deal, beyond those the deal put there itself — so playing on never lowers it.
* **Streak**: once an entrant has won two deals in a row, every further win in a row scores
  double (the fast and berserk bonuses included), until a deal is not won.
* A deal ends when it is won, when no move is left, or at its time limit; the next deal is
  dealt at once after a win or a stuck game, but after a **resignation** only when the
  resigned deal's time limit would have run out. So resigning early is never better than
  playing on: it cannot score more (the cards home only grow), cannot keep a streak, and
  does not bring the next deal sooner.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

WIN = 4
FAST_BONUS = 1
BERSERK_BONUS = 1
PROGRESS = 3
STREAK_AFTER = 2  # wins in a row before wins score double
MIN_WINDOW_MIN, MAX_WINDOW_MIN = 10, 120


def late_entry_cutoff(start_ms: int, window_ms: int) -> int:
    """The last moment to enter a running arena: two thirds of its window."""
    return start_ms + window_ms * 2 // 3


@dataclass(frozen=True, slots=True)
class DealResult:
    """One entrant's result on one deal of an arena.

    ``limit_ms``: the deal's time limit as played (halved by berserk); ``elapsed_ms``: from
    the deal's start to its end; ``best_home``: the most cards the entrant had home at any
    point; ``dealt_home``: cards the deal put home itself; ``total``: cards in the deal;
    ``ended_at``: when the deal ended (ms, the server's clock) — for the tie-break."""

    k: int
    won: bool
    elapsed_ms: int
    limit_ms: int
    best_home: int
    dealt_home: int
    total: int
    berserk: bool = False
    resigned: bool = False
    ended_at: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.dealt_home <= self.best_home <= self.total or self.total <= 0:
            raise ValueError(f"deal {self.k}: cards home out of range")
        if self.won and self.best_home != self.total:
            raise ValueError(f"deal {self.k}: a won deal has every card home")
        if self.won and self.resigned:
            raise ValueError(f"deal {self.k}: won and resigned")
        if self.limit_ms <= 0 or self.elapsed_ms < 0:
            raise ValueError(f"deal {self.k}: bad times")


def base_points(r: DealResult) -> int:
    """A deal's points before the streak doubles them."""
    if r.won:
        fast = FAST_BONUS if 2 * r.elapsed_ms <= r.limit_ms else 0
        return WIN + fast + (BERSERK_BONUS if r.berserk else 0)
    brought, to_bring = r.best_home - r.dealt_home, r.total - r.dealt_home
    return PROGRESS * brought // to_bring if to_bring else 0


def deal_points(results: Sequence[DealResult]) -> list[int]:
    """Each deal's points, in the order played (the streak depends on the order)."""
    points, run = [], 0
    for r in results:
        p = base_points(r)
        if r.won:
            points.append(2 * p if run >= STREAK_AFTER else p)
            run += 1
        else:
            points.append(p)
            run = 0
    return points


def on_fire(results: Sequence[DealResult]) -> bool:
    """Whether the entrant's next win scores double (shown as a flame)."""
    run = 0
    for r in results:
        run = run + 1 if r.won else 0
    return run >= STREAK_AFTER


def next_deal_at(r: DealResult, started_at: int) -> int:
    """When the entrant's next deal may start (ms): at once after a win or a stuck game, at
    the end of the resigned deal's time limit after a resignation."""
    if r.resigned:
        return started_at + r.limit_ms
    return started_at + min(r.elapsed_ms, r.limit_ms)


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the standings. ``reached_at``: when the entrant reached their final points
    (the end of the last deal that scored); ``joined``: entry order, the last tie-break."""

    rank: int
    player: str
    points: int
    played: int
    won: int
    fire: bool
    reached_at: int
    joined: int


def standings(entrants: Iterable[tuple[str, int, Sequence[DealResult]]]) -> list[Row]:
    """The arena's standings from ``(player, joined, results in order)`` per entrant: most
    points first; then most deals won; then who reached their points first; then who joined
    first. Every entrant has a rank of their own (the order is total)."""
    rows = []
    for player, joined, results in entrants:
        points = deal_points(results)
        scored = [r.ended_at for r, p in zip(results, points) if p > 0]
        rows.append((player, joined, sum(points), len(results),
                     sum(1 for r in results if r.won), on_fire(results),
                     max(scored) if scored else 0))
    rows.sort(key=lambda t: (-t[2], -t[4], t[6], t[1], t[0]))
    return [Row(rank, player, points, played, won, fire, reached, joined)
            for rank, (player, joined, points, played, won, fire, reached)
            in enumerate(rows, 1)]
