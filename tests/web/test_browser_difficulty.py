"""A daily in each difficulty in a real Chromium against a real server process: the daily page
shows the variant's three dailies with their difficulty, the day's first daily marked as the one
for the streak; each opens its own ranked attempt, whose page says the deal's difficulty; a
move is played in one and each is resigned; each difficulty's leaderboard lists its own
attempt. The lobby's difficulty choice creates a winnable race of that difficulty."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import serve_page
from harness import race_info
from pw import new_player, register
from solrace.shared.notation import Move
from solrace.shared.views import view_of
from test_daily import SECRET, WIN_SEED, WIN_VARIANT, hmac_seed, open_store, record_for, redis_today

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def level_server(redis_proc: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_page(redis_proc, tmp_path_factory.mktemp("levels"), "levels",
                          "--pool-size", "2", "--pool-wait", "0")


async def store_three_dailies(url: str) -> dict[str, dict[str, str]]:
    """Today's first daily (rated medium) and the easy and hard ones, as the certifier stores
    them: the page reads them, nothing is certified during the test."""
    async with open_store(url) as store:
        day = await redis_today(store)
        out = {"medium": {**record_for(WIN_VARIANT, WIN_SEED), "difficulty": "medium",
                          "effort": "36", "effort_par": "160"}}
        for level, index in (("easy", 3), ("hard", 5)):
            seed = hmac_seed(SECRET, day, WIN_VARIANT, index)
            out[level] = {**record_for(WIN_VARIANT, seed, candidate=index),
                          "difficulty": level, "effort": "30", "effort_par": "150"}
        assert await store.save_daily(day, WIN_VARIANT, out["medium"])
        for level in ("easy", "hard"):
            assert await store.save_daily(day, f"{WIN_VARIANT}:{level}", out[level])
        # a certified hard seed in the winnable pool, for the lobby's difficulty choice
        assert await store.deals.pool_add(
            "unlimited|draw=1,foundation_takeback=yes|hard", 4242, 150, 30, 2)
    return out


async def test_a_daily_in_each_difficulty(browser: Any, level_server: str, shots: Path,
                                          redis_proc: Any) -> None:
    records = await store_three_dailies(redis_proc.url)
    p = await new_player(browser, level_server, "lena")
    page = p.page
    await register(p)
    await page.goto(level_server + "#/daily/unlimited")
    for level in ("easy", "medium", "hard"):
        card = page.get_by_role("article", name=f"Unlimited, {level}")
        await card.get_by_text(level, exact=True).wait_for(timeout=30_000)
        await card.get_by_text(records[level]["commitment"][:16]).wait_for()
    first = page.get_by_role("article", name="Unlimited, medium")
    await first.get_by_text("The day's first daily: it counts for your streak.").wait_for()
    assert await page.get_by_text("The day's first daily").count() == 1
    await p.shot(shots, "daily-difficulties")

    names = {"easy": "Ranked easy attempt: Unlimited", "medium": "Ranked attempt: Unlimited",
             "hard": "Ranked hard attempt: Unlimited"}
    for level in ("easy", "medium", "hard"):
        await page.goto(level_server + "#/daily/unlimited")
        await page.get_by_role("button", name=names[level], exact=True).click(timeout=30_000)
        await page.get_by_role("button", name=re.compile(r"^stock")).wait_for(timeout=15_000)
        await page.get_by_text(f"{level} deal", exact=True).wait_for()
        rid = re.search(r"#/race/([a-z0-9]+)", page.url)
        assert rid, page.url
        secrets = await race_info(redis_proc.url, rid.group(1))
        assert secrets.seed == int(records[level]["seed"])  # the deal of that difficulty
        game = secrets.game()
        await p.wait_board(view_of(game).wire())
        if level == "hard":  # a move in the hard daily: a draw from the stock (Space)
            await page.keyboard.press("Space")
            game.push(Move("s", "w"))
            await p.wait_board(view_of(game).wire())
            await p.shot(shots, "daily-hard-attempt")
        await page.get_by_role("button", name="Resign").click()
        await page.get_by_role("heading", name="Race over").wait_for()

    # each difficulty's attempt is its own, on its own board
    await page.goto(level_server + "#/daily/unlimited")
    for link in ("Your easy attempt", "Your attempt", "Your hard attempt"):
        await page.get_by_role("link", name=link, exact=True).wait_for(timeout=30_000)
    await page.get_by_role("link", name="Leaderboard hard: Unlimited").click()
    await page.get_by_text(re.compile(r"hard deal · 1 entries")).wait_for()
    await page.get_by_role("cell", name="lena").wait_for()
    await p.shot(shots, "leaderboard-hard")
    await page.get_by_label("Daily").select_option("easy")
    await page.get_by_text(re.compile(r"easy deal · 1 entries")).wait_for()

    # the lobby: a difficulty deals a winnable race rated so
    await page.goto(level_server + "#/")
    await page.get_by_label("Difficulty").select_option("hard")
    assert await page.get_by_label("Winnable deals only").is_checked()
    await p.shot(shots, "lobby-difficulty")
    await page.get_by_role("button", name="Create a Unlimited race").click()
    await page.get_by_text("hard deal", exact=True).wait_for(timeout=30_000)
    await page.get_by_text("winnable deal", exact=True).wait_for()
    await p.shot(shots, "race-hard")
    assert not p.errors, p.errors
