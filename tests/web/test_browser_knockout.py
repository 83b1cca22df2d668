"""A knockout in Chromium: ann creates one on the tournaments page and enters it; seven
library clients enter by its invite code (rated below ann: she is seed 1). At the start the
bracket appears on ann's page by itself (the upkeep sweep starts it; a `bracket` frame draws
it). ann plays her match on the page — the board mounted under the bracket — and wins deal 1
with typed moves; the other matches end with both resigning (ties: the higher seed). The
next rounds open by themselves; ann resigns her semi-final and her final on the page (ties:
she is the higher seed), and the podium and the master seed's check appear. A spectator's
browser watches ann's match from the bracket's link."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import harness
import pytest
import redis
from pw import new_player, register
from solrace.server.store.keys import Keys
from solrace.shared.engine import Game
from solrace.shared.solver import Budget, solve
from solrace.shared.tournaments.seeds import deal_seed
from solrace.shared.views import view_of
from test_browser import finishes
from test_browser_everyone import type_move
from test_browser_tournament import OPTIONS, master_of, pin_master

pytestmark = pytest.mark.timeout(300)
VARIANT = "seven-by-five"
RIVALS = tuple(f"kb{i}" for i in range(1, 8))  # kb7 rated lowest: ann's first opponent


def start_now(redis_url: str, tid: str) -> None:
    r = redis.Redis.from_url(redis_url)
    try:
        now = int(r.time()[0]) * 1000
        r.hset(f"sr:t:{{t:{tid}}}", mapping={"starts_at": now - 1, "cutoff": now - 1})
        r.zadd("sr:knockouts", {tid: now - 1})
    finally:
        r.close()


async def resign_both(a: Any, b: Any, tid: str) -> None:
    """Two library entrants play their match and both resign: a tie."""
    ra = await a.tournament_play(tid)
    await b.tournament_play(tid)
    rid = ra["race"]["race"]
    await a.wait_running(rid, timeout=30)
    await b.wait_running(rid, timeout=30)
    await a.resign(rid)
    await b.resign(rid)


async def my_round(c: Any, tid: str, round_no: int) -> dict[str, Any]:
    async with asyncio.timeout(30):
        while True:
            b = await c.tournament_bracket(tid)
            if b["round"] >= round_no:
                return b
            await asyncio.sleep(0.3)


def opponents(b: dict[str, Any], round_no: int) -> list[tuple[str, str]]:
    names = {e["player"]: e["name"] for e in b["entrants"]}
    return [(names[m["high"]], names[m["low"]]) for m in b["matches"]
            if m["round"] == round_no]


async def resign_on_page(page: Any) -> None:
    """The Resign button (its confirm() is accepted by every test page: pw.py)."""
    await page.get_by_role("button", name="Resign").click()


async def test_a_knockout_from_the_tournaments_page(browser: Any, web_server: str, shots: Path,
                                                    redis_proc: Any) -> None:
    ann = await new_player(browser, web_server, "ann")
    await register(ann)
    page = ann.page
    await page.get_by_role("link", name="Tournaments").click()
    await page.get_by_label("Name").fill("Browser cup")
    await page.get_by_label("Format").select_option("knockout")
    await page.get_by_label("Game").select_option(VARIANT)
    await page.get_by_label("Most entrants (knockout)").fill("8")
    await page.get_by_label("Seconds per deal").fill("120")
    await page.get_by_role("button", name="Create", exact=True).click()
    await page.wait_for_url(re.compile(r"#/tournament/[0-9a-f]{16}$"))
    tid = page.url.rsplit("/", 1)[1]
    code = await page.locator(".t-code").inner_text()
    pin_master(redis_proc.url, tid)
    await page.get_by_text("Knockout of up to 8").wait_for()
    await page.get_by_role("button", name="Enter").click()
    await page.get_by_text("1 entered · you are in").wait_for()

    url = web_server.replace("http://", "ws://").rstrip("/")
    async with harness.accounts(url, *RIVALS) as rivals:
        by_name = {c.name: c for c in rivals}
        r = redis.Redis.from_url(redis_proc.url)
        try:
            for i, c in enumerate(rivals):
                r.hset(Keys.rating(c.player), VARIANT, f"{1400 - 40 * i},80.0,0.06,9")
        finally:
            r.close()
        for c in rivals:
            await c.tournament_join(code)
        await page.get_by_text("8 entered · you are in").wait_for(timeout=5000)  # pushed
        start_now(redis_proc.url, tid)

        # the bracket is drawn on the page by itself, seeded by rating
        round1 = page.get_by_role("table", name="Round 1")
        await round1.wait_for(timeout=15000)
        mine = round1.locator("tr.me")
        await mine.get_by_role("cell", name="(1) ann").wait_for()
        await mine.get_by_role("cell", name="(8) kb7").wait_for()
        await page.get_by_text(re.compile(r"Round 1 of 3\. Your match: be ready within")
                               ).wait_for()
        await ann.shot(shots, "knockout-bracket-open")

        # ann plays her match on this page, against kb7, and wins deal 1
        kb7 = by_name["kb7"]
        seven = await kb7.tournament_play(tid)
        rid = seven["race"]["race"]
        await page.get_by_role("button", name="Play my match").click()
        await page.get_by_role("heading", name="Your match · round 1").wait_for()
        seed = deal_seed(master_of(redis_proc.url, tid), 1)
        game = Game(VARIANT, OPTIONS, seed)
        await ann.wait_board(view_of(game).wire(), timeout=20)
        assert page.url.endswith(f"#/tournament/{tid}")  # never left the page
        # a spectator (not entered) watches ann's match from the bracket, masked and delayed
        viv = await new_player(browser, web_server, "viv")
        await register(viv)  # a named player: an anonymous page may not watch (13.4)
        await viv.page.goto(f"{web_server}#/tournament/{tid}")
        await viv.page.get_by_role("table", name="Round 1").wait_for()  # one page, not two
        await viv.page.get_by_role("link", name="Watch (1) ann against (8) kb7").click()
        await viv.page.wait_for_url(re.compile(f"#/watch/{rid}$"))
        await viv.page.get_by_text("Watching Seven by Five").wait_for()
        await viv.shot(shots, "knockout-watch")
        assert not viv.errors, viv.errors
        await viv.page.close()
        others = [m for m in opponents(await kb7.tournament_bracket(tid), 1) if "ann" not in m]
        ties = asyncio.gather(*(resign_both(by_name[a], by_name[b], tid) for a, b in others))
        result = await asyncio.to_thread(solve, (VARIANT, OPTIONS, seed), Budget(200_000))
        assert result.won
        for move in result.moves:
            trial = Game(VARIANT, OPTIONS, seed)
            for done in game.moves:
                trial.push(done)
            if finishes(trial):
                await page.get_by_role("button", name="Finish").click()
                break
            await type_move(ann, move.text())
            game.push(move)
            await ann.wait_board(view_of(game).wire())
        await kb7.resign(rid)
        await ties
        await page.get_by_role("heading", name="Race over").wait_for()

        # round 1 decided, the semi-finals drawn: pushed to the page
        await mine.get_by_role("cell", name="won the race").wait_for(timeout=10000)
        semis = page.get_by_role("table", name="Semi-finals")
        await semis.wait_for(timeout=10000)
        await round1.get_by_role("cell", name="tie: the higher seed").first.wait_for()
        await semis.locator("tr.me").get_by_role("cell", name="(1) ann").wait_for()
        await ann.shot(shots, "knockout-bracket-round2")

        # the semi-final and the final: ann resigns on the page, her rival too (ties)
        for round_no in (2, 3):
            b = await my_round(kb7, tid, round_no)
            pairs = opponents(b, round_no)
            rival = next(lo if hi == "ann" else hi for hi, lo in pairs if "ann" in (hi, lo))
            others = [p for p in pairs if "ann" not in p]
            ties = asyncio.gather(*(resign_both(by_name[a], by_name[b], tid)
                                    for a, b in others))
            reply = await by_name[rival].tournament_play(tid)
            await page.get_by_role("button", name="Play my match").click()
            await page.get_by_role("heading", name=f"Your match · round {round_no}").wait_for()
            await by_name[rival].wait_running(reply["race"]["race"], timeout=30)
            await ann.pile("t1").wait_for()
            await resign_on_page(page)
            await by_name[rival].resign(reply["race"]["race"])
            await ties

        podium = page.get_by_role("list", name="podium")
        await podium.get_by_text("Winner: (1) ann").wait_for(timeout=15000)
        await page.get_by_text("Over: the podium below.").wait_for()
        await page.get_by_text(re.compile("checked in this browser")).wait_for(timeout=10000)
        await page.get_by_role("table", name="Final", exact=True).wait_for()
        await ann.shot(shots, "knockout-podium")
    assert not ann.errors, ann.errors
