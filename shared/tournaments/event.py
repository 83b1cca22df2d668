"""A scheduled event's ranking (docs/tournaments.md, "Scheduled event"): K deals (1–5),
everyone starting together; ranked by deals won, then total time, then cards home.

An entrant plays the deals in order, each within the event's deal time limit. "Total time"
adds, per deal, the time to win it — or the whole time limit for a deal not won (so a deal
abandoned early saves no time) — and a deal never reached counts its whole limit too.
"Cards home" adds the most cards each deal ever had on the foundations beyond those it was
dealt with. Results are final when the last entrant has finished or the time is up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from solrace.shared.tournaments.arena import DealResult

MIN_DEALS, MAX_DEALS = 1, 5


@dataclass(frozen=True, slots=True)
class EventRow:
    rank: int
    player: str
    won: int
    time_ms: int
    home: int
    played: int
    joined: int


def total_time(results: Sequence[DealResult], deals: int, limit_ms: int) -> int:
    """Time to win each deal won; the whole limit for every other deal of the ``deals``."""
    won = [r.elapsed_ms for r in results[:deals] if r.won]
    return sum(won) + (deals - len(won)) * limit_ms


def ranking(entrants: Iterable[tuple[str, int, Sequence[DealResult]]], deals: int,
            limit_ms: int) -> list[EventRow]:
    """The event's ranking from ``(player, joined, results in order)``: most deals won, then
    least total time, then most cards home, then entry order."""
    if not MIN_DEALS <= deals <= MAX_DEALS:
        raise ValueError(f"an event has {MIN_DEALS}..{MAX_DEALS} deals, not {deals}")
    rows = []
    for player, joined, results in entrants:
        played = list(results)[:deals]
        rows.append((player, joined, sum(1 for r in played if r.won),
                     total_time(played, deals, limit_ms),
                     sum(r.best_home - r.dealt_home for r in played), len(played)))
    rows.sort(key=lambda t: (-t[2], t[3], -t[4], t[1], t[0]))
    return [EventRow(rank, player, won, time_ms, home, played, joined)
            for rank, (player, joined, won, time_ms, home, played) in enumerate(rows, 1)]
