"""BOT accounts end to end (docs/bots.md): registered or upgraded for good, labelled in every
frame that carries their name, kept out of ranked play — real server, real Redis (single and
cluster); and the documented example bot plays a practice race."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import harness
import pytest
from solrace.client.library import Client, ClientError
from test_daily import WIN_VARIANT, daily_start, eventually, store_daily

BACKENDS = ("single", "cluster")
EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "practice_bot.py"


async def bot_client(url: str, name: str) -> Client:
    c = Client(url)
    await c.connect()
    reply = await c.register(harness.password_for(name), name=name, bot=True)
    assert reply["title"] == "BOT"
    return c


def titled(rows: list[dict[str, Any]]) -> dict[str, str | None]:
    return {r["name"]: r.get("title") for r in rows}


async def test_a_bot_is_labelled_everywhere_and_kept_out_of_ranked_play(redis_url: str
                                                                        ) -> None:
    await store_daily(redis_url)
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        bot = await bot_client(url, "robo")
        try:
            async with harness.accounts(url, "hana") as (hana,):
                assert hana.welcome.get("title") is None and hana.welcome["roles"] == []
                for kind, fields in (("race.create", {"variant": "unlimited", "rated": True}),
                                     ("daily.start", {"variant": WIN_VARIANT})):
                    with pytest.raises(ClientError) as err:
                        await bot.request(kind, **fields)
                    assert err.value.code == "bots_not_allowed", kind
                rated = await hana.create_race("unlimited", rated=True)
                with pytest.raises(ClientError) as err:
                    await bot.join(race=rated["race"])
                assert err.value.code == "bots_not_allowed"
                await hana.leave(rated["race"])
                # casual races are open to bots, labelled
                race = await bot.create_race("unlimited")
                joined = await hana.join(race=race["race"])
                assert titled(joined["racers"]) == {"robo": "BOT", "hana": None}
                log = (await hana.request("sync", race=race["race"], since=0))["events"]
                joins = {e["name"]: e.get("title") for e in log if e["k"] == "join"}
                assert joins == {"robo": "BOT", "hana": None}
                live = await hana.request("profile", name="robo")
                assert live["title"] == "BOT" and (await hana.request("profile"))["title"] is None
                for c in (bot, hana):
                    await c.ready(race["race"])
                await hana.next_event(race=race["race"], k="start")
                for c in (bot, hana):
                    await c.request("resign", race=race["race"])
                end = await hana.next_event(race=race["race"], k="end")
                assert titled(end["standings"]) == {"robo": "BOT", "hana": None}
                practice = await bot.practice_start("unlimited")  # practice: fine
                assert practice["kind"] == "practice"
                again = Client(url)
                await again.connect()
                logged = await again.login("robo", harness.password_for("robo"))
                assert logged["title"] == "BOT"
                await again.close()
        finally:
            await bot.close()


async def test_an_upgrade_is_for_good_and_only_before_ranked_play(redis_url: str) -> None:
    await store_daily(redis_url)
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "builder", "ranked") as (builder, ranked):
            other = Client(url, token=builder.token)  # a second connection of the account
            await other.connect()
            reply = await builder.request("account.bot")
            assert reply["title"] == "BOT"
            assert (await other.next_event(t="titled")) == {"t": "titled", "title": "BOT"}
            with pytest.raises(ClientError) as err:  # at once, on every connection
                await other.request("daily.start", variant=WIN_VARIANT)
            assert err.value.code == "bots_not_allowed"
            await other.close()
            resumed = Client(url, token=builder.token)
            assert (await resumed.connect())["title"] == "BOT"
            await resumed.close()
            # an account with ranked games stays a person's
            race, is_ranked = await daily_start(ranked)
            assert is_ranked
            await ranked.request("resign", race=race["race"])
            await eventually(lambda: ranked.request("leaderboard", variant=WIN_VARIANT),
                             lambda b: b["total"] == 1)  # the attempt is recorded
            with pytest.raises(ClientError) as err:
                await ranked.request("account.bot")
            assert err.value.code == "bots_not_allowed"
            guest = Client(url, name="visitor")
            await guest.connect()
            with pytest.raises(ClientError) as err:
                await guest.request("account.bot")
            assert err.value.code == "account_required"
            await guest.close()


async def test_the_documented_example_bot_plays_a_practice_race(redis_url: str) -> None:
    spec = importlib.util.spec_from_file_location("practice_bot", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        out = await example.play(url, "exbot", harness.password_for("exbot"), max_moves=40)
        assert out["title"] == "BOT" and out["moves"] > 0
        assert out["status"] in ("won", "lost", "playing")
        again = await example.play(url, "exbot", harness.password_for("exbot"), max_moves=5)
        assert again["title"] == "BOT" and again["race"] != out["race"]
