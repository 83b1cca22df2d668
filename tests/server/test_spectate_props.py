"""Property: a spectator never receives a card that the racers could not see at that moment.

Hypothesis drives two racers through random legal play (each move drawn from the engine's
legal moves) on every variant, rated (with a short spectator delay) or not, while an anonymous
spectator records every frame it receives: the ``watching`` snapshot (taken in the lobby, mid-race
or only after the end), live events, a resume with ``since`` after a reconnect, and the full
replay and final snapshot after the end.

Every pile a frame shows is attributed to the position it claims to show — the deal for the
``start`` view, racer P after n moves for P's ``progress`` event with ``moves`` = n and for P's
board with ``seq`` = n — and checked against that position in the racers' engine replicas,
hidden cards included: a card may appear only where it lies face up there (waste, foundations,
reserve, cells, and the tableau above its face-down cards), never in the stock. Any card text
anywhere else in a frame, or a pile map nobody can attribute, fails the property.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from harness import (
    VARIANT_NAMES,
    AccountClient,
    close_all,
    race_info,
    running_server,
    ws_url,
)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from solrace.client.library import Client
from solrace.shared.cards import card_text
from solrace.shared.deal import Position
from solrace.shared.engine import Game
from solrace.shared.layout import PileKind
from solrace.shared.views import view_of
from test_spectate import Spectator

pytestmark = pytest.mark.timeout(120)

CARD = re.compile(r"[A2-9TJQK][CDHS]")
DELAY = 0.05  # seconds, for rated races: exercises the delay line without slowing the test
EXAMPLE = itertools.count()  # names are claimed in Redis: new ones for every example


def face_up(game: Game, pos: Position) -> dict[str, list[str]]:
    """Pile id -> the cards a player can see in ``pos``, by what each kind of pile shows."""
    out = {}
    for i, (pid, kind) in enumerate(zip(game.layout.ids, game.layout.kinds)):
        pile = pos.piles[i]
        if kind is PileKind.STOCK:
            shown: list[int] = []
        elif kind is PileKind.TABLEAU:
            shown = pile[pos.down[i]:]
        else:  # foundations, waste, reserve and cells are face up
            assert kind in (PileKind.FOUNDATION, PileKind.WASTE, PileKind.RESERVE, PileKind.CELL)
            shown = pile
        out[pid] = [card_text(c) for c in shown]
    return out


class Audit:
    """Checks recorded spectator frames against the racers' position histories."""

    def __init__(self, game: Game, history: dict[str, list[Position]]) -> None:
        self.game = game
        self.history = history  # player -> position after 0, 1, 2, ... moves
        self.checked = 0

    def piles(self, piles: dict[str, Any], player: str | None, moves: int, where: str) -> None:
        pos = self.history[player][moves] if player else next(iter(self.history.values()))[0]
        allowed = face_up(self.game, pos)
        for pid, (hidden, cards) in piles.items():
            for c in cards:
                assert c in allowed[pid], (
                    f"{where}: {c} shown in {pid}, where it is not face up "
                    f"(face up there: {allowed[pid]})")
            assert cards == allowed[pid], f"{where}: {pid} shows {cards}, not {allowed[pid]}"
            assert hidden + len(cards) == len(pos.piles[self.game.layout.index[pid]]), where
        self.checked += 1

    def event(self, ev: dict[str, Any], where: str) -> None:
        if ev["k"] == "start":
            self.piles(ev["view"]["piles"], None, 0, f"{where} start")
        elif ev["k"] == "progress" and "delta" in ev:
            self.piles(ev["delta"].get("piles", {}), ev["player"], ev["moves"],
                       f"{where} v{ev['v']} {ev['move']}")

    def frame(self, msg: dict[str, Any]) -> None:
        where = f"{msg.get('t')} frame"
        if msg.get("t") == "event":
            self.event(msg, where)
        elif msg.get("t") == "watching":
            for player, board in msg.get("boards", {}).items():
                self.piles(board["view"]["piles"], player, board["seq"], f"{where} board")
            for ev in msg.get("events", ()):
                self.event(ev, where)
        stray = list(stray_cards(msg))
        assert not stray, f"card text outside any view in a {where}: {stray}"


def stray_cards(obj: Any) -> Iterator[str]:
    """Card texts outside ``piles`` maps (keys included)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from stray_cards(k)
            if k != "piles":
                yield from stray_cards(v)
    elif isinstance(obj, list):
        for x in obj:
            yield from stray_cards(x)
    elif isinstance(obj, str) and CARD.fullmatch(obj):
        yield obj


def pile_maps(obj: Any) -> int:
    """How many ``piles`` maps a frame holds (each must have been audited)."""
    if isinstance(obj, dict):
        return ("piles" in obj) + sum(pile_maps(v) for v in obj.values())
    if isinstance(obj, list):
        return sum(pile_maps(x) for x in obj)
    return 0


@dataclass(frozen=True)
class Plan:
    """One example: what the racers do and when the spectator comes, goes and comes back."""

    variant: str
    rated: bool
    watch: str  # "lobby", "live" (after ``watch_at`` moves) or "end" (only the replay)
    watch_at: int
    away: tuple[int, int] | None  # (moves watched, moves missed) before a resume
    budget: int  # moves to try, both racers together
    choices: int  # seeds the Random that picks racers and moves


async def scenario(redis_url: str, plan: Plan) -> None:
    async with running_server(redis_url, countdown=0.05, spectator_delay=DELAY) as server:
        url = ws_url(server)
        n = next(EXAMPLE)
        racer = AccountClient if plan.rated else Client  # rated races need accounts
        alice, bob = racer(url, name=f"alice{n}"), racer(url, name=f"bob{n}")
        spec = Spectator(url)
        try:
            for c in (alice, bob, spec):
                await c.connect()
            summary = await alice.create_race(plan.variant, rated=plan.rated)
            rid = summary["race"]
            await bob.join(code=summary["code"])
            joined: int | None = None  # moves made when the spectator started watching
            gone: int | None = None  # moves made when it disconnected
            resumed = False

            async def follow(made: int) -> None:
                """The spectator's schedule, checked before each move (and after the last)."""
                nonlocal joined, gone, resumed
                if plan.watch == "live" and joined is None and made >= plan.watch_at:
                    await spec.watch(rid)
                    joined = made
                if plan.away is None or joined is None or resumed:
                    return
                if gone is None and made >= joined + plan.away[0]:
                    await spec.close()  # the race goes on without it
                    gone = made
                elif gone is not None and made >= gone + plan.away[1]:
                    await spec.connect()
                    await spec.watch(rid, since=spec.last_v[rid])
                    resumed = True

            if plan.watch == "lobby":
                await spec.watch(rid)
                joined = 0
            for c in (alice, bob):
                await c.ready(rid)
            for c in (alice, bob):
                await c.wait_running(rid)
            secrets = await race_info(redis_url, rid)
            games = {c.player: secrets.game() for c in (alice, bob)}
            history = {pid: [g.pos.copy()] for pid, g in games.items()}
            playing = [alice, bob]  # may still be chosen to move
            over: set[str | None] = set()  # the server ended their game (won or lost)
            # The deal is new every time (a fresh race with a secret seed), so the choices
            # among its legal moves come from a Random seeded by Hypothesis: what Hypothesis
            # draws does not depend on the deal.
            rnd = random.Random(plan.choices)
            made = 0
            while made < plan.budget and playing:
                await follow(made)
                c = rnd.choice(playing)
                game = games[c.player]
                legal = list(game.legal_moves())
                if not legal:
                    playing.remove(c)
                    continue
                move = rnd.choice(legal)
                ack = await c.move(rid, move.text())
                game.push(move)
                made += 1
                history[c.player].append(game.pos.copy())
                assert ack["seq"] == len(game.moves) and ack["status"] == game.status.value
                if ack["status"] != "playing":
                    playing.remove(c)
                    over.add(c.player)
            for later in (100, 200, 300):  # the rest of the schedule, while the race runs
                await follow(made + later)
            for c in (alice, bob):
                if c.player not in over:
                    await c.resign(rid)
            end = await alice.next_event(t="event", race=rid, k="end")
            if joined is not None:
                await spec.wait_version(rid, end["v"], timeout=5 + DELAY)
                assert {p: spec.views[rid][p] for p in games} == {
                    p: view_of(g).wire() for p, g in games.items()}
            await spec.watch(rid, full=True)
            await spec.watch(rid)
            assert not spec.problems, spec.problems

            audit = Audit(next(iter(games.values())), history)
            expected = 0
            for _, msg in spec.frames:
                audit.frame(msg)
                expected += pile_maps(msg)
            assert audit.checked == expected, "a view in a spectator frame was not audited"
            assert audit.checked > 0
            event(f"watched: {plan.watch}; resumed: {resumed}; moves: {min(made // 10, 3) * 10}+")
        finally:
            await close_all([alice, bob, spec])


plans = st.builds(
    Plan,
    variant=st.sampled_from(VARIANT_NAMES),
    rated=st.booleans(),
    watch=st.sampled_from(["lobby", "live", "end"]),
    watch_at=st.integers(0, 20),
    away=st.one_of(st.none(), st.tuples(st.integers(0, 8), st.integers(0, 8))),
    budget=st.integers(5, 40),
    choices=st.integers(0, 2**32 - 1),
)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=plans)
def test_spectators_never_see_a_hidden_card(redis_url: str, plan: Plan) -> None:
    asyncio.run(scenario(redis_url, plan))


def test_the_audit_catches_a_face_down_card() -> None:
    """The checker itself: a view that shows one face-down tableau card, or a stock card, or a
    card text outside a view, is rejected."""
    game = Game("unlimited", None, 7)
    audit = Audit(game, {"p": [game.pos.copy()]})
    honest = view_of(game).wire()
    audit.piles(honest["piles"], "p", 0, "honest")
    t = next(i for i in game.layout.tableau if game.pos.down[i])
    tid = game.layout.ids[t]
    peek = {tid: [game.pos.down[t] - 1, [card_text(c) for c in game.pos.piles[t][-2:]]]}
    with pytest.raises(AssertionError, match="not face up"):
        audit.piles(peek, "p", 0, "peek")
    s = game.layout.stock
    top = {"s": [len(game.pos.piles[s]) - 1, [card_text(game.pos.piles[s][-1])]]}
    with pytest.raises(AssertionError, match="not face up"):
        audit.piles(top, "p", 0, "stock")
    with pytest.raises(AssertionError, match="outside any view"):
        audit.frame({"t": "event", "k": "end", "v": 9, "note": card_text(game.pos.piles[s][0])})
