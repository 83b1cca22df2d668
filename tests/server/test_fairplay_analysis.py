"""The worker pool's solver analysis of ranked lines (server/fairplay/analyses.py): a result that
needs one stays ``pending`` — stored, not listed — until it is in, then is listed or held;
the queue survives its process; a running server attaches the analysis to a held case. Real
Redis (single and cluster), real worker processes."""

from __future__ import annotations

import asyncio
from typing import Any

import harness
from solrace.client.library import Client
from solrace.server.fairplay.service import PENDING, FairPlayService, case_id
from solrace.server.store import Store
from solrace.shared.fairplay import History, evidence, score
from solrace.shared.fairplay import signals as S
from test_daily import FAST, WIN_SEED, WIN_VARIANT, open_store, redis_today, store_daily
from test_fairplay_e2e import admin, instant_win

BACKENDS = ("single", "cluster")


async def pending_daily(store: Store, fp: FairPlayService, rid: str, pid: str,
                        moves: list[str], *, day: str, recent: tuple[float, ...] = ()) -> str:
    """A won daily attempt stored as the screening leaves one that waits for its analysis."""
    ev = evidence(_record(moves))
    timing = score(ev, History(400.0, 100, recent_scores=recent))
    assert not timing.held
    cid = case_id(rid, pid)
    case = {"case": cid, "race": rid, "player": pid, "name": pid, "kind": "daily", "day": day,
            "variant": WIN_VARIANT, "status": PENDING, "analysis": "pending",
            "deal": {"variant": WIN_VARIANT, "options": {}, "seed": WIN_SEED},
            "score": timing.to_wire(), "evidence": ev,
            "history": {"account_age_days": 400.0, "ranked_games": 100, "open_reports": 0,
                        "recent_scores": list(recent)},
            "result": {"result": "won", "elapsed": ev["elapsed_ms"], "moves": len(moves),
                       "home": 104}, "created_at": 0}
    await store.save_case(rid, pid, case)
    row = {"player": pid, "name": pid, "result": "won", "time": ev["elapsed_ms"],
           "moves": len(moves), "home": 104, "finished_at": 1, "race": rid,
           "review": PENDING, "key": f"0{ev['elapsed_ms']:012d}|{pid}"}
    assert await store.record_daily(day, WIN_VARIANT, pid, row["key"], row, listed=False)
    return cid


def _record(moves: list[str]) -> Any:
    from solrace.shared.fairplay import GameRecord

    times = [4000 + 2600 * i + (i * 7919) % 3100 for i in range(len(moves))]
    return GameRecord(variant=WIN_VARIANT, options={}, seed=WIN_SEED, moves=tuple(moves),
                      times_ms=tuple(times), result="won", elapsed_ms=times[-1], par=None,
                      kind="daily")


ANALYSIS = {"samples": 8, "agreed": 8, "undecided": 0, "agreement": 1.0, "wasted": 9,
            "nodes": 20_000, "cpu_ms": 900}


async def test_a_pending_result_is_listed_or_held_by_its_analysis(redis_url: str) -> None:
    line = ["m"] * 150
    async with open_store(redis_url) as store:
        day = await redis_today(store)
        fp = FairPlayService(store, hold=True, analysis_nodes=1_000)
        decided: list[dict[str, Any]] = []

        async def hook(case: dict[str, Any]) -> None:
            decided.append(case)
        fp.on_decided.append(hook)
        honest = await pending_daily(store, fp, "r1", "p1", line, day=day)
        # a padded solver line scores 0.9 a game: its earlier games (kept totals) hold it
        bot = await pending_daily(store, fp, "r2", "p2", line, day=day, recent=(0.9,) * 5)
        assert await store.leaderboard_size(day, WIN_VARIANT) == 0  # neither listed yet
        assert await fp.race_held("r1") is False  # (no due entry yet: nothing waits)
        await store.analysis_due(honest, 0)
        assert await fp.race_held("r1") is True  # pending: a race's ratings would wait
        await fp._analysed(honest, {**ANALYSIS, "agreement": 0.25, "wasted": 0})
        await store.analysis_done(honest)
        assert await store.leaderboard_size(day, WIN_VARIANT) == 1
        assert (await store.daily_entry(day, WIN_VARIANT, "p1"))["review"] == "clear"
        case = await fp.case(honest)
        assert case["status"] == "clear" and case["analysis"]["agreement"] == 0.25
        assert [c["case"] for c in decided] == [honest]  # its stats are counted now
        await fp._analysed(bot, ANALYSIS)
        assert await store.leaderboard_size(day, WIN_VARIANT) == 1  # still only the honest one
        case = await fp.case(bot)
        assert case["status"] == "held"
        fired = {s["name"] for s in case["score"]["signals"] if s["fired"]}
        assert {"solver_agreement", "padding", "suspicious_history"} <= fired
        assert case["score"]["total"] >= S.HOLD_THRESHOLD
        assert [c for c, _ in await store.held_cases(10)] == [bot]
        assert await store.recent_scores("p2") == [case["score"]["game_total"]]
        await fp._analysed(bot, ANALYSIS)  # twice (a sweep repeating it): nothing changes
        assert len(decided) == 1 and await store.recent_scores("p2") == [
            case["score"]["game_total"]]
        cleared = await fp.clear(bot)  # a moderator's clear lists it like any held result
        assert cleared["status"] == "clear"
        assert await store.leaderboard_size(day, WIN_VARIANT) == 2


async def test_a_due_analysis_is_taken_over_when_its_process_is_gone(redis_url: str) -> None:
    """A case listed as due whose lease has ended (its process died) is run by another
    process's sweep, in a real worker process, on the deal's real line."""
    from test_daily import winning_line

    async with open_store(redis_url) as store:
        day = await redis_today(store)
        fp = FairPlayService(store, hold=True, analysis_nodes=2_000)
        line = list(winning_line())
        cid = await pending_daily(store, fp, "r9", "p9", line, day=day)
        await _write_log(redis_url, "r9", "p9", line)
        assert fp.analyses is not None
        # submitted by the screening: leased, not run until the result it decides is stored
        await fp.analyses.submit(cid)
        assert await fp.analyses.sweep() == 0 and not fp.analyses._tasks
        assert await store.pending_analyses(10) == [cid]
        await store.analysis_due(cid, 0)  # a lease that has ended (its process died)
        try:
            assert await fp.analyses.sweep() == 1
            for _ in range(300):
                case = await fp.case(cid)
                if case["analysis"] != "pending":
                    break
                await asyncio.sleep(0.1)
            assert isinstance(case["analysis"], dict), case["analysis"]
            assert case["analysis"]["samples"] > 0 and case["status"] in ("clear", "held")
            assert await store.pending_analyses(10) == []
        finally:
            await fp.analyses.close()


async def _write_log(redis_url: str, rid: str, pid: str, moves: list[str]) -> None:
    """The player's move log as the move path writes it."""
    from solrace.server.store.keys import Keys

    redis = harness.redis_client(redis_url)
    try:
        await redis.rpush(Keys.log(rid, pid), *moves)
    finally:
        await redis.aclose()


async def test_a_running_server_attaches_the_solvers_view_to_a_held_case(redis_url: str
                                                                         ) -> None:
    await store_daily(redis_url)
    async with harness.running_server(redis_url, **FAST, fair_play="hold",
                                      fair_play_budget=2_000) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "cheater", "mod") as (bot, mod):
            rid = await instant_win(bot)
            assert (await bot.next_event(t="review"))["status"] == "held"
            assert admin(redis_url, "grant", "mod", "moderator").returncode == 0
            case = await _analysed_case(mod, f"{rid}:{bot.player}")
            analysis = case["analysis"]
            assert analysis["samples"] > 0 and analysis["nodes"] == 2_000
            names = {s["name"] for s in case["score"]["signals"]}
            assert {"solver_agreement", "padding", "thrown_game", "same_opponent"} <= names
            assert case["status"] == "held"


async def _analysed_case(mod: Client, cid: str) -> dict[str, Any]:
    for _ in range(300):
        case = (await mod.request("mod.case", case=cid))["case"]
        if isinstance(case.get("analysis"), dict):
            return case
        await asyncio.sleep(0.1)
    raise AssertionError(f"no analysis on {cid}: {case.get('analysis')!r}")
