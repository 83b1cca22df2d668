"""Quick pairing by skill across two server processes on one Redis: similar ratings pair at
once, a distant player waits until the window has widened (its wait is moved into the past in
Redis, the one clock every process uses, rather than waited for)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from harness import close_all, redis_client, two_processes
from solrace.client.library import Client
from solrace.server.game.results import rating_text
from solrace.server.store import Keys
from solrace.shared import skillpair
from solrace.shared.ratings import Rating

QUEUE = "unlimited|draw=1,foundation_takeback=yes"
BACKENDS = ("single", "cluster")  # one queue is one key: the same on a Redis Cluster


async def test_similar_ratings_pair_and_a_distant_one_waits_for_the_window(
        redis_url: str, tmp_path: Path) -> None:
    r = redis_client(redis_url)
    rated = {"alice": 1500, "bob": 1530, "carol": 2200, "dave": 1500, "erin": 1990}
    async with two_processes(redis_url, tmp_path) as (one, two):
        cs: dict[str, Client] = {}
        try:
            for i, (name, rating) in enumerate(rated.items()):
                cs[name] = Client((one, two)[i % 2].url, name=name)
                await cs[name].connect()
                await r.hset(Keys.rating(cs[name].player), "unlimited",
                             rating_text(Rating(rating, 50.0), 30))

            assert (await cs["alice"].quick("unlimited"))["t"] == "queued"
            # 700 points above alice, both sure of their rating: not paired
            assert (await cs["carol"].quick("unlimited"))["t"] == "queued"
            paired = await cs["bob"].quick("unlimited")  # 30 from alice, 670 from carol
            assert paired["t"] == "race"
            assert {x["name"] for x in paired["race"]["racers"]} == {"alice", "bob"}
            await cs["alice"].next_event(t="matched")

            # erin is 210 from carol and 490 from dave: nobody's window is that wide yet
            assert (await cs["dave"].quick("unlimited"))["t"] == "queued"
            assert (await cs["erin"].quick("unlimited"))["t"] == "queued"
            await cs["erin"].request("quick.cancel")
            waiting = [e.decode() for e in await r.lrange(Keys.quick(QUEUE), 0, -1)]
            assert [e.split(":")[1] for e in waiting] == ["carol", "dave"]

            # carol has now waited long enough for a 210 gap (not for a 490 one: dave waits)
            head, _, since = waiting[0].rpartition(":")
            needed = (210 - skillpair.window(0, 50, 50)) / skillpair.WIDEN_PER_S
            await r.lset(Keys.quick(QUEUE), 0, f"{head}:{int(since) - int(needed * 1000) - 2000}")
            race = await cs["erin"].quick("unlimited")
            assert race["t"] == "race"
            assert {x["name"] for x in race["race"]["racers"]} == {"carol", "erin"}
            await cs["carol"].next_event(t="matched")
            assert [e.decode().split(":")[1]
                    for e in await r.lrange(Keys.quick(QUEUE), 0, -1)] == ["dave"]
        finally:
            await close_all(cs.values())
            await r.aclose()


async def test_after_the_maximum_wait_anyone_is_accepted_and_guests_count_as_unrated(
        redis_url: str, tmp_path: Path) -> None:
    r = redis_client(redis_url)
    async with two_processes(redis_url, tmp_path) as (one, two):
        cs = [Client(one.url, name="gus"), Client(two.url, name="hana"),
              Client(two.url, name="ivo")]
        try:
            for c in cs:
                await c.connect()
            gus, hana, ivo = cs
            await r.hset(Keys.rating(hana.player), "unlimited", rating_text(Rating(2900, 30), 90))
            await r.hset(Keys.rating(ivo.player), "unlimited", rating_text(Rating(600, 30), 90))
            assert (await gus.quick("unlimited"))["t"] == "queued"  # a guest: 1500 ± 350
            entry = (await r.lrange(Keys.quick(QUEUE), 0, -1))[0].decode()
            assert entry.split(":")[3:5] == ["1500.0", "350.0"]
            assert (await hana.quick("unlimited"))["t"] == "queued"  # 1400 away: too far
            head, _, since = entry.rpartition(":")
            past = int(since) - int(skillpair.MAX_WAIT_S * 1000) - 1000
            await r.lset(Keys.quick(QUEUE), 0, f"{head}:{past}")
            race = await ivo.quick("unlimited")  # 900 from gus, who has waited the maximum
            assert race["t"] == "race"
            assert {x["name"] for x in race["race"]["racers"]} == {"gus", "ivo"}
        finally:
            await close_all(cs)
            await r.aclose()


async def test_two_waiting_players_are_paired_without_a_third(redis_url: str,
                                                              tmp_path: Path) -> None:
    """Nobody else asks: the waiting players' own re-check (every RECHECK_S) pairs them once
    one of them has waited long enough — here moved past the maximum wait in Redis."""
    r = redis_client(redis_url)
    async with two_processes(redis_url, tmp_path) as (one, two):
        cs = [Client(one.url, name="jo"), Client(two.url, name="kim")]
        try:
            for c in cs:
                await c.connect()
            jo, kim = cs
            await r.hset(Keys.rating(jo.player), "unlimited", rating_text(Rating(900, 30), 90))
            await r.hset(Keys.rating(kim.player), "unlimited", rating_text(Rating(2600, 30), 90))
            assert (await jo.quick("unlimited"))["t"] == "queued"
            assert (await kim.quick("unlimited"))["t"] == "queued"  # 1700 apart: both wait
            await asyncio.sleep(2.5)  # a re-check or more: still too far
            assert len(await r.lrange(Keys.quick(QUEUE), 0, -1)) == 2
            entry = (await r.lrange(Keys.quick(QUEUE), 0, -1))[0].decode()
            head, _, since = entry.rpartition(":")
            past = int(since) - int(skillpair.MAX_WAIT_S * 1000) - 1000
            await r.lset(Keys.quick(QUEUE), 0, f"{head}:{past}")
            got = [await asyncio.wait_for(c.next_event(t="matched"), 10) for c in cs]
            assert got[0]["race"]["race"] == got[1]["race"]["race"]
            assert {x["name"] for x in got[0]["race"]["racers"]} == {"jo", "kim"}
            assert await r.lrange(Keys.quick(QUEUE), 0, -1) == []
        finally:
            await close_all(cs)
            await r.aclose()
