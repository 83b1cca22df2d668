"""Views: the wire shape, deltas that rebuild the next view exactly, and view text.

The property that a view never shows a hidden card lives in ``test_properties.py``; here the
shape a client relies on and the delta arithmetic of move acknowledgements.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
import re
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
from solrace.shared import VARIANTS, Game, Status, apply_delta, delta, view_of
from solrace.shared.cards import parse_card
from solrace.shared.views import view_text, visible_cards

CONFIGS = [
    (name, {o.name: val for o, val in zip(v.options, combo)})
    for name, v in VARIANTS.items()
    for combo in itertools.product(*(o.values for o in v.options))
]
IDS = [f"{name}-{'-'.join(opts.values())}" for name, opts in CONFIGS]
WIRE_KEYS = {"variant", "options", "moves", "home", "total", "status", "redeals",
             "redeals_left", "piles"}


def games(name: str, options: dict[str, str], seed: int, length: int = 150) -> Iterator[Game]:
    """The game after each of up to ``length`` random moves, playing home when it can."""
    rnd = random.Random(seed)
    game = Game(name, options, seed)
    yield game
    for _ in range(length):
        moves = game.legal_moves()
        if not moves:
            return
        home = [m for m in moves if m.dst[0] == "f" and m.src[0] != "f"]
        game.push(rnd.choice(home if home and rnd.random() < 0.6 else moves))
        yield game


def check_shape(wire: dict[str, Any], game: Game) -> None:
    assert set(wire) == WIRE_KEYS
    assert wire["variant"] == game.variant.name
    assert wire["options"] == game.options
    assert wire["moves"] == len(game.moves)
    assert wire["home"] == game.cards_home
    assert wire["total"] == 52 * game.rules.decks
    assert wire["status"] in {s.value for s in Status}
    limit = game.rules.redeals
    assert wire["redeals"] == game.pos.redeals
    assert wire["redeals_left"] == (None if limit is None else limit - game.pos.redeals)
    assert list(wire["piles"]) == list(game.layout.ids)
    for pid, pile in wire["piles"].items():
        hidden, cards = pile
        assert isinstance(hidden, int) and hidden >= 0
        assert isinstance(cards, list) and all(isinstance(c, str) and len(c) == 2 for c in cards)
        for c in cards:
            parse_card(c)
        assert hidden + len(cards) == len(game.pos.piles[game.layout.index[pid]])
    # plain data: survives both wire encodings unchanged
    assert json.loads(json.dumps(wire)) == wire
    assert msgpack.unpackb(msgpack.packb(wire)) == wire


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=IDS)
def test_wire_shape(name: str, options: dict[str, str]) -> None:
    for game in games(name, options, 3, 60):
        check_shape(view_of(game).wire(), game)


def test_wire_of_a_known_deal() -> None:
    wire = view_of(Game("unlimited", None, 0)).wire()
    assert wire["piles"]["t1"] == [0, ["8S"]]
    assert wire["piles"]["t7"] == [6, ["TD"]]
    assert wire["piles"]["s"] == [24, []]
    assert wire["piles"]["w"] == [0, []]
    assert wire["piles"]["f1"] == [0, []]
    assert (wire["moves"], wire["home"], wire["total"]) == (0, 0, 52)
    assert (wire["redeals"], wire["redeals_left"], wire["status"]) == (0, None, "playing")
    f8 = view_of(Game("forty-and-eight", None, 0)).wire()
    assert f8["redeals_left"] == 1 and f8["piles"]["s"] == [64, []]
    assert view_of(Game("sixes-and-sevens", None, 0)).wire()["piles"]["f9"] == [0, ["7C"]]


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=IDS)
def test_delta_rebuilds_the_next_view(name: str, options: dict[str, str]) -> None:
    for seed in (1, 2):
        old = None
        for game in games(name, options, seed):
            new = view_of(game).wire()
            if old is not None:
                frozen = copy.deepcopy(old)
                change = delta(old, new)
                assert apply_delta(old, change) == new
                assert old == frozen  # neither call changes the old view
                assert change["moves"] == new["moves"] == old["moves"] + 1
                for pid, pile in change.get("piles", {}).items():
                    assert old["piles"][pid] != pile  # only piles that changed
                unchanged = set(new["piles"]) - set(change.get("piles", {}))
                assert all(old["piles"][p] == new["piles"][p] for p in unchanged)
                assert json.loads(json.dumps(change)) == change
            assert delta(new, new) == {}
            old = new


def test_delta_of_a_draw() -> None:
    game = Game("unlimited", {"draw": "3"}, 0)
    old = view_of(game).wire()
    game.push("sw")
    change = delta(old, view_of(game).wire())
    assert set(change) == {"moves", "piles"}
    assert set(change["piles"]) == {"s", "w"}
    assert change["piles"]["s"] == [21, []]
    assert len(change["piles"]["w"][1]) == 3


def expected_view_text(position: str) -> str:
    """Position text with each run of lower-case (hidden) cards replaced by ``<count>#``."""
    def pile(text: str) -> str:
        if text == "-":
            return text
        chunks = [text[i : i + 2] for i in range(0, len(text), 2)]
        hidden = sum(1 for c in chunks if c == c.lower())
        up = "".join(c for c in chunks if c != c.lower())
        return (f"{hidden}#" if hidden else "") + up

    out = []
    for token in position.split():
        kind, _, body = token.partition(":")
        out.append(token if kind == "n" else f"{kind}:" + "/".join(map(pile, body.split("/"))))
    return " ".join(out)


def test_view_text_of_a_known_deal() -> None:
    view = view_of(Game("unlimited", None, 0))
    assert view.text() == "f:-/-/-/- t:8S/1#QS/2#TC/3#5S/4#8D/5#5C/6#TD s:24# w:- n:0"


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=IDS)
def test_view_text(name: str, options: dict[str, str]) -> None:
    for game in games(name, options, 9, 80):
        view = view_of(game)
        text = view.text()
        assert text == expected_view_text(game.position_text()) == view_text(view.wire())
        assert not re.search(r"[a-z][cdhs]|[2-9][cdhs]", text)  # no face-down card text
        assert sorted(visible_cards(view.wire())) == sorted(
            parse_card(c) for c in re.findall(r"[A2-9TJQK][CDHS]", text)
        )


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_advance_matches_a_full_view_and_delta(variant: str) -> None:
    """The server's fast path (views.advance: only the piles a move touched) gives exactly the
    full view and the full delta, move after move, draws, redeals and turn-ups included."""
    from solrace.shared.views import advance

    rng = random.Random(variant)
    for seed in range(6):
        game = Game(variant, None, seed)
        view = view_of(game).wire()
        for _ in range(150):
            moves = game.legal_moves()
            if not moves:
                break
            game.push(rng.choice(moves))
            new, change = advance(game, view)
            full = view_of(game).wire()
            assert new == full
            assert change == delta(view, full)
            view = new
