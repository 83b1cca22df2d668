"""The practice page's "still winnable?" checkbox in Chromium (client/web/pages/winnable.js):
off by default and nothing shown; switched on, a deal proved lost says so (once: the live
region is not repeated after each move), a won deal says it is winnable for the cards as they
lie; the choice is remembered; a race between people has no such checkbox."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pw import Player, claim_name, new_player
from solrace.client.library import Client
from solrace.shared.learning.winnable import CLAIM_HIDDEN, CLAIM_LOST
from test_browser_everyone import LISTEN, paired_by_play_now, said, type_move

pytestmark = pytest.mark.timeout(240)

LOST_SEED = 37  # tests/shared/test_learning_winnable.py: Unlimited draw 1, proved lost
WON_SEED = 2
BOX = "Still winnable? (the solver checks after each move)"


async def practice_on(p: Player, web_server: str, seed: int) -> str:
    """A solo practice game of the seed, started for the page's own player (its session
    token: a page cannot choose a seed), and the page on it."""
    token = await p.page.evaluate("() => localStorage.getItem('solrace.token')")
    c = Client(web_server.replace("http://", "ws://").rstrip("/"), token=token)
    await c.connect()
    try:
        r = await c.practice_start("unlimited", {"draw": "1"}, seed=seed)
    finally:
        await c.close()
    await p.page.goto(f"{web_server.rstrip('/')}/#/race/{r['race']}")
    await p.pile("t1").wait_for()
    return str(r["race"])


async def verdict(p: Player) -> str:
    return (await p.page.locator(".still-winnable .verdict").inner_text()).strip()


async def until_said(p: Player, text: str) -> None:
    for _ in range(150):
        if await p.page.locator(".still-winnable .verdict").is_visible() \
                and await verdict(p) == text:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"the indicator never said {text!r}: {await verdict(p)!r}")


async def test_the_still_winnable_checkbox(browser, web_server: str, shots: Path) -> None:
    p = await new_player(browser, web_server, "wendy")
    await claim_name(p)
    await p.page.get_by_text("Playing as").wait_for()
    await practice_on(p, web_server, LOST_SEED)
    box = p.page.get_by_label(BOX)
    assert not await box.is_checked()  # opt-in
    assert not await p.page.locator(".still-winnable").is_visible()
    await p.page.evaluate(LISTEN)
    await box.check()
    lost = f"Still winnable: no — {CLAIM_LOST} (proved)."
    await until_said(p, lost)
    await p.shot(shots, "practice-still-winnable-lost")
    for move in ("sw", "sw"):
        before = len(await said(p))
        await type_move(p, move)
        for _ in range(100):
            if any(f"played {move}" in t for t in (await said(p))[before:]):
                break
            await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)  # the checks after the moves are answered: lost again
    assert await verdict(p) == lost
    assert sum(t == lost for t in await said(p)) == 1, await said(p)  # said once, not per move

    await practice_on(p, web_server, WON_SEED)  # the choice is remembered
    assert await p.page.get_by_label(BOX).is_checked()
    await until_said(p, f"Still winnable: yes — {CLAIM_HIDDEN}.")
    await p.shot(shots, "practice-still-winnable-yes")
    assert not p.errors, p.errors


async def test_no_checkbox_in_a_race_between_people(browser, web_server: str) -> None:
    a, b = await paired_by_play_now(browser, web_server, ("rae", "sid"))
    for p in (a, b):
        await p.page.get_by_role("button", name="Resign").wait_for()
        assert await p.page.get_by_label(BOX).count() == 0
        assert not await p.page.locator(".still-winnable").is_visible()
    assert not a.errors and not b.errors
