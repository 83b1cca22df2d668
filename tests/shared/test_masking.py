"""Masked spectator views (shared/masking.py): a card is shown only once every racer has had
that physical card face up, and every board a spectator folds is exactly that, after every
event — nothing stale, nothing early.

The oracle is :mod:`sightings` (an object model that does not use the engine's undo record):
racers' games are played at random, turned into the server's progress events (``move`` and
the view ``delta`` from :func:`~solrace.shared.views.advance`), folded by a
:class:`~solrace.shared.masking.Masker`, and the spectator's boards (``delta`` then
``reveal`` applied, as a client does) are compared with the oracle's masked boards.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from sightings import ObjectGame, expected_piles, shown_by_all
from solrace.shared.deal import deal, deal_objects
from solrace.shared.engine import Game
from solrace.shared.masking import MASKED, Census, Masker, apply_reveal, moves_of
from solrace.shared.variants import VARIANTS, resolve
from solrace.shared.views import advance, apply_delta, view_of

VARIANT_NAMES = sorted(VARIANTS)
FIGURES = {"examples": 0, "events": 0, "moves": 0, "boards": 0}  # printed by -s runs


def test_deal_objects_are_the_deal_card_by_card() -> None:
    for name in VARIANT_NAMES:
        v, opts, rules = resolve(name, None)
        for seed in range(8):
            piles, down = deal_objects(v, opts, rules, seed)
            pos = deal(name, None, seed)
            assert [[o % 52 for o in p] for p in piles] == pos.piles
            assert down == pos.down
            assert sorted(o for p in piles for o in p) == list(range(52 * rules.decks))


class Race:
    """Racers' games (with the oracle's objects), the events they produce, one spectator."""

    def __init__(self, variant: str, seed: int, racers: list[str], options: Any = None,
                 absent: bool = False) -> None:
        self.players = racers
        self.og = {p: ObjectGame(variant, options, seed) for p in racers}
        self.views = {p: view_of(self.og[p].game).wire() for p in racers}
        self.seen = {p: self.og[p].seen_now() for p in racers}
        # someone still to play the deal has seen only what it deals face up
        self.absent = [ObjectGame(variant, options, seed).seen_now()] if absent else []
        self.masker = Masker(variant, options, seed, absent=absent)
        self.v = 0
        self.boards: dict[str, dict[str, Any]] = {}  # what the spectator folded
        self.frames: list[dict[str, Any]] = []
        for p in racers:
            self.feed({"k": "join", "player": p, "name": p})
        start = self.feed({"k": "start", "view": view_of(Game(variant, options, seed)).wire()})
        self.boards = {p: {"seq": 0, "view": start["view"]} for p in racers}

    def feed(self, event: dict[str, Any]) -> dict[str, Any]:
        self.v += 1
        out = self.masker.push({**event, "v": self.v, "at": 0})
        self.frames.append(out)
        return out

    def play(self, p: str, moves: list[str], batch_key: str = "move") -> dict[str, Any]:
        """One progress event of racer ``p`` applying ``moves`` (a batch when several)."""
        og, before = self.og[p], self.views[p]
        for m in moves:
            og.push(m)
        view = view_of(og.game).wire()
        change = {k: view[k] for k in ("moves", "home", "status", "redeals", "redeals_left")
                  if before[k] != view[k]}
        piles = {pid: x for pid, x in view["piles"].items() if before["piles"][pid] != x}
        if piles:
            change["piles"] = piles
        self.views[p] = view
        self.seen[p] |= og.seen_now()
        ev: dict[str, Any] = {"k": "progress", "player": p, "home": og.game.cards_home,
                              "moves": len(og.game.moves), "delta": change}
        ev[batch_key] = moves[0] if len(moves) == 1 and batch_key == "move" else moves
        out = self.feed(ev)
        b = self.boards[p]
        self.boards[p] = {"seq": out["moves"], "view": apply_delta(b["view"], out["delta"])}
        apply_reveal(self.boards, out.get("reveal", {}))
        return out

    def shown(self) -> set[int]:
        return shown_by_all([*self.seen.values(), *self.absent])

    def check(self) -> None:
        shown = self.shown()
        for p in self.players:
            want = expected_piles(self.og[p], shown)
            assert self.boards[p]["view"]["piles"] == want, p
            assert self.masker.boards()[p]["view"]["piles"] == want, p
            assert self.boards[p]["seq"] == len(self.og[p].game.moves)
            FIGURES["boards"] += 1


def test_a_drawn_card_is_masked_until_every_racer_drew_it() -> None:
    race = Race("unlimited", 3, ["a", "b"])
    first = race.play("a", ["sw"])
    assert first["delta"]["piles"]["w"] == [0, [MASKED]]
    assert "reveal" not in first
    race.check()
    second = race.play("b", ["sw"])
    face = race.views["b"]["piles"]["w"][1][-1]
    assert second["delta"]["piles"]["w"] == [0, [face]]
    assert second["reveal"] == {"a": {"w": [0, [face]]}}  # a's board is no longer stale
    race.check()


def test_equal_faces_of_two_decks_are_masked_apart() -> None:
    """Forty and Eight (2 decks, every tableau card face up): a drawn card whose face also lies
    on the tableau (the other deck's copy, seen by all) stays masked in the waste."""
    for seed in range(200):
        game = Game("forty-and-eight", None, seed)
        top = game.pos.piles[game.layout.stock][-1]
        on_tableau = {c for t in game.layout.tableau for c in game.pos.piles[t]}
        if top in on_tableau:
            break
    else:  # pragma: no cover - 72 stock cards, 40 on the tableau
        pytest.fail("no deal with a doubled face")
    race = Race("forty-and-eight", seed, ["a", "b"])
    out = race.play("a", ["sw"])
    assert out["delta"]["piles"]["w"] == [0, [MASKED]]
    race.check()


def test_a_broken_replica_masks_that_racer_entirely_and_keeps_sizes() -> None:
    race = Race("unlimited", 5, ["a", "b"])
    race.play("a", ["sw"])
    race.play("b", ["sw"])  # the waste card is shown now
    bogus = {"k": "progress", "player": "a", "home": 0, "moves": 2, "move": "t9t1",
             "delta": {"moves": 2, "piles": {"w": [0, ["3S", "4S"]]}}}
    out = race.feed(bogus)
    assert out["delta"]["piles"] == {"w": [0, [MASKED, MASKED]]}
    assert race.masker.census is not None and "a" in race.masker.census.broken
    assert all(c == MASKED for _, cards in race.masker.boards()["a"]["view"]["piles"].values()
               for c in cards)


def test_moves_of_reads_single_moves_and_batches() -> None:
    assert moves_of({"move": "sw"}) == ["sw"]
    assert moves_of({"move": ["t1f1", "t2f1"]}) == ["t1f1", "t2f1"]
    assert moves_of({"moves": 3, "batch": ["sw", "wf1"]}) == ["sw", "wf1"]
    assert moves_of({"moves": ["sw"]}) == ["sw"]
    assert moves_of({"moves": 3}) == []
    assert moves_of({"move": "t3f1", "moves": ["t3f1", "t5f1"]}) == ["t3f1", "t5f1"]


def test_end_shows_every_board_complete() -> None:
    race = Race("unlimited", 11, ["a", "b"])
    race.play("a", ["sw"])
    end = race.feed({"k": "end", "reason": "done", "standings": []})
    assert end["boards"] == {p: {"seq": len(race.og[p].game.moves), "view": race.views[p]}
                             for p in ("a", "b")}


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_a_tournament_deal_shows_no_card_the_deal_did_not_show(variant: str) -> None:
    """A deal others may still play (a tournament's, while it runs): spectators see only the
    cards dealt face up, wherever the racer moves them — never one the racer turned up — and
    the end's boards are masked the same way."""
    rng = random.Random(variant)
    for seed in range(3):
        race = Race(variant, seed, ["a"], absent=True)
        dealt = race.shown()
        for _ in range(60):
            legal = race.og["a"].game.legal_moves()
            if not legal or race.og["a"].game.is_over():
                break
            race.play("a", [rng.choice(legal).text()])
            race.check()
            assert race.shown() == dealt
        end = race.feed({"k": "end", "reason": "done", "standings": []})
        want = expected_piles(race.og["a"], dealt)
        assert end["boards"]["a"]["view"]["piles"] == want
        assert end["boards"]["a"]["seq"] == len(race.og["a"].game.moves)


def test_census_start_shows_the_deal_face_up_cards() -> None:
    for name in VARIANT_NAMES:
        census = Census(name, None, 1, ["a", "b"])
        assert census.view("a") == view_of(Game(name, None, 1)).wire()


@settings(max_examples=150, deadline=None)
@given(variant=st.sampled_from(VARIANT_NAMES), seed=st.integers(0, 2**64 - 1),
       racers=st.integers(2, 3), steps=st.integers(1, 120), choices=st.integers(0, 2**32),
       batch_key=st.sampled_from(["move", "batch"]))
def check_spectator_boards_are_exactly_the_shared_sightings(
        variant: str, seed: int, racers: int, steps: int, choices: int, batch_key: str) -> None:
    """After every event of random play (batches of up to three moves included), the boards a
    spectator folds show exactly the cards every racer has had face up, and mask the rest."""
    names = [f"p{i}" for i in range(racers)]
    race = Race(variant, seed, names)
    race.check()
    rnd = random.Random(choices)
    for _ in range(steps):
        p = rnd.choice(names)
        game = race.og[p].game.copy()
        batch: list[str] = []
        for _ in range(rnd.choice((1, 1, 1, 2, 3))):
            legal = game.legal_moves()
            if not legal or game.is_over():
                break
            m = rnd.choice(legal)
            game.push(m)
            batch.append(m.text())
        if batch:
            race.play(p, batch, batch_key)
            race.check()
            FIGURES["events"] += 1
            FIGURES["moves"] += len(batch)
    FIGURES["examples"] += 1
    event(f"events: {min(race.v // 20, 4) * 20}+")
    end = race.feed({"k": "end", "reason": "time", "standings": []})
    for p in names:
        assert end["boards"][p]["view"] == view_of(race.og[p].game).wire()


def test_spectator_boards_are_exactly_the_shared_sightings() -> None:
    """The property over all five variants; prints its figures (run with ``-s``)."""
    check_spectator_boards_are_exactly_the_shared_sightings()
    print(f"\nmasking core property: {FIGURES}")
    assert FIGURES["examples"] and FIGURES["events"]


def test_advance_deltas_fold_like_the_server() -> None:
    """The test's events use the same delta as the server (views.advance)."""
    game = Game("unlimited", None, 2)
    view = view_of(game).wire()
    game.push("sw")
    _, change = advance(game, view)
    race = Race("unlimited", 2, ["a", "b"])
    race.play("a", ["sw"])
    assert race.frames[-1]["delta"].keys() == change.keys()
