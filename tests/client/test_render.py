"""The terminal renderer: it shows what a wire view holds, all of it, and nothing else."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest
from solrace.client.render import (
    BACK,
    board_lines,
    card_str,
    render_view,
    side_by_side,
    visible_width,
)
from solrace.shared.cards import RANKS, SUIT_SYMBOLS, SUITS, card_text
from solrace.shared.engine import Game
from solrace.shared.layout import PileKind
from solrace.shared.views import view_of

CARD_TOKEN = re.compile(r"(10|[A2-9JQK])([♣♦♥♠])")
ANSI = re.compile(r"\x1b\[[0-9;]*m")

CASES = [
    ("sixes-and-sevens", {}),
    ("sixes-and-sevens", {"empty_fill": "manual"}),
    ("seven-by-five", {}),
    ("seven-by-five", {"cells": "5", "empty_fill": "any"}),
    ("double-aces-and-kings", {}),
    ("double-aces-and-kings", {"reserve_to_space": "yes"}),
    ("unlimited", {}),
    ("unlimited", {"draw": "3", "foundation_takeback": "no"}),
    ("forty-and-eight", {}),
]


def played(variant: str, options: dict[str, str], seed: int, moves: int) -> Game:
    """A game ``moves`` random moves in, preferring moves home so foundations fill up."""
    game = Game(variant, options, seed)
    rnd = random.Random(seed)
    for _ in range(moves):
        legal = game.legal_moves()
        if not legal or game.is_over():
            break
        home = [m for m in legal if m.dst[0] == "f" and m.src[0] != "f"]
        game.push(rnd.choice(home or legal))
    return game


def tokens(text: str) -> Counter[str]:
    """The cards a rendering shows, back in card text (``"TD"``)."""
    return Counter(("T" if r == "10" else r) + SUITS[SUIT_SYMBOLS.index(s)]
                   for r, s in CARD_TOKEN.findall(text))


def expected_cards(view: dict, waste_cards: int | None) -> Counter[str]:
    """Every card the board should show: foundation tops, all of tableau, reserve and cells,
    the top ``waste_cards`` of the waste."""
    out: Counter[str] = Counter()
    for pid, (_, cards) in view["piles"].items():
        if pid[0] == "f":
            out.update(cards[-1:])
        elif pid == "w":
            out.update(cards if waste_cards is None else cards[-waste_cards:])
        else:
            out.update(cards)
    return out


def test_card_str_every_card_plain_and_coloured() -> None:
    for c in range(52):
        text = card_text(c)
        plain = card_str(text, False)
        rank = "10" if text[0] == "T" else text[0]
        assert plain == rank + SUIT_SYMBOLS[SUITS.index(text[1])]
        assert card_str(text.lower(), False) == plain
        coloured = card_str(text, True)
        assert ANSI.sub("", coloured) == plain
        assert ("\x1b[31m" in coloured) == (text[1] in "DH")


@pytest.mark.parametrize("bad", ["", "Q", "1S", "QX", "QSS"])
def test_card_str_rejects_non_cards(bad: str) -> None:
    with pytest.raises(ValueError):
        card_str(bad, False)


@pytest.mark.parametrize(("variant", "options"), CASES)
@pytest.mark.parametrize("moves", [0, 40, 150])
def test_board_shows_exactly_the_visible_cards(variant: str, options: dict, moves: int) -> None:
    game = played(variant, options, seed=11, moves=moves)
    view = view_of(game).wire()
    for limit in (None, 3, 6):
        text = render_view(view, False, waste_cards=limit)
        assert tokens(text) == expected_cards(view, limit)


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_board_labels_every_pile_and_counts_hidden_ones(variant: str, options: dict) -> None:
    game = played(variant, options, seed=5, moves=25)
    view = view_of(game).wire()
    text = render_view(view, False)
    words = set(text.split())
    for pid in view["piles"]:
        assert pid in words
    hidden_tableau = sum(h for pid, (h, _) in view["piles"].items() if pid[0] == "t")
    stock_hidden = view["piles"].get("s", [0, []])[0]
    assert text.count(BACK) == hidden_tableau + (1 if stock_hidden else 0)
    if "s" in view["piles"]:
        assert re.search(rf"\bs\s+(?:{BACK} {stock_hidden}\b|--)", text)
    assert f"{view['home']}/{view['total']} home" in text
    assert view["status"] in text


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_hidden_cards_never_shown(seed: int) -> None:
    # One deck: a face is hidden or visible, never both, so any hidden face shown is a leak.
    game = played("unlimited", {"draw": "3"}, seed, moves=30)
    layout, pos = game.layout, game.pos
    hidden = set()
    for i, kind in enumerate(layout.kinds):
        n = len(pos.piles[i]) if kind is PileKind.STOCK else pos.down[i]
        hidden.update(card_text(c) for c in pos.piles[i][:n])
    assert hidden
    shown = tokens(render_view(view_of(game).wire(), False, waste_cards=None))
    assert not hidden & set(shown)


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_colour_only_adds_escape_codes(variant: str, options: dict) -> None:
    view = view_of(played(variant, options, seed=2, moves=30)).wire()
    plain = render_view(view, False)
    coloured = render_view(view, True)
    assert "\x1b[" not in plain
    assert "\x1b[31m" in coloured
    assert ANSI.sub("", coloured) == plain


@pytest.mark.parametrize(("variant", "options"), CASES)
@pytest.mark.parametrize("moves", [0, 120])
def test_fits_an_80_column_terminal(variant: str, options: dict, moves: int) -> None:
    view = view_of(played(variant, options, seed=9, moves=moves)).wire()
    assert max(visible_width(line) for line in board_lines(view, True)) <= 80


def test_foundation_groups_are_captioned_with_their_ids() -> None:
    text = render_view(view_of(Game("sixes-and-sevens", None, 0)).wire(), False)
    lines = text.splitlines()
    caption = next(i for i, line in enumerate(lines) if "6 down to A" in line)
    assert "7 up to K" in lines[caption]
    ids = lines[caption + 1].split()
    assert ids == [f"f{i}" for i in range(1, 17)]
    # the Sixes' caption sits over f1..f8, the Sevens' over f9..f16
    assert lines[caption].index("7 up to K") > lines[caption + 1].index("f8")
    assert lines[caption + 2].split() == ["6♣", "6♦", "6♥", "6♠"] * 2 + ["7♣", "7♦", "7♥", "7♠"] * 2


def test_unknown_variant_still_renders() -> None:
    # A newer server may offer a variant this client does not know: show it plainly.
    view = {
        "variant": "future-game", "options": {}, "moves": 0, "home": 1, "total": 52,
        "status": "playing", "redeals": 0, "redeals_left": None,
        "piles": {"t1": [2, ["QS"]], "f1": [0, ["AH"]], "s": [10, []], "w": [0, []]},
    }
    text = render_view(view, False)
    assert "future-game" in text and "foundations" in text
    assert tokens(text) == Counter({"QS": 1, "AH": 1})


def test_side_by_side_pads_by_visible_width() -> None:
    left = [card_str("QH", True), "wide line here"]
    right = ["x", "y", "z"]
    out = side_by_side([left, right], gap=2)
    assert len(out) == 3
    columns = {visible_width(line) - 1 for line in out[:2]}
    assert columns == {len("wide line here") + 2}  # "x" and "y" start in the same column
    assert out[2] == " " * (len("wide line here") + 2) + "z"
    assert side_by_side([]) == []


def test_tableau_columns_line_up() -> None:
    # A fresh Seven by Five deal has cards only in the tableau: all 52, every rank.
    view = view_of(Game("seven-by-five", None, 4)).wire()
    rows = [line for line in board_lines(view, False) if CARD_TOKEN.search(line)]
    assert {m.group(1) for line in rows for m in CARD_TOKEN.finditer(line)} == {
        "10" if r == "T" else r for r in RANKS
    }
    for line in rows:
        for m in CARD_TOKEN.finditer(line):
            assert m.end() % 5 == 3  # 3-wide cells, 2 apart: suit symbols in one column
