"""What a finished race changes beyond itself: all-time stats and Glicko-2 ratings.

Runs once per race, in the process whose store call ended it (the ``finish`` script succeeds
exactly once), so a result is never counted twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solrace.server.races import RaceInfo, RaceService
from solrace.server.store import RaceRecord, Store
from solrace.shared.ratings import Rating, race_results, rate_race, update


def rating_text(r: Rating, games: int) -> str:
    return f"{r.rating:.3f},{r.rd:.3f},{r.volatility:.6f},{games}"


def parse_rating(text: str | None) -> tuple[Rating, int]:
    if not text:
        return Rating(), 0
    r, rd, vol, games = text.split(",")
    return Rating(float(r), float(rd), float(vol)), int(games)


def rating_view(text: str | None) -> dict[str, Any]:
    r, games = parse_rating(text)
    return {"rating": round(r.rating), "rd": round(r.rd), "volatility": round(r.volatility, 6),
            "games": games, "provisional": r.provisional}


@dataclass
class PendingRating:
    """One racer's update, computed when the race ends and stored after it has ended."""

    pid: str
    before: str | None  # the stored text the update was computed from
    after: str  # the new text
    results: list[tuple[Rating, float]]  # opponents' pre-race ratings and this racer's scores


class Results:
    def __init__(self, store: Store, races: RaceService) -> None:
        self.store = store
        self._pending: dict[str, list[PendingRating]] = {}  # race -> updates to store
        races.annotators.append(self.annotate)
        races.on_finished.append(self.on_finished)

    async def annotate(self, info: RaceInfo, standings: list[dict[str, Any]]) -> None:
        """Rated races: each standing shows the rating before and after this race."""
        if not (info.rated and info.kind == "race" and len(standings) > 1):
            return
        pids = [row["player"] for row in standings]
        stored = await self.store.ratings(pids, info.variant)
        current = [parse_rating(t) for t in stored]
        ranks = [row["rank"] for row in standings]
        new = rate_race([r for r, _ in current], ranks)
        pairs = race_results(ranks)
        pending = []
        for i, (row, (old, games), r) in enumerate(zip(standings, current, new)):
            row["rating"] = {"before": round(old.rating), "after": round(r.rating),
                             "rd": round(r.rd), "provisional": r.provisional}
            results = [(current[j][0], score) for j, score in pairs[i]]
            pending.append(PendingRating(row["player"], stored[i], rating_text(r, games + 1),
                                         results))
        self._pending[info.rid] = pending

    async def on_finished(self, info: RaceInfo, rec: RaceRecord,
                          standings: list[dict[str, Any]]) -> None:
        if info.kind in ("practice", "daily"):  # a daily's stats wait for its review (daily.py)
            return
        multi = len(standings) > 1
        for row in standings:
            if info.kind == "race":  # every racer's finished race counts, won or not
                await self.store.race_played(row["player"], info.variant)
            won = row["result"] == "won"
            if won or (multi and row["rank"] == 1):
                await self.store.win_stats(row["player"], info.variant, won,
                                           multi and won and row["rank"] == 1, row["elapsed"])
        for p in self._pending.pop(info.rid, ()):
            await self._store_rating(p, info.variant)

    async def _store_rating(self, p: PendingRating, variant: str) -> None:
        """Compare-and-set: if another rated race of this player (on any process) stored its
        update since this one was computed, apply this race's results to that newer rating
        instead, so concurrent races never lose an update. The standings keep the figures
        shown at the end of the race."""
        before, after = p.before, p.after
        while not await self.store.set_rating(p.pid, variant, before, after):
            before = (await self.store.ratings([p.pid], variant))[0]
            own, games = parse_rating(before)
            after = rating_text(update(own, p.results), games + 1)
