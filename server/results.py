"""What a finished race changes beyond itself: all-time stats and Glicko-2 ratings.

Runs once per race, in the process whose store call ended it (the ``finish`` script succeeds
exactly once), so a result is never counted twice.
"""

from __future__ import annotations

from typing import Any

from solrace.server.races import RaceInfo, RaceService
from solrace.server.store import RaceRecord, Store
from solrace.shared.ratings import Rating, rate_race


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


class Results:
    def __init__(self, store: Store, races: RaceService) -> None:
        self.store = store
        self._pending: dict[str, dict[str, str]] = {}  # race -> new rating texts to store
        races.annotators.append(self.annotate)
        races.on_finished.append(self.on_finished)

    async def annotate(self, info: RaceInfo, standings: list[dict[str, Any]]) -> None:
        """Rated races: each standing shows the rating before and after this race."""
        if not (info.rated and info.kind == "race" and len(standings) > 1):
            return
        pids = [row["player"] for row in standings]
        current = [parse_rating(t) for t in await self.store.ratings(pids, info.variant)]
        new = rate_race([r for r, _ in current], [row["rank"] for row in standings])
        texts = {}
        for row, (old, games), r in zip(standings, current, new):
            row["rating"] = {"before": round(old.rating), "after": round(r.rating),
                             "rd": round(r.rd), "provisional": r.provisional}
            texts[row["player"]] = rating_text(r, games + 1)
        self._pending[info.rid] = texts

    async def on_finished(self, info: RaceInfo, rec: RaceRecord,
                          standings: list[dict[str, Any]]) -> None:
        if info.kind == "practice":
            return
        multi = len(standings) > 1
        for row in standings:
            won = row["result"] == "won"
            if won or (multi and row["rank"] == 1):
                await self.store.win_stats(row["player"], info.variant, won,
                                           multi and won and row["rank"] == 1, row["elapsed"])
        texts = self._pending.pop(info.rid, None)
        if texts:
            await self.store.set_ratings(texts, info.variant)
