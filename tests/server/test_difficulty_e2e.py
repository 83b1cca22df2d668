"""Deal difficulty on the server (server/game/dailylevels.py, daily.py, pool.py) against a real
Redis and a real Redis Cluster: dailies in three difficulties beside the day's first one (which
keeps its keys), each difficulty's own attempt and board, the rating stored once with the
record, players' results read from a board, and winnable races and quick pairs by difficulty.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import harness
import pytest
from solrace.client.library import ClientError
from solrace.server.game import daily as D
from solrace.server.game import dailylevels as levels
from solrace.server.game import pool as pool_module
from solrace.server.game.pool import PoolService, config_of
from solrace.server.game.races import RaceService
from solrace.server.store import Keys, Store
from solrace.server.store.connect import open_client
from solrace.shared.learning import difficulty as L
from test_daily import (  # the daily tests' helpers
    FAST,
    SECRET,
    WIN_SEED,
    WIN_VARIANT,
    FakeSolver,
    end_of,
    hmac_seed,
    open_store,
    record_for,
    redis_today,
    register_cli,
    run_cli,
    threaded_solver,  # noqa: F401 (a fixture)
)

pytestmark = pytest.mark.timeout(180)
BACKENDS = ("single", "cluster")


class FakeRater:
    """Stands in for ``rate_one``: a difficulty per seed, each call recorded."""

    def __init__(self, levels_of: dict[int, str]) -> None:
        self.levels = levels_of
        self.calls: list[int] = []

    def __call__(self, variant: str, options: dict[str, str], seed: int
                 ) -> tuple[str, int, int | None]:
        self.calls.append(seed)
        return self.levels.get(seed, "medium"), 40, 150


def test_boards_of_a_variant() -> None:
    plain = {"difficulty": "hard"}
    assert levels.board("unlimited", None, plain) == "unlimited"
    assert levels.board("unlimited", "hard", plain) == "unlimited"  # the first daily is hard
    assert levels.board("unlimited", "easy", plain) == "unlimited:easy"
    assert levels.board("unlimited", "easy", None) == "unlimited:easy"
    assert levels.every_board("unlimited") == ["unlimited", "unlimited:easy",
                                               "unlimited:medium", "unlimited:hard"]


async def test_each_difficulty_is_the_first_candidate_won_and_rated_so(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, threaded_solver: None  # noqa: F811
) -> None:
    day = "2031-05-02"
    seeds = [hmac_seed(SECRET, day, "unlimited", i) for i in range(6)]
    solver = FakeSolver({seeds[1]: ("won", 90, 30), seeds[2]: ("won", 91, 31),
                         seeds[3]: ("unknown", None, 500), seeds[4]: ("won", 92, 32),
                         seeds[5]: ("won", 93, 33)})
    rater = FakeRater({seeds[1]: "medium", seeds[2]: "medium", seeds[4]: "hard",
                       seeds[5]: "easy"})
    monkeypatch.setattr(D, "certify_one", solver)
    monkeypatch.setattr(levels, "rate_one", rater)
    async with open_store(redis_url) as store:
        svc = D.DailyService(store, RaceService(store), SECRET.encode(), budget_nodes=500,
                             process="one")
        try:
            first = await svc.get("unlimited", day)  # the day's first daily, as always
            assert first["candidate"] == "1" and first["difficulty"] == "medium"
            assert (first["effort"], first["effort_par"]) == ("40", "150")
            assert await svc.get_level("unlimited", day, "medium") == ("unlimited", first)
            name, hard = await svc.get_level("unlimited", day, "hard")
            assert name == "unlimited:hard" and hard["candidate"] == "4"
            assert int(hard["seed"]) == seeds[4] and hard["difficulty"] == "hard"
            # the search for a difficulty starts after the first daily's candidate
            assert [c[2] for c in solver.calls] == seeds[:5]
            name, easy = await svc.get_level("unlimited", day, "easy")
            assert name == "unlimited:easy" and easy["candidate"] == "5"
            # each candidate solved (and each won one rated) once in this process
            assert [c[2] for c in solver.calls] == seeds
            assert rater.calls == [seeds[1], seeds[2], seeds[4], seeds[5]]
            # each stored under its board's keys, so nothing is searched twice
            assert await store.daily(day, "unlimited:hard") == hard
            calls = len(solver.calls)
            assert (await svc.get_level("unlimited", day, "hard"))[1] == hard
            assert len(solver.calls) == calls
            assert not await store.daily_locked(day, "unlimited:hard")
        finally:
            await svc.close()


async def test_a_difficulty_none_of_the_candidates_has_is_unavailable(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, threaded_solver: None  # noqa: F811
) -> None:
    monkeypatch.setattr(D, "MAX_CANDIDATES", 5)
    day = "2031-05-03"
    seeds = [hmac_seed(SECRET, day, "unlimited", i) for i in range(5)]
    monkeypatch.setattr(D, "certify_one", FakeSolver({s: ("won", 80, 9) for s in seeds}))
    monkeypatch.setattr(levels, "rate_one", FakeRater(dict.fromkeys(seeds, "easy")))
    async with open_store(redis_url) as store:
        svc = D.DailyService(store, RaceService(store), SECRET.encode(), process="one")
        try:
            assert (await svc.get("unlimited", day))["difficulty"] == "easy"
            with pytest.raises(D.ProtocolError) as err:
                await svc.get_level("unlimited", day, "hard")
            assert err.value.code == "unavailable"
            assert await store.daily(day, "unlimited:hard") is None
        finally:
            await svc.close()


async def test_a_daily_stored_without_a_rating_is_rated_once(redis_url: str) -> None:
    async with open_store(redis_url) as store:
        day = "2031-05-04"
        assert await store.save_daily(day, WIN_VARIANT, record_for(WIN_VARIANT, WIN_SEED))
        svc = D.DailyService(store, RaceService(store), SECRET.encode(), process="one")
        try:
            record = await svc.get(WIN_VARIANT, day)
            effort = await asyncio.to_thread(L.measure, WIN_VARIANT, {}, WIN_SEED)
            assert record["difficulty"] == L.band(WIN_VARIANT, effort).value
            assert record["effort"] == str(effort.nodes)
            stored = await store.daily(day, WIN_VARIANT)
            assert stored is not None and stored["difficulty"] == record["difficulty"]
            assert stored["seed"] == str(WIN_SEED)  # the record is otherwise unchanged
            assert await store.redis.ttl(Keys.daily(day, WIN_VARIANT)) > 0
        finally:
            await svc.close()


async def test_players_results_count_from_the_board(redis_url: str) -> None:
    day, name = "2031-05-05", "unlimited:hard"
    async with open_store(redis_url) as store:
        assert await levels.results(store, day, name) == L.Results(0, 0, None)
        for i in range(L.MIN_PLAYERS):
            won = i < 5
            row = {"player": f"p{i:02d}", "name": f"p{i}", "result": "won" if won else "lost",
                   "time": 100_000 + 1000 * i, "moves": 150, "home": 52 if won else 20,
                   "finished_at": 1000 + i, "race": f"r{i}", "progress_at": 1000}
            assert await store.record_daily(day, name, row["player"], D.rank_key(row), row)
        got = await levels.results(store, day, name)
        assert got == L.Results(L.MIN_PLAYERS, 5, 102_000)  # the median of 100..104 s
        record = {"par": "150", "effort": "10", "effort_par": "150", "difficulty": "easy"}
        rating = await levels.rating(store, day, name, "unlimited", record)
        assert rating["attempts"] == L.MIN_PLAYERS and rating["solver"] == "easy"
        players = rating["players"]
        assert players["win_rate"] == 0.25 and players["median_time"] == 102_000
        expected = L.rate("unlimited", L.Effort(10, 150), got).value
        assert rating["now"] == expected == "medium"  # three in four lost: not easy any more


async def test_a_daily_in_each_difficulty_over_the_wire(redis_url: str) -> None:
    async with open_store(redis_url) as store:
        day = await redis_today(store)
        plain = {**record_for(WIN_VARIANT, WIN_SEED), "difficulty": "easy", "effort": "30",
                 "effort_par": "150"}
        hard_seed = hmac_seed(SECRET, day, WIN_VARIANT, 7)
        hard = {**record_for(WIN_VARIANT, hard_seed, candidate=7), "difficulty": "hard",
                "effort": "900", "effort_par": "200"}
        assert await store.save_daily(day, WIN_VARIANT, plain)
        assert await store.save_daily(day, f"{WIN_VARIANT}:hard", hard)
    async with (
        harness.running_server(redis_url, **FAST) as server,
        harness.accounts(harness.ws_url(server), "olga") as (c,),
    ):
        info = await c.request("daily", variant=WIN_VARIANT)
        assert info["difficulty"] == "easy" and info["commitment"] == plain["commitment"]
        assert info["rating"]["solver"] == "easy" and info["rating"]["players"] is None
        same = await c.request("daily", variant=WIN_VARIANT, difficulty="easy")
        assert same["commitment"] == info["commitment"]
        other = await c.request("daily", variant=WIN_VARIANT, difficulty="hard")
        assert other["difficulty"] == "hard" and other["commitment"] == hard["commitment"]
        assert other["attempt"] is None and "seed" not in other

        reply = await c.request("daily.start", variant=WIN_VARIANT, difficulty="hard")
        race = reply["race"]
        assert reply["ranked"] and race["difficulty"] == "hard"
        assert race["commitment"] == hard["commitment"]
        await c.request("resign", race=race["race"])
        await end_of(c, race["race"])
        board: dict[str, Any] = {}
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            board = await c.request("leaderboard", variant=WIN_VARIANT, difficulty="hard")
            if board["total"]:
                break
            await asyncio.sleep(0.1)
        assert board["difficulty"] == "hard" and board["total"] == 1
        assert board["rows"][0]["race"] == race["race"]
        first = await c.request("leaderboard", variant=WIN_VARIANT)  # its own board
        assert first["difficulty"] == "easy" and first["total"] == 0
        with pytest.raises(ClientError) as err:
            await c.request("daily.start", variant=WIN_VARIANT, difficulty="hard")
        assert err.value.code == "already_played"
        # the day's first daily keeps its own attempt, reached with or without its difficulty
        again = await c.request("daily.start", variant=WIN_VARIANT, difficulty="easy")
        assert again["ranked"] and again["race"]["commitment"] == plain["commitment"]
        assert (await c.request("daily", variant=WIN_VARIANT))["attempt"] == \
            again["race"]["race"]
        with pytest.raises(ClientError) as bad:
            await c.request("daily", variant=WIN_VARIANT, difficulty="extreme")
        assert bad.value.code == "bad_option"


async def test_a_difficulty_pool_holds_only_deals_rated_so(redis_url: str) -> None:
    store = Store(open_client(redis_url, max_connections=8))
    await store.ping()
    pool = PoolService(store, size=1, budget_nodes=2_000, wait=0, process="t")
    config, name, opts = config_of("unlimited", {})
    try:
        assert await pool.top_up(f"{config}|hard") == 1
        deal = await pool.take("unlimited", {}, "hard")
        assert deal.difficulty == "hard" and deal.variant == "unlimited"
        effort = await asyncio.to_thread(L.measure, name, opts, deal.seed)
        assert L.band(name, effort) is L.Difficulty.HARD
        for level in ("easy", "medium"):  # the won candidates of other ratings kept there
            got = await store.deals.pool_take(f"{config}|{level}")
            if got is not None:
                effort = await asyncio.to_thread(L.measure, name, opts, got[0])
                assert L.band(name, effort).value == level
        assert pool_module.split_config(f"{config}|hard") == (name, opts, "hard")
    finally:
        await pool.close()
        await store.redis.aclose()


async def test_winnable_races_and_quick_pairs_by_difficulty(redis_url: str) -> None:
    config = config_of("unlimited", {})[0]
    async with harness.running_server(redis_url, pool_size=3, pool_wait=0) as server:
        assert server.ctx is not None
        deals = server.ctx.store.deals
        for seed in (11, 12, 13):  # stand-ins for certified seeds of each pool
            assert await deals.pool_add(f"{config}|hard", seed, 100, 1, 3)
        assert await deals.pool_add(f"{config}|easy", 14, 100, 1, 3)
        async with harness.clients(harness.ws_url(server), "pia", "quin", "rolf") as (
                pia, quin, rolf):
            summary = await pia.create_race("unlimited", winnable=True, difficulty="hard")
            assert summary["winnable"] is True and summary["difficulty"] == "hard"
            with pytest.raises(ClientError) as err:
                await pia.request("race.create", variant="unlimited", difficulty="hard")
            assert err.value.code == "bad_option"  # a difficulty needs winnable
            first = await quin.quick("unlimited", winnable=True, difficulty="hard")
            assert first["t"] == "queued" and first["queue"].endswith("|winnable|hard")
            other = await rolf.quick("unlimited", winnable=True, difficulty="easy")
            assert other["t"] == "queued"  # another difficulty: another queue, no pair
            await rolf.request("quick.cancel")
            second = await rolf.quick("unlimited", winnable=True, difficulty="hard")
            assert second["t"] == "race" and second["race"]["difficulty"] == "hard"
            matched = await quin.next_event(t="matched")
            assert matched["race"]["race"] == second["race"]["race"]


async def test_solrace_daily_and_leaderboard_with_a_difficulty(redis_url: str,
                                                                tmp_path: Path) -> None:
    async with open_store(redis_url) as store:
        day = await redis_today(store)
        plain = {**record_for(WIN_VARIANT, WIN_SEED), "difficulty": "medium", "effort": "35",
                 "effort_par": "160"}
        hard_seed = hmac_seed(SECRET, day, WIN_VARIANT, 4)
        hard = {**record_for(WIN_VARIANT, hard_seed, candidate=4, par=210),
                "difficulty": "hard", "effort": "400", "effort_par": "210"}
        assert await store.save_daily(day, WIN_VARIANT, plain)
        assert await store.save_daily(day, f"{WIN_VARIANT}:hard", hard)
    async with harness.running_server(redis_url, **FAST) as server:
        url = harness.ws_url(server)
        await register_cli(tmp_path, url, "sven")
        base = ("--server", url, "--no-color")
        code, out, err = await run_cli(tmp_path, "daily", "--difficulty", "hard", "--info",
                                       *base)
        assert code == 0, err
        assert f"{day} (UTC) · hard" in out and f"commitment {hard['commitment']}" in out
        assert "par 210 moves" in out
        code, out, err = await run_cli(tmp_path, "daily", "--info", *base)
        assert code == 0 and f"{day} (UTC) · medium" in out, err
        code, out, err = await run_cli(tmp_path, "daily", "--difficulty", "hard", *base,
                                       stdin="resign\n")
        assert code == 0, err
        assert "you are #1 of 1" in out, out
        code, out, err = await run_cli(tmp_path, "daily", "--difficulty", "hard", *base)
        assert code == 1 and "--difficulty hard --practice" in err, err
        code, out, err = await run_cli(tmp_path, "leaderboard", WIN_VARIANT, "--difficulty",
                                       "hard", *base)
        assert code == 0 and "Unlimited · hard" in out and "sven" in out, (out, err)
        code, out, err = await run_cli(tmp_path, "leaderboard", WIN_VARIANT, *base)
        assert code == 0 and "Unlimited · medium" in out and "sven" not in out, (out, err)
