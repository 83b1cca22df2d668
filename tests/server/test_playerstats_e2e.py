"""Badges, statistics and the 30-day chart (docs/leaderboards.md, "Badges" and "Statistics"):
the store's script, and the ``profile`` and ``daily`` replies of a real server — a held daily
counts nowhere until a moderator clears it; a rated race's results count for each racer.
Real Redis, single and cluster (conftest.py)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import harness
from solrace.client.library import Client
from solrace.server.store import Store
from solrace.shared import playerstats as ps
from test_daily import FAST, WIN_VARIANT, end_of, eventually, open_store, redis_today, store_daily
from test_fairplay_e2e import HOLD, admin, instant_win
from test_fairplay_ratings import race_between

BACKENDS = ("single", "cluster")
DAILY_KEY = "unlimited|draw=1,foundation_takeback=yes"


async def test_the_script_counts_runs_times_days_and_prunes_old_dates(redis_url: str) -> None:
    async with open_store(redis_url) as store:
        cfg = "unlimited|draw=3"
        results = [(True, 95_400, 52), (True, 61_000, 52), (False, 900_000, 12),
                   (True, 120_999, 52), (True, 70_000, 52)]
        for won, ms, home in results:
            await count(store, "p1", cfg, "2031-01-10", won, ms, home, daily=False)
        await count(store, "p1", DAILY_KEY, "2031-01-11", True, 80_000, 52, daily=True)
        await count(store, "p1", DAILY_KEY, "2031-01-11", False, 80_000, 3, daily=True)
        stats, days = await store.game_stats_of("p1")
        by = {s.options: s for s in ps.config_stats(stats)}
        three = by["draw=3"]
        assert (three.played, three.won, three.best_time) == (5, 4, 61_000)
        assert three.median_time == 70_000  # wins 61, 70, 95, 120 s: the lower middle
        assert three.avg_home == 44.0 and three.run == 2 and three.best_run == 2
        assert by["draw=1,foundation_takeback=yes"].run == 0
        assert days["2031-01-10:p"] == "5" and days["2031-01-10:w"] == "4"
        assert "2031-01-10:d" not in days  # races are not dailies
        assert days["2031-01-11:d"] == "1" and days["2031-01-11:p"] == "2"
        # a new date 400 days after 2031-01-11 drops every date before that, keeps the rest
        await count(store, "p1", cfg, "2032-02-15", True, 60_000, 52, daily=False)
        _, days = await store.game_stats_of("p1")
        assert not any(f.startswith("2031-01-10") for f in days)
        assert days["2031-01-11:d"] == "1" and days["2032-02-15:w"] == "1"


async def count(store: Store, pid: str, cfg: str, day: str, won: bool, ms: int, home: int,
                *, daily: bool) -> None:
    """One counted result, as the server counts it (the per-day window ending ``day``)."""
    await store.game_stats(pid, cfg, day, won, ms, home, daily=daily,
                           keep_from=ps.prune_before(day))


def other_days_this_month(today: str, n: int) -> list[str]:
    first = dt.date.fromisoformat(today).replace(day=1)
    days = [(first + dt.timedelta(days=i)).isoformat() for i in range(ps.days_in_month(today[:7]))]
    return [d for d in days if d != today][:n]


async def you(c: Client) -> dict[str, Any]:
    return (await c.request("daily", variant=WIN_VARIANT))["you"]


async def test_a_held_daily_counts_once_cleared_and_earns_the_badge(redis_url: str) -> None:
    """Four won days this month already; today's fifth is held by fair play: no statistic,
    chart bar or badge moves until a moderator clears it, then bronze."""
    day = await store_daily(redis_url)
    async with harness.running_server(redis_url, **HOLD) as server:
        assert server.ctx is not None
        store = server.ctx.store
        async with harness.accounts(harness.ws_url(server), "cheater", "mia") as (bot, mia):
            assert bot.player is not None
            for d in other_days_this_month(day, ps.BRONZE - 1):
                await count(store, bot.player, DAILY_KEY, d, True, 200_000, 52, daily=True)
            before = await you(bot)
            assert before["badge"]["days_won"] == 4 and before["badge"]["badge"] is None
            assert before["badge"]["next"] == "bronze" and before["badge"]["next_at"] == 5
            assert before["streak"] == 0
            rid = await instant_win(bot)
            assert (await bot.next_event(t="review"))["status"] == "held"
            held = await mia.request("profile", name="cheater")
            assert held["badges"]["current"]["days_won"] == 4
            (game,) = held["games"]
            assert game["played"] == 4 and game["best_time"] == 200_000
            assert held["days"][-1] == {"date": day, "played": 0, "won": 0}
            assert held["streaks"] == {}
            assert admin(redis_url, "grant", "mia", "moderator").returncode == 0
            await mia.request("mod.clear", case=f"{rid}:{bot.player}", reason="known player")
            profile = await eventually(lambda: mia.request("profile", name="cheater"),
                                       lambda p: p["games"][0]["played"] == 5)
            (game,) = profile["games"]
            assert game["variant"] == WIN_VARIANT
            assert game["options"] == "draw=1,foundation_takeback=yes"
            assert game["won"] == 5 and game["win_pct"] == 100.0 and game["avg_home"] == 52.0
            assert game["best_time"] < 200_000 and game["median_time"] == 200_000
            assert game["run"] == 5 and game["best_run"] == 5
            assert profile["today"] == day and len(profile["days"]) == 30
            assert profile["days"][-1] == {"date": day, "played": 1, "won": 1}
            assert profile["badges"]["current"]["badge"] == "bronze"
            assert profile["streaks"] == {WIN_VARIANT: {"current": 1, "best": 1}}
            after = await you(bot)
            assert after["streak"] == 1 and after["badge"]["badge"] == "bronze"
            assert after["badge"]["next"] == "silver"


async def test_a_rated_race_counts_for_each_racer(redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "rita", "sam") as (a, b):
            race = await a.create_race("unlimited", seats=2, rated=True,
                                       options={"draw": "3"})
            await b.join(code=race["code"])
            for c in (a, b):
                await c.ready(race["race"])
            for c in (a, b):
                await c.wait_running(race["race"])
            for c in (a, b):
                await c.request("resign", race=race["race"])
            await end_of(a, race["race"])
            async with open_store(redis_url) as store:
                today = await redis_today(store)
            for c in (a, b):
                profile = await eventually(lambda c=c: c.request("profile"),
                                           lambda p: len(p["games"]) == 1)
                (game,) = profile["games"]
                assert game["variant"] == "unlimited" and "draw=3" in game["options"]
                assert game["played"] == 1 and game["won"] == 0 and game["run"] == 0
                assert profile["days"][-1] == {"date": today, "played": 1, "won": 0}
                assert profile["badges"]["current"]["days_won"] == 0


async def games_of(c: Client, name: str) -> list[dict[str, Any]]:
    return list((await c.request("profile", name=name))["games"])


async def test_a_held_rated_result_counts_once_cleared_the_clear_one_at_once(redis_url: str
                                                                          ) -> None:
    """Zoom's machine-speed moves are held; calm's result is clear and counts at once; zoom's
    counts (and its day) only when a moderator clears it."""
    async with harness.running_server(redis_url, **FAST, fair_play="hold") as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "zoom", "calm", "mod") as (zoom, calm, mod):
            rid = await race_between(url, zoom, calm)
            await zoom.next_event(t="review")
            (calm_game,) = await eventually(lambda: games_of(mod, "calm"), bool)
            assert calm_game["played"] == 1 and calm_game["won"] == 0
            assert await games_of(mod, "zoom") == []
            days = (await mod.request("profile", name="zoom"))["days"]
            assert days[-1]["played"] == 0
            assert admin(redis_url, "grant", "mod", "moderator").returncode == 0
            await mod.request("mod.clear", case=f"{rid}:{zoom.player}", reason="a fast human")
            (zoom_game,) = await eventually(lambda: games_of(mod, "zoom"), bool)
            assert zoom_game["played"] == 1 and zoom_game["avg_home"] >= 0
            profile = await mod.request("profile", name="zoom")
            assert profile["days"][-1] == {"date": profile["today"], "played": 1, "won": 0}
