"""The engine's per-layout tables (docs/performance.md, "The engine's share"): the shared
one-card triples that ``_legal`` lists, and the table of move texts already pushed that
``push`` resolves from. Both
must give exactly what the uncached path gives: the same triples, the same Move, the same
refusal for a text that is illegal now."""

from __future__ import annotations

import random

import pytest
from solrace.shared import accel
from solrace.shared.engine import _BY_TEXT, _ONES, Game
from solrace.shared.errors import IllegalMove, NotationError
from solrace.shared.notation import Move
from solrace.shared.pointing import legal_texts

VARIANTS = [
    ("unlimited", {"draw": "1"}),
    ("unlimited", {"draw": "3"}),
    ("double-aces-and-kings", None),
    ("forty-and-eight", None),
    ("seven-by-five", None),
    ("sixes-and-sevens", None),
]


@pytest.mark.parametrize(("variant", "options"), VARIANTS)
def test_one_card_moves_are_the_shared_triples(variant: str, options: dict | None) -> None:
    g = Game(variant, options, 3)
    P = len(g.layout.ids)
    ones = _ONES[P]
    assert ones == tuple((s, d, 1) for s in range(P) for d in range(P))
    rng = random.Random(3)
    for _ in range(80):
        legal = g._legal()
        if not legal:
            break
        for t in legal:
            s, d, n = t
            if n == 1:
                assert t is ones[s * P + d]
            else:
                assert n > 1 and t == (s, d, n)
        g.push(g.legal_moves()[rng.randrange(len(legal))])


@pytest.mark.parametrize(("variant", "options"), VARIANTS)
def test_legal_texts_are_the_legal_moves_texts(variant: str, options: dict | None) -> None:
    """From the tables (one-card texts by index, the others by triple), in the engine's order;
    multi-card moves included (the tableau moves runs in Unlimited)."""
    runs = 0
    for seed in (1, 2, 3):
        g = Game(variant, options, seed)
        rng = random.Random(seed)
        for _ in range(150):
            legal = g.legal_moves()
            assert legal_texts(g) == [m.text() for m in legal]
            runs += sum(m.n > 1 for m in legal)
            if not legal:
                break
            g.push(rng.choice(legal).text())
    if variant == "unlimited":
        assert runs  # the multi-card path was exercised


def _refusal(g: Game, text: str) -> tuple[str, str]:
    with pytest.raises(IllegalMove) as err:
        g.push(text)
    return err.value.detail, str(err.value)


def test_a_text_pushed_before_resolves_to_the_same_move_and_refusal() -> None:
    first = Game("unlimited", {"draw": "1"}, 11)
    m = first.push("sw")
    table = _BY_TEXT[first.layout.ids]
    assert table["sw"] == ((first.layout.index["s"], first.layout.index["w"], 1), m)
    assert m == Move.from_text("sw")
    # another game of the same layout: the table's Move, the same position as a Move object
    again = Game("unlimited", {"draw": "1"}, 11)
    by_move = Game("unlimited", {"draw": "1"}, 11)
    assert again.push("sw") is m
    by_move.push(Move("s", "w"))
    assert again.position_text() == by_move.position_text() == first.position_text()
    # drawn out, the known text is refused for the reason an unknown one gets
    while again.pos.piles[again.layout.stock]:
        again.push("sw")
    fresh = Game("unlimited", {"draw": "1"}, 11)
    for mv in again.moves:
        fresh.push(mv)
    fresh._by_text = {}  # this game resolves every text from scratch
    assert _refusal(again, "sw") == _refusal(fresh, "sw")
    assert _refusal(again, "sw")[0] == "no_stock"
    assert again.position_text() == fresh.position_text()


def test_only_applied_moves_are_remembered() -> None:
    g = Game("unlimited", {"draw": "1"}, 5)
    # a table of its own (the layout's is shared with every other game of this process)
    table = g._by_text = {}
    with pytest.raises(IllegalMove):
        g.push("t9f1")  # no such pile
    with pytest.raises(NotationError):
        g.push("zz")
    with pytest.raises(IllegalMove):
        g.push("f1t1")  # foundation empty: refused by the check
    assert "t9f1" not in table and "zz" not in table and "f1t1" not in table
    text = g.legal_moves()[0].text()
    g.push(text)
    assert text in table


@pytest.mark.skipif(
    "solrace.shared.engine" not in accel.loaded, reason="from source Game is a plain class"
)
def test_a_compiled_game_takes_only_its_declared_attributes() -> None:
    g = Game("unlimited", {"draw": "1"}, 5)
    with pytest.raises(AttributeError):
        g.something_else = 1  # type: ignore[attr-defined]
    g._status = None  # declared ones are settable (tests and the status search do)
    g._cache = None
    assert g.status.value == "playing"
