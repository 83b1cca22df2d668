"""Arenas end to end (server/game/arena.py, server/store/tournaments.py): real clients, a real
server, a real Redis and a real Redis Cluster. Create, enter by invite code, play deals that
are identical for every entrant, points as docs/tournaments.md computes them, a resignation's
wait, standings followed live, deals never watchable by an entrant and their seeds never told,
and the store's standings ordered exactly as the pure rules order them."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import harness
import pytest
from solrace.client.library import ClientError
from solrace.server.game.arenarules import totals
from solrace.server.store import Store
from solrace.shared.prng import commitment
from solrace.shared.solver import Budget, solve
from solrace.shared.tournaments import arena as scoring
from solrace.shared.tournaments.seeds import deal_seed, verify

BACKENDS = ("single", "cluster")
VARIANT, OPTIONS = "seven-by-five", {"cells": "5", "empty_fill": "any"}
FAST: dict[str, Any] = {"rate": 1000.0, "burst": 1000}


#: A master seed whose deal 1 the solver wins at once (a random master's deal 1 is lost or out
#: of the budget about one time in ten: the tests that play a win pin this one).
PINNED_MASTER = 1


async def pin_master(redis_url: str, tid: str, master: int = PINNED_MASTER) -> str:
    """Give tournament ``tid`` (no deal dealt yet) a known master seed; its new commitment."""
    r = harness.redis_client(redis_url)
    try:
        await r.hset(f"sr:t:{{t:{tid}}}", mapping={"master": master,
                                                   "commitment": commitment(master)})
    finally:
        await r.aclose()
    return commitment(master)


async def solved(seed: int) -> Any:
    """The solver's answer for deal ``seed``, searched off the event loop (the test's server
    and clients run on it: a blocked loop misses websocket keepalives)."""
    result = await asyncio.to_thread(solve, (VARIANT, OPTIONS, seed), Budget(200_000))
    assert result.won
    return result


async def _play_line(client: Any, rid: str, line: list[str]) -> None:
    for text in line:
        await client.move(rid, text)


async def test_an_arena_from_creation_to_standings(redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server, \
            harness.accounts(harness.ws_url(server), "alice", "bob") as (alice, bob):
        t = await alice.tournament_create("Friday arena", VARIANT, OPTIONS, minutes=10,
                                          deal_seconds=60)
        pinned = await pin_master(redis_url, t["tournament"])
        assert t["state"] == "running" and t["private"] and len(t["code"]) == 8
        assert "master_seed" not in t
        tid = t["tournament"]
        with pytest.raises(ClientError) as err:
            await bob.tournament_play(tid)
        assert err.value.code == "not_entered"
        joined = await bob.tournament_join(t["code"].lower())  # the invite code, any case
        assert joined["tournament"] == tid and joined["entrants"] == 1
        await alice.tournament_join(tid)
        assert (await alice.tournament_join(tid))["entrants"] == 2  # entering twice: once

        # deal 1 is the same deal for both
        a1 = await alice.tournament_play(tid)
        b1 = await bob.tournament_play(tid, berserk=True)
        assert a1["deal"] == b1["deal"] == 1 and a1["tournament"] == tid
        ra, rb = a1["race"]["race"], b1["race"]["race"]
        assert ra != rb and a1["race"]["kind"] == "arena"
        start_a = await alice.wait_running(ra)
        start_b = await bob.wait_running(rb)
        assert start_a["view"] == start_b["view"]
        assert b1["race"]["time_limit"] == 30 and a1["race"]["time_limit"] == 60  # berserk
        # resuming gives the same race, never a new deal
        assert (await alice.tournament_play(tid))["race"]["race"] == ra

        # no entrant watches a tournament's deal (spectators: test_tournament_watch_e2e.py)
        with pytest.raises(ClientError) as err:
            await bob.request("watch", race=ra)
        assert err.value.code == "not_watchable"

        follow = await alice.tournament_standings(tid, follow=True)
        assert follow["entrants"] == 2 and follow["my_rank"] in (1, 2)

        # alice wins deal 1 fast; bob resigns his
        meta = await harness.tournament_meta(redis_url, tid)
        seed = deal_seed(int(meta["master"]), 1)
        result = await solved(seed)
        assert result.won
        await _play_line(alice, ra, [m.text() for m in result.moves])
        end = await alice.next_event(race=ra, k="end")
        assert "seed" not in end  # others may not have played deal 1 yet
        await bob.resign(rb)
        await bob.next_event(race=rb, k="end")

        # a resignation keeps the deal's clock: bob's deal 2 waits
        with pytest.raises(ClientError) as err:
            await bob.tournament_play(tid)
        assert err.value.code == "deal_not_ready" and 1 <= err.value.extra["retry_after"] <= 30

        # the standings follow, once a second at most
        pushed = None
        async with asyncio.timeout(10):
            while pushed is None or pushed["rows"][0]["points"] == 0 or len(
                    [r for r in pushed["rows"] if r["played"]]) < 2:
                pushed = await alice.next_event(t="standings")
        top = pushed["rows"]
        assert [r["name"] for r in top] == ["alice", "bob"]
        assert top[0]["points"] == scoring.WIN + scoring.FAST_BONUS and top[0]["won"] == 1
        assert top[1]["points"] == 0 and top[1]["played"] == 1
        assert pushed["my_rank"] == 1

        # alice's next deal is deal 2, at once after a win, and another deal
        a2 = await alice.tournament_play(tid)
        assert a2["deal"] == 2
        start_2 = await alice.wait_running(a2["race"]["race"])
        assert start_2["view"] != start_a["view"]

        listing = await bob.tournaments()
        assert tid not in [x["tournament"] for k in ("upcoming", "live", "finished")
                           for x in listing[k]]  # private: not listed
        assert verify(int(meta["master"]), pinned)
        assert (await bob.request("tournament.info", tournament=tid))["tournament"][
            "commitment"] == pinned


async def test_entries_close_at_the_cut_off_and_a_finished_arena_reveals_its_seed(
        redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server, \
            harness.accounts(harness.ws_url(server), "carol") as (carol,):
        t = await carol.tournament_create("Short", VARIANT, OPTIONS, minutes=10,
                                          deal_seconds=30)
        tid = t["tournament"]
        r = harness.redis_client(redis_url)
        try:  # move the window into the past: the cut-off and the end have passed
            now = int(t["starts_at"])
            key = f"sr:t:{{t:{tid}}}"
            await r.hset(key, mapping={"starts_at": now - 3_600_000,
                                       "ends_at": now - 60_000, "cutoff": now - 600_000})
        finally:
            await r.aclose()
        with pytest.raises(ClientError) as err:
            await carol.tournament_join(tid)
        assert err.value.code == "entries_closed"
        with pytest.raises(ClientError) as err:
            await carol.tournament_join("ZZZZZZZZ")
        assert err.value.code == "tournament_not_found"
        standings = await carol.request("tournament.standings", tournament=tid)
        assert standings["entrants"] == 0 and standings["my_rank"] is None
        meta = await harness.tournament_meta(redis_url, tid)
        summary = (await carol.request("tournaments"))  # private ones are not listed
        assert all(x["tournament"] != tid for x in summary["finished"])
        # a finished tournament's summary reveals the master seed, which checks out
        server_summary = await server.ctx.arenas.summary(tid)
        assert server_summary["state"] == "finished"
        assert server_summary["master_seed"] == int(meta["master"])
        assert verify(server_summary["master_seed"], server_summary["commitment"])


async def test_a_guest_cannot_enter(redis_url: str) -> None:
    async with harness.running_server(redis_url) as server, \
            harness.clients(harness.ws_url(server), "guest1") as (guest,):
        with pytest.raises(ClientError) as err:
            await guest.tournament_create("x", VARIANT)
        assert err.value.code == "account_required"


def _result(k: int, won: bool, home: int, ended_at: int, resigned: bool = False
            ) -> dict[str, Any]:
    return {"k": k, "race": f"r{k}", "won": won, "elapsed": 20_000, "limit": 60_000,
            "best_home": 52 if won else home, "dealt_home": 0, "total": 52,
            "berserk": False, "resigned": resigned, "ended_at": ended_at, "review": "clear"}


async def test_the_stored_standings_are_the_rules_standings(redis_url: str) -> None:
    """Random results for 12 entrants through the store's scripts: its order is exactly
    ``shared.tournaments.arena.standings``'s, with every tie-break."""
    rng = random.Random(7)
    store = Store(harness.redis_client(redis_url))
    try:
        ts = store.tournaments
        tid = "feedfacecafe0001"
        assert await ts.create(tid, {"format": "arena", "starts_at": 0, "ends_at": 10**13,
                                     "created_at": 0, "cutoff": 10**13, "deal_ms": 60_000,
                                     "entrants": 0, "v": 0}, public=False)
        entrants: dict[str, list[dict[str, Any]]] = {}
        for i in range(12):
            pid = f"p{i:02d}"
            assert await ts.enter(tid, pid, f"name{i}", 0, totals([])) == i + 1
            entrants[pid] = []
        for _ in range(40):
            pid = rng.choice(sorted(entrants))
            stored, rev = await ts.results(tid, pid)
            k = len(stored) + 1
            res = _result(k, rng.random() < 0.4, rng.choice([0, 20, 35, 51]),
                          rng.choice([1000, 2000, 3000]) + k)
            assert await ts.record(tid, pid, k, res, totals([*stored, res]), rev,
                                   "append") == "ok"
            assert await ts.record(tid, pid, k, res, totals([*stored, res]), rev + 1,
                                   "append") == "dup"  # once only
            entrants[pid].append(res)
        _, n, _, rows = await ts.standings(tid, None, 12, 0)
        from solrace.server.game.arenarules import deal_result
        want = scoring.standings(
            (pid, int(pid[1:]) + 1, [deal_result(r) for r in results])
            for pid, results in entrants.items())
        assert n == 12
        assert [r[1] for r in rows] == [w.player for w in want]
        assert [int(r[3].split("|")[0]) for r in rows] == [w.points for w in want]
        # a stale revision is refused and changes nothing
        stored, rev = await ts.results(tid, "p00")
        extra = _result(len(stored) + 1, True, 52, 9999)
        assert await ts.record(tid, "p00", len(stored) + 1, extra, totals([*stored, extra]),
                               rev - 1 if rev else rev + 5, "append") == "stale"
        assert (await ts.results(tid, "p00"))[0] == stored
    finally:
        await store.redis.aclose()


async def test_operators_recurring_arenas_are_listed_once(redis_url: str) -> None:
    from solrace.shared.tournaments.schedule import parse_arenas

    specs = parse_arenas(f"{VARIANT} cells=5 empty_fill=any | every 15m for 10m | 60")
    async with harness.running_server(redis_url, arenas=specs) as server, \
            harness.accounts(harness.ws_url(server), "dave") as (dave,):
        first = await server.ctx.arenas.schedule(specs)
        assert first == await server.ctx.arenas.schedule(specs)  # the same ids, once
        listing = await dave.tournaments()
        listed = {t["tournament"]: t for k in ("upcoming", "live") for t in listing[k]}
        assert set(first) == set(listed)
        upcoming = listing["upcoming"][0]
        assert upcoming["name"] == "Seven by Five arena" and not upcoming["private"]
        assert upcoming["ends_at"] - upcoming["starts_at"] == 10 * 60_000
        assert upcoming["starts_at"] % (15 * 60_000) == 0
        joined = await dave.tournament_join(upcoming["tournament"])  # entries open before
        assert joined["entrants"] == 1 and joined["state"] == "open"
        with pytest.raises(ClientError) as err:
            await dave.tournament_play(upcoming["tournament"])
        assert err.value.code == "not_running"


async def test_an_operator_stores_a_recurring_event_with_the_admin_command(
        redis_url: str) -> None:
    """``solrace-server admin schedule add`` stores a recurring event in Redis; the server's
    scheduling creates its instances (format event, its deals) as for ``--arenas``; a bad
    line is refused with the reason; ``remove`` takes it out of the list."""
    from test_fairplay_e2e import admin

    line = f"{VARIANT} cells=5 empty_fill=any | every 15m for 10m | 60 | event 2"
    bad = admin(redis_url, "schedule", "add", "seven-by-five | every 15m for 10m | 60 | event 9")
    assert bad.returncode == 1 and "event N" in bad.stderr
    wrong = admin(redis_url, "schedule", "add", "no-such-game | every 15m for 10m | 60")
    assert wrong.returncode == 1 and "no-such-game" in wrong.stderr
    done = admin(redis_url, "schedule", "add", line)
    assert done.returncode == 0 and done.stdout.startswith("added: "), done.stderr
    assert admin(redis_url, "schedule", "add", line).stdout.startswith("already stored")
    assert admin(redis_url, "schedule", "list").stdout.split("\n")[0] == " ".join(line.split())
    async with harness.running_server(redis_url) as server, \
            harness.accounts(harness.ws_url(server), "erin") as (erin,):
        made = await server.ctx.arenas.schedule_all(())
        assert made and made == await server.ctx.arenas.schedule_all(())
        listing = await erin.tournaments()
        listed = {t["tournament"]: t for k in ("upcoming", "live") for t in listing[k]}
        assert set(made) <= set(listed)
        one = listed[made[-1]]
        assert (one["format"], one["deals"], one["name"]) == ("event", 2, "Seven by Five event")
        assert one["ends_at"] - one["starts_at"] == 2 * 60_000  # two deals of 60 s
        gone = admin(redis_url, "schedule", "remove", line)
        assert gone.returncode == 0 and gone.stdout.startswith("removed: ")
        assert admin(redis_url, "schedule", "list").stdout.strip() == "no stored schedules"
        assert await server.ctx.arenas.schedule_all(()) == []


async def test_a_process_killed_mid_arena_loses_no_move_and_no_point(
        redis_url: str, tmp_path: Any) -> None:
    """The entrant's deal runs on process one; one is SIGKILLed mid-deal; the entrant
    reconnects to process two, resumes the same deal with every acked move, wins it, and the
    standings count it."""
    async with harness.two_processes(redis_url, tmp_path, "--rate", "1000",
                                     "--burst", "1000") as (one, two):
        alice = harness.AccountClient(one.url, name="alice")
        await alice.connect()
        try:
            t = await alice.tournament_create("Crash arena", VARIANT, OPTIONS, minutes=10,
                                              deal_seconds=120)
            tid = t["tournament"]
            await pin_master(redis_url, tid)
            await alice.tournament_join(tid)
            first = await alice.tournament_play(tid)
            rid = first["race"]["race"]
            await alice.wait_running(rid)
            meta = await harness.tournament_meta(redis_url, tid)
            line = [m.text() for m in (await solved(deal_seed(int(meta["master"]), 1))).moves]
            await _play_line(alice, rid, line[:7])
            one.kill()
            assert await harness.read_log(redis_url, rid, alice.player) == line[:7]
            alice.url = two.url
            await alice.reconnect()
            again = await alice.tournament_play(tid)
            assert again["race"]["race"] == rid and again["deal"] == 1  # resumed, not dealt
            assert alice.boards[rid]["seq"] == 7
            await _play_line(alice, rid, line[7:])
            await alice.next_event(race=rid, k="end", timeout=20)
            async with asyncio.timeout(10):
                while True:
                    s = await alice.tournament_standings(tid)
                    if s["rows"] and s["rows"][0]["played"] == 1:
                        break
                    await asyncio.sleep(0.2)
            row = s["rows"][0]
            assert (row["name"], row["won"], row["points"]) == ("alice", 1, 5)
        finally:
            await alice.close()


async def test_a_ban_takes_an_entrants_points_and_an_unban_gives_them_back(
        redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server, \
            harness.accounts(harness.ws_url(server), "erin", "finn") as (erin, finn):
        t = await erin.tournament_create("Ban arena", VARIANT, OPTIONS, minutes=10,
                                         deal_seconds=120)
        tid = t["tournament"]
        await pin_master(redis_url, tid)
        for c in (erin, finn):
            await c.tournament_join(tid)
        rid = (await erin.tournament_play(tid))["race"]["race"]
        await erin.wait_running(rid)
        meta = await harness.tournament_meta(redis_url, tid)
        line = await solved(deal_seed(int(meta["master"]), 1))
        await _play_line(erin, rid, [m.text() for m in line.moves])
        await erin.next_event(race=rid, k="end")

        async def points() -> dict[str, int]:
            for _ in range(50):
                s = await finn.tournament_standings(tid)
                got = {r["name"]: r["points"] for r in s["rows"]}
                if got.get("erin") in (0, 5) and got.get("erin") == want.get("erin"):
                    return got
                await asyncio.sleep(0.1)
            return got

        want = {"erin": 5}
        assert await points() == {"erin": 5, "finn": 0}
        today = await server.ctx.daily.today()
        out = await server.ctx.moderation.ban("operator", "erin", "cheating", today)
        assert out["name"] == "erin"
        want = {"erin": 0}
        assert await points() == {"erin": 0, "finn": 0}
        s = await finn.tournament_standings(tid)
        assert s["rows"][0]["name"] == "finn"  # erin's points are gone: finn ranks first
        await server.ctx.moderation.unban("operator", "erin", "appeal upheld", today)
        want = {"erin": 5}
        assert await points() == {"erin": 5, "finn": 0}


async def test_a_scheduled_event_ranks_by_deals_won_then_time(redis_url: str) -> None:
    """Two deals of 30 s, starting together: gia wins deal 1 and resigns deal 2 (her time:
    deal 1's, then the whole limit); hal resigns both (the whole limit twice); ivy entered
    and played nothing. Entries close at the start; a third deal is refused."""
    async with harness.running_server(redis_url, **FAST) as server, \
            harness.accounts(harness.ws_url(server), "gia", "hal", "ivy") as (gia, hal, ivy):
        t = await gia.tournament_create("Evening event", VARIANT, OPTIONS, starts_in=2,
                                        deal_seconds=30, format="event", deals=2)
        tid = t["tournament"]
        await pin_master(redis_url, tid)
        assert t["format"] == "event" and t["deals"] == 2
        assert t["ends_at"] - t["starts_at"] == 60_000 and t["cutoff"] == t["starts_at"]
        for c in (gia, hal, ivy):
            await c.tournament_join(tid)
        with pytest.raises(ClientError) as err:
            await gia.tournament_play(tid)
        assert err.value.code == "not_running" and err.value.extra["retry_after"] >= 1
        await asyncio.sleep(max(0.0, (t["starts_at"] - await server.ctx.store.server_time_ms())
                                / 1000) + 0.05)
        late = harness.AccountClient(harness.ws_url(server), name="jon")
        await late.connect()
        with pytest.raises(ClientError) as err:
            await late.tournament_join(tid)
        assert err.value.code == "entries_closed"
        await late.close()

        meta = await harness.tournament_meta(redis_url, tid)
        d1 = await gia.tournament_play(tid)
        with pytest.raises(ClientError) as err:
            await gia.tournament_play(tid, berserk=True)
        assert err.value.code == "bad_option"  # an event has no berserk
        rid = d1["race"]["race"]
        await gia.wait_running(rid)
        line = await solved(deal_seed(int(meta["master"]), 1))
        await _play_line(gia, rid, [m.text() for m in line.moves])
        end = await gia.next_event(race=rid, k="end")
        won_in = end["standings"][0]["elapsed"]
        d2 = await gia.tournament_play(tid)  # at once after a deal: no wait in an event
        assert d2["deal"] == 2
        await gia.resign(d2["race"]["race"])
        for deal in (1, 2):
            r = await hal.tournament_play(tid)
            assert r["deal"] == deal
            await hal.resign(r["race"]["race"])
            await hal.next_event(race=r["race"]["race"], k="end")
        with pytest.raises(ClientError) as err:
            await hal.tournament_play(tid)
        assert err.value.code == "not_running"  # every deal played
        async with asyncio.timeout(10):
            while True:
                s = await ivy.tournament_standings(tid)
                if sum(r["played"] for r in s["rows"]) == 4:
                    break
                await asyncio.sleep(0.1)
        rows = {r["name"]: r for r in s["rows"]}
        assert [r["name"] for r in s["rows"]] == ["gia", "hal", "ivy"]
        assert (rows["gia"]["won"], rows["gia"]["time"]) == (1, won_in + 30_000)
        assert (rows["hal"]["won"], rows["hal"]["time"]) == (0, 60_000)
        assert rows["hal"]["home"] >= 0 and rows["ivy"]["time"] == 60_000
        assert s["my_rank"] == 3
