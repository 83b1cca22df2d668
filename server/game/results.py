"""What a finished race changes beyond itself: all-time stats and Glicko-2 ratings.

Runs once per race, in the process whose store call ended it (the ``finish`` script succeeds
exactly once), so a result is never counted twice.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from solrace.server.fairplay.ratings import log_entry, replay
from solrace.server.fairplay.service import FairPlayService
from solrace.server.game.daily import day_of
from solrace.server.game.races import RaceInfo, RaceService
from solrace.server.store import RaceRecord, Store
from solrace.shared import playerstats
from solrace.shared.ratings import Rating, race_results, rate_race, update
from solrace.shared.rules import options_text

log = logging.getLogger("solrace.results")


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
    """One racer's update, computed when the race ends and stored after it has ended (or,
    while a result of the race is under review, once it is cleared)."""

    pid: str
    before: str | None  # the stored text the update was computed from
    after: str  # the new text
    results: list[tuple[str, Rating, float]]  # opponents' ids, pre-race ratings, my scores

    def wire(self) -> dict[str, Any]:
        return {"pid": self.pid, "before": self.before, "after": self.after,
                "results": [[o, r.rating, r.rd, r.volatility, s] for o, r, s in self.results]}

    @classmethod
    def of(cls, d: dict[str, Any]) -> PendingRating:
        return cls(d["pid"], d["before"], d["after"],
                   [(o, Rating(a, b, c), s) for o, a, b, c, s in d["results"]])


class Results:
    """Stats and ratings of finished races; a rated race's ratings wait while fair play holds
    one of its results, and a ban rebuilds the ratings of everyone the banned player met."""

    def __init__(self, store: Store, races: RaceService,
                 fairplay: FairPlayService | None = None) -> None:
        self.store = store
        self.fairplay = fairplay
        self._pending: dict[str, list[PendingRating]] = {}  # race -> updates to store
        races.annotators.append(self.annotate)
        races.on_finished.append(self.on_finished)
        if fairplay is not None:
            fairplay.on_decided.append(self._cleared)

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
            results = [(pids[j], current[j][0], score) for j, score in pairs[i]]
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
        pending = self._pending.pop(info.rid, [])
        if not pending:
            return
        waiting = await self._held(info, rec, standings) if self.fairplay is not None \
            else set()
        day = day_of(await self.store.server_time_ms())  # the race just ended: today
        for row in standings:  # a rated race is ranked: counted once its result is clear
            if row["player"] not in waiting:
                await self._count_ranked(row["player"], info.variant, info.options, day, row)
        if waiting:
            assert self.fairplay is not None
            await self.store.hold_ratings(info.rid, [p.wire() for p in pending])
            await self.fairplay.start_analyses(info.rid)  # its outcome may release them now
            return
        await self._store_all(info.rid, info.variant, pending)

    async def _count_ranked(self, pid: str, variant: str, options: dict[str, str], day: str,
                            row: dict[str, Any]) -> None:
        """A rated race's clear result in the player's statistics per variant and options and
        in the day's counts (docs/leaderboards.md, "Statistics")."""
        await self.store.game_stats(
            pid, playerstats.config_key(variant, options_text(options)), day,
            row["result"] == "won", int(row["elapsed"]), int(row.get("home") or 0),
            daily=False, keep_from=playerstats.prune_before(day))

    async def _held(self, info: RaceInfo, rec: RaceRecord, standings: list[dict[str, Any]]
                    ) -> set[str]:
        """The racers whose result fair play holds or is still deciding (a screening fault
        holds nothing: it must not cost the racers their rating changes)."""
        assert self.fairplay is not None
        try:
            return await self.fairplay.screen_race(info, rec, standings)
        except Exception:
            log.exception("fair-play screening failed for race %s", info.rid)
            return set()

    async def _store_all(self, rid: str, variant: str, pending: list[PendingRating]) -> None:
        banned = await self.store.banned_players()
        for p in pending:
            if p.pid in banned:
                continue
            p.results = [r for r in p.results if r[0] not in banned]
            if p.results:
                await self._store_rating(p, variant, rid)

    async def _cleared(self, case: dict[str, Any]) -> None:
        """A held result of a rated race was cleared (or removed by a ban): once none of the
        race is held, its rating changes apply (to the ratings as they are now; a banned
        player's games count for no one)."""
        assert self.fairplay is not None
        if case["kind"] != "race":
            return
        if case["status"] == "clear":  # its statistics, as they would have been counted
            await self._count_ranked(case["player"], case["variant"],
                                     case["deal"]["options"], day_of(case["created_at"]),
                                     case["result"])
        if await self.fairplay.race_held(case["race"]):
            return
        held = await self.store.take_held_ratings(case["race"])
        if held:
            await self._store_all(case["race"], case["variant"],
                                  [PendingRating.of(d) for d in held])

    async def _store_rating(self, p: PendingRating, variant: str, rid: str) -> None:
        """Compare-and-set: if another rated race of this player (on any process) stored its
        update since this one was computed, apply this race's results to that newer rating
        instead, so concurrent races never lose an update. The standings keep the figures
        shown at the end of the race. The change goes into the player's rating log."""
        before, after = p.before, p.after
        while not await self.store.set_rating(p.pid, variant, before, after):
            before = (await self.store.ratings([p.pid], variant))[0]
            own, games = parse_rating(before)
            after = rating_text(update(own, [(r, s) for _, r, s in p.results]), games + 1)
        await self.store.log_rating(p.pid, log_entry(rid, variant, before, p.results))

    async def rebuild_opponents(self, pid: str) -> int:
        """After ``pid`` is banned or unbanned: every player it met in a rated race gets the
        rating its own log gives without the games against banned players. Returns how many
        (player, variant) ratings were rebuilt."""
        met = {(o[0], e["variant"]) for e in await self.store.rating_log(pid)
               for o in e["results"]}
        await self.rebuild(met)
        return len(met)

    async def annul(self, rid: str, variant: str, racers: list[str]) -> int:
        """A moderator annulled a rated race: its held changes are dropped, and each racer's
        rating is rebuilt without it. Returns how many ratings were rebuilt."""
        await self.store.take_held_ratings(rid)
        await self.store.annul_race(rid)
        await self.rebuild({(pid, variant) for pid in racers})
        return len(racers)

    async def rebuild(self, ratings: set[tuple[str, str]]) -> None:
        """Each (player, variant) rating as its log gives it now: without the games against
        banned players and without annulled races (compare-and-set, as every rating write)."""
        banned = await self.store.banned_players()
        annulled = await self.store.annulled_races()
        for pid, variant in sorted(ratings):
            entries = [e for e in await self.store.rating_log(pid) if e["variant"] == variant]
            if not entries:
                continue
            rating, games = replay(entries, banned, parse_rating(entries[0]["before"]),
                                   annulled)
            while True:
                current = (await self.store.ratings([pid], variant))[0]
                if await self.store.set_rating(pid, variant, current,
                                               rating_text(rating, games)):
                    break
