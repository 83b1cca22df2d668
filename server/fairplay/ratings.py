"""Ratings that fair play can hold back, and rebuild without a banned player's games.

Why a log: a Glicko-2 update cannot be subtracted, so undoing what a banned account did to its
opponents means rebuilding each opponent's rating from its own history without the games
against banned players. Every applied rating change is logged per player (the race, the
variant, the rating it started from and each opponent's pre-race rating and score); a rebuild
replays the log from its first entry's starting rating, so ratings from before the log existed
are kept, not reset.
"""

from __future__ import annotations

from typing import Any

from solrace.shared.ratings import Rating, update


def log_entry(rid: str, variant: str, before: str | None,
              results: list[tuple[str, Rating, float]]) -> dict[str, Any]:
    """One applied rating change: what a rebuild needs (opponent id, rating, rd, volatility,
    score per opponent)."""
    return {"race": rid, "variant": variant, "before": before,
            "results": [[pid, r.rating, r.rd, r.volatility, score]
                        for pid, r, score in results]}


def replay(entries: list[dict[str, Any]], excluded: set[str],
           start: tuple[Rating, int] = (Rating(), 0),
           annulled: frozenset[str] | set[str] = frozenset()) -> tuple[Rating, int]:
    """The rating (and rated games) that ``entries`` — one player's log for one variant, in
    order — give from ``start`` without the results against ``excluded`` players and without
    the ``annulled`` races; a race left with no result does not count."""
    rating, games = start
    for e in entries:
        if e["race"] in annulled:
            continue
        results = [(Rating(o[1], o[2], o[3]), float(o[4])) for o in e["results"]
                   if o[0] not in excluded]
        if results:
            rating, games = update(rating, results), games + 1
    return rating, games


__all__ = ["log_entry", "replay"]
