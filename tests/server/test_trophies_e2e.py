"""Trophies end to end (docs/tournaments.md, "Trophies"): a finished public arena becomes
final only once no held deal could move its podium; its podium players get trophies and its
entrants a best arena score on their profiles; a ban reopens it and the places are awarded
again as the standings now stand; a private arena awards nothing — real server, real Redis
(single and cluster)."""

from __future__ import annotations

from typing import Any

import harness
from solrace.server.game.arenarules import totals
from test_arena_e2e import _result

VARIANT, OPTIONS = "seven-by-five", {"cells": "5", "empty_fill": "any"}
NAMES = ("ann", "ben", "cat", "dan", "eve")
BACKENDS = ("single", "cluster")


async def _record(ts: Any, tid: str, pid: str, result: dict[str, Any]) -> None:
    stored, rev = await ts.results(tid, pid)
    result = {**result, "k": len(stored) + 1}
    meta = await ts.meta(tid)
    assert await ts.record(tid, pid, result["k"], result, totals([*stored, result], meta),
                           rev, "append") == "ok"


async def _set_review(ts: Any, tid: str, pid: str, k: int, review: str) -> None:
    stored, rev = await ts.results(tid, pid)
    stored[k - 1] = {**stored[k - 1], "review": review}
    meta = await ts.meta(tid)
    assert await ts.record(tid, pid, k, stored[k - 1], totals(stored, meta), rev,
                           "set") == "ok"


async def _over(server: Any, tid: str) -> None:
    """Move the arena's window into the past: it is finished now."""
    store = server.ctx.store
    now = await store.server_time_ms()
    await store.redis.hset(f"sr:t:{{t:{tid}}}", mapping={
        "starts_at": now - 3_600_000, "ends_at": now - 1_200_000, "cutoff": now - 2_000_000})
    if await store.redis.zscore("sr:tfinal", tid) is not None:  # public: pending since then
        await store.trophies.add_pending(tid, now - 1_200_000)


async def test_a_final_podium_is_awarded_and_a_ban_awards_it_again(redis_url: str) -> None:
    async with harness.running_server(redis_url) as server, \
            harness.accounts(harness.ws_url(server), *NAMES) as cs:
        ann, ben, cat, dan, eve = cs
        arenas, trophies, ts = server.ctx.arenas, server.ctx.trophies, server.ctx.store.tournaments
        tid = await arenas.create("operator", name="Test arena", variant=VARIANT,
                                  options=OPTIONS, starts_at=0, minutes=10, deal_seconds=60,
                                  private=False)
        for c in cs:
            await c.tournament_join(tid)
        # ann 2 wins, ben 1 win, cat 1 win later, dan 1 win held, eve nothing yet
        for c, wins, at in ((ann, 2, 1000), (ben, 1, 2000), (cat, 1, 3000), (dan, 1, 500)):
            for i in range(wins):
                await _record(ts, tid, c.player, _result(0, True, 52, at + i))
        await _set_review(ts, tid, dan.player, 1, "held")
        await _record(ts, tid, eve.player, _result(0, False, 10, 4000))
        await _over(server, tid)

        assert await trophies.sweep() == []  # dan's held win could take a place
        info = await ann.request("tournament.info", tournament=tid)
        assert info["tournament"]["state"] == "finished" and "master_seed" in info["tournament"]
        assert (await ann.request("profile"))["trophies"]["first"] == 0

        await _set_review(ts, tid, dan.player, 1, "clear")  # a moderator cleared it
        assert await trophies.sweep() == [tid]
        assert await trophies.sweep() == []  # once
        info = await ann.request("tournament.info", tournament=tid)
        assert info["tournament"]["state"] == "final"
        standings = await ann.tournament_standings(tid)
        podium = [r["player"] for r in standings["rows"][:3]]
        assert podium[0] == ann.player and set(podium[1:]) <= {ben.player, dan.player,
                                                                cat.player}
        mine = (await ann.request("profile"))["trophies"]
        assert (mine["first"], mine["second"], mine["third"]) == (1, 0, 0)
        assert mine["recent"] == [{"tournament": tid, "name": "Test arena", "format": "arena",
                                   "place": 1, "ended_at": info["tournament"]["ends_at"]}]
        assert mine["best_arena"]["points"] == standings["rows"][0]["points"] > 0
        listed = {t["tournament"]: t for t in (await ann.tournaments())["finished"]}
        assert [r["player"] for r in listed[tid]["leaders"]] == podium  # the list's podium
        third = podium[2]
        fourth = standings["rows"][3]["player"]
        seen = await eve.request("profile", name=next(c.name for c in cs
                                                      if c.player == third))
        assert seen["trophies"]["third"] == 1  # anyone may look
        assert (await eve.request("profile"))["trophies"]["best_arena"] is None  # no points

        for hook in server.ctx.moderation.on_ban:  # what a moderator's ban runs
            await hook(ann.player, True)
        assert (await ann.request("tournament.info", tournament=tid))["tournament"][
            "state"] == "finished"
        assert (await ann.request("profile"))["trophies"]["first"] == 0
        assert await trophies.sweep() == [tid]
        again = (await ann.request("profile"))["trophies"]
        assert (again["first"], again["recent"], again["best_arena"]) == (0, [], None)
        moved = {p: (await c.request("profile"))["trophies"] for c in cs
                 for p in [c.player] if p in [*podium[1:], fourth]}
        assert moved[podium[1]]["first"] == 1 and moved[podium[2]]["second"] == 1
        assert moved[fourth]["third"] == 1  # the fourth moved up to the podium


async def test_a_private_or_small_arena_awards_no_trophy(redis_url: str) -> None:
    async with harness.running_server(redis_url) as server, \
            harness.accounts(harness.ws_url(server), *NAMES) as cs:
        arenas, trophies, ts = server.ctx.arenas, server.ctx.trophies, server.ctx.store.tournaments
        private = await arenas.create("ann", name="Friends", variant=VARIANT, options=OPTIONS,
                                      starts_at=0, minutes=10, deal_seconds=60, private=True)
        small = await arenas.create("operator", name="Quiet hour", variant=VARIANT,
                                    options=OPTIONS, starts_at=0, minutes=10, deal_seconds=60,
                                    private=False)
        for c in cs:
            await c.tournament_join(private)
        for c in cs[:2]:
            await c.tournament_join(small)
        for tid, who in ((private, cs), (small, cs[:2])):
            for c in who:
                await _record(ts, tid, c.player, _result(0, True, 52, 1000))
            await _over(server, tid)
        assert await trophies.sweep() == [small]  # a private arena is never listed for it
        for c in cs:
            got = (await c.request("profile"))["trophies"]
            assert (got["first"], got["second"], got["recent"], got["best_arena"]) == (
                0, 0, [], None)
        info = await cs[0].request("tournament.info", tournament=small)
        assert info["tournament"]["state"] == "final"  # final, though it awarded nothing
