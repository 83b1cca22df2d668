"""A board for everyone, in Chromium (docs/accessibility.md): a practice game played with the
keyboard alone (arrows, M to pick up, Enter to put down, S to draw), a refused move marked on
its card and pile and read out, the board as a screen reader meets it (an accessibility-tree
snapshot: labelled piles, face-down cards as counts), the key list on ?, the display settings
kept across a reload, reduced motion honoured — and axe-core's rules over the race page."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from harness import race_info
from pw import Player, claim_name, new_player
from solrace.shared.views import view_of
from test_browser import rid_of, won_practice_deal

pytestmark = pytest.mark.timeout(240)

#: axe-core rules the race page (a practice game in progress) is checked against and passes.
#: Its one known violation, printed: ``label-content-name-mismatch`` (a card button is named
#: "9♥" while its corners and pip read "9♥ ♥ 9♥"; the stock "stock, 24 cards" shows "s 24").
AXE_MUST_PASS = ("aria-allowed-attr", "aria-allowed-role", "aria-prohibited-attr",
                 "aria-required-attr", "aria-roles", "aria-valid-attr", "aria-valid-attr-value",
                 "aria-progressbar-name", "button-name", "color-contrast", "document-title",
                 "duplicate-id-aria", "html-has-lang", "label", "landmark-one-main", "list",
                 "listitem", "nested-interactive", "page-has-heading-one", "region", "tabindex")


async def focused_pile(p: Player) -> str | None:
    return await p.page.evaluate(
        "() => { const e = document.activeElement; const p = e && e.closest('.pile');"
        " return p ? p.dataset.pile : null; }")


async def arrow_to(p: Player, pile: str) -> None:
    for _ in range(30):
        if await focused_pile(p) == pile:
            return
        await p.page.keyboard.press("ArrowRight")
    raise AssertionError(f"the arrows never reached {pile}")


async def start_practice(browser: Any, web_server: str, name: str) -> tuple[Player, Any]:
    p = await new_player(browser, web_server, name)
    await claim_name(p)
    await p.page.get_by_text("Playing as").wait_for()
    await p.page.get_by_role("button", name="Practice Unlimited").click()
    await p.pile("t1").wait_for()
    return p, p.page


async def test_a_practice_game_with_the_keyboard_alone(browser, web_server: str, shots: Path,
                                                      redis_proc) -> None:
    kay, page = await start_practice(browser, web_server, "kay")
    info = await race_info(redis_proc.url, rid_of(kay))
    game = info.game()
    await kay.wait_board(view_of(game).wire())

    # the board as a screen reader meets it: a region of labelled piles; face-down cards are
    # counts, never faces (the page does not know them)
    tree = await page.get_by_role("region", name="your board").aria_snapshot()
    assert re.search(r'group "column t7: 6 face-down, \S+"', tree), tree
    assert 'button "stock, 24 cards"' in tree
    # the key list: ? opens it, Escape closes it
    await page.keyboard.press("?")
    await page.get_by_role("dialog", name="Keyboard keys").wait_for()
    await kay.shot(shots, "keyboard-help")
    await page.keyboard.press("Escape")
    await page.get_by_role("dialog", name="Keyboard keys").wait_for(state="detached")

    # Tab into the board, arrows across the piles, S draws
    await kay.pile("t1").get_by_role("button").last.focus()
    await page.keyboard.press("ArrowRight")
    assert await focused_pile(kay) == "t2"
    await page.keyboard.press("s")
    game.push("sw")
    await kay.wait_board(view_of(game).wire())
    status = page.get_by_role("status").filter(has_text="played sw")
    await status.wait_for()
    # the focus stays on the board, on the pile it was on, after the redraw
    assert await focused_pile(kay) == "t2"

    # a refused pick-and-put: the card and the pile are marked, the reason is read out
    legal = {m.text() for m in game.legal_moves()}
    wrong = next((f"t{a}t{b}" for a in range(1, 8) for b in range(1, 8)
                  if a != b and f"t{a}t{b}" not in legal), None)
    assert wrong is not None
    await arrow_to(kay, wrong[:2])
    await page.keyboard.press("m")
    await page.get_by_role("status").filter(has_text="picked up").wait_for()
    await arrow_to(kay, wrong[2:])
    await page.keyboard.press("Enter")
    await page.locator(f'.pile[data-pile="{wrong[2:]}"].refused').wait_for()
    await page.locator(".card.refused").wait_for()
    reason = (await page.locator(".move-msg").inner_text()).strip()
    assert reason and "played" not in reason
    described = await page.locator(".card.refused").get_attribute("aria-description")
    assert described == f"refused: {reason}", described
    await page.get_by_role("status").filter(has_text=reason).wait_for()
    await kay.wait_board(view_of(game).wire())  # nothing changed

    # a legal one, by keyboard: pick up, arrow to the destination, Enter
    move = next((m for m in game.legal_moves() if m.src[0] in "tw" and m.dst[0] in "tf"
                 and m.n == 1), None)
    if move is not None:
        await arrow_to(kay, move.src)
        await page.keyboard.press("m")
        await arrow_to(kay, move.dst)
        await page.keyboard.press("Enter")
        game.push(move)
        await kay.wait_board(view_of(game).wire())
    await kay.shot(shots, "keyboard-board")
    assert not kay.errors, kay.errors


async def test_display_settings_persist_and_motion_can_be_reduced(browser, web_server: str,
                                                                  shots: Path) -> None:
    lee, page = await start_practice(browser, web_server, "lee")
    for label in ("Four-colour deck (♣ green, ♦ blue)", "Large cards"):
        await page.get_by_label(label).check()
    colours = await page.evaluate(
        "() => Object.fromEntries(['C', 'D', 'H', 'S'].map((s) => {"
        " const c = document.querySelector(`.card.face[data-card$='${s}']`);"
        " return [s, c ? getComputedStyle(c).color : null]; }))")
    seen = {c for c in colours.values() if c}
    assert len(seen) == len([c for c in colours.values() if c]), colours  # four distinct
    width = await page.locator(".card").first.evaluate("(c) => c.getBoundingClientRect().width")
    await lee.shot(shots, "display-four-colour-large")
    await page.reload()
    await lee.pile("t1").wait_for()
    assert await page.evaluate("() => document.body.className") == "four-colour large-cards"
    assert await page.get_by_label("Large cards").is_checked()
    await page.get_by_label("Large cards").uncheck()
    smaller = await page.locator(".card").first.evaluate("(c) => c.getBoundingClientRect().width")
    assert smaller < width
    await page.get_by_label("High contrast").check()
    assert "high-contrast" in await page.evaluate("() => document.body.className")
    await page.get_by_label("High contrast").uncheck()
    # reduced motion: no animation on a refused card
    await page.emulate_media(reduced_motion="reduce")
    anim = await page.evaluate(
        "() => { const c = document.querySelector('.card'); c.classList.add('refused');"
        " return getComputedStyle(c).animationName; }")
    assert anim == "none"
    await page.emulate_media(reduced_motion="no-preference")
    anim = await page.evaluate("() => getComputedStyle(document.querySelector('.card.refused'))"
                               ".animationName")
    assert anim == "shake"
    assert not lee.errors, lee.errors


def axe_source(tmp: Path) -> str:
    """axe-core from the npm registry at test time (never copied into the repo)."""
    npm = shutil.which("npm")
    if npm is None:
        if os.environ.get("CI"):
            pytest.fail("npm is needed for the axe-core check")
        pytest.skip("npm not installed")
    done = subprocess.run([npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix",
                           str(tmp), "axe-core@4"], capture_output=True, text=True, timeout=180)
    script = tmp / "node_modules" / "axe-core" / "axe.min.js"
    if done.returncode != 0 or not script.exists():
        if os.environ.get("CI"):
            pytest.fail(f"npm install axe-core failed: {done.stderr[-500:]}")
        pytest.skip("axe-core could not be installed")
    return script.read_text()


async def test_axe_rules_on_the_race_page(browser, web_server: str, tmp_path: Path) -> None:
    source = axe_source(tmp_path)
    mae, page = await start_practice(browser, web_server, "mae")
    assert mae.name == "mae"
    await page.add_script_tag(content=source)
    result = json.loads(await page.evaluate(
        "async () => JSON.stringify(await axe.run(document, {resultTypes: ['violations']}))"))
    passed = {r["id"] for r in result["passes"]}
    failed = {r["id"]: len(r["nodes"]) for r in result["violations"]}
    print("axe passes:", sorted(passed))
    print("axe violations:", failed)
    for rule in AXE_MUST_PASS:
        assert rule not in failed, (rule, [v for v in result["violations"] if v["id"] == rule])
        assert rule in passed, f"axe did not check {rule} on this page"


async def test_every_pile_fits_a_360_px_phone(browser, web_server: str, shots: Path) -> None:
    """At 360 px the cards scale to the widest row: every pile is on screen, the page does
    not scroll sideways — with the standard and the large cards, for the widest layouts."""
    pia = await new_player(browser, web_server, "pia", viewport={"width": 360, "height": 740},
                           touch=True)
    page = pia.page
    await claim_name(pia)
    await page.get_by_text("Playing as").wait_for()
    for title, large in (("Unlimited", False), ("Forty and Eight", False),
                         ("Forty and Eight", True)):
        await page.goto(web_server)
        await page.get_by_role("button", name=f"Practice {title}").click()
        await pia.pile("t1").wait_for()
        if large:
            await page.get_by_label("Four-colour deck (♣ green, ♦ blue)").check()
            await page.get_by_label("Large cards").check()
        fit = await page.evaluate(
            "() => ({width: document.documentElement.clientWidth,"
            " scroll: document.documentElement.scrollWidth,"
            " right: Math.max(...[...document.querySelectorAll('.board .pile')]"
            ".map((p) => p.getBoundingClientRect().right)),"
            " card: document.querySelector('.board .card').getBoundingClientRect().width})")
        assert fit["right"] <= fit["width"] and fit["scroll"] <= fit["width"], (title, fit)
        assert fit["card"] >= 28, fit
        await pia.shot(shots, f"phone-{title.replace(' ', '-').lower()}{'-large' if large else ''}")
        await page.get_by_role("button", name="Resign").click()
        await page.get_by_role("heading", name="Race over").wait_for()
    assert not pia.errors, pia.errors


async def test_a_whole_practice_game_won_with_the_keyboard_alone(
        browser, web_server: str, shots: Path, redis_proc) -> None:
    """Every move of a won Seven by Five line (every card face up) made with the arrows, M
    and Enter; the focus stays on the board after each move."""
    rae = await new_player(browser, web_server, "rae")
    page = rae.page
    info, result = await won_practice_deal(rae, web_server, redis_proc.url)
    game = info.game()
    await rae.wait_board(view_of(game).wire())
    order = await page.evaluate(
        "() => [...document.querySelectorAll('.board .pile[data-pile]')]"
        ".map((p) => p.dataset.pile)")
    await rae.pile("t1").get_by_role("button").last.focus()
    for move in result.moves:
        here = await focused_pile(rae)
        assert here is not None, "the focus left the board"
        step = (order.index(move.src) - order.index(here)) % len(order)
        key = "ArrowRight" if step <= len(order) // 2 else "ArrowLeft"
        for _ in range(step if key == "ArrowRight" else len(order) - step):
            await page.keyboard.press(key)
        assert await focused_pile(rae) == move.src
        for _ in range(move.n - 1):
            await page.keyboard.press("ArrowUp")
        await page.keyboard.press("m")
        step = (order.index(move.dst) - order.index(move.src)) % len(order)
        key = "ArrowRight" if step <= len(order) // 2 else "ArrowLeft"
        for _ in range(step if key == "ArrowRight" else len(order) - step):
            await page.keyboard.press(key)
        await page.keyboard.press("Enter")
        game.push(move)
        await rae.wait_board(view_of(game).wire())
    await page.get_by_role("heading", name="Race over").wait_for()
    await page.locator(".result-line").get_by_text(re.compile(r"rae wins in")).wait_for()
    await rae.shot(shots, "keyboard-won")
    assert not rae.errors, rae.errors
