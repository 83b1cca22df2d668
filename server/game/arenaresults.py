"""An arena's or event's results: each deal's result recorded when its race ends (screened
by fair play first), a moderator's decision on a held deal, a ban's removal of every point —
each time with the entrant's new totals, in one script (docs/tournaments.md).

The end hook (:meth:`ArenaResults.on_finished`) may not run (the process died) or may lag
behind the entrant's next request: :meth:`ArenaResults.settle` and the arena's ``play`` record
a finished deal then, idempotently, so no finished deal is lost or counted twice.
"""

from __future__ import annotations

import logging
from typing import Any

from solrace.server.fairplay.service import FairPlayService
from solrace.server.game.arenarules import KIND, totals
from solrace.server.game.lifecycle import is_over
from solrace.server.game.racemodel import dealt_home, standings
from solrace.server.game.races import RaceInfo, RaceService
from solrace.server.store import RaceRecord, Store
from solrace.shared.engine import Game
from solrace.shared.protocol import ProtocolError

log = logging.getLogger("solrace.arena")


class ArenaResults:
    """Record deal results, apply reviews and bans, with the entrant's totals each time."""

    def __init__(self, store: Store, races: RaceService,
                 fairplay: FairPlayService | None = None) -> None:
        self.store = store
        self.races = races
        self.fairplay = fairplay

    @property
    def ts(self) -> Any:
        return self.store.tournaments

    async def _meta(self, tid: str) -> dict[str, str]:
        meta = await self.ts.meta(tid)
        if meta is None:
            raise ProtocolError("tournament_not_found", f"no tournament {tid!r}")
        return meta


    async def on_finished(self, info: RaceInfo, rec: RaceRecord,
                          standings: list[dict[str, Any]]) -> None:
        if info.kind != KIND or not standings:
            return
        await self._record(info, rec, standings[0])

    async def settle(self, tid: str, pid: str) -> None:
        """Record the entrant's current deal if it is over and not recorded yet: its race's
        end hook runs concurrently with the entrant's next request, and an entrant who asks
        for the standings right after their deal must find it counted."""
        cur = await self.ts.current(tid, pid)
        if cur is None:
            return
        rid, k, _, _ = cur
        stored, _ = await self.ts.results(tid, pid)
        if len(stored) >= k:
            return
        rec = await self.store.read_race(rid)
        if rec is not None and is_over(rec.state):
            await self.record_race(rid, rec)

    async def record_race(self, rid: str, rec: RaceRecord) -> None:
        """Record a finished deal race whose hook may not have run (idempotent)."""
        info = await self.races.info(rid)
        rows = standings(rec, dealt_home(info))
        if rows:
            await self._record(info, rec, rows[0])

    async def _record(self, info: RaceInfo, rec: RaceRecord, row: dict[str, Any]) -> None:
        tid, k, pid = rec.meta["tournament"], int(rec.meta["deal"]), row["player"]
        stored, _ = await self.ts.results(tid, pid)
        if len(stored) >= k:
            return
        game = Game(info.variant, info.options, info.seed)
        dealt = best = game.cards_home
        for text in await self.store.read_log(info.rid, pid):
            game.push(text)
            best = max(best, game.cards_home)
        review = "clear"
        if self.fairplay is not None and row["result"] == "won":
            try:
                review = await self.fairplay.screen_tournament(info, rec, row)
            except Exception:  # a screening fault must not lose the entrant's result
                log.exception("fair-play screening failed for arena deal %s", info.rid)
        elapsed = int(row["elapsed"])
        result = {
            "k": k, "race": info.rid, "won": row["result"] == "won", "elapsed": elapsed,
            "limit": info.time_limit * 1000, "best_home": best if row["result"] != "won"
            else game.total_cards, "dealt_home": dealt, "total": game.total_cards,
            "berserk": rec.meta.get("berserk") == "1", "resigned": row["result"] == "resigned",
            "ended_at": rec.num("started_at") + elapsed, "review": review,
        }
        meta = await self._meta(tid)
        for _ in range(10):
            stored, rev = await self.ts.results(tid, pid)
            if len(stored) >= k:
                return
            status = await self.ts.record(tid, pid, k, result, totals([*stored, result], meta),
                                          rev, "append")
            if status != "stale":
                if status not in ("ok", "dup"):
                    log.warning("arena %s deal %d of %s not recorded: %s", tid, k, pid, status)
                return
        log.warning("arena %s deal %d of %s: results kept changing", tid, k, pid)

    async def decided(self, case: dict[str, Any]) -> None:
        """A moderator decided a held arena deal: its result counts (clear) or stays at
        nothing (removed), and the entrant's totals are recomputed."""
        if case.get("kind") != KIND:
            return
        rec = await self.store.read_race(case["race"])
        if rec is None or "tournament" not in rec.meta:
            return
        tid, k, pid = rec.meta["tournament"], int(rec.meta["deal"]), case["player"]
        meta = await self._meta(tid)
        for _ in range(10):
            stored, rev = await self.ts.results(tid, pid)
            if len(stored) < k:
                return
            stored[k - 1] = {**stored[k - 1], "review": case["status"]}
            status = await self.ts.record(tid, pid, k, stored[k - 1], totals(stored, meta),
                                          rev, "set")
            if status != "stale":
                return

    async def ban(self, pid: str, banned: bool) -> int:
        """A ban takes every point of the player in every tournament they entered (their
        deals stay recorded, counting nothing); an unban gives them back. Returns how many
        tournaments changed."""
        changed = 0
        for tid in await self.ts.entered(pid):
            meta = await self.ts.meta(tid)
            if meta is None:
                continue
            for _ in range(10):
                stored, rev = await self.ts.results(tid, pid)
                if not stored:
                    break
                every = [{**r, "banned": banned} for r in stored]
                status = await self.ts.record(tid, pid, len(every), every[-1],
                                              totals(every, meta), rev, "all", every)
                if status != "stale":
                    changed += status == "ok"
                    break
        return changed
