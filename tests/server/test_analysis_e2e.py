"""``analysis`` (server/game/analysis.py): the move that lost it, on request, for a finished
race — computed once in a worker process, then stored with the race; never for a race that
runs or for a game whose deal is not public."""

from __future__ import annotations

import asyncio
import random

import harness
import pytest
from solrace.client.library import Client, ClientError
from solrace.shared.learning.lost import find_losing_move
from solrace.shared.protocol import ProtocolError

BACKENDS = ("single", "cluster")
FAST = {"rate": 1000.0, "burst": 1000}


async def test_the_move_that_lost_it_for_any_racer_of_a_finished_race(redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server:
        url = harness.ws_url(server)
        cs, summary = await harness.start_race(url, redis_url, "seven-by-five",
                                               ["ada", "bo"],
                                               options={"cells": "5", "empty_fill": "any"})
        ada, bo = cs
        rid = summary["race"]
        try:
            with pytest.raises(ClientError) as err:
                await ada.request("analysis", race=rid)
            assert err.value.code == "not_running"  # never while the race runs
            rng = random.Random(3)
            over = False
            for _ in range(15):  # random moves: a line that very likely throws the win away
                legal = ada.boards[rid].get("legal") or []
                if not legal:
                    break
                ack = await ada.move(rid, rng.choice(legal))
                if ack.get("status") != "playing":
                    over = True
                    break
            if not over:
                await ada.resign(rid)
            await bo.resign(rid)
            await bo.next_event(race=rid, k="end")
            got = await bo.request("analysis", race=rid, player=ada.player, within=180)
            assert got["name"] == "ada" and got["player"] == ada.player
            moves = await harness.read_log(redis_url, rid, ada.player)
            secrets = await harness.race_info(redis_url, rid)
            # seconds of solver CPU: off the loop that runs the server and its clients
            want = await asyncio.to_thread(find_losing_move, "seven-by-five",
                                           {"cells": "5", "empty_fill": "any"}, secrets.seed,
                                           moves)
            assert got["result"] == want["result"] and got["moves"] == len(moves)
            if want["result"] == "found":
                assert (got["ply"], got["move"]) == (want["ply"], want["move"])
                assert got["continuation"] == want["continuation"] and got["claim"]
            again = await ada.request("analysis", race=rid)  # the caller's own, stored
            assert again == {**got, "re": again["re"]}
            mine = await bo.request("analysis", race=rid)  # bo never moved: his own line
            assert mine["player"] == bo.player and mine["moves"] == 0
            with pytest.raises(ClientError) as err:
                await bo.request("analysis", race=rid, player="nobody")
            assert err.value.code == "not_in_race"
        finally:
            await harness.close_all(cs)


async def test_no_analysis_of_a_deal_that_is_not_public(redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server, \
            harness.accounts(harness.ws_url(server), "cy") as (cy,):
        t = await cy.tournament_create("Private deals", "unlimited", minutes=10,
                                       deal_seconds=60)
        await cy.tournament_join(t["tournament"])
        r = await cy.tournament_play(t["tournament"])
        rid = r["race"]["race"]
        await cy.wait_running(rid)
        await cy.resign(rid)
        await cy.next_event(race=rid, k="end")
        with pytest.raises(ClientError) as err:
            await cy.request("analysis", race=rid)
        assert err.value.code == "not_watchable"
        await asyncio.sleep(0)


async def test_waiting_for_an_analysis_is_not_idle(redis_url: str) -> None:
    """A connection whose only business is an analysis being computed is not closed as idle
    meanwhile; once the reply is out, the idle timer runs again, counted from the reply (a long
    analysis must not leave the caller closed the moment it is answered)."""
    async with harness.running_server(redis_url, idle_timeout=0.5) as server:
        async def slow(caller: str, rid: str, pid: str | None, *, counted_as: str) -> dict:
            await asyncio.sleep(1.5)  # longer than the idle timeout
            raise ProtocolError("not_running", "a race is analysed once it is over")

        server.ctx.analyses.analysis = slow  # type: ignore[method-assign]
        async with harness.clients(harness.ws_url(server), "dee") as (dee,):
            with pytest.raises(ClientError) as err:
                await dee.request("analysis", race="0123456789abcdef", within=10)
            assert err.value.code == "not_running"  # answered: the connection lived
            await asyncio.sleep(0.25)  # the idle time counts from the answer, not the request
            assert dee.ws is not None and dee.ws.state.name == "OPEN"
            async with asyncio.timeout(5):  # and now, with nothing going on, it is closed
                while dee.ws is not None and dee.ws.state.name == "OPEN":
                    await asyncio.sleep(0.05)


async def error_of(call: object) -> ClientError:
    with pytest.raises(ClientError) as err:
        await call  # type: ignore[misc]
    return err.value


async def test_fresh_analyses_are_limited_per_player_across_processes(redis_url: str) -> None:
    """One fresh analysis an hour (``--analyses-per-hour 1``): a second fresh one is refused
    with ``too_many_analyses`` and ``retry_after`` — also on another server process, since
    Redis counts; a stored analysis is answered whatever the count; anonymous connections
    count by their address, and one player's count is not another's."""
    async with harness.running_server(redis_url, analyses_per_hour=1, **FAST) as a, \
            harness.running_server(redis_url, analyses_per_hour=1, **FAST) as b:
        cs, summary = await harness.start_race(harness.ws_url(a), redis_url, "unlimited",
                                               ["ada", "bo", "cy"])
        rid = summary["race"]
        ada, bo, cy = cs
        extra: list[Client] = []
        try:
            for c in cs:
                await c.resign(rid)
            await ada.next_event(race=rid, k="end")
            mine = await ada.request("analysis", race=rid, within=120)
            assert mine["player"] == ada.player
            elsewhere = Client(harness.ws_url(b), token=ada.token, follow_home=False)
            extra.append(elsewhere)
            await elsewhere.connect()
            err = await error_of(elsewhere.request("analysis", race=rid, player=bo.player))
            assert err.code == "too_many_analyses"
            assert 3500 <= err.extra["retry_after"] <= 3600
            again = await elsewhere.request("analysis", race=rid)  # stored: not counted
            assert again == {**mine, "re": again["re"]}

            anon = Client(harness.ws_url(a))
            extra.append(anon)
            await anon.connect()
            got = await anon.request("analysis", race=rid, player=bo.player, within=120)
            assert got["player"] == bo.player
            anon2 = Client(harness.ws_url(b))  # another connection from the same address
            extra.append(anon2)
            await anon2.connect()
            err = await error_of(anon2.request("analysis", race=rid, player=cy.player))
            assert err.code == "too_many_analyses" and err.extra["retry_after"] >= 3500
            theirs = await cy.request("analysis", race=rid, player=cy.player, within=120)
            assert theirs["player"] == cy.player  # cy's own count: untouched by the others
            stored = await anon2.request("analysis", race=rid, player=cy.player)
            assert stored == {**theirs, "re": stored["re"]}
            assert (await ada.request("analysis", race=rid, player=bo.player))["player"] \
                == bo.player  # computed since by someone else: answered, not counted
        finally:
            await harness.close_all([*cs, *extra])
