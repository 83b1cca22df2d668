"""Move text and position text: round trips, and the texts that must be refused.

Move text is what the protocol and the logs carry; position text is what the tests, the
solver and ``docs/deals.md`` use. A text that parses must print back the same, and a bad text
must raise :class:`NotationError` (a ``ValueError``), never anything else.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solrace.shared import DRAW, REDEAL, VARIANTS, Game, Move, NotationError
from solrace.shared.notation import parse_position, position_text

CONFIGS = [
    (name, {o.name: val for o, val in zip(v.options, combo)})
    for name, v in VARIANTS.items()
    for combo in itertools.product(*(o.values for o in v.options))
]
PILE_IDS = sorted(
    {pid for name, opts in CONFIGS for pid in Game(name, opts, 0).layout.ids},
)

# ------------------------------------------------------------------ moves

pile_ids = st.sampled_from(PILE_IDS)
counts = st.integers(1, 99)


@settings(max_examples=200, deadline=None)
@given(src=pile_ids, dst=pile_ids, n=counts)
def test_move_text_round_trip(src: str, dst: str, n: int) -> None:
    if src == dst:
        with pytest.raises(NotationError):
            Move.from_text(Move(src, dst, n).text())
        return
    move = Move(src, dst, n)
    text = move.text()
    assert Move.from_text(text) == move
    assert Move.from_text(text.upper()) == move
    assert Move.from_text(f"  {text}\n") == move
    assert text == f"{src}{dst}" + (f":{n}" if n > 1 else "")  # the count only when > 1
    assert eval(repr(move), {"Move": Move}) == move  # repr rebuilds the move
    assert str(move) == text


def test_draw_redeal_and_counts() -> None:
    assert DRAW.text() == "sw" and Move.from_text("sw") == DRAW == Move("s", "w", 1)
    assert REDEAL.text() == "ws" and Move.from_text("WS") == REDEAL
    assert Move.from_text("t3t5:3") == Move("t3", "t5", 3)
    assert Move.from_text("t3t5:1") == Move("t3", "t5") and Move("t3", "t5", 1).text() == "t3t5"
    assert Move.from_text("t12f16:13").text() == "t12f16:13"
    assert Move.from_text("wf2") == Move("w", "f2", 1)


@pytest.mark.parametrize(
    "bad",
    ["", " ", "t3", "t3t3", "ss", "t3 t5", "t3-t5", "t0t1", "t3t0", "f0w", "t3t5:0",
     "t3t5:100", "t3t5:", "t3t5:x", "t3t5:-1", "t3t5:3:4", "x1t2", "t3x5", "t123t1",
     "s1w", "sw1", "tt", "3t5", "t3t5;", "t3t5 :3", "T3T5:03"],
)
def test_bad_move_texts(bad: str) -> None:
    with pytest.raises(NotationError) as exc:
        Move.from_text(bad)
    assert exc.value.code == "bad_notation"
    assert isinstance(exc.value, ValueError)


@pytest.mark.parametrize("bad", [None, 35, b"t3t5", ["t3", "t5"]])
def test_non_text_moves(bad: object) -> None:
    with pytest.raises(NotationError):
        Move.from_text(bad)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="stwfrc0123456789:- \nST", max_size=9) | st.text(max_size=9))
def test_any_text_parses_to_a_canonical_move_or_raises(text: str) -> None:
    try:
        move = Move.from_text(text)
    except NotationError:
        return
    assert Move.from_text(move.text()) == move
    assert move.text() == text.strip().lower().removesuffix(":1")


# ------------------------------------------------------------------ positions


def snapshots(name: str, options: dict[str, str], seed: int) -> list[str]:
    """Position texts at the start and along a random game (stock drawn, piles moved)."""
    rnd = random.Random(f"{name}{options}{seed}")
    game = Game(name, options, seed)
    out = [game.position_text()]
    for step in range(1, 151):
        moves = game.legal_moves()
        if not moves:
            break
        home = [m for m in moves if m.dst[0] == "f"]
        game.push(rnd.choice(home if home and rnd.random() < 0.7 else moves))
        if step in (5, 40, 150):
            out.append(game.position_text())
    out.append(game.position_text())
    return out


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=lambda x: str(x))
def test_position_text_round_trip(name: str, options: dict[str, str]) -> None:
    for seed in (0, 5, 2**64 - 1):
        for text in snapshots(name, options, seed):
            again = Game.from_position(name, options, text)
            assert again.position_text() == text
            original = Game(name, options, seed)
            assert parse_position(original.layout, text) == again.pos
            assert position_text(again.layout, again.pos) == text


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=lambda x: str(x))
def test_from_position_plays_like_the_original(name: str, options: dict[str, str]) -> None:
    game = Game(name, options, 77)
    rnd = random.Random(77)
    for _ in range(60):
        moves = game.legal_moves()
        if not moves:
            break
        copy = Game.from_position(name, options, game.position_text())
        assert copy.legal_moves() == moves
        assert copy.cards_home == game.cards_home
        game.push(rnd.choice(moves))


def test_position_text_shape() -> None:
    g = Game("unlimited", None, 0)
    fields = g.position_text().split()
    assert [f.split(":")[0] for f in fields] == ["f", "t", "s", "w", "n"]
    t = fields[1][2:].split("/")
    assert len(t) == 7
    for k, pile in enumerate(t):  # column k+1: k face-down (lower case) cards, then one up
        assert len(pile) == 2 * (k + 1)
        assert pile[: 2 * k] == pile[: 2 * k].lower() and pile[2 * k :] == pile[2 * k :].upper()
    stock = fields[2][2:]
    assert len(stock) == 48 and stock == stock.lower()
    g.push("sw")
    assert g.position_text().split()[3] == "w:" + stock[-2:].upper()  # the last card is the top
    assert Game("seven-by-five", {"cells": 5}, 0).position_text().split()[2] == "c:-/-/-/-/-"
    assert Game("double-aces-and-kings", None, 0).position_text().split()[2].startswith("r:")


def mutations(text: str) -> list[str]:
    """Broken variants of a valid Unlimited position text."""
    f, t, s, w, n = text.split()
    piles = t[2:].split("/")
    up_card = piles[6][-2:]
    return [
        "",  # nothing at all
        f"{t} {s} {w} {n}",  # no foundations
        f"{f} {s} {w} {n}",  # no tableau
        f"{f} {t} {w} {n}",  # no stock
        f"{f} {t} {s} {w} {n} {n}",  # a field twice
        f"{f} {t} {s} {w} {n} x:1",  # an unknown field
        f"{f} {t} {s} {w} {n} junk",  # not a field
        f"{f} {t} {s} {w} {n} r:-",  # a group this variant does not have
        f"{f} {t} {s} {w} {n} c:-",
        f"{f} t:{'/'.join(piles[:6])} {s} {w} {n}",  # six piles for seven
        f"{f} t:{'/'.join([*piles, '-'])} {s} {w} {n}",  # eight piles
        f"f:-/-/- {t} {s} {w} {n}",  # three foundations for four
        f"{f} t:{'/'.join([*piles[:6], piles[6] + 'A'])} {s} {w} {n}",  # odd-length pile
        f"{f} t:{'/'.join([*piles[:6], piles[6][:-2] + 'ZZ'])} {s} {w} {n}",  # not a card
        f"{f} t:{'/'.join([*piles[:6], piles[6][:-2] + '1C'])} {s} {w} {n}",
        f"{f} t:{'/'.join([*piles[:6], up_card + piles[6][:-2]])} {s} {w} {n}",  # down over up
        f"{f} {t} {s} {w} n:x",  # bad redeal count
        f"{f} {t} {s} {w} n:-1",
        f"{f} {t} s:{s[2:-2]} {w} {n}",  # a card missing
        f"{f} {t} {s}{s[-2:]} {w} {n}",  # a card twice
        f"{f} {t} s:{s[2:-2]}{s[2:4]} {w} {n}",  # one card swapped for a duplicate
        f"{f} {t} {s} {w} {n}".replace(":", "=", 1),
    ]


@pytest.mark.parametrize("index", range(len(mutations(Game("unlimited", None, 3).position_text()))))
def test_bad_position_texts(index: int) -> None:
    text = Game("unlimited", None, 3).position_text()
    Game.from_position("unlimited", None, text)  # the original is fine
    bad = mutations(text)[index]
    assert bad != text
    with pytest.raises(NotationError):
        Game.from_position("unlimited", None, bad)


def test_position_text_checks_the_variant() -> None:
    sixes = Game("sixes-and-sevens", None, 0).position_text()
    with pytest.raises(NotationError):  # 16 foundations and 9 piles are not Forty and Eight
        Game.from_position("forty-and-eight", None, sixes)
    five = Game("seven-by-five", None, 0).position_text()
    with pytest.raises(NotationError):  # cells=5 needs its c: group
        Game.from_position("seven-by-five", {"cells": "5"}, five)
    # Seven by Five's 52 cards laid out as Unlimited's 7 piles and an empty stock are a fine
    # Unlimited position (from_position checks shape and cards, not how they got there) ...
    Game.from_position("unlimited", None, five.replace(" n:", " s:- w:- n:"))
    # ... but not as Forty and Eight, which has two decks (and eight piles).
    with pytest.raises(NotationError):
        Game.from_position("forty-and-eight", None, five.replace(" n:", " s:- w:- n:"))


def _edit_group(text: str, key: str, change: object) -> str:
    return " ".join(change(tok) if tok.startswith(key + ":") else tok  # type: ignore[operator]
                    for tok in text.split())


@pytest.mark.parametrize(
    ("variant", "key", "change"),
    [
        ("unlimited", "w", lambda tok: "w:9c"),  # a face-down card in the waste
        ("unlimited", "s", str.upper),  # face-up cards in the stock
        ("forty-and-eight", "t", lambda tok: "t:" + tok[2:].split("/")[0].lower() + "/"
         + "/".join(tok[2:].split("/")[1:])),  # a tableau pile whose top is face down
        ("seven-by-five", "f", lambda tok: "f:as/-/-/-"),  # a face-down foundation card
    ],
)
def test_case_must_match_the_pile(variant: str, key: str, change: object) -> None:
    """Face-up piles are written upper case, the stock lower case, and a tableau pile's top is
    face up: anything else is refused rather than silently changed."""
    game = Game(variant, None, 3)
    bad = _edit_group(game.position_text(), key, change)
    assert bad != game.position_text()
    with pytest.raises(NotationError):
        parse_position(game.layout, bad)
