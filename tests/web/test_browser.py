"""The browser client in a real Chromium against a real server process and a real Redis.

Everything a player does here goes through the page — clicks, drags, taps, the keyboard, the
invite link — never through a Python client. The test may peek at the race's secret seed in
Redis (harness.race_info) to mirror each racer's game with the engine and check every board the
page draws, and to prove a spectator never saw a card that no racer had face up.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from harness import choose_move, race_info, read_log
from pw import (
    PASSWORD,
    Player,
    cards_in,
    claim_name,
    log_in,
    new_player,
    no_password_shown,
    register,
)
from solrace.shared.engine import Game
from solrace.shared.errors import CannotFinish, IllegalMove, NoLegalMove
from solrace.shared.learning.lost import find_losing_move
from solrace.shared.notation import Move
from solrace.shared.pointing import autoplay, finish, resolve_source
from solrace.shared.solver import Budget, Outcome, solve
from solrace.shared.views import view_of

pytestmark = pytest.mark.timeout(240)


def rid_of(p: Player) -> str:
    m = re.search(r"#/race/([a-z0-9]+)", p.page.url)
    assert m, p.page.url
    return m.group(1)


def ever_face_up(game: Game, moves: list[str]) -> set[str]:
    """Every card that is face up at some point while ``moves`` are played from the deal."""
    seen: set[str] = set()

    def note() -> None:
        for _, cards in view_of(game).wire()["piles"].values():
            seen.update(cards)

    note()
    for m in moves:
        game.push(Move.from_text(m))
        note()
    return seen


def page_click(game: Game, move: Move) -> str | None:
    """What the page sends when the player clicks the card(s) of ``move`` — ``t3:2`` for the
    second card from the top of t3 (a tableau click always names its count), the pile id
    elsewhere, ``s`` for the stock — if that click makes exactly ``move``; else ``None``."""
    if move.src == "s" or (move.src == "w" and move.dst == "s"):
        text = "s"
    elif move.src.startswith("t"):
        text = f"{move.src}:{move.n}"
    else:
        text = move.src
    try:
        return text if resolve_source(game, text) == move else None
    except (IllegalMove, NoLegalMove):
        return None


def next_click(game: Game) -> str | None:
    """A click (source only) that makes a useful move: the test racer's choice of move, or
    failing that any move a click makes; a card rather than the stock when one is worth it."""
    preferred = choose_move(game, {game.position_text()}, keep_playing=True)
    moves = ([preferred] if preferred else []) + list(game.legal_moves())
    texts = [page_click(game, m) for m in moves
             if not m.src.startswith("f") and not _ends_game(game, m)]
    cards = [t for t in texts if t and t != "s"]
    return cards[0] if cards else ("s" if "s" in texts else None)


def _ends_game(game: Game, move: Move) -> bool:
    """Is the game over after ``move``? (The tests play on and resign, so they avoid that.)"""
    game.push(move)
    try:
        return game.is_over()
    finally:
        game.pop()


async def drag_and_check(p: Player, game: Game, move: Move) -> None:
    await p.drag(move)
    game.push(move)
    await p.wait_board(view_of(game).wire())


async def test_two_players_race_by_invite_link_with_a_spectator(
        browser, web_server: str, shots: Path, redis_proc) -> None:
    alice = await new_player(browser, web_server, "alice")
    bob = await new_player(browser, web_server, "bob")
    viewer = await new_player(browser, web_server + "#/watch", "viewer")
    page = alice.page

    # the lobby: five variants, an account (a rated race needs one), a race with an invite link
    await register(alice)
    await page.get_by_text("Signed in as").wait_for()
    for title in ("Sixes and Sevens", "Seven by Five", "Double Aces and Kings", "Unlimited",
                  "Forty and Eight"):
        await page.get_by_role("heading", name=title).wait_for()
    await page.get_by_text("practically never winnable").wait_for()
    await alice.shot(shots, "lobby")
    await page.get_by_label("Seats").fill("2")
    await page.get_by_label("Rated").check()
    await page.get_by_label("draw", exact=True).select_option("3")  # the waste fans out
    await page.get_by_role("button", name="Create a Unlimited race").click()
    invite = page.get_by_role("link", name=re.compile(r"join.[A-Z2-9]{6}$"))
    await invite.wait_for()
    link = await invite.get_attribute("href")
    rid = rid_of(alice)
    assert urlparse(link).netloc == urlparse(web_server).netloc
    await alice.shot(shots, "race-lobby")

    await page.get_by_role("button", name="Copy").click()
    await page.get_by_role("alert").filter(has_text=re.compile(r"Link copied|/#/join/")).wait_for()

    # the invite link joins (after registering: the race is rated)
    await bob.page.goto(link)
    await bob.page.get_by_text("You are invited").wait_for()
    await register(bob)
    await bob.page.wait_for_url(re.compile(rf"#/race/{rid}$"))
    await page.get_by_text("bob", exact=True).wait_for()

    await page.get_by_role("button", name="I'm ready").click()
    await bob.page.get_by_role("button", name="I'm ready").click()
    await page.locator(".countdown.shown").wait_for()  # the countdown overlay shows first
    await alice.shot(shots, "race-countdown")
    await page.get_by_role("button", name="stock, 24 cards").wait_for(timeout=15000)
    secrets = await race_info(redis_proc.url, rid)
    ga, gb = secrets.game(), secrets.game()
    await alice.wait_board(view_of(ga).wire())
    await bob.wait_board(view_of(gb).wire())
    await alice.shot(shots, "race-start")

    # the spectator sees the race listed live, and both boards
    await viewer.page.reload()
    await viewer.page.get_by_role("list", name="live races").get_by_role(
        "link", name="Watch").click()
    await viewer.page.get_by_label("board of alice").wait_for()
    await viewer.page.get_by_label("board of bob").wait_for()
    # the racers' page counts the spectator (a `spectators` frame, not a race event)
    await page.locator(".race-meta .spectators").filter(has_text="1 watching").wait_for()

    # alice plays by dragging cards (full moves), checked against the engine after each
    seen = {ga.position_text()}
    for _ in range(12):
        move = choose_move(ga, seen, keep_playing=True)
        assert move is not None
        if "s" in (move.src, move.dst):  # a draw, or a redeal (a click on the empty stock)
            await alice.click_stock()
            ga.push(move)
            await alice.wait_board(view_of(ga).wire())
        else:
            await drag_and_check(alice, ga, move)
        seen.add(ga.position_text())

    # a drag onto a pile where the card does not fit snaps back with the server's reason
    legal = {m.text() for m in ga.legal_moves()}
    src = next(p for p in ("t1", "t2", "t3", "t4", "t5", "t6", "t7", "w")
               if view_of(ga).wire()["piles"][p][1])
    dst = next(d for d in ("f1", "f2", "f3", "f4", "t1", "t2", "t3", "t4", "t5", "t6", "t7")
               if d != src and f"{src}{d}" not in legal
               and (d.startswith("f") or view_of(ga).wire()["piles"][d][1]))
    with pytest.raises(IllegalMove) as refused:
        ga.push(Move(src, dst))
    before = await alice.read()
    await alice.drag(Move(src, dst))
    # the refusal is shown above the board and read out politely (docs/accessibility.md)
    await page.locator(".move-msg").filter(has_text=str(refused.value)).wait_for()
    await page.get_by_role("status").filter(has_text=str(refused.value)).wait_for()
    await alice.wait_board(view_of(ga).wire())
    assert await alice.read() == before
    assert await page.locator(".drag-layer").count() == 0
    await alice.shot(shots, "race-refused")

    # bob plays by clicks only: the stock, and cards the server moves to their best place
    # (the engine's own pointing rules say which move each click must make)
    clicks = 0
    for _ in range(10):
        click = next_click(gb)
        if click is None:
            break
        await bob.click(click)
        gb.push(resolve_source(gb, click))
        await bob.wait_board(view_of(gb).wire())
        clicks += click != "s"
    assert clicks >= 1, "bob never got to click a card"

    # the lobby lists the race among alice's unfinished ones; Resume goes back to it
    await page.get_by_role("link", name="Lobby").click()
    await page.get_by_role("list", name="your races").get_by_role("link", name="Resume").click()
    await page.wait_for_url(re.compile(rf"#/race/{rid}$"))
    await alice.wait_board(view_of(ga).wire())

    # a reload mid-race resumes the same board
    board_before = await alice.read()
    await page.reload()
    await page.get_by_role("button", name=re.compile(r"^stock")).wait_for()
    await alice.wait_board(view_of(ga).wire())
    assert await alice.read() == board_before
    await page.get_by_label("bob: ", exact=False).wait_for()

    # the spectator's boards follow live, exactly as the server sent them
    await viewer.wait_board(view_of(ga).wire(), label="board of alice")
    await viewer.shot(shots, "watch")

    # both resign (confirmed): the race ends with standings, the seed checked in the browser
    live_frames = len(viewer.frames)  # what the spectator got while the race was on
    await page.get_by_role("button", name="Resign").click()
    await bob.page.get_by_role("button", name="Resign").click()
    for p in (alice, bob):
        await p.page.get_by_role("heading", name="Race over").wait_for()
        # exact: a rival's row also has a "Report bob" button
        await p.page.get_by_role("cell", name="alice", exact=True).wait_for()
        await p.page.get_by_role("cell", name="bob", exact=True).wait_for()
        await p.page.get_by_text("matches the commitment published").wait_for()
        await p.page.get_by_text("deal recomputed in your browser matches").wait_for()
    rows = await page.locator("table.standings tbody tr").all_inner_texts()
    assert len(rows) == 2 and all("resigned" in r for r in rows), rows
    assert all(re.search(r"\d+ → \d+ \([+-]\d+\)", r) for r in rows), rows  # rated
    await alice.shot(shots, "race-end")

    # never a hidden card for the spectator: not in its page, not in any frame it received
    log_b = await read_log(redis_proc.url, rid, next(iter(
        r for r in (await bob.page.evaluate("window.solrace.player"),))))
    log_a = [m.text() for m in ga.moves]
    face_up = ever_face_up(secrets.game(), log_a) | ever_face_up(secrets.game(), log_b)
    shown = cards_in([f for f in viewer.card_frames()], set())
    assert shown, "the spectator received no cards at all"
    assert shown <= face_up, f"spectator saw cards no racer had face up: {shown - face_up}"
    # fair spectating: while the race was on, only cards EVERY racer had seen (others "??")
    both = ever_face_up(secrets.game(), log_a) & ever_face_up(secrets.game(), log_b)
    live = cards_in([json.loads(f) for f in viewer.frames[:live_frames] if isinstance(f, str)],
                    set())
    assert live <= both, f"spectator saw cards before every racer had: {live - both}"
    dom = set(await viewer.page.locator(".card.face").evaluate_all(
        "(cs) => cs.map((c) => c.dataset.card)"))
    assert dom <= face_up

    # the replay of the finished race, step by step, with a shareable URL
    await viewer.page.goto(f"{web_server}#/replay/{rid}")
    await viewer.page.get_by_text(f"step 0 of {len(log_a) + len(log_b)}").wait_for()
    await viewer.wait_board(view_of(secrets.game()).wire(), label="board of alice")
    await viewer.page.get_by_role("button", name="last").click()
    await viewer.wait_board(view_of(ga).wire(), label="board of alice")
    final_b = secrets.game()
    for m in log_b:
        final_b.push(Move.from_text(m))
    await viewer.wait_board(view_of(final_b).wire(), label="board of bob")
    await viewer.page.get_by_text("matches its commitment").wait_for()
    await viewer.page.get_by_role("button", name="Back").click()
    assert "step=" in viewer.page.url
    await viewer.shot(shots, "replay")
    share = viewer.page.url
    await bob.page.goto(share)
    await bob.page.get_by_text(re.compile(r"step \d+ of")).wait_for()

    # the move that lost it, asked on the replay page: the server's analysis of bob's line
    want = await asyncio.to_thread(find_losing_move, secrets.variant, secrets.options,
                                   secrets.seed, log_b)
    await viewer.page.get_by_role("button", name="Where was it lost? (bob)").click()
    said = viewer.page.locator(".analysis p").first
    await viewer.page.wait_for_function(
        "() => { const p = document.querySelector('.analysis p');"
        " return p && !p.textContent.startsWith('Looking'); }", timeout=60_000)
    words = {"winnable_at_end": "could still be won", "lost_from_start": "No move lost it",
             "undecided": "could not decide"}.get(want["result"]) \
        or f"lost at move {want['ply'] + 1}: {want['move']}"  # found (ply is an int then)
    assert words in await said.inner_text()
    if want["result"] == "found":
        await viewer.page.get_by_role("button", name="Go to that move").click()
        await viewer.page.get_by_role("button", name="Next ▶").click()  # the losing move
        await viewer.page.get_by_text(f"bob played {want['move']}").wait_for()
    await viewer.shot(shots, "replay-lost")
    assert "null" not in await viewer.page.locator("main").inner_text()

    # rematch: alice asks, bob is offered it and joins with one click
    await page.get_by_role("button", name="Rematch").click()
    await page.get_by_text("Waiting for racers").wait_for()
    await bob.page.get_by_role("dialog", name="rematch offer").wait_for()
    await bob.page.get_by_role("button", name="Join rematch").click()
    await bob.page.get_by_text("Waiting for racers").wait_for()
    assert rid_of(alice) == rid_of(bob) != rid
    await page.get_by_text("bob", exact=True).wait_for()

    for p in (alice, bob, viewer):
        assert not p.errors, p.errors


async def test_daily_attempt_leaderboard_and_profile(browser, web_server: str,
                                                     shots: Path, redis_proc) -> None:
    carol = await new_player(browser, web_server, "carol")
    page = carol.page
    await register(carol)  # the ranked attempt needs an account
    # a name an account holds is refused with the server's reason; the page stays usable
    other = await new_player(browser, web_server, "Carol")
    await claim_name(other)
    await other.page.get_by_role("alert").filter(
        has_text="the name Carol (or one that looks like it) is taken").wait_for()
    await other.page.get_by_label("Your name").fill("carol2")
    await other.page.get_by_role("button", name="Play", exact=True).click()
    await other.page.get_by_text("Playing as").wait_for()
    await page.goto(web_server + "#/daily/unlimited")
    await page.get_by_role("button", name="Ranked attempt: Unlimited").click(timeout=60000)
    await page.get_by_role("button", name=re.compile(r"^stock")).wait_for(timeout=15000)
    rid = rid_of(carol)
    game = (await race_info(redis_proc.url, rid)).game()
    await carol.wait_board(view_of(game).wire())
    await carol.shot(shots, "daily-attempt")
    # keyboard play: type a move and Enter; Space draws
    await page.keyboard.press("Space")
    game.push(Move("s", "w"))
    await carol.wait_board(view_of(game).wire())
    move = choose_move(game, {game.position_text()}, keep_playing=True)
    assert move is not None
    await page.get_by_label("Type a move").fill(move.text())
    await page.keyboard.press("Enter")
    game.push(move)
    await carol.wait_board(view_of(game).wire())
    await page.get_by_role("button", name="Resign").click()
    await page.get_by_role("heading", name="Race over").wait_for()
    await page.get_by_text("revealed tomorrow").wait_for()

    await page.goto(web_server + "#/daily/unlimited")
    await page.get_by_role("link", name="Your attempt").wait_for(timeout=30000)
    await carol.shot(shots, "daily")
    await page.get_by_role("button", name="Practice: Unlimited").click()
    await page.get_by_text("practice", exact=True).wait_for()
    assert rid_of(carol) != rid  # a new game, on the same deal:
    await carol.wait_board(view_of((await race_info(redis_proc.url, rid)).game()).wire())
    await page.goto(web_server + "#/daily/unlimited")
    await page.get_by_role("link", name="Leaderboard: Unlimited").click()
    await page.get_by_role("cell", name="carol").wait_for()
    await page.get_by_text(re.compile(r"par \d+ moves")).wait_for()
    await page.get_by_role("tab", name="Around me").click()
    await page.get_by_text("you are #1").wait_for()
    await carol.shot(shots, "leaderboard")
    await page.get_by_role("cell", name="carol").get_by_role("link").click()
    await page.get_by_role("heading", name="carol").wait_for()
    await page.get_by_role("cell", name="Unlimited").first.wait_for()  # ratings, statistics
    await page.get_by_role("cell", name="1 played, 0 won").wait_for()
    await carol.shot(shots, "profile")
    assert not carol.errors, carol.errors


async def test_phone_width_tap_to_play(browser, web_server: str, shots: Path,
                                       redis_proc) -> None:
    """A phone-sized touch screen: the board fits the width, and taps play."""
    dan = await new_player(browser, web_server, "dan", viewport={"width": 390, "height": 844},
                           touch=True)
    eve = await new_player(browser, web_server, "eve")
    await claim_name(dan)
    await dan.page.get_by_text("Playing as").wait_for()
    await dan.shot(shots, "phone-lobby")
    await claim_name(eve)
    await eve.page.get_by_text("Playing as").wait_for()
    await dan.page.get_by_role("button", name="Quick pair for Unlimited").tap()
    await dan.page.get_by_text("Waiting for a rival").wait_for()
    await eve.page.get_by_role("button", name="Quick pair for Unlimited").click()
    for p in (dan, eve):
        await p.page.get_by_role("button", name=re.compile(r"^stock")).wait_for(timeout=15000)
    rid = rid_of(dan)
    assert rid == rid_of(eve)
    game = (await race_info(redis_proc.url, rid)).game()
    await dan.wait_board(view_of(game).wire())
    width = await dan.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width}px wide on a 390px screen"
    await dan.page.get_by_role("button", name=re.compile(r"^stock")).tap()
    game.push(Move("s", "w"))
    await dan.wait_board(view_of(game).wire())
    for _ in range(8):  # taps on cards move them, as clicks do
        tap = next_click(game)
        assert tap is not None
        await dan.click(tap, tap=True)
        game.push(resolve_source(game, tap))
        await dan.wait_board(view_of(game).wire())
        if tap != "s":
            break
    else:
        pytest.fail("no card worth tapping in eight tries")
    await dan.shot(shots, "phone-race")
    # a race (not practice) has no Hint button, and no stray "null" where it would be
    controls = await dan.page.evaluate("() => document.body.innerText")
    assert "null" not in controls.split(), controls

    # a network drop: "reconnecting…", then the session resumes with sync from the last
    # version seen — the rival's move made meanwhile shows up, and play goes on
    await dan.page.evaluate("window.solrace.ws.close()")
    await dan.page.get_by_role("status").filter(has_text="reconnecting…").wait_for()
    rival = (await race_info(redis_proc.url, rid)).game()
    for _ in range(2):
        await eve.click_stock()
        rival.push(Move("s", "w"))
        await eve.wait_board(view_of(rival).wire())
    await dan.page.get_by_role("status").filter(has_text="reconnecting…").wait_for(
        state="hidden")
    await dan.page.get_by_role("listitem").filter(has_text="eve").get_by_text(
        "2 moves").wait_for()
    await dan.wait_board(view_of(game).wire())
    await dan.page.get_by_role("button", name=re.compile(r"^stock")).tap()
    game.push(Move("s", "w"))
    await dan.wait_board(view_of(game).wire())
    assert not dan.errors and not eve.errors, dan.errors + eve.errors

    # presence: each sees the other connected; when dan's last connection closes, eve's
    # progress line says so (his clock runs on)
    await dan.page.get_by_label("eve is connected").wait_for()
    await eve.page.get_by_label("dan is connected").wait_for()
    await dan.page.context.close()
    await eve.page.get_by_label("dan is disconnected").wait_for()
    await eve.page.get_by_text("offline").wait_for()
    await eve.shot(shots, "rival-offline")


def finishes(game: Game) -> bool:
    """Whether ``finish`` would play this game to the win (it then is: ``game`` changes)."""
    try:
        return bool(finish(game)) and game.status.value == "won"
    except CannotFinish:
        return False


def replay_game(info, moves: list[Move]) -> Game:
    game = info.game()
    for m in moves:
        game.push(m)
    return game


async def won_practice_deal(p: Player, web_server: str, redis_url: str) -> tuple[Any, Any]:
    """A Seven by Five practice game (every card face up) the solver wins, started on ``p``'s
    page as a guest (up to five deals tried): its secrets and the solver's result."""
    page = p.page
    await claim_name(p)
    await page.get_by_text("Playing as").wait_for()
    for _ in range(5):
        await page.goto(web_server)
        await page.get_by_role("button", name="Use cells=5, empty_fill=any").click()
        await page.get_by_role("button", name="Practice Seven by Five").click()
        await p.pile("t1").wait_for()
        info = await race_info(redis_url, rid_of(p))
        result = solve(info.game(), Budget(nodes=30_000))
        if result.outcome is Outcome.WON:
            return info, result
        await page.get_by_role("button", name="Resign").click()
        await page.get_by_role("heading", name="Race over").wait_for()
    pytest.fail("the solver won none of five deals")


async def test_a_deal_won_in_the_browser_by_clicks_drags_and_finish(
        browser, web_server: str, shots: Path, redis_proc) -> None:
    """A practice deal played to the win: the solver's line, each move a click when a click
    makes it, else a drag; 'Safe cards home' once it has something to do; 'Finish' as soon as
    the rest plays itself."""
    fay = await new_player(browser, web_server, "fay")
    page = fay.page
    info, result = await won_practice_deal(fay, web_server, redis_proc.url)
    game = info.game()
    await fay.wait_board(view_of(game).wire())
    line = list(result.moves)
    autoplayed = finished = auto_on = False
    while line:
        trial = replay_game(info, list(game.moves))
        if finishes(trial):
            await page.get_by_role("button", name="Finish").click()
            game = trial
            finished = True
            break
        if not autoplayed:
            trial = replay_game(info, list(game.moves))
            if autoplay(trial):
                await page.get_by_role("button", name="Safe cards home").click()
                game = trial
                autoplayed = True
                await fay.wait_board(view_of(game).wire())
                line = list(solve(game, Budget(nodes=30_000)).moves)
                assert line, "autoplay never costs a win"
                await page.get_by_label("Auto-play safe cards").check()  # from now on
                auto_on = True
                continue
        move = line.pop(0)
        click = page_click(game, move)
        if click is not None:
            await fay.click(click)
        else:
            await fay.drag(move)
        game.push(move)
        if auto_on and autoplay(game):  # the server played the safe cards after the move
            line = list(solve(game, Budget(nodes=30_000)).moves)
        await fay.wait_board(view_of(game).wire())
    await page.get_by_role("heading", name="Race over").wait_for()
    await page.locator(".result-line").get_by_text(re.compile(r"fay wins in")).wait_for()
    await page.get_by_role("cell", name="won").wait_for()
    assert game.status.value == "won" and (finished or not line)
    await fay.wait_board(view_of(game).wire())
    await fay.shot(shots, "race-won")
    assert not fay.errors, fay.errors


async def test_masked_cards_are_drawn_as_masked_cards(browser, web_server: str) -> None:
    """Fair spectating sends a card nobody may see yet as "??" (or null): the board draws a
    neutral masked card in its place, never a guess, and keeps every pile's size."""
    p = await new_player(browser, web_server + "#/watch", "masks")
    await p.page.get_by_role("heading", name="Live races").wait_for()
    view = {"variant": "unlimited", "options": {"draw": "3", "foundation_takeback": "yes"},
            "moves": 4, "home": 1, "total": 52, "status": "playing", "redeals": 0,
            "redeals_left": None,
            "piles": {"f1": [0, ["AS"]], "f2": [0, []], "f3": [0, []], "f4": [0, []],
                      "t1": [0, ["??"]], "t2": [1, ["QS", "??"]], "t3": [2, [None]],
                      "t4": [3, ["5D"]], "t5": [4, ["8D"]], "t6": [5, ["5C"]],
                      "t7": [6, ["TD"]], "s": [18, []], "w": [0, ["??", "2H", "??"]]}}
    drawn_dom = await p.page.evaluate("""async (view) => {
        const { renderBoard } = await import('/board.js');
        const root = document.createElement('div');
        root.setAttribute('aria-label', 'test board');
        document.getElementById('app').append(root);
        renderBoard(root, view, {});
        return root.querySelectorAll('.card.masked[aria-label="masked card"]').length;
    }""", view)
    assert drawn_dom == 5  # t1, t2's top, t3, and the waste's two of its top three
    got = await p.read("test board")
    assert got["t2"] == ["#", "QS", "?"] and got["t3"] == ["#", "#", "?"]
    assert got["w"] == ["?", "2H", "?"]
    assert not p.errors, p.errors


async def test_a_guest_is_told_an_account_is_needed_then_registers_on_the_page(
        browser, web_server: str, shots: Path) -> None:
    gil = await new_player(browser, web_server, "gil")
    page = gil.page
    await claim_name(gil)
    await page.get_by_text("Playing as").wait_for()
    await page.get_by_text("(guest)").wait_for()
    await page.get_by_text("Rated races need an account").wait_for()
    # a rated race as a guest: refused, with the server's account_required reason
    await page.get_by_label("Rated").check()
    await page.get_by_role("button", name="Create a Unlimited race").click()
    await page.get_by_role("alert").filter(
        has_text="a rated race needs an account: register").wait_for()
    assert "#/race/" not in page.url
    # the ranked daily attempt says so too, and is refused the same way
    await page.goto(web_server + "#/daily/unlimited")
    await page.get_by_text("The ranked attempt needs an account").wait_for()
    await page.get_by_role("button", name="Ranked attempt: Unlimited").click(timeout=60000)
    await page.get_by_role("alert").filter(
        has_text="the ranked daily attempt needs an account").wait_for()
    # register from the page: the guest becomes the account (same player), then it works
    await page.goto(web_server + "#/")
    player = await page.evaluate("window.solrace.player")
    await gil.shot(shots, "signin-guest")
    await register(gil)
    assert await page.evaluate("window.solrace.player") == player
    assert await page.evaluate("localStorage.getItem('solrace.token')") is not None
    await page.locator("#who").get_by_text("account").wait_for()
    await page.get_by_label("Rated").check()
    await page.get_by_role("button", name="Create a Unlimited race").click()
    await page.wait_for_url(re.compile(r"#/race/[a-z0-9]+$"))
    await page.get_by_text("rated", exact=True).first.wait_for()
    # log out, then log in again with the password: the same player, a new session
    await page.goto(web_server + "#/")
    await page.get_by_role("button", name="Log out").click()
    await page.get_by_role("button", name="Play", exact=True).wait_for()
    assert await page.evaluate("window.solrace.player") is None
    await page.get_by_label("Login name").fill("gil")
    await page.get_by_label("Password", exact=True).fill("not the password")
    await page.get_by_role("button", name="Log in", exact=True).click()
    await page.get_by_role("alert").filter(has_text="wrong name or password").wait_for()
    await gil.shot(shots, "signin")
    await log_in(gil)
    assert await page.evaluate("window.solrace.player") == player
    await page.get_by_role("list", name="your races").get_by_text("lobby").wait_for()
    await no_password_shown(gil, PASSWORD)
    assert not gil.errors, gil.errors
