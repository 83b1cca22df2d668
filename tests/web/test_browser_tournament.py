"""An arena in Chromium: an account creates a private arena on the tournaments page, a second
browser enters it by its invite link, the first plays its deal to the win without leaving the
page (typed moves, then Finish), its standings show the points live in both browsers, and the
next deal is one click from the end of the last; a third browser watches the leader's live
deal from the standings and may then not enter."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
import redis
from pw import new_player, register
from solrace.shared.engine import Game
from solrace.shared.prng import commitment
from solrace.shared.solver import Budget, solve
from solrace.shared.tournaments.seeds import deal_seed
from solrace.shared.views import view_of
from test_browser import finishes, rid_of
from test_browser_everyone import type_move

pytestmark = pytest.mark.timeout(240)
OPTIONS = {"cells": "5", "empty_fill": "any"}


def pin_master(redis_url: str, tid: str, master: int = 1) -> None:
    """A known master seed (its deal 1 the solver wins at once) before any deal is dealt: a
    random master's deal 1 is lost or out of the budget about one time in ten."""
    r = redis.Redis.from_url(redis_url)
    try:
        r.hset(f"sr:t:{{t:{tid}}}", mapping={"master": master, "commitment": commitment(master)})
    finally:
        r.close()


def master_of(redis_url: str, tid: str) -> int:
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        return int(r.hget(f"sr:t:{{t:{tid}}}", "master"))
    finally:
        r.close()


async def test_an_arena_from_the_tournaments_page(browser: Any, web_server: str, shots: Path,
                                                  redis_proc: Any) -> None:
    ann = await new_player(browser, web_server, "ann")
    await register(ann)
    page = ann.page
    await page.get_by_role("link", name="Tournaments").click()
    await page.get_by_label("Name").fill("Browser arena")
    await page.get_by_label("Game").select_option("seven-by-five")
    await page.get_by_label("Minutes").fill("10")
    await page.get_by_label("Seconds per deal").fill("120")
    await page.get_by_role("button", name="Create", exact=True).click()
    await page.wait_for_url(re.compile(r"#/tournament/[0-9a-f]{16}$"))
    tid = page.url.rsplit("/", 1)[1]
    code = await page.locator(".t-code").inner_text()
    pin_master(redis_proc.url, tid)
    await page.get_by_role("heading", name="Browser arena").wait_for()
    await page.get_by_role("button", name="Enter").click()
    await page.get_by_text("1 entered · you are #1").wait_for()

    # a second browser enters by the invite link, and ann's standings follow
    bea = await new_player(browser, web_server, "bea")
    await register(bea)
    await bea.page.goto(f"{web_server}#/tournament/{code}")
    await bea.page.get_by_role("button", name="Enter").click()
    await bea.page.get_by_text("2 entered · you are #").wait_for()
    await page.get_by_text("2 entered · you are #").wait_for(timeout=5000)  # pushed
    await ann.shot(shots, "tournament-entered")

    # ann plays deal 1 to the win on the page
    await page.get_by_role("button", name="Play your next deal").click()
    await ann.pile("t1").wait_for()
    seed = deal_seed(master_of(redis_proc.url, tid), 1)
    game = Game("seven-by-five", OPTIONS, seed)
    await ann.wait_board(view_of(game).wire())
    result = await asyncio.to_thread(solve, ("seven-by-five", OPTIONS, seed), Budget(200_000))
    assert result.won
    for move in result.moves:
        trial = Game("seven-by-five", OPTIONS, seed)
        for done in game.moves:
            trial.push(done)
        if finishes(trial):
            await page.get_by_role("button", name="Finish").click()
            break
        await type_move(ann, move.text())
        game.push(move)
        await ann.wait_board(view_of(game).wire())
    await page.get_by_role("heading", name="Race over").wait_for()
    await page.get_by_text("revealed with the tournament's master seed").wait_for()
    first_race = rid_of(ann)

    # the standings, in both browsers: ann first with a fast win's 5 points
    await bea.page.locator(".t-standings tr.me").wait_for()
    await bea.page.locator(".t-standings tbody tr").first.get_by_text("ann").wait_for(
        timeout=5000)
    await page.get_by_role("link", name="Standings").click()
    await page.locator(".t-standings tbody tr.me").get_by_role("cell", name="5", exact=True) \
        .wait_for()
    await ann.shot(shots, "tournament-standings")
    # and the next deal from the end of the last: a new race, deal 2
    await page.go_back()
    await page.get_by_role("button", name="Next deal").click()
    await page.wait_for_function(f"!location.hash.endsWith('{first_race}')")
    await ann.pile("t1").wait_for()
    assert rid_of(ann) != first_race
    await ann.shot(shots, "tournament-next-deal")

    # a third browser, not entered, watches the leader's live deal 2 from the standings,
    # and may then not enter
    cal = await new_player(browser, web_server, "cal")
    await register(cal)
    await cal.page.goto(f"{web_server}#/tournament/{code}")
    watch = cal.page.get_by_role("link", name="Watch ann's deal 2")
    await watch.wait_for(timeout=10000)
    await watch.click()
    await cal.page.wait_for_url(re.compile(f"#/watch/{rid_of(ann)}$"))
    await cal.page.get_by_text("ann").first.wait_for()
    await cal.page.locator(".board").first.wait_for()
    await cal.shot(shots, "tournament-watch")
    await cal.page.go_back()
    await cal.page.get_by_role("button", name="Enter").click()
    await cal.page.get_by_text("a spectator may not enter it").wait_for()
    assert not ann.errors and not bea.errors, (ann.errors, bea.errors)
