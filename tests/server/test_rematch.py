"""``race.rematch`` end to end: real clients, a real server and Redis. The first racer to ask
creates the new race with the same settings; the others are offered it (a ``rematch`` frame)
and land in the same race whether they join or ask themselves."""

from __future__ import annotations

import asyncio

import pytest
from harness import clients, close_all, running_server, start_race, ws_url
from solrace.client.library import ClientError

pytestmark = pytest.mark.timeout(60)


async def finish(cs, rid: str) -> None:
    for c in cs:
        await c.resign(rid)
    for c in cs:
        await c.next_event(t="event", race=rid, k="end")


async def test_rematch_same_settings_offered_and_shared(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        url = ws_url(server)
        cs, summary = await start_race(url, redis_url, "unlimited", ["alice", "bob", "carol"],
                                       options={"draw": "3"}, time_limit=120)
        alice, bob, carol = cs
        rid = summary["race"]
        try:
            with pytest.raises(ClientError) as early:
                await alice.rematch(rid)
            assert early.value.code == "no_rematch"
            await finish(cs, rid)
            new = await alice.rematch(rid)
            assert new["race"] != rid and new["state"] == "lobby"
            for k in ("variant", "options", "seats", "time_limit", "rated", "kind"):
                assert new[k] == summary[k], k
            assert [r["name"] for r in new["racers"]] == ["alice"]
            offer = await bob.next_event(t="rematch")
            assert offer["race"]["race"] == new["race"] and offer["from"] == rid
            assert offer["by"] == "alice"
            offer_c = await carol.next_event(t="rematch")
            assert offer_c["race"]["race"] == new["race"]
            # bob joins from the offer; carol asks herself and gets the same race
            await bob.join(race=offer["race"]["race"])
            again = await carol.rematch(rid)
            assert again["race"] == new["race"]
            assert (await alice.rematch(rid))["race"] == new["race"]  # asking twice: no-op
            for c in cs:
                await c.ready(new["race"])
            for c in cs:
                await c.wait_running(new["race"])
            assert alice.boards[new["race"]] == bob.boards[new["race"]]
        finally:
            await close_all(cs)


async def test_simultaneous_rematches_land_in_one_race(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        cs, summary = await start_race(ws_url(server), redis_url, "forty-and-eight",
                                       ["dora", "emil"])
        try:
            await finish(cs, summary["race"])
            got = await asyncio.gather(*(c.rematch(summary["race"]) for c in cs))
            assert got[0]["race"] == got[1]["race"]
            assert {r["name"] for r in got[1]["racers"]} | {
                r["name"] for r in got[0]["racers"]} == {"dora", "emil"}
        finally:
            await close_all(cs)


async def test_rematch_refusals(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        url = ws_url(server)
        cs, summary = await start_race(url, redis_url, "unlimited", ["fay", "gus"])
        try:
            await finish(cs, summary["race"])
            async with clients(url, "hal") as (hal,):
                with pytest.raises(ClientError) as outsider:
                    await hal.rematch(summary["race"])
                assert outsider.value.code == "not_in_race"
                with pytest.raises(ClientError) as unknown:
                    await hal.rematch("ffffffffffffffff")
                assert unknown.value.code == "race_not_found"
                practice = await hal.practice_start("unlimited", time_limit=30)
                await hal.resign(practice["race"])
                await hal.next_event(t="event", race=practice["race"], k="end")
                with pytest.raises(ClientError) as solo:
                    await hal.rematch(practice["race"])
                assert solo.value.code == "no_rematch"
        finally:
            await close_all(cs)
