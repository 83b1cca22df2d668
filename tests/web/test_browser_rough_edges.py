"""Rough edges a new player met in the browser, each checked in Chromium: a name too long is
refused with a reason (never cut); practice has a Hint button and shows no spectator count; the
end of a race says how it ended in a player's words, with the order's rule, and no stale
refusal under it; "watch by code" works with the code as displayed (upper case); a spectator's
page drops "not started yet" once the race runs."""

from __future__ import annotations

import re
from pathlib import Path

from pw import claim_name, new_player


async def test_practice_hint_resign_and_the_end_in_words(browser, web_server: str,
                                                        shots: Path) -> None:
    gus = await new_player(browser, web_server, "gus")
    page = gus.page
    await page.get_by_label("Your name").fill("g" * 200)  # pasted: refused, not cut to 20
    await page.get_by_role("button", name="Play", exact=True).click()
    await page.get_by_role("alert").filter(has_text="200 characters long").wait_for()
    await claim_name(gus)
    await page.get_by_text("Playing as").wait_for()
    await page.get_by_role("button", name="Practice Unlimited").click()
    await gus.pile("t1").wait_for()
    assert await page.locator(".race-meta .spectators").count() == 0  # cannot be watched
    await page.get_by_role("button", name="Hint").click()
    await page.get_by_text(re.compile(r"^(hint: \S+|No winning move found.*)$")).wait_for(
        timeout=30_000)
    await page.get_by_role("button", name="Finish").click()  # refused: cards still hidden
    # the move message (the screen reader's status line may say it too, for a moment)
    await page.locator(".move-msg").get_by_text(
        re.compile("face-down cards? still to turn up")).wait_for()
    await page.get_by_role("button", name="Resign").click()
    await page.get_by_role("heading", name="Race over").wait_for()
    await page.locator(".result-line").get_by_text("You resigned.").wait_for()
    await page.get_by_role("status").filter(has_text="Race over. You resigned.").wait_for()
    await page.get_by_text(re.compile("^Order: who won, by time")).wait_for()
    assert await page.get_by_text(re.compile("still to turn up")).count() == 0, \
        "the refusal's reason outlived the game"
    await gus.shot(shots, "practice-ended")
    assert not gus.errors, gus.errors


async def test_watch_by_the_code_as_shown_and_the_start_clears_not_started(
        browser, web_server: str, shots: Path) -> None:
    ann = await new_player(browser, web_server, "ann")
    ben = await new_player(browser, web_server, "ben")
    for p in (ann, ben):
        await claim_name(p)
        await p.page.get_by_text("Playing as").wait_for()
    await ann.page.get_by_label("Seats").fill("2")
    await ann.page.get_by_role("button", name="Create a Unlimited race").click()
    invite = ann.page.get_by_role("link", name=re.compile(r"join.[A-Z2-9]{6}$"))
    await invite.wait_for()
    link = await invite.get_attribute("href")
    code = link.rsplit("/", 1)[1]
    assert code == code.upper()
    viewer = await new_player(browser, web_server + f"#/watch/{code}", "viewer")
    await viewer.page.get_by_text("The race has not started yet.").wait_for()
    await ben.page.goto(link)
    await ben.page.get_by_role("button", name="I'm ready").click()
    await ann.page.get_by_role("button", name="I'm ready").click()
    await viewer.page.locator(".watch-pane").first.wait_for(timeout=15_000)
    await viewer.page.get_by_text("The race has not started yet.").wait_for(state="detached")
    assert await viewer.page.get_by_text("The race has not started yet.").count() == 0
    await viewer.shot(shots, "watch-running")
