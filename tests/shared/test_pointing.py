"""Playing by pointing (``shared/pointing.py``): every rule of the source priority, autoplay's
safety against the solver, auto-finish per variant, and the legal-move list.

Positions come from ``positions.make``: cards a test does not name go home when they can, else
to the stock (or the ``rest`` pile)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from positions import make, run, top_first
from solrace.shared import Game, IllegalMove, Move, NotationError, Status
from solrace.shared.cards import RANK_OF, RED_OF, SUIT_OF, parse_card
from solrace.shared.errors import CannotFinish, NoLegalMove
from solrace.shared.layout import PileKind
from solrace.shared.pointing import (
    autoplay,
    candidates,
    click_for,
    finish,
    finish_blocker,
    legal_texts,
    parse_source,
    plan,
    resolve_source,
)
from solrace.shared.solver import Budget, Outcome, solve

U = "unlimited"
U1 = {"draw": "1", "foundation_takeback": "no"}


# ------------------------------------------------------------------ parsing sources


@pytest.mark.parametrize("text, parsed", [
    ("t3", ("t3", None)), ("T3", ("t3", None)), (" t3:4 ", ("t3", 4)), ("w", ("w", None)),
    ("s", ("s", None)), ("c2", ("c2", None)), ("r1", ("r1", None)), ("f12", ("f12", None)),
])
def test_sources_parse(text: str, parsed: tuple[str, int | None]) -> None:
    assert parse_source(text) == parsed


@pytest.mark.parametrize("text", ["", "x3", "t", "t3t5", "w:2", "f1:2", "s:1", "t0", "t3:0"])
def test_non_sources_do_not_parse(text: str) -> None:
    assert parse_source(text) is None


def test_a_non_source_is_a_notation_error_and_a_missing_pile_no_such_pile() -> None:
    g = Game(U, U1, 1)
    with pytest.raises(NotationError):
        resolve_source(g, "x3")
    with pytest.raises(IllegalMove) as info:
        resolve_source(g, "c1")
    assert info.value.detail == "no_such_pile"


# ------------------------------------------------------------------ the priority, rule by rule


def test_rule0_a_foundation_first() -> None:
    """A♥ on t1 fits the empty hearts foundation and the black 2 on t2: it goes home."""
    g = make(U, U1, f={3: ""}, t=["AH", "2S"])
    assert {m.text() for m in g.legal_moves() if m.src == "t1"} >= {"t1f3", "t1t2"}
    assert resolve_source(g, "t1").text() == "t1f3"


def test_rule0_a_non_empty_foundation_before_an_empty_one() -> None:
    """Double Aces and Kings: a King fits an empty down-foundation and an up-foundation at its
    Queen; the up-foundation's sequence is continued."""
    g = make("double-aces-and-kings", f={1: run("AS", "QS"), 9: "", 10: ""}, t=["KC"])
    fits = [m.dst for m in g.legal_moves() if m.src == "t1"]
    assert "f1" in fits and "f9" in fits
    assert resolve_source(g, "t1").text() == "t1f1"
    # with no sequence to continue, the lowest empty pile
    g = make("double-aces-and-kings", f={1: run("AS", "JS"), 9: "", 10: ""}, t=["KC"])
    assert resolve_source(g, "t1").text() == "t1f9"


def test_rule1_onto_a_pile_the_longest_group_first() -> None:
    """t1 holds Q♥ J♠ 10♥ over a face-down card: the whole run fits on K♠ (t2), the 10♥ alone
    on J♣ (t3). A click on t1 moves the run; t1:1 names the single card."""
    g = make(U, U1, f={3: "AH2H"}, t=["2c QH JS TH", "KS", "JC"])
    assert resolve_source(g, "t1").text() == "t1t2:3"
    assert resolve_source(g, "t1:1").text() == "t1t3"
    with pytest.raises(NoLegalMove, match="fits nowhere"):
        resolve_source(g, "t1:2")


def test_rule1_a_pile_before_a_cell_before_a_space() -> None:
    """Seven by Five with cells: 9♥ fits the 10♣ on t3, a cell and the space t2 — in that
    order of preference."""
    o = {"cells": "5", "empty_fill": "any"}
    g = make("seven-by-five", o, f={1: run("AC", "8C"), 3: "AH"}, t={1: "5S 9H", 3: "TC", 4: "KD"},
             rest="t4")
    assert resolve_source(g, "t1").text() == "t1t3"
    f = {1: run("AC", "8C"), 3: "AH"}
    g = make("seven-by-five", o, f=f, t={1: "5S 9H", 4: "TC KD"}, rest="t4")
    assert [m.text() for m in candidates(g, "t1")] == ["t1c1", "t1c2", "t1c3", "t1c4", "t1c5",
                                                       "t1t2", "t1t3", "t1t5", "t1t6", "t1t7"]
    assert resolve_source(g, "t1").text() == "t1c1"
    g = make("seven-by-five", o, f={1: run("AC", "8C"), 3: "AH"}, t={1: "5S 9H", 4: "TC KD"},
             c=["QC", "QD", "QS", "QH", "JC"], rest="t4")
    assert resolve_source(g, "t1").text() == "t1t2"


def test_rule3_never_a_whole_pile_into_a_space() -> None:
    """Forty and Eight: a lone 9♥ may go into the space t2, but that changes nothing but the
    pile's name: refused. Under another card it is a real move."""
    f = {3: run("AH", "5H"), 7: run("AH", "5H")}
    g = make("forty-and-eight", f=f, t=["9H"])
    assert Move.from_text("t1t2") in g.legal_moves()
    with pytest.raises(NoLegalMove, match="changes nothing"):
        resolve_source(g, "t1")
    g = make("forty-and-eight", f=f, t=["5C 9H"])
    assert resolve_source(g, "t1").text() == "t1t2"


def test_rule3_a_king_run_over_face_down_cards_goes_into_a_space() -> None:
    g = make(U, U1, f={3: "AH"}, t=["3c KS QH", "-", "5D"])
    assert resolve_source(g, "t1").text() == "t1t2:2"
    g = make(U, U1, f={3: "AH"}, t=["KS QH", "-", "5D"])
    with pytest.raises(NoLegalMove, match="changes nothing"):
        resolve_source(g, "t1")


def test_ties_go_to_the_lowest_pile_number() -> None:
    f = {3: run("AH", "5H"), 7: run("AH", "5H")}
    g = make("forty-and-eight", f=f, t=["5C 9H", "2C TH", "3C TH"])
    assert resolve_source(g, "t1").text() == "t1t2"


def test_the_stock_draws_then_redeals_then_refuses() -> None:
    g = make(U, U1, s=top_first("5H 6H"))
    assert resolve_source(g, "s").text() == "sw"
    g = make(U, U1, t=["5D"], s="", w="5H 6H 7H", rest="t1")
    assert resolve_source(g, "s").text() == "ws"
    with pytest.raises(NoLegalMove, match="fits nowhere"):
        resolve_source(g, "w")  # the waste never "moves" to the stock
    g = make("forty-and-eight", t=["5D"], s="", w="5H 6H 7H", n=1, rest="t1")
    with pytest.raises(NoLegalMove, match="no redeal"):
        resolve_source(g, "s")
    with pytest.raises(IllegalMove, match="no pile s"):
        resolve_source(make("seven-by-five", t=["KC"], rest="t1"), "s")


def test_waste_cell_reserve_and_foundation_sources() -> None:
    g = make(U, U1, f={1: "AC"}, t=["5D"], w="2C", rest="t1")
    assert resolve_source(g, "w").text() == "wf1"
    o = {"cells": "5", "empty_fill": "king"}
    g = make("seven-by-five", o, f={1: "AC"}, t={1: "KH"}, c={2: "2C"}, rest="t1")
    assert resolve_source(g, "c2").text() == "c2f1"
    g = make("double-aces-and-kings", f={1: "AS", 9: ""}, r={2: "2C"})
    assert resolve_source(g, "r2").text() == "r2f1"
    g = make(U, {"draw": "1", "foundation_takeback": "yes"}, f={1: run("AC", "4C")},
             t=["5D"], rest="t1")
    assert resolve_source(g, "f1").text() == "f1t1"


def test_empty_sources_and_too_many_cards_are_refused_with_a_reason() -> None:
    g = make(U, U1, t=["3c KS QH", "-", "5D"])
    with pytest.raises(NoLegalMove, match="t2 is empty"):
        resolve_source(g, "t2")
    with pytest.raises(NoLegalMove, match="no 3 face-up cards"):
        resolve_source(g, "t1:3")


# ------------------------------------------------------------------ autoplay


def test_autoplay_plays_safe_cards_home_and_nothing_else() -> None:
    """Aces and Twos go home (nothing builds on them that is not home); the 3♥ stays, since
    the black Twos it could hold are not home."""
    g = make(U, U1, f={1: "AC", 2: "", 3: "", 4: "AS"}, t=["2H", "AH", "AD", "2D", "3H"],
             rest="t5")
    played = [m.text() for m in autoplay(g)]
    assert sorted(m[:2] for m in played) == ["t1", "t2", "t3", "t4"]
    assert g.cards_home == 6 and g.pos.piles[g.layout.index["t5"]][-1] == parse_card("3H")
    assert autoplay(g) == []


def test_autoplay_plays_nothing_in_double_aces_and_kings() -> None:
    g = make("double-aces-and-kings", f={1: "", 9: ""}, t=["AS"])
    assert Move.from_text("t1f1") in g.legal_moves()
    assert autoplay(g) == []


def test_autoplay_leaves_tableau_cards_while_a_space_would_refill() -> None:
    """Sixes and Sevens: a space refills from the waste, so a tableau card is not safe while
    the waste or stock has cards; once both are empty it goes home."""
    g = make("sixes-and-sevens", f={9: "7C"}, t=["8C"], s=top_first("TD"))
    assert autoplay(g) == []
    g = make("sixes-and-sevens", f={9: "7C"}, t=["8C"], s="", rest="t2")
    assert next(m.text() for m in autoplay(g)) == "t1f9"


WINNABLE = [  # (variant, options, seed) the solver wins within a small budget
    ("sixes-and-sevens", {}, 1),
    ("seven-by-five", {"cells": "5", "empty_fill": "any"}, 8),
    ("unlimited", {}, 5),
    ("unlimited", {"draw": "3"}, 10),
    ("unlimited", {"foundation_takeback": "no"}, 9),
    ("forty-and-eight", {}, 10),
    ("double-aces-and-kings", {}, 30),
]
_LINES: dict[int, list[str]] = {}


def _line(i: int) -> list[str]:
    if i not in _LINES:
        v, o, s = WINNABLE[i]
        result = solve((v, o, s), Budget(nodes=4_000))
        assert result.outcome is Outcome.WON
        _LINES[i] = result.move_texts()
    return _LINES[i]


def _is_needed(game: Game, card: int) -> bool:
    """An independent statement of "unsafe": some card that could be built on ``card`` on the
    tableau is not home yet (alternate colours: the two of rank r-1 of the other colour; same
    suit: the one below it). Cards of rank 1 and games without building never are."""
    r = RANK_OF[card]
    if r == 1 or game.rules.tableau.build.value == "none":
        return False
    home = [c for f in game.layout.foundations for c in game.pos.piles[f]]
    alt = game.rules.tableau.build.value == "down, alternate colour"
    wanted = [c for c in range(52) if RANK_OF[c] == r - 1 and (
        RED_OF[c] != RED_OF[card] if alt else SUIT_OF[c] == SUIT_OF[card])]
    return any(home.count(c) < game.rules.decks for c in wanted)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.integers(0, len(WINNABLE) - 1), depth=st.floats(0, 1))
def test_autoplay_never_plays_an_unsafe_card(case: int, depth: float) -> None:
    """Anywhere along a solver-won line: every card autoplay sends home is not needed on the
    tableau, and the position after autoplay is still won by the solver."""
    v, o, s = WINNABLE[case]
    line = _line(case)
    g = Game(v, o, s)
    g.replay(line[: int(depth * len(line))])
    trial = g.copy()
    check = g.copy()
    for m in autoplay(trial):
        card = check.pos.piles[check.layout.index[m.src]][-1]
        assert not _is_needed(check, card), (m, check.position_text())
        check.push(m)
    if trial.moves != g.moves:
        after = Game.from_position(v, o, trial.position_text())
        assert solve(after, Budget(nodes=20_000)).outcome is Outcome.WON


# ------------------------------------------------------------------ resolution is always legal


@settings(max_examples=40, deadline=None)
@given(case=st.integers(0, len(WINNABLE) - 1), walk=st.lists(st.integers(0, 10_000),
                                                            max_size=60))
def test_resolution_returns_a_legal_move_or_refuses(case: int, walk: list[int]) -> None:
    """From random positions, every pile of the variant (and ``s``) resolves to one of the
    legal moves from that pile, or refuses exactly when no legal move from it is worth a
    click; the game is never changed by resolving."""
    v, o, s = WINNABLE[case]
    g = Game(v, o, s)
    for k in walk:
        legal = g.legal_moves()
        if not legal:
            break
        g.push(legal[k % len(legal)])
    before = g.position_text()
    legal = g.legal_moves()
    for pid in g.layout.ids:
        try:
            m = resolve_source(g, pid)
        except NoLegalMove:
            if g.is_over():
                continue
            if pid == "s":
                assert Move("s", "w") not in legal and Move("w", "s") not in legal
            else:
                assert candidates(g, pid) == []
            continue
        assert m in legal and (m.src == pid or pid == "s")
    assert g.position_text() == before


# ------------------------------------------------------------------ finish


def test_unlimited_finishes_with_everything_face_up_even_with_a_draw_1_stock() -> None:
    g = make(U, U1, f={1: run("AC", "9C"), 2: run("AD", "9D"), 3: run("AH", "5H")},
             t=["KC QH JC", "KD QC JD TC", "KS QD JS TD", "KH"], s=top_first("6H 8H 7H"))
    assert finish_blocker(g) is None
    moves = finish(g)
    assert g.status is Status.WON and moves == g.moves[-len(moves):]
    assert "sw" in [m.text() for m in moves]


def test_finish_refuses_with_face_down_cards_or_a_stock_that_can_jam() -> None:
    g = make(U, U1, t=["kc KH"])
    with pytest.raises(CannotFinish, match="face-down"):
        finish(g)
    g = make(U, {"draw": "3"}, t=["KC"], s=top_first("5H"), rest="t1")
    with pytest.raises(CannotFinish, match="stock still holds"):
        finish(g)
    g = make("forty-and-eight", t=["KC"], s=top_first("5H"), rest="t1")
    with pytest.raises(CannotFinish, match="stock still holds"):
        finish(g)


def test_seven_by_five_finishes_ordered_piles_and_refuses_blocked_ones() -> None:
    """The J♣ lies on the 10♣ that clubs need next: no card fits home, so the rest needs
    choices (and nothing is played)."""
    g = make("seven-by-five", {"cells": "5", "empty_fill": "any"}, f={1: run("AC", "9C")},
             t=["TC JC"], rest="t3")
    assert finish_blocker(g) is None
    before = g.position_text()
    with pytest.raises(CannotFinish, match="needs your choices"):
        finish(g)
    assert g.position_text() == before


def test_seven_by_five_finish_plays_a_descending_layout_home() -> None:
    g = make("seven-by-five", f={1: run("AC", "9C")}, t=["KC QC JC TC"], rest="t2")
    assert finish_blocker(g) is None
    finish(g)
    assert g.status is Status.WON


@pytest.mark.parametrize("case", range(len(WINNABLE)))
def test_every_variant_finishes_the_end_of_a_solver_line(case: int) -> None:
    """Late on a won line the rest plays itself; before the finish is allowed it is refused
    with a reason and changes nothing."""
    v, o, s = WINNABLE[case]
    g = Game(v, o, s)
    refused = 0
    for text in _line(case):
        trial = g.copy()
        try:
            finish(trial)
        except CannotFinish as exc:
            assert exc.reason and trial.position_text() == g.position_text()
            refused += 1
            g.push(text)
            continue
        assert trial.status is Status.WON
        break
    else:
        pytest.fail("the line never allowed a finish")
    assert refused > 0


# ------------------------------------------------------------------ plan and legal


def test_plan_applies_a_move_then_autoplay_and_legal_lists_full_notation() -> None:
    g = make(U, U1, f={1: "AC", 2: "", 3: "", 4: "AS"}, t=["2H", "AH", "AD", "2D", "3H"],
             rest="t5")
    moves = plan(g, "move", "t2", auto=True)
    assert moves[0].text() == "t2f2" and len(moves) == 4
    assert legal_texts(g) == [m.text() for m in g.legal_moves()]
    assert all(Move.from_text(t) for t in legal_texts(g))
    with pytest.raises(NotationError):
        plan(g, "move", "zz")
    assert len(g.moves) == 4


def test_sixes_and_sevens_and_double_aces_finish_with_the_stock_dealt() -> None:
    g = make("sixes-and-sevens", f={9: run("7C", "QC")}, t=["KC"], s="", rest="t2")
    kinds = g.layout.kinds
    assert all(kinds[g.layout.index[m.dst]] is PileKind.FOUNDATION for m in finish(g))
    assert g.status is Status.WON


def test_click_for_names_the_shortest_click_that_makes_a_move() -> None:
    g = make(U, U1, f={3: "AH2H"}, t=["2c QH JS TH", "KS", "JC"], s=top_first("5H"))
    assert click_for(g, Move.from_text("t1t2:3")) == "t1"
    assert click_for(g, Move.from_text("t1t3")) == "t1:1"
    assert click_for(g, Move.from_text("sw")) == "s"
    g2 = make("forty-and-eight", f={3: run("AH", "5H"), 7: run("AH", "5H")},
              t=["5C 9H", "2C TH", "3C TH"])
    assert click_for(g2, Move.from_text("t1t3")) is None  # t1 goes to t2 first


def test_sixes_and_sevens_clicks_go_home_and_fill_spaces_by_hand() -> None:
    """Tableau piles hold one card: a click sends it to its foundation; with manual spaces and
    an empty stock, a waste click fills the first space."""
    g = make("sixes-and-sevens", f={9: "7C"}, t=["8C"], s=top_first("TD"))
    assert resolve_source(g, "t1").text() == "t1f9"
    g = make("sixes-and-sevens", {"empty_fill": "manual"}, f={9: "7C", 10: "7D"}, t=["-", "KC"],
             s="", w="TD", rest="t3")
    assert resolve_source(g, "w").text() == "wt1"
    with pytest.raises(NoLegalMove, match="changes nothing"):
        resolve_source(g, "t2")  # the lone K♣ fits no foundation: only into the space


def test_forty_and_eight_autoplay_waits_for_both_copies_below() -> None:
    """Two decks: a 2♣ goes home only when both A♣ are home (either copy of the 2 may then be
    played first without a difference)."""
    g = make("forty-and-eight", f={1: "AC", 5: ""}, t=["2C", "AC"], s=top_first("5H"))
    played = [m.text() for m in autoplay(g)]
    assert played[0] == "t2f5" and "t1f1" in played


def test_seven_by_five_autoplay_sends_aces_and_twos_home() -> None:
    g = make("seven-by-five", {"cells": "5", "empty_fill": "any"},
             f={1: "", 2: "AD", 3: "AH", 4: ""}, t=["AC", "2C", "AS"], rest="t4")
    assert sorted(m.text() for m in autoplay(g))[:2] == ["t1f1", "t2f1"]


@settings(max_examples=60, deadline=None)
@given(heights=st.lists(st.integers(0, 13), min_size=4, max_size=4).filter(
    lambda h: 28 <= sum(h) < 52), data=st.data())
def test_unlimited_draw_1_finishes_whatever_the_stock_order(heights: list[int],
                                                            data: st.DataObject) -> None:
    """The one case where finish plays with cards in the stock: Unlimited, draw 1, nothing
    face down. Any order of at most 24 stock and waste cards is won, within MAX_BATCH."""
    from solrace.shared.cards import card_text
    from solrace.shared.pointing import MAX_BATCH

    left = [s * 13 + r for s in range(4) for r in range(heights[s], 13)]
    order = data.draw(st.permutations(left))
    cut = data.draw(st.integers(0, len(order)))
    f = {s + 1: "".join(card_text(s * 13 + r) for r in range(heights[s])) for s in range(4)}
    stock, waste = order[:cut], order[cut:]
    g = make(U, {"draw": "1", "foundation_takeback": "yes"}, f=f,
             s="".join(card_text(c) for c in stock), w="".join(card_text(c) for c in waste))
    assert finish_blocker(g) is None
    moves = finish(g)
    assert g.status is Status.WON and len(moves) <= MAX_BATCH
