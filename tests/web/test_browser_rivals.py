"""The rivals' rows while racing, in Chromium (client/web/pages/rivals.js): two fresh browsers
race; who leads follows the standings rule as the progress comes in, a rival's card home lights
up his row with ``+1``, is said in the live region and plays the rival tone (sounds on), and
each row has its racer's clock. The rows never show a rival's cards or moves."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from harness import race_info
from pw import Player
from solrace.shared.engine import Game
from solrace.shared.solver import Budget, solve
from test_browser import rid_of
from test_browser_everyone import LISTEN, paired_by_play_now, said, type_move, wait_said

pytestmark = pytest.mark.timeout(240)

SOUNDS = "Sounds (a move, a card home, a refusal, a rival's card home or finish)"


def first_card_home(game: Game, nodes: int = 20_000) -> list[str]:
    """Moves from the deal's start to its first card home: the prefix of the solver's winning
    line, else a breadth-first search (the deal is random: a quick pairing's)."""
    start = game.cards_home
    found = solve(game.copy(), Budget(nodes=nodes))
    if found.moves:
        probe, line = game.copy(), []
        for move in found.moves:
            probe.push(move)
            line.append(move.text())
            if probe.cards_home > start:
                return line
    frontier, seen = [(game.copy(), [])], {game.position_text()}
    while frontier and len(seen) < nodes:
        nxt = []
        for g, line in frontier:
            for move in g.legal_moves():
                child = g.copy()
                child.push(move)
                if child.cards_home > start:
                    return [*line, move.text()]
                if child.position_text() not in seen:
                    seen.add(child.position_text())
                    nxt.append((child, [*line, move.text()]))
        frontier = nxt
    raise AssertionError("no card can go home from this deal within the search")


def row(p: Player, name: str) -> Any:
    return p.page.locator(".rivals li.rival").filter(has_text=name)


async def leading(p: Player) -> list[str]:
    return await p.page.locator(".rivals li.rival.leading .rname").all_inner_texts()


async def until(check: Any, what: str, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.1)):
        if await check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"never: {what}")


async def test_a_rival_card_home_is_cued_and_the_lead_changes(browser, web_server: str,
                                                              redis_proc: Any,
                                                              shots: Path) -> None:
    a, b = await paired_by_play_now(browser, web_server, ("ann", "bo"))
    rid = rid_of(a)
    game = (await race_info(redis_proc.url, rid)).game()
    path = await asyncio.to_thread(first_card_home, game)
    a_name, b_name = [await p.page.evaluate("() => window.solrace.name") for p in (a, b)]
    await a.page.get_by_label(SOUNDS).check()
    sounds = "() => import('/sound.js').then((m) => m.played.slice())"
    for p in (a, b):
        await p.page.evaluate(LISTEN)
        # before any move, nobody leads; every row has a running clock
        assert await leading(p) == []
        await until(lambda p=p: _clock_runs(p, a_name), "a running clock on ann's row")

    # ann draws once: more moves, no card home yet on either side — she leads
    first = "sw" if any(m.text() == "sw" for m in game.legal_moves()) else path[0]
    await play(a, first)
    for p in (a, b):
        await until(lambda p=p: _leads(p, a_name), f"{a_name} leading on {p.name}'s page")

    # bo plays to his first card home: ann's page cues his row, says it, plays the rival tone,
    # and the lead is his
    before = len(await a.page.evaluate(sounds))
    for move in path:
        await play(b, move)
    await until(lambda: row(a, b_name).evaluate("(n) => n.classList.contains('gain')"),
                f"the cue on {b_name}'s row")
    cue = (await row(a, b_name).locator(".cue").inner_text()).strip()
    assert cue.startswith("+"), cue
    await a.shot(shots, "race-rival-cue")
    said = await wait_said(a, f"{b_name}: ")
    assert "card" in said and "home" in said and said.endswith(", leading"), said
    for p in (a, b):
        await until(lambda p=p: _leads(p, b_name), f"{b_name} leading on {p.name}'s page")
    assert "rival" in (await a.page.evaluate(sounds))[before:]
    # the cue goes out again; the rows never show a rival's card or move
    await until(lambda: row(a, b_name).evaluate("(n) => !n.classList.contains('gain')"),
                "the cue's end")
    text = await a.page.locator(".rivals").inner_text()
    assert not any(m in text for m in path), text

    # bo resigns: his clock stops at his time, ann's runs on
    await b.page.get_by_role("button", name="Resign").click()
    await until(lambda: _ended(a, b_name), f"{b_name}'s clock stopped")
    assert await _clock_runs(a, a_name)
    assert not a.errors and not b.errors, (a.errors, b.errors)


async def play(p: Player, move: str) -> None:
    """Type a move and wait for its ack to be said (one move in flight: the page drops a move
    typed while the last is unanswered)."""
    before = len(await said(p))
    await type_move(p, move)
    await until(lambda: _said_since(p, before, f"played {move}"),
                f"{p.name} played {move}")


async def _said_since(p: Player, before: int, text: str) -> bool:
    return any(text in t for t in (await said(p))[before:])


async def _clock_runs(p: Player, name: str) -> bool:
    return re.fullmatch(r"\d+:\d\d", (await row(p, name).locator(".rclock").inner_text()).strip()) \
        is not None


async def _ended(p: Player, name: str) -> bool:
    return (await row(p, name).locator(".rclock").inner_text()).startswith("ended at")


async def _leads(p: Player, name: str) -> bool:
    return any(name in t for t in await leading(p))
