"""A knockout's bracket (docs/tournaments.md, "Knockout"): 8 to 64 entrants seeded by rating,
a head-to-head race per match on a fresh shared deal, winners advance.

* **Seeding**: by rating, highest first (a lower rating deviation first on equal ratings,
  then entry order). The bracket has the next power of two of slots; seed *s* meets seed
  *size + 1 − s* in the first round, and the slots are laid out so that seeds 1 and 2 can
  meet only in the final (the usual tennis layout).
* **Byes**: the empty slots belong to the lowest seeds' opponents, so the top seeds advance
  from the first round without playing.
* **No-shows**: an entrant who is not ready when the match's start window closes loses by
  walkover; if neither is ready, the higher seed advances (a bracket never has a hole).
* **The winner** of a played match is the race's first in its standings (docs/protocol.md,
  section 11); if the standings cannot separate them (neither won, same cards home, same
  time of last progress, same moves), the higher seed advances.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MIN_ENTRANTS, MAX_ENTRANTS = 8, 64


@dataclass(frozen=True, slots=True)
class Seeded:
    seed: int  # 1 = the highest rated
    player: str


def seed_order(entrants: Sequence[tuple[str, float, float, int]]) -> list[Seeded]:
    """``(player, rating, deviation, joined)`` per entrant, as seeds 1, 2, …"""
    order = sorted(entrants, key=lambda e: (-e[1], e[2], e[3], e[0]))
    return [Seeded(i, e[0]) for i, e in enumerate(order, 1)]


def bracket_size(n: int) -> int:
    if not MIN_ENTRANTS <= n <= MAX_ENTRANTS:
        raise ValueError(f"a knockout takes {MIN_ENTRANTS}..{MAX_ENTRANTS} entrants, not {n}")
    size = 1
    while size < n:
        size *= 2
    return size


def slot_seeds(size: int) -> list[int]:
    """The seed in each slot of the first round, top to bottom: slots 2i and 2i+1 meet.
    Built by doubling: each seed s of the smaller bracket is followed by size + 1 − s."""
    seeds = [1]
    while len(seeds) < size:
        n = 2 * len(seeds)
        seeds = [x for s in seeds for x in (s, n + 1 - s)]
    return seeds


@dataclass(frozen=True, slots=True)
class Match:
    """A match of round ``round`` (1 = first) at position ``index``; ``high``/``low`` the
    higher and lower seed (None: a bye, or not decided yet)."""

    round: int
    index: int
    high: Seeded | None
    low: Seeded | None


def first_round(seeds: Sequence[Seeded]) -> list[Match]:
    """The first round's matches; a seed above the number of entrants is a bye (None)."""
    size = bracket_size(len(seeds))
    by_seed = {s.seed: s for s in seeds}
    slots = slot_seeds(size)
    out = []
    for i in range(0, size, 2):
        a, b = by_seed.get(slots[i]), by_seed.get(slots[i + 1])
        high, low = (a, b) if b is None or (a is not None and a.seed < b.seed) else (b, a)
        out.append(Match(1, i // 2, high, low))
    return out


def winner(match: Match, high_ready: bool, low_ready: bool,
           race_first: str | None, separated: bool) -> Seeded:
    """Who advances from ``match``: a bye's only entrant; a walkover for the only one ready;
    the higher seed if neither was ready; else the race's first (``race_first``: the player
    first in the race's standings; ``separated``: whether the standings told them apart)."""
    high, low = match.high, match.low
    if high is None or low is None:
        only = high or low
        if only is None:
            raise ValueError("a match with nobody in it")
        return only
    if high_ready != low_ready:
        return high if high_ready else low
    if not high_ready:
        return high
    if not separated or race_first is None:
        return high
    if race_first not in (high.player, low.player):
        raise ValueError(f"{race_first} is not in this match")
    return high if race_first == high.player else low


def next_round(round_no: int, winners: Sequence[Seeded]) -> list[Match]:
    """The matches of round ``round_no + 1`` from the winners of round ``round_no``, in match
    order (match i's winner meets match i+1's, i even)."""
    if len(winners) < 2 or len(winners) % 2:
        raise ValueError("a round needs an even number of winners, at least two")
    out = []
    for i in range(0, len(winners), 2):
        a, b = winners[i], winners[i + 1]
        high, low = (a, b) if a.seed < b.seed else (b, a)
        out.append(Match(round_no + 1, i // 2, high, low))
    return out


def rounds(n: int) -> int:
    """How many rounds a bracket of ``n`` entrants has."""
    return bracket_size(n).bit_length() - 1
