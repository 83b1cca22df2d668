"""Daily challenges (``server/game/daily.py``): seeds, certification, commit-reveal, one attempt.

Certification with the real solver is slow for most variants at the production budget (see
``docs/leaderboards.md``), so the tests that exercise it pin a (secret, date, budget) found
offline where it is quick, and every other test stores a daily record through the store, as
the certifier would, and plays on that. Seeds are recomputed here with ``hmac`` directly, not
through ``candidate_seed``. "Today" is the Redis clock's UTC date, the server's definition.

The helpers at the top are shared with ``test_leaderboards.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import functools
import hashlib
import hmac
import os
import sys
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import harness
import pytest
from solrace.client.library import Client, ClientError
from solrace.server.game import daily as D
from solrace.server.game.races import RaceService
from solrace.server.store import Store
from solrace.shared.engine import Game, Status
from solrace.shared.protocol import ProtocolError
from solrace.shared.solver import Budget, solve

BACKENDS = ("single", "cluster")  # every test with redis_url runs on both (conftest.py)

SECRET = harness.SECRET
#: The canonical default options of each variant: the ``<options>`` of the seed message.
DEFAULT_OPTIONS = {
    "sixes-and-sevens": "empty_fill=auto",
    "seven-by-five": "cells=5,empty_fill=any",  # its defaults are (almost) never winnable
    "double-aces-and-kings": "reserve_to_space=no",
    "unlimited": "draw=1,foundation_takeback=yes",
    "forty-and-eight": "foundation_takeback=no",
}


# ----------------------------------------------------------------------------- helpers


def hmac_seed(secret: str, day: str, variant: str, index: int) -> int:
    """Candidate ``index`` of a day, as ``docs/leaderboards.md`` defines it."""
    msg = f"{day}|{variant}|{DEFAULT_OPTIONS[variant]}|{index}".encode()
    return int.from_bytes(hmac.new(secret.encode(), msg, hashlib.sha256).digest()[:8], "big")


def sha(seed: int) -> str:
    return hashlib.sha256(seed.to_bytes(8, "big")).hexdigest()


def record_for(variant: str, seed: int, *, candidate: int = 0, par: int = 100) -> dict[str, str]:
    """A daily record as the certifier stores it (for tests that are not about certifying)."""
    return {"seed": str(seed), "candidate": str(candidate), "commitment": sha(seed),
            "par": str(par), "nodes": "0", "options": DEFAULT_OPTIONS[variant],
            "certified_at": "0", "certify_seconds": "0"}


#: Server settings for tests that play a whole winning line at full speed.
FAST: dict[str, Any] = {"rate": 1000.0, "burst": 1000}

#: The tests' winnable daily, and a winning line for it (found offline with the solver, pinned
#: so that the tests do not depend on how fast a later solver finds it; checked by the engine).
WIN_VARIANT = "unlimited"
WIN_SEED = hmac_seed(SECRET, "2030-01-02", WIN_VARIANT, 0)
WIN_LINE_TEXT = (
    "sw sw sw sw sw sw sw sw sw sw sw sw sw sw sw sw sw sw sw wf1 t5f1 t5f1 sw sw sw sw wf2 "
    "t2f2 t1f2 t4t2 t7t4 t7t2 t5t6 sw ws sw sw sw sw sw sw sw sw sw sw sw wt7 t5t7 sw wt5 "
    "t4t5:2 t7t4:3 t7f3 t7f4 sw sw sw sw sw wf4 sw sw sw wf4 sw sw ws sw wf3 sw wf3 sw sw sw "
    "sw sw sw sw sw sw wf3 wf4 t4f4 t7f4 sw sw sw sw sw sw sw ws sw wt1 t3t1 sw wt7 sw sw sw "
    "sw sw sw sw sw wt7 t3t7 t4t3:3 t6t4:2 t6f1 t6f2 t2f1 t6f3 sw sw wf2 t2f3 t3f2 sw sw wf1 "
    "t2f1 t3f4 t5f2 t7f3 t3f2 t5f1 t7f4 wf3 t3f4 t5f2 t7f3 ws sw sw sw sw wf3 wf1 t4f2 t5f1 "
    "t7f4 t4f4 sw sw sw wf4 wf1 wf3 sw wf2 t1f1 t4f3 wf4 wf2 t1f2 t6f3 t6f1"
)


@functools.cache
def winning_line() -> tuple[str, ...]:
    line = tuple(WIN_LINE_TEXT.split())
    game = Game(WIN_VARIANT, None, WIN_SEED)
    for move in line:
        game.push(move)
    assert game.status is Status.WON, "the pinned winning line no longer wins"
    return line


@contextlib.asynccontextmanager
async def open_store(redis_url: str) -> AsyncIterator[Store]:
    redis = harness.redis_client(redis_url)
    try:
        yield Store(redis)
    finally:
        await redis.aclose()


async def redis_today(store: Store) -> str:
    """The server's today: the UTC date of the Redis clock (waiting out the last 30 s of a
    day, so a test does not straddle midnight)."""
    ms = await store.server_time_ms()
    left = 86_400_000 - ms % 86_400_000
    if left < 30_000:
        await asyncio.sleep(left / 1000 + 0.5)
        ms = await store.server_time_ms()
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).date().isoformat()


def yesterday_of(day: str) -> str:
    return (dt.date.fromisoformat(day) - dt.timedelta(days=1)).isoformat()


async def store_daily(redis_url: str, variant: str = WIN_VARIANT, seed: int = WIN_SEED,
                      *, day: str | None = None, par: int = 158) -> str:
    """Store a daily record for ``day`` (default today); returns the day."""
    async with open_store(redis_url) as store:
        day = day or await redis_today(store)
        assert await store.save_daily(day, variant, record_for(variant, seed, par=par))
    return day


async def daily_start(c: Client, variant: str = WIN_VARIANT, practice: bool = False
                      ) -> tuple[dict[str, Any], bool]:
    """``daily.start``; returns the race summary (with the client's board synced) and
    whether the game is ranked."""
    reply = await c.request("daily.start", variant=variant, practice=practice)
    rid = reply["race"]["race"]
    c.versions.setdefault(rid, 0)
    await c.sync(rid)
    return reply["race"], reply["ranked"]


async def end_of(c: Client, rid: str) -> dict[str, Any]:
    """The race's ``end`` event as this client received it."""
    with contextlib.suppress(ClientError):
        await c.sync(rid)
    for _ in range(3):
        reply = await c.request("sync", race=rid, since=0)
        for ev in reply["events"]:
            if ev["k"] == "end":
                return ev
        await asyncio.sleep(0.2)
    raise AssertionError(f"race {rid} has no end event")


async def eventually(probe: Any, ok: Any, timeout: float = 10.0) -> Any:
    """``await probe()`` until ``ok(value)`` or the timeout; the last value. The finish hooks
    (leaderboard, stats, ratings) run just after the end event is published."""
    deadline = time.monotonic() + timeout
    while True:
        value = await probe()
        if ok(value) or time.monotonic() > deadline:
            return value
        await asyncio.sleep(0.05)


async def play(c: Client, rid: str, moves: tuple[str, ...] | list[str]) -> dict[str, Any]:
    ack: dict[str, Any] = {}
    for move in moves:
        ack = await c.move(rid, move)
    return ack


def no_seed_anywhere(obj: Any) -> bool:
    """True when no map inside ``obj`` has a ``seed`` key."""
    if isinstance(obj, dict):
        return "seed" not in obj and all(no_seed_anywhere(v) for v in obj.values())
    if isinstance(obj, list | tuple):
        return all(no_seed_anywhere(v) for v in obj)
    return True


# ----------------------------------------------------------------------------- seeds


def test_candidate_seed_is_the_documented_hmac() -> None:
    for variant, options in DEFAULT_OPTIONS.items():
        for index in (0, 1, 499):
            got = D.candidate_seed(SECRET.encode(), "2026-11-29", variant, options, index)
            assert got == hmac_seed(SECRET, "2026-11-29", variant, index)
    # every part of the message matters
    base = D.candidate_seed(b"k" * 16, "2026-11-29", "unlimited", "draw=1", 0)
    assert len({base,
                D.candidate_seed(b"K" * 16, "2026-11-29", "unlimited", "draw=1", 0),
                D.candidate_seed(b"k" * 16, "2026-11-30", "unlimited", "draw=1", 0),
                D.candidate_seed(b"k" * 16, "2026-11-29", "seven-by-five", "draw=1", 0),
                D.candidate_seed(b"k" * 16, "2026-11-29", "unlimited", "draw=3", 0),
                D.candidate_seed(b"k" * 16, "2026-11-29", "unlimited", "draw=1", 1)}) == 6
    assert 0 <= base < 2**64


def test_the_seed_message_uses_the_daily_options() -> None:
    """Each daily uses its variant's default options, except Seven by Five (see DAILY_OPTIONS)."""
    for variant, options in DEFAULT_OPTIONS.items():
        name, opts = D.DailyService.variant_name(variant)
        assert name == variant
        assert ",".join(f"{k}={v}" for k, v in sorted(opts.items())) == options


def test_utc_days() -> None:
    assert D.day_of(0) == "1970-01-01"
    assert D.previous_day("2028-03-01") == "2028-02-29"
    assert D.next_day("2026-12-31") == "2027-01-01"


# ----------------------------------------------------------------------------- certification


class FakeSolver:
    """Stands in for ``certify_one``: a verdict per seed, each call recorded."""

    def __init__(self, verdicts: dict[int, tuple[str, int | None, int]], delay: float = 0.0
                 ) -> None:
        self.verdicts = verdicts
        self.delay = delay
        self.calls: list[tuple[str, dict[str, str], int, int]] = []

    def __call__(self, variant: str, options: dict[str, str], seed: int, nodes: int
                 ) -> tuple[str, int | None, int]:
        self.calls.append((variant, options, seed, nodes))
        time.sleep(self.delay)
        return self.verdicts.get(seed, ("lost", None, 1))


@pytest.fixture
def threaded_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    """Certification runs its solver calls in a thread instead of a worker process, so a
    monkeypatched ``certify_one`` is the one called."""
    from solrace.server.game import worker

    monkeypatch.setattr(worker, "ProcessPoolExecutor", lambda **_: ThreadPoolExecutor(1))


async def test_certification_skips_lost_and_undecided_candidates(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, threaded_solver: None
) -> None:
    day = "2031-03-14"
    seeds = [hmac_seed(SECRET, day, "unlimited", i) for i in range(4)]
    fake = FakeSolver({seeds[0]: ("lost", None, 7), seeds[1]: ("unknown", None, 500),
                       seeds[2]: ("won", 88, 42), seeds[3]: ("won", 10, 5)})
    monkeypatch.setattr(D, "certify_one", fake)
    async with open_store(redis_url) as store:
        one = D.DailyService(store, RaceService(store), SECRET.encode(), budget_nodes=500,
                             process="one")
        other = D.DailyService(store, RaceService(store), SECRET.encode(), budget_nodes=500,
                               process="other")
        try:
            record = await one.get("unlimited", day)
            assert record["candidate"] == "2" and int(record["seed"]) == seeds[2]
            assert record["commitment"] == sha(seeds[2])
            assert (record["par"], record["nodes"]) == ("88", "42")
            assert record["options"] == DEFAULT_OPTIONS["unlimited"]
            opts = {"draw": "1", "foundation_takeback": "yes"}
            assert fake.calls == [("unlimited", opts, s, 500) for s in seeds[:3]]
            # stored, and the lock released: later requests, in any process, never solve again
            assert await store.daily(day, "unlimited") == record
            assert not await store.daily_locked(day, "unlimited")
            assert await one.get("unlimited", day) == record
            assert await other.get("unlimited", day) == record
            assert len(fake.calls) == 3
        finally:
            await one.close()
            await other.close()


async def test_one_process_certifies_while_the_others_wait(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, threaded_solver: None
) -> None:
    day = "2031-03-15"
    seeds = [hmac_seed(SECRET, day, "unlimited", i) for i in range(2)]
    fake = FakeSolver({seeds[1]: ("won", 77, 9)}, delay=0.3)
    monkeypatch.setattr(D, "certify_one", fake)
    async with open_store(redis_url) as store:
        services = [D.DailyService(store, RaceService(store), SECRET.encode(), budget_nodes=9,
                                   process=f"p{i}") for i in range(3)]
        try:
            records = await asyncio.gather(
                *(s.get("unlimited", day) for s in services for _ in range(2)))
        finally:
            for s in services:
                await s.close()
    assert all(r == records[0] for r in records) and records[0]["candidate"] == "1"
    assert [c[2] for c in fake.calls] == seeds  # each candidate solved once, in order


async def test_no_winnable_candidate_is_unavailable_and_releases_the_lock(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, threaded_solver: None
) -> None:
    monkeypatch.setattr(D, "MAX_CANDIDATES", 4)
    fake = FakeSolver({}, delay=0.2)  # every candidate proved lost
    monkeypatch.setattr(D, "certify_one", fake)
    async with open_store(redis_url) as store:
        one = D.DailyService(store, RaceService(store), SECRET.encode(), process="one")
        other = D.DailyService(store, RaceService(store), SECRET.encode(), process="other")
        try:
            started = time.monotonic()
            results = await asyncio.gather(one.get("unlimited", "2031-04-01"),
                                           other.get("unlimited", "2031-04-01"),
                                           return_exceptions=True)
            # the waiting process learns of the failure at once, not after the lock's 10 min
            assert time.monotonic() - started < 5
            for res in results:
                assert isinstance(res, ProtocolError) and res.code == "unavailable", res
            assert len(fake.calls) == 4
            assert await store.daily("2031-04-01", "unlimited") is None
            assert not await store.daily_locked("2031-04-01", "unlimited")
            for svc in (one, other):  # within FAILURE_MEMO the failure is not searched again
                with pytest.raises(ProtocolError):
                    await svc.get("unlimited", "2031-04-01")
            assert len(fake.calls) in (4, 8)  # the process that only waited may search once
            calls = len(fake.calls)
            monkeypatch.setattr(D, "FAILURE_MEMO", 0.0)  # once it has passed, search again
            with pytest.raises(ProtocolError):
                await one.get("unlimited", "2031-04-01")
            assert len(fake.calls) == calls + 4
        finally:
            await one.close()
            await other.close()


#: Pinned offline with SECRET: at 10 000 nodes, candidate 0 of this day's sixes-and-sevens is
#: proved lost (10 nodes of the pop-order search: a proof, so it stays skipped whatever the
#: search's order) and candidate 1 is won (170 nodes, par 167).
PINNED_DAY, PINNED_VARIANT, PINNED_BUDGET = "2030-01-18", "sixes-and-sevens", 10_000


def first_won(variant: str, day: str, budget: int, limit: int = 10) -> tuple[int, int | None]:
    """(index, par) of the first candidate the solver wins at ``budget``, solved here."""
    for index in range(limit):
        result = solve((variant, None, hmac_seed(SECRET, day, variant, index)),
                       Budget(nodes=budget, seconds=None))
        if result.won:
            return index, result.par
    raise AssertionError(f"no candidate of {variant} {day} won in {limit}: re-pin the day")


async def test_certification_with_the_real_solver_in_worker_processes(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with (
        harness.running_server(redis_url, daily_budget=PINNED_BUDGET, process_id="cert-a") as a,
        harness.running_server(redis_url, daily_budget=PINNED_BUDGET, process_id="cert-b") as b,
    ):
        assert a.ctx is not None and b.ctx is not None
        started = time.monotonic()
        ra, rb = await asyncio.gather(a.ctx.daily.get(PINNED_VARIANT, PINNED_DAY),
                                      b.ctx.daily.get(PINNED_VARIANT, PINNED_DAY))
        took = time.monotonic() - started
        assert ra == rb, "two processes certified different deals"
        index, par = first_won(PINNED_VARIANT, PINNED_DAY, PINNED_BUDGET)
        assert index >= 1, "candidate 0 is won now: re-pin a day whose candidate 0 is skipped"
        assert (ra["candidate"], ra["par"]) == (str(index), str(par))
        assert int(ra["seed"]) == hmac_seed(SECRET, PINNED_DAY, PINNED_VARIANT, index)
        assert ra["commitment"] == sha(int(ra["seed"]))
        # Seven by Five's default rules (no cells, kings only into spaces) make the solver
        # prove candidate after candidate lost (checked below), so its daily is played with 5
        # cells and any card into a space — and that certifies.
        sbf = await a.ctx.daily.get("seven-by-five", PINNED_DAY)
        assert sbf["options"] == "cells=5,empty_fill=any"
        replay = Game("seven-by-five", {"cells": "5", "empty_fill": "any"}, int(sbf["seed"]))
        assert sbf["commitment"] == sha(int(sbf["seed"])) and replay.status.value == "playing"
    print(f"\ncertified {PINNED_VARIANT} {PINNED_DAY} at {PINNED_BUDGET} nodes: candidate "
          f"{ra['candidate']}, par {ra['par']}, {ra['certify_seconds']} s in the worker "
          f"({took:.2f} s with process start)")
    lost = solve(("seven-by-five", None, hmac_seed(SECRET, PINNED_DAY, "seven-by-five", 0)),
                 Budget(nodes=PINNED_BUDGET, seconds=None))
    assert lost.outcome.value == "lost"


# ----------------------------------------------------------------------------- commit and reveal


async def test_commitment_all_day_seed_only_once_the_day_is_over(redis_url: str) -> None:
    async with open_store(redis_url) as store:
        today = await redis_today(store)
    yesterday = yesterday_of(today)
    seed_today = hmac_seed(SECRET, today, WIN_VARIANT, 0)
    seed_yesterday = hmac_seed(SECRET, yesterday, WIN_VARIANT, 2)
    await store_daily(redis_url, seed=seed_today, day=today, par=120)
    await store_daily(redis_url, seed=seed_yesterday, day=yesterday, par=97)
    async with (
        harness.running_server(redis_url, **FAST) as server,
        harness.accounts(harness.ws_url(server), "erin") as (c,),
    ):
        info = await c.request("daily", variant=WIN_VARIANT)
        assert info["date"] == today and info["variant"] == WIN_VARIANT
        assert info["commitment"] == sha(seed_today) and info["par"] == 120
        assert info["options"] == {"draw": "1", "foundation_takeback": "yes"}
        assert info["attempt"] is None and info["certified"] is True
        assert "seed" not in info
        old = info["yesterday"]
        assert old["date"] == yesterday and old["seed"] == seed_yesterday
        assert sha(old["seed"]) == old["commitment"]

        race, ranked = await daily_start(c)
        assert ranked and race["kind"] == "daily" and race["seats"] == 1
        assert race["commitment"] == sha(seed_today)
        await c.request("resign", race=race["race"])
        end = await end_of(c, race["race"])
        assert end["commitment"] == sha(seed_today)
        assert "seed" not in end, "the daily's seed leaked in the attempt's end event"
        synced = await c.request("sync", race=race["race"], since=0)
        assert no_seed_anywhere(synced)
        again = await c.request("daily", variant=WIN_VARIANT)
        assert again["attempt"] == race["race"] and "seed" not in again
        board = await c.request("leaderboard", variant=WIN_VARIANT)
        assert no_seed_anywhere(board)
        # the day after, the same record is published with its seed
        assert server.ctx is not None
        record = await server.ctx.store.daily(today, WIN_VARIANT)
        assert record is not None
        later = server.ctx.daily.public(WIN_VARIANT, today, record, D.next_day(today))
        assert later["seed"] == seed_today and later["commitment"] == sha(seed_today)


# ----------------------------------------------------------------------------- one attempt


async def test_one_ranked_attempt_then_practice_only(redis_url: str) -> None:
    day = await store_daily(redis_url)
    async with harness.running_server(redis_url, **FAST) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "fran") as (c,):
            with pytest.raises(ClientError) as err:
                await c.request("daily.start", variant=WIN_VARIANT, practice=True)
            assert err.value.code == "bad_option"  # practice opens after the ranked attempt

            race, ranked = await daily_start(c)
            rid = race["race"]
            assert ranked and race["state"] == "running" and race["time_limit"] == 3600
            await play(c, rid, winning_line()[:3])
            again, ranked = await daily_start(c)  # resumes, does not start another
            assert again["race"] == rid and ranked
            assert c.boards[rid]["seq"] == 3
            with pytest.raises(ClientError) as err:
                await c.request("daily.start", variant=WIN_VARIANT, practice=True)
            assert err.value.code == "bad_option"

            await c.request("resign", race=rid)
            await end_of(c, rid)
            with pytest.raises(ClientError) as err:
                await c.request("daily.start", variant=WIN_VARIANT)
            assert err.value.code == "already_played"

            practice, ranked = await daily_start(c, practice=True)
            assert not ranked and practice["kind"] == "practice" and practice["race"] != rid
            assert practice["commitment"] == sha(WIN_SEED)  # the same deal
            ack = await play(c, practice["race"], winning_line())
            assert ack["status"] == "won"
            end = await end_of(c, practice["race"])
            assert "seed" not in end
            second, ranked = await daily_start(c, practice=True)
            assert not ranked and second["race"] not in (rid, practice["race"])

            board = await eventually(
                lambda: c.request("leaderboard", variant=WIN_VARIANT), lambda b: b["total"])
            assert board["total"] == 1 and board["date"] == day
            (row,) = board["rows"]
            assert row["race"] == rid and row["result"] == "resigned" and row["moves"] == 3
            profile = await c.request("profile")
            stats = profile["stats"][WIN_VARIANT]
            assert stats["dailies"] == 1 and stats.get("daily_wins", 0) == 0
            assert "wins" not in stats  # the practice win counts nowhere

        # another connection of the same player (another process could serve it) agrees
        async with harness.running_server(redis_url, **FAST) as other:
            token = c.token
            c2 = Client(harness.ws_url(other), token=token)
            await c2.connect()
            try:
                with pytest.raises(ClientError) as err:
                    await c2.request("daily.start", variant=WIN_VARIANT)
                assert err.value.code == "already_played"
            finally:
                await c2.close()


async def test_requests_waiting_for_a_certification_run_beside_the_queue_up_to_the_limit(
        redis_url: str) -> None:
    """While another process certifies today's deal, every daily of a day (five variants,
    three difficulties) may be asked at once on one connection: sixteen wait beside the
    in-order queue (which keeps answering), a seventeenth is refused at once, and the waiting
    ones are answered when the record appears."""
    async with open_store(redis_url) as store:
        day = await redis_today(store)
        assert await store.lock_daily(day, WIN_VARIANT, "another-process")
    limit = 16
    async with (
        harness.running_server(redis_url, **FAST) as server,
        harness.accounts(harness.ws_url(server), "hana") as (c,),
    ):
        waiting = [asyncio.ensure_future(c.request("daily", variant=WIN_VARIANT))
                   for _ in range(limit)]
        await asyncio.sleep(0.3)
        with pytest.raises(ClientError) as err:
            await c.request("daily", variant=WIN_VARIANT)
        assert err.value.code == "rate_limited" and "16" in err.value.reason
        assert (await c.request("ping"))["t"] == "pong"  # the queue is not held
        assert not any(w.done() for w in waiting)
        await store_daily(redis_url, day=day)  # the other process's record
        replies = await asyncio.wait_for(asyncio.gather(*waiting), 30)
        assert {r["commitment"] for r in replies} == {sha(WIN_SEED)}
        # the slots are free again
        assert (await c.request("daily", variant=WIN_VARIANT))["date"] == day


async def test_concurrent_starts_claim_one_attempt(redis_url: str) -> None:
    await store_daily(redis_url)
    async with (
        harness.running_server(redis_url, process_id="p1", **FAST) as one,
        harness.running_server(redis_url, process_id="p2", **FAST) as two,
    ):
        a = harness.AccountClient(harness.ws_url(one), name="gail")
        await a.connect()
        b = Client(harness.ws_url(two), token=a.token)
        await b.connect()
        try:
            replies = await asyncio.gather(
                *(x.request("daily.start", variant=WIN_VARIANT) for x in (a, b, a, b)))
            assert len({r["race"]["race"] for r in replies}) == 1
            assert all(r["ranked"] for r in replies)
        finally:
            await a.close()
            await b.close()


async def test_the_attempt_cannot_be_watched_or_joined(redis_url: str) -> None:
    await store_daily(redis_url)
    async with (
        harness.running_server(redis_url, **FAST) as server,
        harness.accounts(harness.ws_url(server), "hank", "ivy") as (h, i),
    ):
        race, _ = await daily_start(h)
        for request, fields in (("watch", {"race": race["race"]}),
                                ("race.join", {"race": race["race"]}),
                                ("race.join", {"code": race["code"]}),
                                ("move", {"race": race["race"], "seq": 0, "move": "sw"}),
                                ("sync", {"race": race["race"], "since": 0})):
            with pytest.raises(ClientError) as err:
                await i.request(request, **fields)
            assert err.value.code in ("not_watchable", "race_full", "race_started",
                                      "not_your_game", "not_in_race"), err.value
        live = await i.request("races.live")
        assert race["race"] not in [r["race"] for r in live["races"]]


# ----------------------------------------------------------------------------- restart


async def test_a_daily_attempt_survives_a_server_kill(redis_url: str, tmp_path: Path) -> None:
    day = await store_daily(redis_url)
    line = winning_line()
    first = harness.ServerProcess(redis_url, tmp_path / "a", "--daily-prepare", "-1",
                                  "--rate", "1000", "--burst", "1000", name="a")
    await asyncio.to_thread(first.start)
    try:
        c = harness.AccountClient(first.url, name="jill")
        await c.connect()
        race, _ = await daily_start(c)
        clock_started = time.monotonic()
        rid = race["race"]
        await play(c, rid, line[:40])
        before = dict(c.boards[rid])
        first.kill()  # SIGKILL: no goodbye
        played_for = time.monotonic() - clock_started
        await c.close()
    finally:
        first.kill()
    async with harness.running_server(redis_url, **FAST) as second:
        c2 = Client(harness.ws_url(second), token=c.token)
        welcome = await c2.connect()
        try:
            assert rid in [r["race"] for r in welcome["races"]]
            again, ranked = await daily_start(c2)
            assert again["race"] == rid and ranked
            for k in ("started_at", "ends_at"):  # the clock did not restart
                assert again[k] == race[k]
            assert c2.boards[rid] == before  # same deal, every move kept
            assert await harness.read_log(redis_url, rid, c2.player or "") == list(line[:40])
            ack = await play(c2, rid, line[40:])
            assert ack["status"] == "won"
            assert ack["elapsed"] >= played_for * 1000
            end = await end_of(c2, rid)
            (row,) = end["standings"]
            assert row["result"] == "won" and row["moves"] == len(line)
            board = await eventually(
                lambda: c2.request("leaderboard", variant=WIN_VARIANT, date=day),
                lambda b: b["total"])
            (entry,) = board["rows"]
            assert entry["race"] == rid and entry["time"] == row["elapsed"]
            assert entry["finished_at"] == race["started_at"] + row["elapsed"]
        finally:
            await c2.close()


# ----------------------------------------------------------------------------- streaks


async def test_streaks_count_consecutive_won_days(redis_url: str) -> None:
    async with open_store(redis_url) as store:
        days = ["2031-01-01", "2031-01-02", "2031-01-03", "2031-01-04", "2031-01-05",
                "2031-01-07", "2031-01-08", "2031-01-09"]
        won = [True, True, True, False, True, True, True, True]
        expected = [1, 2, 3, 0, 1, 1, 2, 3]
        got = [await store.daily_stats("p1", "unlimited", d, yesterday_of(d), w)
               for d, w in zip(days, won)]
        assert got == expected  # a lost daily ends it; so does a day without one (01-06)
        stats = await store.stats("p1")
        assert stats["unlimited:dailies"] == "8" and stats["unlimited:daily_wins"] == "7"
        assert stats["unlimited:best_streak"] == "3"
        assert stats["unlimited:last_daily"] == "2031-01-09"
        for d in ("2031-01-10", "2031-01-11", "2031-01-12", "2031-01-13"):
            await store.daily_stats("p1", "unlimited", d, yesterday_of(d), True)
        assert (await store.stats("p1"))["unlimited:best_streak"] == "7"
        # variants keep separate streaks
        assert await store.daily_stats("p1", "sixes-and-sevens", "2031-01-13", "2031-01-12",
                                       True) == 1


async def test_winning_today_extends_yesterdays_streak(redis_url: str) -> None:
    day = await store_daily(redis_url)
    async with harness.running_server(redis_url, **FAST) as server:
        assert server.ctx is not None
        async with harness.accounts(harness.ws_url(server), "kate") as (c,):
            assert c.player is not None
            store = server.ctx.store
            await store.daily_stats(c.player, WIN_VARIANT, yesterday_of(day),
                                    yesterday_of(yesterday_of(day)), True)
            race, _ = await daily_start(c)
            ack = await play(c, race["race"], winning_line())
            assert ack["status"] == "won"
            await end_of(c, race["race"])
            profile = await eventually(
                lambda: c.request("profile", name="kate"),
                lambda p: p["stats"][WIN_VARIANT]["dailies"] == 2)
            stats = profile["stats"][WIN_VARIANT]
            assert stats["streak"] == 2 and stats["best_streak"] == 2
            assert stats["dailies"] == 2 and stats["daily_wins"] == 2
            assert stats["last_daily"] == day
            assert stats["wins"] == 1 and stats["best_time"] == ack["elapsed"]


# ----------------------------------------------------------------------------- the CLI


def cli_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLRACE_")}
    env.update(SOLRACE_HOME=str(home), PYTHONUNBUFFERED="1", COLUMNS="200")
    env.pop("NO_COLOR", None)
    return env


async def run_cli(home: Path, *argv: str, stdin: str = "", timeout: float = 30.0
                  ) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "solrace.client.cli", *argv, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=cli_env(home))
    out, err = await asyncio.wait_for(proc.communicate(stdin.encode()), timeout)
    return proc.returncode or 0, out.decode(), err.decode()


async def register_cli(home: Path, url: str, name: str) -> None:
    """``solrace register NAME`` (password on stdin): ranked play needs an account."""
    code, out, err = await run_cli(home, "register", name, "--server", url,
                                   stdin=harness.password_for(name) + "\n")
    assert code == 0 and f"registered {name}" in out, err


async def test_solrace_daily_plays_the_ranked_attempt_then_practice(
    redis_url: str, tmp_path: Path
) -> None:
    day = await store_daily(redis_url)
    yesterday_seed = hmac_seed(SECRET, yesterday_of(day), WIN_VARIANT, 0)
    await store_daily(redis_url, seed=yesterday_seed, day=yesterday_of(day), par=90)
    async with harness.running_server(redis_url, **FAST) as server:
        url = harness.ws_url(server)
        base = ("--server", url, "--name", "liam", "--no-color")
        code, out, err = await run_cli(tmp_path, "daily", *base, stdin="resign\n")
        assert code == 1 and "account_required" in err and "solrace register" in err, err
        # ranked play needs an account: the guest liam registers (stdin: the password)
        code, out, err = await run_cli(tmp_path, "register", "--server", url,
                                       stdin=harness.password_for("liam") + "\n")
        assert code == 0 and "registered liam" in out, err
        code, out, err = await run_cli(tmp_path, "daily", *base,
                                       stdin="\n".join(winning_line()) + "\n")
        assert code == 0, err
        assert f"commitment {sha(WIN_SEED)}" in out and "par 158 moves" in out
        assert day in out and str(WIN_SEED) not in out
        assert f"seed {yesterday_seed} (sha256 matches" in out
        assert "you won" in out
        assert "you are #1 of 1" in out and "order: winners first" in out
        # before the attempt: no streak yet; after it, the streak and the month's badge it earned
        head, _, tail = out.partition("you are #1 of 1")
        assert "your Unlimited daily streak: 0 days (best 0)" in head
        assert "your Unlimited daily streak: 1 day (best 1)" in tail
        assert "your monthly badge: " in tail and "(1 of " in tail and "bronze at 5" in tail

        code, out, err = await run_cli(tmp_path, "daily", *base)
        assert code == 1 and "you have played today's ranked unlimited daily" in err
        assert "--practice" in err and "leaderboard" in err

        code, out, err = await run_cli(tmp_path, "daily", "unlimited", "--practice", *base,
                                       stdin="sw\nresign\n")
        assert code == 0, err
        assert "practice (unranked)" in out or "practice game: not ranked" in out
        assert "resigned" in out and "#1" not in out

        code, out, err = await run_cli(tmp_path, "daily", "--info", *base)
        assert code == 0 and "your ranked attempt: finished" in out
        assert "your Unlimited daily streak: 1 day (best 1)" in out
