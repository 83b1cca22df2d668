"""Properties of the engine under random deals and random legal play, every variant and option.

Each example deals a random seed of a random (variant, options) and plays random legal moves,
checking after every move what must always hold:

* the cards of the deal are neither lost nor duplicated;
* a view (the only thing ever sent to anyone) shows exactly the face-up cards: no face-down
  tableau card and no stock card appears anywhere in the wire form;
* ``legal_moves()`` and ``is_legal`` agree, and an illegal move raises and changes nothing;
* the move texts replayed on a fresh game give the same game; ``pop`` undoes every move;
* a seed always deals the same cards.

The position text, read here without the engine's parser, is the independent witness of
what is face up: upper case cards are face up, lower case ones face down or in the stock.
"""

from __future__ import annotations

import itertools
import os
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from solrace.shared import VARIANTS, Game, IllegalMove, Move, NotationError
from solrace.shared.cards import parse_card
from solrace.shared.views import view_of

CONFIGS = [
    (name, {o.name: val for o, val in zip(v.options, combo)})
    for name, v in VARIANTS.items()
    for combo in itertools.product(*(o.values for o in v.options))
]
MAX_MOVES = 300
# SOLRACE_PROPERTY_EXAMPLES=2000 for a longer hunt; 40 keeps the suite fast.
PROPERTY = settings(
    max_examples=int(os.environ.get("SOLRACE_PROPERTY_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@dataclass
class Walk:
    """One example: a deal and a way of playing it.

    ``bias`` is the chance of preferring a move that plays home, then one that is not a draw;
    uniform play (bias 0) mostly shuffles cards about, biased play reaches the late game
    (stock exhausted, redeals used, games won) where other rules apply."""

    variant: str
    options: dict[str, str]
    seed: int
    rnd: random.Random
    length: int
    bias: float

    def new_game(self) -> Game:
        return Game(self.variant, self.options, self.seed)

    def play(self, game: Game) -> Iterator[Move]:
        """Push up to ``length`` random legal moves, yielding after each one."""
        rnd = self.rnd
        for _ in range(self.length):
            moves = game.legal_moves()
            if not moves:
                return
            home = [m for m in moves if m.dst[0] == "f" and m.src[0] != "f"]
            plays = [m for m in moves if "s" not in (m.src, m.dst)]
            if home and rnd.random() < self.bias:
                moves = home
            elif plays and rnd.random() < self.bias:
                moves = plays
            yield game.push(rnd.choice(moves))

    def __repr__(self) -> str:  # what Hypothesis prints for a failing example
        return (f"Walk({self.variant!r}, {self.options!r}, seed={self.seed}, "
                f"length={self.length}, bias={self.bias})")


@st.composite
def walks(draw: st.DrawFn, max_length: int = MAX_MOVES) -> Walk:
    variant, options = draw(st.sampled_from(CONFIGS))
    return Walk(
        variant,
        dict(options),
        draw(st.integers(0, 2**64 - 1)),
        draw(st.randoms(use_true_random=True)),  # a real Random seeded by Hypothesis: fast
        draw(st.integers(1, max_length)),
        draw(st.sampled_from((0.0, 0.5, 0.9))),
    )


def piles_of_text(text: str) -> dict[str, tuple[list[str], int]]:
    """Pile id -> (face-up cards, face-down count), read straight off a position text."""
    out: dict[str, tuple[list[str], int]] = {}
    for token in text.split():
        kind, _, body = token.partition(":")
        if kind == "n":
            continue
        for i, pile in enumerate(body.split("/")):
            chunks = [] if pile == "-" else [pile[j : j + 2] for j in range(0, len(pile), 2)]
            up = [c for c in chunks if c != c.lower()]
            out[kind if kind in "sw" else f"{kind}{i + 1}"] = (up, len(chunks) - len(up))
    return out


def card_strings(value: Any) -> Iterator[str]:
    """Every string anywhere in a wire message that reads as a card."""
    if isinstance(value, str):
        try:
            parse_card(value)
        except ValueError:
            return
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from card_strings(k)
            yield from card_strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from card_strings(v)


def all_cards(game: Game) -> Counter[int]:
    return Counter(c for pile in game.pos.piles for c in pile)


def candidate_moves(game: Game, rnd: random.Random, k: int) -> list[Move]:
    """Random moves between real and non-existent piles, most of them illegal."""
    ids = [*game.layout.ids, "t10", "r5", "c6", "f17"]
    return [
        Move(*rnd.sample(ids, 2), rnd.choice((1, 1, 1, 2, 3, 13)))
        for _ in range(k)
    ]


def snapshot(game: Game) -> tuple[object, ...]:
    return (game.position_text(), list(game.moves), len(game._undo), game.resigned)


# ------------------------------------------------------------------ properties


@PROPERTY
@given(walk=walks())
def test_cards_are_conserved(walk: Walk) -> None:
    game = walk.new_game()
    start = all_cards(game)
    assert start == Counter({c: game.rules.decks for c in range(52)})
    for _ in walk.play(game):
        assert all_cards(game) == start
        assert all(0 <= d <= len(p) for d, p in zip(game.pos.down, game.pos.piles))
        # an exposed face-down card turns up inside the move that exposed it
        assert all(game.pos.down[t] < len(game.pos.piles[t]) or not game.pos.piles[t]
                   for t in game.layout.tableau)
    while game.moves:
        game.pop()
        assert all_cards(game) == start


@PROPERTY
@given(walk=walks())
def test_views_show_only_face_up_cards(walk: Walk) -> None:
    game = walk.new_game()
    for step in itertools.chain([None], walk.play(game)):
        wire = view_of(game).wire()
        truth = piles_of_text(game.position_text())
        assert list(wire["piles"]) == list(game.layout.ids) == list(truth)
        for pid, (hidden, cards) in wire["piles"].items():
            up, down = truth[pid]
            if pid == "s":
                assert (hidden, cards) == (down, [])  # the stock: a count, nothing more
            else:
                assert (hidden, cards) == (down, up)
        face_up = Counter(c for up, _ in truth.values() for c in up)
        assert Counter(card_strings(wire)) == face_up, f"after {step}"


@PROPERTY
@given(walk=walks())
def test_illegal_moves_raise_and_change_nothing(walk: Walk) -> None:
    game, rnd = walk.new_game(), walk.rnd
    for step in itertools.chain([None], walk.play(game)):
        legal = set(game.legal_moves())
        status = game.status if step is None or rnd.random() < 0.1 else None
        for move in candidate_moves(game, rnd, 4):
            assert game.is_legal(move) == (move in legal), move
            assert game.is_legal(move.text()) == (move in legal), move
            if move in legal:
                continue
            before = snapshot(game)
            with pytest.raises((IllegalMove, NotationError)):
                game.push(move if rnd.random() < 0.5 else move.text())
            assert snapshot(game) == before
            if status is not None:
                assert game.status is status


@PROPERTY
@given(walk=walks(max_length=80), text=st.text())
def test_garbage_move_text_changes_nothing(walk: Walk, text: str) -> None:
    game = walk.new_game()
    for _ in walk.play(game):
        pass
    before = snapshot(game)
    try:
        parsed = Move.from_text(text)
    except NotationError:
        parsed = None
    if parsed is not None and parsed in game.legal_moves():
        return
    with pytest.raises((IllegalMove, NotationError)):
        game.push(text)
    assert snapshot(game) == before


@PROPERTY
@given(walk=walks())
def test_legal_moves_and_is_legal_agree(walk: Walk) -> None:
    game = walk.new_game()
    ids = game.layout.ids
    for step, _ in enumerate(itertools.chain([None], walk.play(game))):
        legal = game.legal_moves()
        assert len(set(legal)) == len(legal), "a move is listed twice"
        for m in legal:
            assert game.is_legal(m) and game.is_legal(m.text())
        if step % 25 == 0:  # now and then, every (source, target, count) there is
            longest = max(len(game.pos.piles[t]) for t in game.layout.tableau)
            every = {
                Move(s, d, n)
                for s, d in itertools.permutations(ids, 2)
                for n in range(1, longest + 2)
            }
            assert {m for m in every if game.is_legal(m)} == set(legal)


@PROPERTY
@given(walk=walks())
def test_replaying_the_notation_reproduces_the_game(walk: Walk) -> None:
    game = walk.new_game()
    for _ in walk.play(game):
        pass
    texts = [m.text() for m in game.moves]
    again = walk.new_game()
    again.replay(texts)
    assert again.position_text() == game.position_text()
    assert again.moves == game.moves
    assert again.cards_home == game.cards_home
    assert again.status is game.status
    assert again.legal_moves() == game.legal_moves()


@PROPERTY
@given(walk=walks())
def test_pop_restores_every_position(walk: Walk) -> None:
    game = walk.new_game()
    seen = [game.position_text()]
    legal = [game.legal_moves()]
    for _ in walk.play(game):
        seen.append(game.position_text())
        legal.append(game.legal_moves())
    while game.moves:
        seen.pop()
        legal.pop()
        game.pop()
        assert game.position_text() == seen[-1]
        assert game.legal_moves() == legal[-1]
    assert game.position_text() == walk.new_game().position_text()
    with pytest.raises(IndexError):
        game.pop()


@PROPERTY
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**64 - 1))
def test_a_seed_always_deals_the_same(config: tuple[str, dict[str, str]], seed: int) -> None:
    a = Game(config[0], config[1], seed)
    b = Game(config[0], dict(config[1]), seed)
    assert a.position_text() == b.position_text()
    assert a.legal_moves() == b.legal_moves()
    other = Game(config[0], config[1], seed ^ 1)
    assert other.position_text() != a.position_text()
