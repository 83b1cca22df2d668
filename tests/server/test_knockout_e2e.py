"""Knockouts end to end (server/game/knockout.py): real clients, a real server, a real Redis
and a real Redis Cluster. Eight entrants seeded by their stored ratings, matches as two-seat
races on the round's deal of the committed master seed, an upset won by the solver, ties to
the higher seed, the next round opening by itself, the bracket followed live, walkovers and
no-shows when a start window closes (found by the upkeep sweep), a ban's forfeit, a
knockout with too few entrants cancelled, and the master seed revealed and checked at the
end."""

from __future__ import annotations

import asyncio
from typing import Any

import harness
import pytest
from solrace.client.library import Client, ClientError
from solrace.server.game.knockout import KnockoutService
from solrace.server.store.keys import Keys
from solrace.shared.engine import Game
from solrace.shared.tournaments.seeds import deal_seed, verify
from solrace.shared.views import view_of
from test_arena_e2e import FAST, OPTIONS, VARIANT, pin_master, solved

BACKENDS = ("single", "cluster")
NAMES = tuple(f"ko{i}" for i in range(1, 9))  # ko1 rated highest, ko8 lowest


async def _setup(redis_url: str, clients: list[Any], **create: Any) -> dict[str, Any]:
    """A knockout created by the first client, every client entered (the last by its invite
    code), ratings stored so that ko1 is seed 1 … ko8 seed 8, then started now."""
    r = harness.redis_client(redis_url)
    try:
        for i, c in enumerate(clients):  # entry order is the reverse of the seeds
            await r.hset(Keys.rating(c.player), VARIANT, f"{1900 - 50 * i},80.0,0.06,12")
    finally:
        await r.aclose()
    t = await clients[0].tournament_create("Friday knockout", VARIANT, OPTIONS,
                                           format="knockout", starts_in=600,
                                           deal_seconds=120, max_entrants=8, **create)
    assert t["format"] == "knockout" and t["state"] == "open" and t["max_entrants"] == 8
    await pin_master(redis_url, t["tournament"])
    for c in reversed(clients[1:]):
        await c.tournament_join(t["tournament"])
    await clients[0].tournament_join(t["code"].lower())
    await _start_now(redis_url, t["tournament"])
    return t


async def _start_now(redis_url: str, tid: str) -> None:
    """Move the start (and the entries' close) to now."""
    r = harness.redis_client(redis_url)
    try:
        now = int((await r.time())[0]) * 1000
        await r.hset(f"sr:t:{{t:{tid}}}", mapping={"starts_at": now - 1, "cutoff": now - 1})
        await r.zadd("sr:knockouts", {tid: now - 1})  # when the sweep looks at it
    finally:
        await r.aclose()


def _pairs(bracket: dict[str, Any], round_no: int) -> list[tuple[str, str | None]]:
    names = {e["player"]: e["name"] for e in bracket["entrants"]}
    return [(names[m["high"]], names.get(m["low"]))
            for m in sorted(bracket["matches"], key=lambda m: m["index"])
            if m["round"] == round_no]


async def _wait_round(client: Any, tid: str, round_no: int) -> dict[str, Any]:
    async with asyncio.timeout(15):
        while True:
            b = await client.tournament_bracket(tid)
            if b["round"] >= round_no or b["state"] != "running":
                return b
            await asyncio.sleep(0.1)


async def test_a_knockout_from_seeding_to_podium(redis_url: str) -> None:
    async with harness.running_server(redis_url, knockout_show=60, **FAST) as server, \
            harness.accounts(harness.ws_url(server), *NAMES, "outsider") as everyone:
        ko, out = everyone[:8], everyone[8]
        by_name = {c.name: c for c in ko}
        t = await _setup(redis_url, ko)
        tid = t["tournament"]
        with pytest.raises(ClientError) as err:
            await out.tournament_join(tid)
        assert err.value.code == "entries_closed"

        anon = Client(harness.ws_url(server))  # anyone may look, anonymous too: the first
        await anon.connect()                    # look after the start time starts it
        try:
            seen = await anon.tournament_bracket(tid)
            assert (seen["state"], seen["round"], seen["my_match"]) == ("running", 1, None)
        finally:
            await anon.close()
        b = await out.tournament_bracket(tid)
        assert b["state"] == "running" and (b["round"], b["rounds"]) == (1, 3)
        assert [e["name"] for e in b["entrants"]] == list(NAMES)  # seeded by rating
        assert [e["seed"] for e in b["entrants"]] == list(range(1, 9))
        assert _pairs(b, 1) == [("ko1", "ko8"), ("ko4", "ko5"), ("ko2", "ko7"), ("ko3", "ko6")]
        assert b["my_match"] is None
        followed = await ko[0].tournament_bracket(tid, follow=True)
        assert followed["my_match"] == {"round": 1, "index": 0}
        with pytest.raises(ClientError) as err:
            await ko[0].tournament_standings(tid)
        assert err.value.code == "bad_option"

        # round 1: everyone plays; the pairs share a race, every match deal 1
        plays = {c.name: await c.tournament_play(tid) for c in ko}
        assert all(p["deal"] == 1 and p["race"]["kind"] == "knockout" for p in plays.values())
        assert plays["ko1"]["race"]["race"] == plays["ko8"]["race"]["race"]
        assert plays["ko1"]["race"]["race"] != plays["ko4"]["race"]["race"]
        starts = {n: await by_name[n].wait_running(p["race"]["race"])
                  for n, p in plays.items()}
        assert len({str(s["view"]) for s in starts.values()}) == 1
        with pytest.raises(ClientError) as err:  # no entrant watches a match
            await ko[3].request("watch", race=plays["ko1"]["race"]["race"])
        assert err.value.code == "not_watchable"
        # a non-entrant finds the matches being played in the bracket and watches one,
        # masked: no card but those the deal dealt face up (Seven by Five: all of them)
        live = {m["race"] for m in (await out.tournament_bracket(tid))["matches"]
                if "race" in m}
        assert plays["ko1"]["race"]["race"] in live and len(live) == 4
        rid1 = plays["ko1"]["race"]["race"]
        watching = await out.request("watch", race=rid1)
        assert watching["race"]["race"] == rid1 and watching["delay"] > 0  # as rated races
        mask = server.ctx.masks.get(rid1)
        assert mask is not None and mask.masker.absent  # as if an entrant had not moved
        await out.request("unwatch", race=rid1)
        with pytest.raises(ClientError) as err:  # nor takes a seat in it
            await out.join(race=plays["ko1"]["race"]["race"])
        assert err.value.code == "race_full"

        # ko8 wins deal 1 (an upset); the other matches end with both resigning: a tie
        meta = await harness.tournament_meta(redis_url, tid)
        seed1 = deal_seed(int(meta["master"]), 1)
        line = await solved(seed1)
        r1 = plays["ko8"]["race"]["race"]
        for text in [m.text() for m in line.moves]:
            await by_name["ko8"].move(r1, text)
        await by_name["ko1"].resign(r1)  # beaten: the race ends when both are done
        await by_name["ko8"].next_event(race=r1, k="end")
        for n in ("ko4", "ko5", "ko3", "ko6", "ko2", "ko7"):
            await by_name[n].resign(plays[n]["race"]["race"])
        end = await by_name["ko1"].next_event(race=r1, k="end")
        assert "seed" not in end  # the round's other matches play the same deal

        b = await _wait_round(out, tid, 2)
        hows = {(m["round"], m["index"]): m["how"] for m in b["matches"]}
        assert hows[(1, 0)] == "race" and hows[(1, 1)] == hows[(1, 2)] == "tie"
        assert _pairs(b, 2) == [("ko4", "ko8"), ("ko2", "ko3")]
        with pytest.raises(ClientError) as err:
            await by_name["ko1"].tournament_play(tid)
        assert err.value.code == "no_match"  # out in round 1

        # round 2 and the final: ties, the higher seed advances
        for round_no in (2, 3):
            pairs = _pairs(b, round_no)
            plays = {n: await by_name[n].tournament_play(tid) for p in pairs for n in p if n}
            assert all(p["deal"] == round_no for p in plays.values())
            for n, p in plays.items():
                await by_name[n].wait_running(p["race"]["race"])
            for n, p in plays.items():
                await by_name[n].resign(p["race"]["race"])
            b = await _wait_round(out, tid, round_no + 1)
        assert _pairs(b, 3) == [("ko2", "ko4")]
        assert b["state"] == "finished"
        names = {e["player"]: e["name"] for e in b["entrants"]}
        podium = b["podium"]
        assert names[podium["winner"]] == "ko2" and names[podium["finalist"]] == "ko4"
        assert [names[p] for p in podium["semi_finalists"]] == ["ko3", "ko8"]

        # the follower got bracket frames as it moved on
        got = await ko[0].next_event(t="bracket", timeout=5)
        assert got["tournament"] == tid and got["v"] > followed["v"]
        async with asyncio.timeout(5):
            while got["state"] != "finished":
                got = await ko[0].next_event(t="bracket", timeout=5)
        assert got["podium"] == podium

        # the end reveals the master seed: it checks out, and deal 1 was the one played
        summary = (await out.request("tournament.info", tournament=tid))["tournament"]
        assert summary["state"] == "finished" and verify(summary["master_seed"],
                                                         summary["commitment"])
        dealt = view_of(Game(VARIANT, OPTIONS, deal_seed(summary["master_seed"], 1))).wire()
        assert starts["ko1"]["view"] == dealt
        assert summary["ends_at"] <= await server.ctx.store.server_time_ms()


async def test_walkovers_no_shows_and_a_ban_when_the_window_closes(redis_url: str) -> None:
    """A 4 s start window (long enough for the entrants who come, on a loaded machine, to be
    ready before it closes). Round 1: ko1 comes, ko8 does not (walkover to ko1); ko5 comes,
    ko4 does not (walkover to the lower seed); neither ko3 nor ko6 (the higher seed
    advances); ko2 and ko7 start their race and ko7 is banned mid-race (a forfeit)."""
    async with harness.running_server(redis_url, knockout_show=4, **FAST) as server, \
            harness.accounts(harness.ws_url(server), *NAMES) as ko:
        by_name = {c.name: c for c in ko}
        tid = (await _setup(redis_url, ko))["tournament"]
        p1 = await by_name["ko1"].tournament_play(tid)
        await by_name["ko5"].tournament_play(tid)
        p2 = await by_name["ko2"].tournament_play(tid)
        await by_name["ko7"].tournament_play(tid)
        await by_name["ko2"].wait_running(p2["race"]["race"])
        today = await server.ctx.daily.today()
        await server.ctx.moderation.ban("operator", "ko7", "cheating", today)
        b = await by_name["ko1"].tournament_bracket(tid)
        closes = max(m["show_by"] for m in b["matches"])
        await asyncio.sleep((closes - await server.ctx.store.server_time_ms()) / 1000 + 0.2)
        # a look at a closed window decides without touching the lobby: a process that
        # looked a moment after another would read an emptied lobby as nobody ready (the
        # lobby is emptied once the decision is stored; every process's upkeep also sweeps)
        stale, _ = await server.ctx.knockouts._load(tid)
        assert stale is not None
        m0 = next(m for m in stale.matches if (m.round, m.index) == (1, 0))

        class NoLeaving:
            def __init__(self) -> None:
                self.on_finished: list[Any] = []

            async def leave(self, *args: Any) -> None:
                raise AssertionError("a look emptied the lobby")

        looker = KnockoutService(server.ctx.store, NoLeaving(), 4000)  # type: ignore[arg-type]
        decision, _ = await looker._look(stale, m0, await server.ctx.store.server_time_ms())
        assert decision is not None
        # what every process's upkeep tick does: two processes at once decide each match once
        async with harness.running_server(redis_url, knockout_show=4, **FAST) as other:
            await asyncio.gather(server.ctx.knockouts.sweep(), other.ctx.knockouts.sweep())
        b = await by_name["ko1"].tournament_bracket(tid)
        names = {e["player"]: e["name"] for e in b["entrants"]}
        first = {m["index"]: (names[m["winner"]], m["how"]) for m in b["matches"]
                 if m["round"] == 1}
        assert first == {0: ("ko1", "walkover"), 1: ("ko5", "walkover"),
                         2: ("ko2", "forfeit"), 3: ("ko3", "no_show")}
        assert [e["name"] for e in b["entrants"] if e.get("banned")] == ["ko7"]
        assert b["round"] == 2 and _pairs(b, 2) == [("ko1", "ko5"), ("ko2", "ko3")]
        raw, _ = await server.ctx.store.tournaments.bracket(tid)
        for m in (m for m in raw["matches"] if m[0] == 2):  # one race each, both seated
            rec = await server.ctx.store.read_race(m[5])
            assert rec is not None and rec.order == [m[2], m[3]] and rec.state == "lobby"
        # ko1's lobby race is closed, not left waiting for ko8
        rec = await server.ctx.store.read_race(p1["race"]["race"])
        assert rec is not None and rec.state == "closed"
        with pytest.raises(ClientError) as err:
            await by_name["ko8"].tournament_play(tid)
        assert err.value.code == "no_match"
        # round 2: nobody comes; the windows close and the sweep plays the bracket out
        async with asyncio.timeout(20):
            while b["state"] == "running":
                await asyncio.sleep(0.5)
                await server.ctx.knockouts.sweep()
                b = await by_name["ko1"].tournament_bracket(tid)
        assert names[b["podium"]["winner"]] == "ko1"


async def test_too_few_entrants_cancel_a_knockout(redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server, \
            harness.accounts(harness.ws_url(server), "solo") as (solo,):
        t = await solo.tournament_create("Lonely", VARIANT, OPTIONS, format="knockout",
                                         starts_in=600, deal_seconds=60, max_entrants=8)
        tid = t["tournament"]
        await solo.tournament_join(tid)
        await _start_now(redis_url, tid)
        assert await server.ctx.knockouts.sweep() >= 1
        summary = (await solo.request("tournament.info", tournament=tid))["tournament"]
        assert summary["state"] == "cancelled"
        with pytest.raises(ClientError) as err:
            await solo.tournament_play(tid)
        assert err.value.code == "not_running" and "cancelled" in err.value.reason
        r = harness.redis_client(redis_url)
        try:  # the sweep forgets a cancelled knockout, and one whose record has expired
            await r.zadd("sr:knockouts", {"0123456789abcdef": 1})
            await server.ctx.knockouts.sweep()
            assert await r.zrange("sr:knockouts", 0, -1) == []
        finally:
            await r.aclose()


async def test_a_full_knockout_refuses_entries(redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server, \
            harness.accounts(harness.ws_url(server), *NAMES, "ninth") as people:
        t = await people[0].tournament_create("Full", VARIANT, OPTIONS, format="knockout",
                                              starts_in=600, deal_seconds=60,
                                              max_entrants=8)
        for c in people[:8]:
            await c.tournament_join(t["tournament"])
        with pytest.raises(ClientError) as err:
            await people[8].tournament_join(t["code"])
        assert err.value.code == "tournament_full"
        assert (await people[0].tournament_join(t["tournament"]))["entrants"] == 8
        with pytest.raises(ClientError) as err:
            await people[0].tournament_play(t["tournament"])
        assert err.value.code == "not_running" and err.value.extra["retry_after"] > 500


async def test_a_process_killed_mid_round_and_another_carries_the_knockout_on(
        redis_url: str, tmp_path: Any) -> None:
    """Round 1's races are made and started on process one, which is then SIGKILLed; the
    entrants reconnect to process two, resume the same races and resign; process two decides
    the matches and opens round 2: nothing lived only in the dead process."""
    async with harness.two_processes(redis_url, tmp_path, "--rate", "1000", "--burst",
                                     "1000", "--knockout-show", "60") as (one, two):
        ko = [harness.AccountClient(one.url, name=n) for n in NAMES]
        for c in ko:
            await c.connect()
        try:
            tid = (await _setup(redis_url, ko))["tournament"]
            plays = {c.name: await c.tournament_play(tid) for c in ko}
            for c in ko:
                await c.wait_running(plays[c.name]["race"]["race"])
            one.kill()
            for c in ko:
                c.url = two.url
                await c.reconnect()
                again = await c.tournament_play(tid)
                assert again["race"]["race"] == plays[c.name]["race"]["race"]
            for c in ko:
                await c.resign(plays[c.name]["race"]["race"])
            b = await _wait_round(ko[0], tid, 2)
            assert b["round"] == 2 and _pairs(b, 2) == [("ko1", "ko4"), ("ko2", "ko3")]
            assert {m["how"] for m in b["matches"] if m["round"] == 1} == {"tie"}
        finally:
            for c in ko:
                await c.close()
