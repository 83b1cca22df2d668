"""The rules common to all variants (``/work/shared/rules/README.md``, "Common to all variants"
and "Notation and hidden information"), checked on every variant.

Each test names the rule it checks. Random play here uses ``random.Random`` with fixed seeds:
the walks are only a way to reach many positions, never the source of an expected result.
"""

from __future__ import annotations

import itertools
import random

import pytest
from positions import make, pile, play, refuse
from solrace.shared import VARIANTS, Game, IllegalMove, Move, NotationError, OptionError, Status
from solrace.shared.rules import LostCheck
from solrace.shared.views import view_of

CONFIGS = [
    (name, {o.name: val for o, val in zip(v.options, combo)})
    for name, v in VARIANTS.items()
    for combo in itertools.product(*(o.values for o in v.options))
]
IDS = [f"{n}[{','.join(f'{k}={v}' for k, v in o.items())}]" for n, o in CONFIGS]
EACH_CONFIG = pytest.mark.parametrize(("name", "opts"), CONFIGS, ids=IDS)
EACH_VARIANT = pytest.mark.parametrize("name", list(VARIANTS))
WITH_STOCK = [n for n in VARIANTS if n != "seven-by-five"]
DETAILS = {"no_such_pile", "empty_source", "not_available", "does_not_fit", "bad_count",
           "no_stock", "no_redeal", "game_over"}


def walk(game: Game, rnd: random.Random, length: int) -> list[str]:
    """Play up to ``length`` random legal moves, preferring moves home and then non-draws
    half of the time (so walks reach the late game); return the position texts, start first."""
    texts = [game.position_text()]
    for _ in range(length):
        moves = game.legal_moves()
        if not moves:
            break
        home = [m for m in moves if m.dst[0] == "f" and m.src[0] != "f"]
        plays = [m for m in moves if "s" not in (m.src, m.dst)]
        pick = home if home and rnd.random() < 0.5 else plays if plays and rnd.random() < 0.5 \
            else moves
        game.push(rnd.choice(pick))
        texts.append(game.position_text())
    return texts


# ------------------------------------------------------------------ deals and options


@EACH_VARIANT
def test_first_option_value_is_the_default(name: str) -> None:
    """Rule: each variant lists its options; the first value is the default."""
    v = VARIANTS[name]
    assert Game(name).options == {o.name: o.values[0] for o in v.options}
    assert Game(name).position_text() == Game(name, {o.name: o.values[0] for o in v.options}
                                              ).position_text()


@EACH_VARIANT
def test_unknown_options_and_values_are_refused(name: str) -> None:
    """Rule: options are a fixed list per variant; anything else is an error, not ignored."""
    with pytest.raises(OptionError):
        Game(name, {"no_such_option": "1"})
    opt = VARIANTS[name].options[0]
    with pytest.raises(OptionError):
        Game(name, {opt.name: "no-such-value"})
    with pytest.raises(OptionError):
        Game("no-such-variant")


@EACH_CONFIG
def test_a_deal_is_identified_by_variant_options_and_seed(name: str,
                                                          opts: dict[str, str]) -> None:
    """Rule: a deal is identified by (variant, options, seed): equal triples deal equal
    positions; another seed, or another value of any option, deals another position."""
    assert Game(name, opts, 31).position_text() == Game(name, opts, 31).position_text()
    assert Game(name, opts, 31).position_text() != Game(name, opts, 32).position_text()
    for opt in VARIANTS[name].options:
        other = next(v for v in opt.values if v != opts[opt.name])
        changed = Game(name, {**opts, opt.name: other}, 31)
        assert changed.pos.piles != Game(name, opts, 31).pos.piles


# ------------------------------------------------------------------ drawing and top cards


@pytest.mark.parametrize("name", WITH_STOCK)
def test_drawing_is_allowed_at_any_time(name: str) -> None:
    """Rule: drawing from the stock is allowed at any time, also while other moves (here a
    card that could go home) are available."""
    checked = 0
    for seed in range(40):
        g = Game(name, None, seed)
        for _ in range(30):
            moves = g.legal_moves()
            if g.pos.piles[g.layout.stock]:
                assert Move("s", "w") in moves
                if any(m.dst[0] == "f" for m in moves):
                    checked += 1
            if not moves:
                break
            g.push(next((m for m in moves if m.dst[0] == "f"), moves[-1]))
    assert checked  # the case "a move home is also available" did occur


@EACH_CONFIG
def test_only_top_cards_move_except_unlimited_groups(name: str, opts: dict[str, str]) -> None:
    """Rule: only top cards move unless a rule says otherwise (Unlimited's groups of face-up
    cards): no legal move of any other variant carries a count, on any position reached."""
    rnd = random.Random(7)
    for seed in range(3):
        g = Game(name, opts, seed)
        for _ in range(60):
            moves = g.legal_moves()
            if name != "unlimited":
                assert all(m.n == 1 for m in moves)
            else:
                assert all(m.src[0] == "t" and m.dst[0] == "t" for m in moves if m.n > 1)
            if not moves:
                break
            g.push(rnd.choice(moves))


# ------------------------------------------------------------------ end states


@EACH_CONFIG
def test_every_game_can_be_resigned(name: str, opts: dict[str, str]) -> None:
    """Rule: every game can be resigned: it is then over, and no move is legal."""
    g = Game(name, opts, 5)
    start = g.position_text()
    g.resign()
    assert g.status is Status.RESIGNED and g.is_over()
    assert g.legal_moves() == []
    with pytest.raises(IllegalMove) as info:
        g.push(Move("s", "w") if name != "seven-by-five" else Move("t1", "t2"))
    assert info.value.detail == "game_over"
    assert g.position_text() == start


@EACH_CONFIG
def test_end_states_on_the_way(name: str, opts: dict[str, str]) -> None:
    """Rule: the engine reports won, lost or playing: won exactly when every card is home;
    never lost while a card can go home right now; in the variants searched exhaustively
    (all but Unlimited), never lost while the stock or a redeal can still bring a card."""
    rnd = random.Random(2024)
    for seed in (3, 4, 5):
        g = Game(name, opts, seed)
        for _ in range(150):
            status = g.status
            assert (status is Status.WON) == (g.cards_home == g.total_cards)
            moves = g.legal_moves()
            if not moves:
                assert status is not Status.PLAYING  # no legal move at all: over
                break
            if any(m.dst[0] == "f" and m.src[0] != "f" for m in moves):
                assert status is Status.PLAYING
            if g.rules.lost_check is LostCheck.REACHABILITY and g.layout.stock >= 0:
                stock, waste = g.pos.piles[g.layout.stock], g.pos.piles[g.layout.waste]
                if stock or (waste and g.pos.redeals < (g.rules.redeals or 0)):
                    assert status is Status.PLAYING
            if status is not Status.PLAYING:
                break
            walk(g, rnd, 1)


def test_a_won_game_takes_no_more_moves() -> None:
    """Rule: won is an end state: after the last card goes home nothing is legal."""
    g = make("seven-by-five", None, t=["KH"])
    play(g, "t1f3")
    assert g.status is Status.WON and g.is_over()
    assert refuse(g, "f3t1") == "game_over"


# ------------------------------------------------------------------ illegal moves and pop


@EACH_CONFIG
def test_illegal_moves_raise_with_a_detail_and_change_nothing(name: str,
                                                              opts: dict[str, str]) -> None:
    """Rule (engine contract): an illegal move raises ``IllegalMove`` with a stable ``detail``
    code and leaves the position text unchanged; every pile pair is tried on positions along a
    random walk, and the legal ones are exactly ``legal_moves()``."""
    g = Game(name, opts, 12)
    ids = g.layout.ids
    rnd = random.Random(3)
    for _ in range(4):
        legal = set(g.legal_moves())
        before = g.position_text()
        for src, dst in itertools.permutations(ids, 2):
            for n in (1, 2) if src[0] == "t" else (1,):
                m = Move(src, dst, n)
                if m in legal:
                    continue
                with pytest.raises(IllegalMove) as info:
                    g.push(m)
                assert info.value.detail in DETAILS
                assert g.position_text() == before
        walk(g, rnd, 10)


@EACH_VARIANT
def test_piles_a_variant_lacks_are_no_such_pile(name: str) -> None:
    """Rule (notation): a move names piles of its variant; others are ``no_such_pile``."""
    g = Game(name, None, 1)
    lay = g.layout
    missing = [f"t{len(lay.tableau) + 1}t1", f"t1f{len(lay.foundations) + 1}"]
    if not lay.reserve:
        missing.append("r1f1")
    if not lay.cells:
        missing.append("t1c1")
    if lay.stock < 0:
        missing += ["sw", "ws"]
    for text in missing:
        assert refuse(g, text) == "no_such_pile"


@EACH_VARIANT
def test_move_shapes_that_no_variant_allows(name: str) -> None:
    """Rules: nothing is put onto the stock or the waste except by drawing and redealing; a
    move from an empty pile is ``empty_source``; bad text is a ``NotationError``."""
    g = make(name, None, t={1: "KS"})
    if g.layout.stock >= 0:
        assert refuse(g, "t1w") == "does_not_fit"
        assert refuse(g, "st1") == "does_not_fit"
    assert refuse(g, "t2t1") == "empty_source"
    before = g.position_text()
    for bad in ("", "xx", "t1t1", "t1t2:0", "t1-t2"):
        with pytest.raises(NotationError):
            g.push(bad)
    assert g.position_text() == before


@EACH_CONFIG
def test_pop_restores_every_position_exactly(name: str, opts: dict[str, str]) -> None:
    """Engine contract: ``pop()`` undoes a move exactly, automatic effects included (turn-ups,
    auto-fills, redeals), back to the deal."""
    for seed in range(77, 97):  # a deal whose walk is long enough to say something
        g = Game(name, opts, seed)
        texts = walk(g, random.Random(11), 120)
        if len(texts) > 20:
            break
    assert len(texts) > 20
    for text in reversed(texts[:-1]):
        g.pop()
        assert g.position_text() == text
    assert g.moves == [] and g.pos.redeals == 0


# ------------------------------------------------------------------ notation and hidden cards


@EACH_CONFIG
def test_every_position_has_a_text_form(name: str, opts: dict[str, str]) -> None:
    """Rule: every position has a compact text form that gives the position back."""
    g = Game(name, opts, 4)
    walk(g, random.Random(4), 40)
    text = g.position_text()
    assert Game.from_position(name, opts, text).position_text() == text


@EACH_CONFIG
def test_views_hide_face_down_and_stock_cards(name: str, opts: dict[str, str]) -> None:
    """Rule: hidden are face-down tableau cards and the order and identity of stock cards; a
    view shows counts for those, and every card turned face up (the whole waste)."""
    g = Game(name, opts, 6)
    walk(g, random.Random(6), 50)
    v = view_of(g)
    for pv in v.piles:
        i = g.layout.index[pv.id]
        cards = g.pos.piles[i]
        hidden = len(cards) if i == g.layout.stock else g.pos.down[i]
        assert pv.hidden == hidden
        assert len(pv.cards) == len(cards) - hidden
    if g.layout.waste >= 0:
        assert "".join(dict((p.id, p.cards) for p in v.piles)["w"]) == pile(g, "w")
