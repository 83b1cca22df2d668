"""Helpers for the browser tests: a player is a Playwright page that records its console
errors and every websocket frame it receives; boards are read from what the page draws.

Actions use roles and names as a player (or a screen reader) meets them (a pile is a group
named by its kind and id, ``column t3: 2 face-down, 5♠ 4♥``, a card
is a button named by its rank and suit, the stock is a button ``stock, N cards``); reading a
board for comparison with the engine looks at the drawn cards (their faces and backs).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solrace.shared.notation import Move

READ_BOARD = """(root) => {
  const out = {};
  for (const pile of root.querySelectorAll('[data-pile]')) {
    out[pile.dataset.pile] = [...pile.querySelectorAll('.card')].map((c) =>
      c.classList.contains('back') ? '#' : c.classList.contains('masked') ? '?' : c.dataset.card);
  }
  return out;
}"""
MASKED = "?"  # a card a spectator may not see yet, drawn as a neutral masked card


def drawn(view: dict[str, Any]) -> dict[str, list[str]]:
    """What a board drawing of ``view`` shows, pile by pile bottom to top (``#`` a back):
    every tableau card, the top of stacked piles, the top (draw 1) or top three (draw 3) of
    the waste, a back for a non-empty stock."""
    draw = 3 if view.get("options", {}).get("draw") == "3" else 1
    out: dict[str, list[str]] = {}
    for pid, (hidden, cards) in view["piles"].items():
        if pid.startswith("t"):
            faces, backs = list(cards), hidden
        elif pid == "s":
            faces, backs = [], 1 if hidden else 0
        elif pid == "w":
            faces, backs = list(cards[-draw:]), 0
        else:
            faces, backs = list(cards[-1:]), 1 if hidden else 0
        out[pid] = ["#"] * backs + faces
    return out


def same_board(got: dict[str, list[str]], want: dict[str, list[str]], masked_ok: bool) -> bool:
    """``got`` draws ``want``; with ``masked_ok`` any card may be drawn masked instead (what
    fair spectating shows until every racer has seen it), but never a different card."""
    if not masked_ok:
        return got == want
    return got.keys() == want.keys() and all(
        len(got[p]) == len(want[p]) and all(g in (w, MASKED) for g, w in zip(got[p], want[p]))
        for p in want)


@dataclass
class Player:
    page: Any
    name: str
    errors: list[str] = field(default_factory=list)
    frames: list[Any] = field(default_factory=list)

    async def shot(self, folder: Path, name: str) -> None:
        await self.page.screenshot(path=str(folder / f"{name}.png"), full_page=True)

    def board(self, label: str = "your board") -> Any:
        return self.page.get_by_label(label, exact=True)

    async def read(self, label: str = "your board") -> dict[str, Any]:
        return await self.board(label).evaluate(READ_BOARD)

    async def wait_board(self, view: dict[str, Any], label: str = "your board",
                         timeout: float = 10.0) -> None:
        """Wait until the page draws ``view`` (a spectator's board may mask cards)."""
        want = drawn(view)
        deadline = time.monotonic() + timeout
        got: dict[str, Any] = {}
        while time.monotonic() < deadline:
            got = await self.read(label)
            if same_board(got, want, masked_ok=label != "your board"):
                return
            await asyncio.sleep(0.05)
        said = await self.page.locator(".move-msg").all_inner_texts()
        raise AssertionError(f"{self.name}'s board is not the expected one:\n"
                             f"got  {got}\nwant {want}\nthe page said: {said}; "
                             f"errors: {self.errors}")

    def pile(self, pid: str) -> Any:
        return self.page.get_by_role("group", name=re.compile(rf"^\w+ {pid}: "))

    async def drag(self, move: Move) -> None:
        """Drag the move's card(s) from its source pile onto its destination pile."""
        cards = self.pile(move.src).get_by_role("button")
        count = await cards.count()
        assert count >= move.n, f"{move}: only {count} movable cards in {move.src}"
        await self.settled()
        # grab the card by its visible corner (the cards above it cover the rest)
        await cards.nth(count - move.n).drag_to(self.pile(move.dst),
                                                source_position={"x": 12, "y": 8})

    async def settled(self) -> None:
        """Until the cards that slide after the last move have landed (client/web/motion.js):
        a sliding card lets clicks through to what is under it."""
        await self.page.evaluate(
            "() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => 0)))")

    async def click(self, source: str, *, tap: bool = False) -> None:
        """Click what a source-only move names: ``s`` the stock, ``t3:2`` the second card from
        the top of t3, ``w`` / ``c1`` / ``t3`` the pile's top card."""
        if source == "s":
            stock = self.page.get_by_role("button", name="stock", exact=False)
            await (stock.tap() if tap else stock.click())
            return
        pid, _, n = source.partition(":")
        cards = self.pile(pid).get_by_role("button")
        count = await cards.count()
        card = cards.nth(count - int(n or 1))
        await card.scroll_into_view_if_needed()
        await self.settled()
        # the card's visible corner (the cards above it cover the rest), checked to be this
        # very card at the moment of the click
        point = await card.evaluate("""(c) => {
            const r = c.getBoundingClientRect();
            const x = r.left + 12, y = r.top + 8;
            return document.elementFromPoint(x, y).closest('.card') === c ? [x, y] : null;
        }""")
        assert point, f"the card to click for {source} is covered"
        if tap:
            await self.page.touchscreen.tap(*point)
        else:
            await self.page.mouse.click(*point)

    async def click_stock(self) -> None:
        await self.page.get_by_role("button", name="stock", exact=False).click()

    def card_frames(self) -> list[dict[str, Any]]:
        return [json.loads(f) for f in self.frames if isinstance(f, str)]


async def new_player(browser: Any, url: str, name: str, *, viewport: dict[str, int] | None = None,
                     touch: bool = False) -> Player:
    ctx = await browser.new_context(viewport=viewport or {"width": 1280, "height": 900},
                                    has_touch=touch, is_mobile=touch)
    page = await ctx.new_page()
    player = Player(page, name)
    page.on("console", lambda m: player.errors.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: player.errors.append(f"page error: {e}"))
    page.on("dialog", lambda d: asyncio.ensure_future(d.accept()))
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: player.frames.append(f)))
    await page.goto(url)
    return player


async def claim_name(p: Player) -> None:
    await p.page.get_by_label("Your name").fill(p.name)
    await p.page.get_by_role("button", name="Play", exact=True).click()


PASSWORD = "correct horse 42"  # a test password: never to appear in the DOM or console


async def register(p: Player, password: str = PASSWORD) -> None:
    """Register an account by the page's form: on an anonymous page under the player's name,
    on a guest's page the guest itself (it keeps its name and history)."""
    await p.page.get_by_label("New password").wait_for()  # the sign-in area is drawn
    name = p.page.get_by_label("Account name")
    if await name.count():
        await name.fill(p.name)
    await p.page.get_by_label("New password").fill(password)
    await p.page.get_by_role("button", name="Register", exact=True).click()
    await p.page.wait_for_function("window.solrace.account")
    await no_password_shown(p, password)


async def log_in(p: Player, password: str = PASSWORD) -> None:
    """Log in by the page's form (on a guest's page it is inside "Log in to another account")."""
    await p.page.get_by_label("Login name").or_(
        p.page.get_by_text("Log in to another account")).first.wait_for(state="attached")
    more = p.page.get_by_text("Log in to another account")
    if await more.count():
        await more.click()
    await p.page.get_by_label("Login name").fill(p.name)
    await p.page.get_by_label("Password", exact=True).fill(password)
    await p.page.get_by_role("button", name="Log in", exact=True).click()
    await p.page.wait_for_function("window.solrace.account")
    await no_password_shown(p, password)


async def no_password_shown(p: Player, password: str) -> None:
    """The password is in no element, attribute or input value, no console line, and no frame
    the server sent."""
    html = await p.page.content()
    values = await p.page.evaluate("[...document.querySelectorAll('input')].map(i => i.value)")
    assert password not in html and password not in values
    assert not any(password in e for e in p.errors)
    assert not any(password in str(f) for f in p.frames)


CARD = re.compile(r"[A2-9TJQK][CDHS]")


def cards_in(obj: Any, out: set[str]) -> set[str]:
    """Every card code inside pile lists ``[hidden, [cards…]]`` of a frame (views, deltas);
    masked placeholders (``"??"``, ``null``) are no card."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "piles" and isinstance(v, dict):
                for pile in v.values():
                    if isinstance(pile, list) and len(pile) == 2 and isinstance(pile[1], list):
                        out.update(c for c in pile[1] if isinstance(c, str)
                                   and CARD.fullmatch(c))
            else:
                cards_in(v, out)
    elif isinstance(obj, list):
        for v in obj:
            cards_in(v, out)
    return out
