"""Streaks, monthly badges, statistics and the 30-day chart in a real Chromium, against a real
server process: a player whose fifth won daily of the month earns bronze sees the streak and
the badge in the lobby, on the daily page, at the end of the ranked attempt and on the
profile, with the statistics table and the chart the page draws itself (inline SVG)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import harness
import pytest
from conftest import serve_page
from pw import log_in, new_player
from solrace.server.store.trophies import Trophy
from solrace.shared import playerstats as ps
from test_daily import open_store, redis_today, store_daily
from test_fairplay_e2e import instant_win

pytestmark = pytest.mark.timeout(240)
DAILY_KEY = "unlimited|draw=1,foundation_takeback=yes"


@pytest.fixture(scope="module")
def badge_server(redis_proc: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_page(redis_proc, tmp_path_factory.mktemp("badges"), "badges",
                          "--fair-play", "record", "--rate", "1000", "--burst", "1000")


async def test_streak_badge_statistics_and_chart(browser: Any, badge_server: str, shots: Path,
                                                 redis_proc: Any) -> None:
    url = badge_server.replace("http://", "ws://").rstrip("/")
    day = await store_daily(redis_proc.url)
    async with harness.accounts(url, "dora") as (dora,):
        assert dora.player is not None
        async with open_store(redis_proc.url) as store:
            assert await redis_today(store) == day
            month = [d for d in (dt.date.fromisoformat(day).replace(day=i).isoformat()
                                 for i in range(1, ps.days_in_month(day[:7]) + 1)) if d != day]
            for d in month[:ps.BRONZE - 1]:  # four won dailies this month already
                await store.game_stats(dora.player, DAILY_KEY, d, True, 240_000, 52,
                                       daily=True, keep_from=ps.prune_before(d))
            for back, won in ((3, True), (3, False), (9, False)):  # a few rated races
                d = (dt.date.fromisoformat(day) - dt.timedelta(days=back)).isoformat()
                await store.game_stats(dora.player, "unlimited|draw=3", d, won, 300_000,
                                       52 if won else 20, daily=False,
                                       keep_from=ps.prune_before(d))
            # a podium place in a final public arena (server/game/trophies.py awards it)
            await store.trophies.award(dora.player, Trophy("617f0a93789784aa", 2, "arena",
                                                           "Unlimited arena", 1764432000000))
            await store.trophies.raise_best(dora.player, 17, "617f0a93789784aa",
                                            "Unlimited arena", 1764432000000)
        rid = await instant_win(dora)  # the fifth: bronze

    p = await new_player(browser, badge_server, "dora")
    page = p.page
    await log_in(p, harness.password_for("dora"))
    # the lobby: the best live streak and this month's badge
    await page.get_by_text("Daily streak: 1 day (best 1)").first.wait_for(timeout=15000)
    await page.get_by_role("img", name="Bronze badge for").first.wait_for()
    await p.shot(shots, "badges-lobby")
    # the daily page
    await page.goto(badge_server + "#/daily/unlimited")
    await page.get_by_role("link", name="Your attempt").wait_for(timeout=30000)
    await page.get_by_text("Daily streak: 1 day (best 1)").wait_for()
    badge = page.get_by_role("img", name="Bronze badge for")
    assert "5 of" in (await badge.get_attribute("aria-label") or "")
    assert "silver at 10" in (await badge.get_attribute("aria-label") or "")
    await p.shot(shots, "badges-daily")
    # the end of the ranked attempt
    await page.goto(badge_server + f"#/race/{rid}")
    await page.get_by_role("heading", name="Race over").wait_for()
    await page.locator(".daily-you").get_by_text("Daily streak: 1 day").wait_for()
    await page.locator(".daily-you").get_by_role("img", name="Bronze badge for").wait_for()
    assert "null" not in await page.locator(".race-end").inner_text()
    await p.shot(shots, "badges-daily-end")
    # the profile: streaks, badge, statistics per options, the chart
    await page.goto(badge_server + "#/profile")
    await page.get_by_role("heading", name="Streaks and badges").wait_for()
    await page.get_by_role("heading", name="Statistics").wait_for()
    await page.get_by_role("img", name="Bronze badge for").wait_for()
    row = page.get_by_role("row").filter(has_text="draw=1,foundation_takeback=yes")
    assert (await row.get_by_role("cell").all_inner_texts())[2:4] == ["5", "100%"]
    races = page.get_by_role("row").filter(has_text="draw=3")
    assert (await races.get_by_role("cell").all_inner_texts())[2:4] == ["3", "33.3%"]
    chart = page.get_by_role("img", name="Last 30 days")
    await chart.wait_for()
    first = (dt.date.fromisoformat(day) - dt.timedelta(days=29)).isoformat()
    seeded = sum(first <= d <= day for d in month[:ps.BRONZE - 1])  # in the window
    assert await chart.get_attribute("aria-label") == \
        f"Last 30 days: {seeded + 1 + 3} games played, {seeded + 1 + 1} won"
    bars = await page.locator("svg.chart rect.bar-played").count()
    assert bars >= 3
    today_tip = await page.locator("svg.chart g title").last.text_content()
    assert today_tip == f"{day}: 1 played, 1 won"
    await page.locator("svg.chart").scroll_into_view_if_needed()
    await p.shot(shots, "badges-profile")
    await page.get_by_role("heading", name="Trophies").wait_for()
    await page.get_by_text("0 × 1st, 1 × 2nd, 0 × 3rd").wait_for()
    places = page.get_by_role("list", name="latest podium places")
    assert (await places.inner_text()).split() == ["2nd", "Unlimited", "arena", "2025-11-29"]
    assert await places.get_by_role("link", name="Unlimited arena").get_attribute("href") == \
        "#/tournament/617f0a93789784aa"
    await page.get_by_text("17 points").wait_for()
    await page.get_by_role("heading", name="Trophies").scroll_into_view_if_needed()
    await p.shot(shots, "badges-trophies")
    assert not p.errors, p.errors
