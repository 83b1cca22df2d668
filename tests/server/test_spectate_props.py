"""Property: no spectator frame of a running race names a card that some racer has not yet
had face up; once the race is over, everything is shown.

Hypothesis drives two racers through random legal play (each move drawn from the engine's
legal moves) on every variant, rated (with a short spectator delay) or not, while an anonymous
spectator records every frame it receives: the ``watching`` snapshot (taken in the lobby, mid-race
or only after the end), live events, a resume with ``since`` after a reconnect, and the full
replay and final snapshot after the end.

The audit knows the truth: each racer's game replayed with its cards as physical objects
(``sightings``, independent of the server's masking code) and the version at which each move
was logged. Every pile a frame shows is attributed to the position it claims to show — the
deal for the ``start`` view, racer P after n moves for P's ``progress`` event with ``moves`` =
n, for P's board with ``seq`` = n and for P's piles in a ``reveal`` — and must be exactly that
position's face-up cards, each by its face when every racer had had that very card face up by
the frame's version (the version of the event, or the ``v`` of a snapshot), masked otherwise;
in a frame of a race that is over (a ``watching`` reply whose race is finished, an ``end``
event's boards) nothing may be masked. The audit also folds the frames as a client does and,
after every event, checks each board against the same expectation: nothing stale, nothing
early. Any card text anywhere else in a frame, or a pile map nobody can attribute, fails.
"""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
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
from sightings import MASKED, ObjectGame, masked_piles
from solrace.client.library import Client
from solrace.shared.cards import card_text
from solrace.shared.engine import Game
from solrace.shared.views import apply_delta, view_of
from test_spectate import Spectator

pytestmark = pytest.mark.timeout(120)

CARD = re.compile(r"[A2-9TJQK][CDHS]")
DELAY = 0.05  # seconds, for rated races: exercises the delay line without slowing the test
EXAMPLE = itertools.count()  # names are claimed in Redis: new ones for every example
FIGURES = {"examples": 0, "frames": 0, "piles": 0, "masked": 0, "boards": 0}  # for the report


class Audit:
    """Checks recorded spectator frames against the racers' histories of physical cards."""

    def __init__(self, game: Game, history: dict[str, list[tuple[list[list[int]], list[int]]]],
                 logged: dict[str, list[int]], end_v: int) -> None:
        self.layout = game.layout
        self.history = history  # player -> (objects, down) after 0, 1, 2, ... moves
        self.logged = logged  # player -> version of each move's progress event, in order
        self.end_v = end_v
        self.seen: dict[str, list[set[int]]] = {}  # player -> seen after 0, 1, 2, ... moves
        for p, states in history.items():
            acc: set[int] = set()
            self.seen[p] = []
            for piles, down in states:
                acc = acc | {o for objs in masked_objects(self.layout, piles, down) for o in objs}
                self.seen[p].append(acc)
        self.checked = 0
        self.boards: dict[str, dict[str, Any]] = {}  # the audit's own fold of the frames
        self.racers: list[str] = []

    def moves_at(self, player: str, v: int) -> int:
        return bisect.bisect_right(self.logged[player], v)

    def shown_at(self, v: int) -> set[int] | None:
        """Objects every racer had had face up by version ``v`` (None: the race is over)."""
        if v >= self.end_v:
            return None
        return set.intersection(*(self.seen[p][self.moves_at(p, v)] for p in self.history))

    def expected(self, player: str | None, moves: int, shown: set[int] | None
                 ) -> dict[str, list[Any]]:
        states = self.history[player] if player else next(iter(self.history.values()))
        piles, down = states[moves]
        return masked_piles(self.layout, piles, down, shown)

    def piles(self, piles: dict[str, Any], player: str | None, moves: int,
              shown: set[int] | None, where: str) -> None:
        want = self.expected(player, moves, shown)
        for pid, pile in piles.items():
            assert pile == want[pid], (
                f"{where}: {pid} shows {pile}, a spectator may see {want[pid]}")
            FIGURES["masked"] += pile[1].count(MASKED)
        self.checked += 1
        FIGURES["piles"] += len(piles)

    def event(self, ev: dict[str, Any], where: str, over: bool = False) -> None:
        v = ev["v"]
        shown = None if over else self.shown_at(v)
        if ev["k"] == "join":
            self.racers.append(ev["player"])
        elif ev["k"] == "start":
            self.piles(ev["view"]["piles"], None, 0, shown, f"{where} start")
            self.boards = {p: {"seq": 0, "view": ev["view"]} for p in self.racers}
        elif ev["k"] == "progress" and "delta" in ev:
            p = ev["player"]
            assert ev["moves"] == self.moves_at(p, v), f"{where}: v{v} is not move {ev['moves']}"
            if "piles" in ev["delta"]:
                self.piles(ev["delta"]["piles"], p, ev["moves"], shown,
                           f"{where} v{v} {ev['move']}")
            for q, piles in ev.get("reveal", {}).items():
                self.piles(piles, q, self.moves_at(q, v), shown, f"{where} v{v} reveal of {q}")
            b = self.boards[p]
            self.boards[p] = {"seq": ev["moves"], "view": apply_delta(b["view"], ev["delta"])}
            for q, piles in ev.get("reveal", {}).items():
                view = self.boards[q]["view"]
                self.boards[q] = {**self.boards[q], "view": {**view, "piles": {
                    **view["piles"], **piles}}}
        elif ev["k"] == "end":
            assert set(ev["boards"]) == set(self.history), f"{where}: end boards"
            for p, board in ev["boards"].items():
                self.piles(board["view"]["piles"], p, board["seq"], None, f"{where} end board")
            self.boards = dict(ev["boards"])
        self.fold_check(v, shown, where)

    def fold_check(self, v: int, shown: set[int] | None, where: str) -> None:
        """Every board the frames have built so far is what a spectator may see at ``v``."""
        for p, board in self.boards.items():
            assert board["seq"] == self.moves_at(p, v), f"{where}: {p}'s board is behind"
            assert board["view"]["piles"] == self.expected(p, board["seq"], shown), (
                f"{where}: after v{v}, {p}'s board is stale or early")
            FIGURES["boards"] += 1

    def frame(self, msg: dict[str, Any]) -> None:
        where = f"{msg.get('t')} frame"
        FIGURES["frames"] += 1
        if msg.get("t") == "event":
            self.event(msg, where)
        elif msg.get("t") == "watching":
            over = msg["race"]["state"] in ("finished", "closed")
            shown = None if over else self.shown_at(msg["v"])
            if "boards" in msg:  # a snapshot as of ``v``
                self.racers = [r["player"] for r in msg["race"]["racers"]]
                for player, board in msg["boards"].items():
                    self.piles(board["view"]["piles"], player, board["seq"], shown,
                               f"{where} board")
                self.boards = dict(msg["boards"])
                self.fold_check(msg["v"], shown, f"{where} snapshot")
                if "end" in msg:  # the end event of a race that is over, with its boards
                    self.event(msg["end"], f"{where} end", over=True)
            events = msg.get("events", [])
            if events and events[0]["v"] == 1:  # a replay: from nothing
                self.racers, self.boards = [], {}
            for ev in events:
                self.event(ev, where, over)
        stray = list(stray_cards(msg))
        assert not stray, f"card text outside any view in a {where}: {stray}"


def masked_objects(layout: Any, piles: list[list[int]], down: list[int]) -> list[list[int]]:
    """The face-up objects of every pile (what its player sees)."""
    from solrace.shared.layout import PileKind

    return [[] if k is PileKind.STOCK else p[d:] if k is PileKind.TABLEAU else p
            for k, p, d in zip(layout.kinds, piles, down)]


def stray_cards(obj: Any) -> Iterator[str]:
    """Card texts outside ``piles`` maps and reveals (keys included)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from stray_cards(k)
            if k == "reveal":
                for piles in v.values():
                    yield from stray_cards(list(piles))  # pile ids only
            elif k != "piles":
                yield from stray_cards(v)
    elif isinstance(obj, list):
        for x in obj:
            yield from stray_cards(x)
    elif isinstance(obj, str) and CARD.fullmatch(obj):
        yield obj


def pile_maps(obj: Any) -> int:
    """How many ``piles`` maps (a reveal's per-racer maps included) a frame holds: each must
    have been audited."""
    if isinstance(obj, dict):
        return ("piles" in obj) + len(obj.get("reveal", {})) + sum(
            pile_maps(v) for k, v in obj.items() if k != "reveal")
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
            objects = {c.player: ObjectGame(secrets.variant, secrets.options, secrets.seed)
                       for c in (alice, bob)}
            games = {pid: og.game for pid, og in objects.items()}
            history = {pid: [og.snapshot()] for pid, og in objects.items()}
            logged: dict[str, list[int]] = {pid: [] for pid in games}
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
                objects[c.player].push(move.text())
                made += 1
                history[c.player].append(objects[c.player].snapshot())
                logged[c.player].append(ack["v"])
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

            audit = Audit(next(iter(games.values())), history, logged, end["v"])
            expected = 0
            for _, msg in spec.frames:
                audit.frame(msg)
                expected += pile_maps(msg)
            assert audit.checked == expected, "a view in a spectator frame was not audited"
            assert audit.checked > 0
            FIGURES["examples"] += 1
            FIGURES.setdefault(plan.variant, 0)
            FIGURES[plan.variant] += 1
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
    budget=st.one_of(st.integers(5, 15), st.integers(15, 60)),
    choices=st.integers(0, 2**32 - 1),
)


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=plans)
def check_spectators_never_see_a_hidden_card(redis_url: str, variant: str, plan: Plan) -> None:
    asyncio.run(scenario(redis_url, dataclasses.replace(plan, variant=variant)))


@pytest.mark.timeout(600)
@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_spectators_never_see_a_hidden_card(redis_url: str, variant: str) -> None:
    """The property, for each of the five variants; prints its figures so far (``-s``)."""
    before = FIGURES["examples"]
    check_spectators_never_see_a_hidden_card(redis_url, variant)
    print(f"\nspectator masking property after {variant}: {FIGURES}")
    assert FIGURES["examples"] > before and FIGURES["boards"]
    if variant != "seven-by-five":  # every card is dealt face up there: nothing to mask
        assert FIGURES["masked"]


def test_the_audit_catches_hidden_unseen_and_stale_cards() -> None:
    """The checker itself: a view that shows a face-down tableau card, a stock card, a card
    that only one racer has seen (or masks one both have), a board left stale by a missing
    reveal, or a card text outside a view, is rejected."""
    a, b = ObjectGame("unlimited", None, 7), ObjectGame("unlimited", None, 7)
    history = {"a": [a.snapshot()], "b": [b.snapshot()]}
    a.push("sw")
    history["a"].append(a.snapshot())
    audit = Audit(a.game, history, {"a": [5], "b": []}, end_v=99)
    game = Game("unlimited", None, 7)
    honest = view_of(game).wire()
    audit.piles(honest["piles"], "a", 0, audit.shown_at(4), "honest")
    t = next(i for i in game.layout.tableau if game.pos.down[i])
    tid = game.layout.ids[t]
    peek = {tid: [game.pos.down[t] - 1, [card_text(c) for c in game.pos.piles[t][-2:]]]}
    with pytest.raises(AssertionError, match="a spectator may see"):
        audit.piles(peek, "a", 0, audit.shown_at(4), "peek")
    s = game.layout.stock
    top = {"s": [len(game.pos.piles[s]) - 1, [card_text(game.pos.piles[s][-1])]]}
    with pytest.raises(AssertionError, match="a spectator may see"):
        audit.piles(top, "a", 0, audit.shown_at(4), "stock")
    drawn = card_text(game.pos.piles[s][-1])
    audit.piles({"w": [0, [MASKED]]}, "a", 1, audit.shown_at(5), "masked")  # only a drew it
    with pytest.raises(AssertionError, match="a spectator may see"):
        audit.piles({"w": [0, [drawn]]}, "a", 1, audit.shown_at(5), "unseen by b")
    audit.piles({"w": [0, [drawn]]}, "a", 1, None, "after the end")
    with pytest.raises(AssertionError, match="a spectator may see"):
        audit.piles({"w": [0, [MASKED]]}, "a", 1, None, "masked after the end")
    b.push("sw")  # b draws it too: a's waste must be revealed
    history["b"].append(b.snapshot())
    audit = Audit(a.game, history, {"a": [5], "b": [6]}, end_v=99)
    audit.boards = {"a": {"seq": 1, "view": {"piles": {**honest["piles"], "s": [23, []],
                                                       "w": [0, [MASKED]]}}},
                    "b": {"seq": 1, "view": {"piles": {**honest["piles"], "s": [23, []],
                                                       "w": [0, [drawn]]}}}}
    with pytest.raises(AssertionError, match="stale or early"):
        audit.fold_check(6, audit.shown_at(6), "no reveal")
    audit.boards = {}
    with pytest.raises(AssertionError, match="outside any view"):
        audit.frame({"t": "event", "k": "closed", "v": 9, "note": drawn})
