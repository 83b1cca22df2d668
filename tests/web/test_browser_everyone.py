"""A board for everyone, the rest of it, in Chromium (docs/accessibility.md): one "Play now"
button from the first screen to a race; cards that slide to their place (and do not, with
reduced motion); sounds off by default and on when chosen; a race where both racers hear
every move, refusal, rival's progress and the end in their live regions; the web app manifest
and its icons; and a clear page when the server cannot be reached."""

from __future__ import annotations

import asyncio
import json
import socket
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from harness import ServerProcess, race_info
from pw import Player, new_player
from solrace.shared.views import view_of
from test_browser import rid_of
from test_browser_keyboard import start_practice

pytestmark = pytest.mark.timeout(240)

#: Counts the slides motion.js starts (Element.animate), installed before the page's scripts.
COUNT_ANIMATIONS = """() => {
  window.__slides = 0;
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    window.__slides += 1;
    return animate.apply(this, args);
  };
}"""
#: Keeps every sentence the page's live regions say, in order.
LISTEN = """() => {
  window.__said = [];
  const seen = new WeakSet();
  const watch = () => document.querySelectorAll('[aria-live]').forEach((n) => {
    if (seen.has(n)) return;
    seen.add(n);
    new MutationObserver(() => { const t = n.textContent.trim(); if (t) window.__said.push(t); })
      .observe(n, { childList: true, characterData: true, subtree: true });
  });
  watch();
  new MutationObserver(watch).observe(document.body, { childList: true, subtree: true });
}"""


async def said(p: Player) -> list[str]:
    return list(await p.page.evaluate("() => window.__said || []"))


async def wait_said(p: Player, needle: str, timeout: float = 15.0) -> str:
    for _ in range(int(timeout / 0.1)):
        for text in await said(p):
            if needle in text:
                return text
        await asyncio.sleep(0.1)
    raise AssertionError(f"never said {needle!r}: {await said(p)}")


async def play_now(p: Player) -> None:
    await p.page.get_by_role("button", name="Play now: a quick race of Unlimited").click()


async def paired_by_play_now(browser: Any, web_server: str, names: tuple[str, str],
                             shots: Path | None = None) -> tuple[Player, Player]:
    """Two fresh browsers press Play now, one after the other: both land on one race."""
    a = await new_player(browser, web_server, names[0])
    b = await new_player(browser, web_server, names[1])
    await a.page.get_by_role("button", name="Play now: a quick race of Unlimited").wait_for()
    if shots is not None:
        await a.shot(shots, "lobby-play-now")
    await play_now(a)
    await a.page.get_by_text("Waiting for a rival for Unlimited").wait_for()
    await play_now(b)
    for p in (a, b):
        await p.page.wait_for_url("**/#/race/*")
        await p.pile("t1").wait_for()
    return a, b


async def test_play_now_pairs_two_fresh_browsers_as_guests(browser, web_server: str,
                                                           shots: Path) -> None:
    a, b = await paired_by_play_now(browser, web_server, ("first", "second"), shots)
    assert a.page.url.split("#/race/")[1] == b.page.url.split("#/race/")[1]
    names = [await p.page.evaluate("() => window.solrace.name") for p in (a, b)]
    assert all(n.startswith("guest-") for n in names) and names[0] != names[1], names
    assert not a.errors and not b.errors, (a.errors, b.errors)


async def type_move(p: Player, text: str) -> None:
    await p.page.fill("#move-input", text)
    await p.page.keyboard.press("Enter")


async def test_cards_slide_to_their_place_unless_motion_is_reduced(browser, web_server: str,
                                                                   redis_proc: Any) -> None:
    p, page = await start_practice(browser, web_server, "mo")
    game = (await race_info(redis_proc.url, rid_of(p))).game()
    await page.evaluate(COUNT_ANIMATIONS)
    slid = 0
    for _ in range(30):  # draw until a card can go from the waste or a column to another pile
        move = next((m for m in game.legal_moves()
                     if m.src[0] in "tw" and m.dst[0] in "tf"), None)
        text = move.text() if move is not None else "sw"
        before = await page.evaluate("() => window.__slides")
        await type_move(p, text)
        game.push(text)
        await p.wait_board(view_of(game).wire())
        if move is not None:
            slid = await page.evaluate("() => window.__slides") - before
            break
    assert slid > 0, "the played card did not slide"
    motion = ("() => import('/motion.js').then((m) =>"
              " [m.reduced(), m.snapshot(document.querySelector('.board')) === null])")
    assert await page.evaluate(motion) == [False, False]
    await page.emulate_media(reduced_motion="reduce")
    assert await page.evaluate(motion) == [True, True]  # nothing is measured, nothing slides
    await page.emulate_media(reduced_motion="no-preference")
    await page.get_by_label("Reduce motion (cards jump instead of sliding)").check()
    assert await page.evaluate(motion) == [True, True]
    before = await page.evaluate("() => window.__slides")
    await type_move(p, "sw")
    game.push("sw")
    await p.wait_board(view_of(game).wire())
    assert await page.evaluate("() => window.__slides") == before
    assert not p.errors, p.errors


async def test_sounds_are_off_until_chosen(browser, web_server: str) -> None:
    p, page = await start_practice(browser, web_server, "snd")
    state = "() => import('/sound.js').then((m) => [m.played.slice(), m.audioStarted()])"
    await type_move(p, "sw")
    await page.get_by_role("status").filter(has_text="played sw").wait_for()
    assert await page.evaluate(state) == [[], False]  # off: not even an AudioContext
    await page.get_by_label(
        "Sounds (a move, a card home, a refusal, a rival's card home or finish)").check()
    await type_move(p, "sw")
    for _ in range(50):
        played, started = await page.evaluate(state)
        if played:
            break
        await asyncio.sleep(0.05)
    assert played[-1] in ("move", "home") and started, played
    await type_move(p, "t1t1")
    for _ in range(50):
        played, _ = await page.evaluate(state)
        if played[-1] == "refused":
            break
        await asyncio.sleep(0.05)
    assert played[-1] == "refused", played
    assert not p.errors, p.errors


async def test_two_racers_hear_every_move_refusal_progress_and_the_end(browser, web_server: str,
                                                                      shots: Path) -> None:
    a, b = await paired_by_play_now(browser, web_server, ("ann", "bo"))
    for p in (a, b):
        await p.page.evaluate(LISTEN)
    # (the start was said before the board showed: the listeners come after it)
    a_name = await a.page.evaluate("() => window.solrace.name")
    # ann's own move and its refusal, in her region
    await type_move(a, "sw")
    await wait_said(a, "played sw")
    await type_move(a, "t1t1")
    reason = ""
    for _ in range(100):
        reason = (await a.page.locator(".move-msg").inner_text()).strip()
        if reason and "played" not in reason:
            break
        await asyncio.sleep(0.05)
    assert reason and "played" not in reason
    await wait_said(a, reason)
    # bo hears that ann is done (never her cards; her cards home: test_browser_rivals.py),
    # then the end
    await a.page.get_by_role("button", name="Resign").click()
    await wait_said(b, f"{a_name} is done: resigned")
    await b.page.get_by_role("button", name="Resign").click()
    for p in (a, b):
        await wait_said(p, "Race over.")
    await b.shot(shots, "race-announced-end")
    assert not any("sw" in t for t in await said(b)), "a rival's move was read out"
    assert not a.errors and not b.errors, (a.errors, b.errors)


def test_the_manifest_and_its_icons_are_served(web_server: str) -> None:
    with urllib.request.urlopen(web_server + "manifest.webmanifest") as resp:
        assert resp.headers["Content-Type"] == "application/manifest+json"
        manifest = json.loads(resp.read())
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    sizes = set()
    for icon in manifest["icons"]:
        with urllib.request.urlopen(web_server + icon["src"].lstrip("/")) as resp:
            assert resp.headers["Content-Type"].startswith(icon["type"]), icon
            body = resp.read()
        if icon["type"] == "image/png":
            width, height = int.from_bytes(body[16:20], "big"), int.from_bytes(body[20:24], "big")
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add(width)
    assert {192, 512} <= sizes
    with urllib.request.urlopen(web_server) as resp:
        page = resp.read().decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert '<meta name="theme-color"' in page


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_clear_page_when_the_server_cannot_be_reached(browser, redis_proc: Any,
                                                             tmp_path: Path, shots: Path) -> None:
    port = free_port()

    def on_port(name: str) -> ServerProcess:
        return ServerProcess(redis_proc.url, tmp_path / name, "--port", str(port),
                             "--countdown", "1", "--daily-prepare", "-1", "--log-level",
                             "WARNING", name=name)

    server = on_port("offline")
    await asyncio.to_thread(server.start)
    url = f"http://127.0.0.1:{port}/"
    try:
        p = await new_player(browser, url, "off")
        await p.page.get_by_role("button", name="Play now: a quick race of Unlimited").wait_for()
        server.kill()
        # a page that is up keeps its content and says it cannot reach the server
        await p.page.get_by_role("alert").filter(has_text="cannot reach the server").wait_for(
            timeout=20_000)
        # a page that would load now has nothing to show but that
        await p.page.evaluate("() => { location.hash = '#/daily'; }")
        await p.page.get_by_role("heading", name="Cannot reach the solrace server").wait_for(
            timeout=20_000)
        await p.shot(shots, "offline")
        server = on_port("back")  # the same port: the page comes back by itself
        await asyncio.to_thread(server.start)
        await p.page.get_by_role("heading", name="Cannot reach the solrace server").wait_for(
            state="detached", timeout=30_000)
        await p.page.get_by_role("link", name="Unlimited daily").or_(
            p.page.get_by_text("daily", exact=False)).first.wait_for(timeout=20_000)
    finally:
        server.terminate()
