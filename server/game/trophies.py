"""Trophies (docs/tournaments.md, "Trophies"): a public tournament's podium, awarded once its
results are final, and each player's best arena score.

A tournament is made **final** by a sweep that every process runs (:meth:`TrophyService.sweep`,
every minute): once it is finished, and no entrant has a held deal that could, if cleared,
reach the podium. Then the first three places with a result (an arena: points; an event: a
deal won) of a public tournament of at least :data:`MIN_ENTRANTS` entrants get a trophy, and
every arena entrant's score may raise their best. A private tournament awards nothing: a
player could make one alone and win it.

A ban (or unban) changes the standings of every tournament the player entered: those already
final are reopened — their trophies taken back, the tournament pending again — and the next
sweep awards the places as they now stand. The writes are idempotent (members and maxima),
so a sweep that dies half-way awards nothing twice when it runs again.
"""

from __future__ import annotations

import logging
from typing import Any

from solrace.server.game.arenarules import deal_result, state_at, totals
from solrace.server.store import Store
from solrace.server.store.trophies import Trophy
from solrace.shared.tournaments import machine

log = logging.getLogger("solrace.trophies")

PODIUM = 3
MIN_ENTRANTS = 5  # fewer: no trophies (a podium of a near-empty tournament is no feat)
SWEEP_LIMIT = 50  # tournaments looked at per sweep
RECENT = 10  # trophies a profile lists
WAITING = frozenset({"held", "pending"})  # a deal's review still open
F, S = machine.Format, machine.TournamentState


def _stat(stat: str) -> tuple[int, int]:
    points, won = stat.split("|")[:2]
    return int(points), int(won)


def qualifies(fmt: str, stat: str) -> bool:
    """Whether a standings row has a result worth a place: points in an arena, a deal won in
    an event."""
    points, won = _stat(stat)
    return points > 0 if fmt == F.ARENA else won > 0


class TrophyService:
    """Make finished public tournaments final, award their podiums, keep best arena scores."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def sweep(self) -> list[str]:
        """Make final every pending tournament that can be; the ids made final."""
        now = await self.store.server_time_ms()
        made = []
        for tid in await self.store.trophies.pending(now, SWEEP_LIMIT):
            if await self.finalize(tid, now):
                made.append(tid)
        return made

    async def finalize(self, tid: str, now: int) -> bool:
        """Award ``tid``'s podium and best scores if its results are final now."""
        ts, tr = self.store.tournaments, self.store.trophies
        meta = await ts.meta(tid)
        if meta is None or meta.get("final") == "1":
            await tr.done(tid)
            return False
        if state_at(meta, now) is not S.FINISHED:
            return False
        fmt = meta["format"]
        if fmt not in (F.ARENA, F.EVENT):  # places of other formats are not trophies yet
            await tr.done(tid)
            return False
        _, n, _, rows = await ts.standings(tid, None, max(1, int(meta.get("entrants", 0))), 0)
        every = await ts.all_results(tid, [pid for _, pid, _, _ in rows])
        podium = [row for row in rows if qualifies(fmt, row[3])][:PODIUM]
        if self._may_change(meta, podium, every):
            return False  # a held deal could still move the podium: look again later
        ended = int(meta["ends_at"])
        awarded = []
        if n >= MIN_ENTRANTS and meta.get("private") != "1":
            for place, (_, pid, _name, _) in enumerate(podium, 1):
                await tr.award(pid, Trophy(tid, place, fmt, meta["name"], ended))
                awarded.append(pid)
            if fmt == F.ARENA:
                for _, pid, _, stat in rows:
                    points, _ = _stat(stat)
                    if points > 0:
                        await tr.raise_best(pid, points, tid, meta["name"], ended)
        await ts.mark_final(tid, awarded)
        await tr.done(tid)
        log.info("tournament %s final: podium %s", tid, awarded or "none")
        return True

    @staticmethod
    def _may_change(meta: dict[str, str], podium: list[tuple[int, str, str, str]],
                    every: dict[str, list[dict[str, Any]]]) -> bool:
        """Whether an entrant's held deal, if cleared, could change the podium: a podium
        player's own held deal, or anyone's whose cleared totals would rank at or above the
        last podium place (or fill an empty one)."""
        on_podium = {pid for _, pid, _, _ in podium}
        last = None
        if len(podium) == PODIUM:
            last = totals(every[podium[-1][1]], meta).score
        for pid, results in every.items():
            held = [r for r in results if r.get("review") in WAITING]
            if not held:
                continue
            if pid in on_podium or last is None:
                return True
            cleared = [{**r, "review": "clear"} if r.get("review") in WAITING else r
                       for r in results]
            if any(deal_result(r).won for r in cleared) and totals(cleared, meta).score <= last:
                return True
        return False

    async def on_ban(self, pid: str, banned: bool) -> int:
        """A ban or an unban reopens every final tournament the player entered (the sweep
        awards them again as they now stand); a ban also forgets their best score."""
        ts, tr = self.store.tournaments, self.store.trophies
        if banned:
            await tr.forget_best(pid)
        for tid in await ts.entered(pid):
            meta = await ts.meta(tid)
            if meta is None or meta.get("final") != "1":
                continue
            for holder in filter(None, meta.get("podium", "").split(",")):
                await tr.revoke(holder, tid)
            await ts.reopen(tid)
            await tr.add_pending(tid, int(meta["ends_at"]))
        return 0

    async def of(self, pid: str) -> dict[str, Any]:
        """A profile's trophies: counts by place, the latest few, the best arena score."""
        won, best = await self.store.trophies.of(pid)
        counts = {"first": 0, "second": 0, "third": 0}
        for t in won:
            counts[("first", "second", "third")[t.place - 1]] += 1
        return {
            **counts,
            "recent": [{"tournament": t.tournament, "name": t.name, "format": t.format,
                        "place": t.place, "ended_at": t.ended_at} for t in won[:RECENT]],
            "best_arena": {"points": int(best["points"]), "tournament": best["tournament"],
                           "name": best["name"], "at": int(best["at"])} if best else None,
        }
