"""Fair play in a real Chromium against a real server process holding results: the scripted
daily win shows "under review" to its player, a moderator (role granted by the operator's
command) works the queue, reads the case with its think-time chart and clears it; a player
reports another; a BOT account carries its badge; a player without the role sees no
moderator page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import harness
import pytest
from conftest import serve_page
from pw import log_in, new_player, register
from solrace.client.library import Client
from test_daily import store_daily
from test_fairplay_e2e import admin, instant_win

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def fair_server(redis_proc: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_page(redis_proc, tmp_path_factory.mktemp("fair"), "fair",
                          "--fair-play", "hold", "--rate", "1000", "--burst", "1000")


def ws_of(page_url: str) -> str:
    return page_url.replace("http://", "ws://").rstrip("/")


async def test_held_result_moderator_queue_report_and_bot_badge(
        browser: Any, fair_server: str, shots: Path, redis_proc: Any) -> None:
    url = ws_of(fair_server)
    await store_daily(redis_proc.url)
    async with harness.accounts(url, "cheater") as (cheater,):
        await instant_win(cheater)
        await cheater.next_event(t="review")  # held (screened just after the end)
    robo = Client(url)
    await robo.connect()
    await robo.register(harness.password_for("robo"), name="robo", bot=True)
    await robo.close()

    # the cheater, in a browser: its result is under review, the board provisional
    bad = await new_player(browser, fair_server, "cheater")
    await log_in(bad, harness.password_for("cheater"))
    await bad.page.goto(fair_server + "#/daily/unlimited")
    await bad.page.get_by_text("Your ranked result is under review").wait_for(timeout=30000)
    await bad.page.goto(fair_server + "#/leaderboard/unlimited")
    await bad.page.get_by_text("is under review: it is listed once a moderator").wait_for()
    await bad.page.get_by_text("Provisional until").wait_for()
    await bad.page.get_by_text("Nobody has finished today's deal yet.").wait_for()
    await bad.shot(shots, "fairplay-under-review")

    # a player without the role: no moderator link, and the page says it is not theirs
    mona = await new_player(browser, fair_server, "mona")
    await register(mona)
    assert await mona.page.get_by_role("link", name="Moderation").count() == 0
    await mona.page.goto(fair_server + "#/mod")
    await mona.page.get_by_text("This page is for moderators.").wait_for()

    # reporting from a profile, through the dialog
    await mona.page.goto(fair_server + "#/profile/cheater")
    await mona.page.get_by_role("button", name="Report cheater").click()
    await mona.page.get_by_label("Reason").select_option("cheating")
    await mona.page.get_by_label("Note").fill("the whole deal in two seconds")
    await mona.shot(shots, "fairplay-report-dialog")
    await mona.page.get_by_role("button", name="Send report").click()
    await mona.page.get_by_text("Reported cheater. Thank you.").wait_for()
    await mona.page.get_by_role("button", name="Report cheater").click()
    await mona.page.get_by_role("button", name="Send report").click()
    await mona.page.get_by_role("alert").filter(has_text="open report").wait_for()
    await mona.page.get_by_role("button", name="Cancel").click()

    # a BOT account's profile carries the badge, and offers no report
    await mona.page.goto(fair_server + "#/profile/robo")
    await mona.page.get_by_label("BOT account").wait_for()
    assert await mona.page.get_by_role("button", name="Report robo").count() == 0

    # the operator grants the role; after a reload the page offers the moderator pages
    assert admin(redis_proc.url, "grant", "mona", "moderator").returncode == 0
    await mona.page.goto(fair_server + "#/")
    await mona.page.reload()
    await mona.page.get_by_role("link", name="Moderation").click()
    await mona.page.get_by_role("heading", name="Review queue").wait_for()
    await mona.page.get_by_role("link", name="Review cheater's result").click()
    await mona.page.locator("svg.chart rect").first.wait_for()
    await mona.page.get_by_role("cell", name="instant_play").wait_for()
    await mona.page.get_by_text("cheating").first.wait_for()  # the report, beside the case
    # the worker pool's analysis of the line: the solver's move at most sampled positions
    await mona.page.get_by_text("Played the solver's move at").wait_for(timeout=30_000)
    await mona.shot(shots, "fairplay-case")
    await mona.page.get_by_role("button", name="Clear: cheater").click()
    await mona.page.get_by_text("Write the reason first.").wait_for()
    await mona.page.get_by_label("Reason").fill("known player, filmed the run")
    await mona.page.get_by_role("button", name="Clear: cheater").click()
    await mona.page.get_by_text("Done: clear — status clear").first.wait_for()

    # cleared: the cheater's row is on the board
    await bad.page.goto(fair_server + "#/")  # (the same hash again would not re-render)
    await bad.page.goto(fair_server + "#/leaderboard/unlimited")
    await bad.page.get_by_role("cell", name="cheater").wait_for()
    await bad.shot(shots, "fairplay-cleared")
    assert "null" not in await bad.page.inner_text("#app")  # no stray empty part drawn
    await mona.page.goto(fair_server + "#/mod")
    await mona.page.get_by_text("No held results: the queue is empty.").wait_for()
    await mona.shot(shots, "fairplay-queue-empty")
    assert not mona.errors, mona.errors
    assert not bad.errors, bad.errors
