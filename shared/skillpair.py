"""Pairing by skill: which waiting player a quick-pair request is matched with. Pure.

A player who asks for a quick race is matched with the waiting player whose rating is
closest, among those inside the **window**: the largest rating gap accepted between two
players, which grows with both players' Glicko-2 deviations (an uncertain rating may be far
from the truth) and with how long the waiting player has waited::

    window = BASE_GAP + RD_WEIGHT * sqrt(rd_a² + rd_b²) + WIDEN_PER_S * wait_seconds

Once a waiting player has waited :data:`MAX_WAIT_S` the window is unbounded: any rival is
accepted. Ties (equal gap) go to whoever has waited longest. Guests and players without a
rating in the variant count as :data:`~solrace.shared.ratings.DEFAULT_RATING` with the
largest deviation, :data:`~solrace.shared.ratings.DEFAULT_RD`, so their window is wide.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from solrace.shared.ratings import DEFAULT_RATING, DEFAULT_RD

BASE_GAP = 50.0  # rating points accepted between two players whose ratings are exact
RD_WEIGHT = 0.5  # of the combined deviation sqrt(rd_a² + rd_b²)
WIDEN_PER_S = 10.0  # rating points added per second the waiting player has waited
MAX_WAIT_S = 60.0  # after this wait, any rival is accepted


@dataclass(frozen=True, slots=True)
class Seeker:
    """A player in a queue: rating and deviation in the variant, and since when they wait
    (seconds, on any clock shared by the callers)."""

    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    since: float = 0.0


def window(wait_seconds: float, rd_a: float, rd_b: float) -> float:
    """The largest rating gap accepted after ``wait_seconds`` of waiting (``inf`` from
    :data:`MAX_WAIT_S` on)."""
    wait = max(0.0, wait_seconds)
    if wait >= MAX_WAIT_S:
        return math.inf
    return BASE_GAP + RD_WEIGHT * math.hypot(rd_a, rd_b) + WIDEN_PER_S * wait


def acceptable(me: Seeker, other: Seeker, now: float) -> bool:
    """Whether ``me`` (arriving at ``now``) may be paired with ``other`` (waiting)."""
    gap = abs(me.rating - other.rating)
    return gap <= window(now - other.since, me.rd, other.rd)


def choose(me: Seeker, waiting: Sequence[Seeker], now: float) -> int | None:
    """The index in ``waiting`` (oldest first) of ``me``'s rival: the smallest rating gap
    among the acceptable ones, the longest-waiting on a tie; None when nobody is."""
    best: int | None = None
    best_gap = math.inf
    for i, other in enumerate(waiting):
        if not acceptable(me, other, now):
            continue
        gap = abs(me.rating - other.rating)
        if best is None or gap < best_gap or (gap == best_gap and
                                              other.since < waiting[best].since):
            best, best_gap = i, gap
    return best


def choose_while_waiting(me: Seeker, others: Sequence[Seeker], now: float) -> int | None:
    """:func:`choose` for a player who is waiting too (the re-check of a waiting player): the
    window counts the longer of the two waits, so two players who both wait are paired once
    either has waited long enough — at the latest after :data:`MAX_WAIT_S`."""
    best: int | None = None
    best_gap = math.inf
    for i, other in enumerate(others):
        gap = abs(me.rating - other.rating)
        if gap > window(now - min(me.since, other.since), me.rd, other.rd):
            continue
        if best is None or gap < best_gap or (gap == best_gap and
                                              other.since < others[best].since):
            best, best_gap = i, gap
    return best


def first_come(me: Seeker, waiting: Sequence[Seeker], now: float) -> int | None:
    """The rule without skill (for comparison in bench/pairing.py): the first waiting."""
    return 0 if waiting else None
