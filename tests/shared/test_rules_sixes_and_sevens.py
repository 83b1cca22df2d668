"""Sixes and Sevens, rule by rule (``/work/shared/rules/README.md``, section "Sixes and Sevens").

Each test names the rule it checks in its name and docstring. Positions are built with
``positions.make``: cards the test does not name sit on the foundations (or, when they cannot,
at the bottom of the stock or of the pile given as ``rest``).
"""

from __future__ import annotations

import pytest
from positions import make, pile, play, refuse, run, top_first, undo_all
from solrace.shared import Game, Status
from solrace.shared.cards import RANK_OF, SUIT_OF

V = "sixes-and-sevens"
AUTO = {"empty_fill": "auto"}
MANUAL = {"empty_fill": "manual"}
BOTH = pytest.mark.parametrize("opts", [AUTO, MANUAL], ids=["auto", "manual"])
SEEDS = (0, 1, 7, 2024)
# Spades that cannot go home while the 7♠ foundations (f12, f16) wait for an 8♠: they fill the
# tableau piles a test does not care about, so that no space is left for auto-fill to fill.
SPADES = {12: "7S", 16: "7S"}
FILLER = ["9S", "TS", "JS", "QS", "KS", "9S", "TS", "JS"]


def full(*cards: str) -> list[str]:
    """Nine tableau piles: ``cards`` first, then spade fillers."""
    return [*cards, *FILLER][:9]


# ------------------------------------------------------------------ the deal


@BOTH
@pytest.mark.parametrize("seed", SEEDS)
def test_deal_sixes_and_sevens_start_sixteen_foundations(opts: dict[str, str], seed: int) -> None:
    """Rule: the eight Sixes and eight Sevens are taken out before the shuffle and start 16
    foundations (f1..f8 Sixes, f9..f16 Sevens, two of each suit); no Six or Seven is dealt
    anywhere else."""
    g = Game(V, opts, seed)
    piles = g.pos.piles
    F = list(g.layout.foundations)
    assert len(F) == 16
    sixes = [piles[f] for f in F[:8]]
    sevens = [piles[f] for f in F[8:]]
    assert all(len(p) == 1 and RANK_OF[p[0]] == 6 for p in sixes)
    assert all(len(p) == 1 and RANK_OF[p[0]] == 7 for p in sevens)
    assert sorted(SUIT_OF[p[0]] for p in sixes) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert sorted(SUIT_OF[p[0]] for p in sevens) == [0, 0, 1, 1, 2, 2, 3, 3]
    elsewhere = [c for i, p in enumerate(piles) if i not in F for c in p]
    assert not [c for c in elsewhere if RANK_OF[c] in (6, 7)]
    assert g.cards_home == 16


@BOTH
@pytest.mark.parametrize("seed", SEEDS)
def test_deal_nine_face_up_cards_stock_79_waste_empty(opts: dict[str, str], seed: int) -> None:
    """Rule: the other 88 cards are shuffled; tableau 9 piles of 1 face-up card, stock the
    other 79 face down, waste empty."""
    g = Game(V, opts, seed)
    T = list(g.layout.tableau)
    assert len(T) == 9
    assert all(len(g.pos.piles[t]) == 1 and g.pos.down[t] == 0 for t in T)
    assert len(g.pos.piles[g.layout.stock]) == 79
    assert g.pos.piles[g.layout.waste] == []
    assert sum(map(len, g.pos.piles)) == 104
    assert g.status is Status.PLAYING


# ------------------------------------------------------------------ foundations


@BOTH
def test_six_foundation_builds_down_by_suit(opts: dict[str, str]) -> None:
    """Rule: Six-foundations build DOWN by suit to Ace."""
    g = make(V, opts, f={1: "6C", 5: "6C"}, t=["5C", "5D", "4C"])
    assert refuse(g, "t2f1") == "does_not_fit"  # wrong suit
    assert refuse(g, "t3f1") == "does_not_fit"  # skips a rank
    play(g, "t1f1")
    assert pile(g, "f1") == "6C5C"
    g2 = make(V, opts, f={1: "6C", 5: "6C"}, t=["5C", "5D", "4C"])
    play(g2, "t1f1", "t3f1")
    assert pile(g2, "f1") == "6C5C4C"


@BOTH
def test_seven_foundation_builds_up_by_suit(opts: dict[str, str]) -> None:
    """Rule: Seven-foundations build UP by suit to King."""
    g = make(V, opts, f={11: "7H", 15: "7H"}, t=["8H", "8D", "9H"])
    assert refuse(g, "t2f11") == "does_not_fit"  # wrong suit
    assert refuse(g, "t3f11") == "does_not_fit"  # skips a rank
    assert refuse(g, "t1f3") == "does_not_fit"  # a Six-foundation builds down, not up
    play(g, "t1f11")
    assert pile(g, "f11") == "7H8H"


@BOTH
def test_full_foundations_accept_nothing(opts: dict[str, str]) -> None:
    """Edge: a Six-foundation ends at the Ace and a Seven-foundation at the King; complete,
    they take no further card (only the other foundation of the suit can)."""
    g = make(V, opts, f={1: run("6C", "AC"), 5: run("6C", "2C"),
                         9: run("7C", "KC"), 13: run("7C", "QC")}, t=["AC", "KC"])
    assert refuse(g, "t1f1") == "does_not_fit"
    assert refuse(g, "t2f9") == "does_not_fit"
    home = sorted(m.text() for m in g.legal_moves() if m.dst.startswith("f"))
    assert home == ["t1f5", "t2f13"]


@BOTH
def test_waste_top_and_tableau_cards_play_to_foundations(opts: dict[str, str]) -> None:
    """Rule: playable are the top of the waste and each tableau card, to a foundation; only
    the top of the waste."""
    g = make(V, opts, f={1: "6C", 5: "6C", 11: "7H", 15: "7H"}, t=["5C"], w="5C 8H")
    assert refuse(g, "wf1") == "does_not_fit"  # the 5C under the 8H is not available
    play(g, "wf11", "wf1", "t1f5")
    assert pile(g, "f11") == "7H8H"
    assert pile(g, "f1") == "6C5C"
    assert pile(g, "f5") == "6C5C"


@BOTH
def test_foundation_cards_stay_home(opts: dict[str, str]) -> None:
    """Rule: only waste and tableau cards are playable; a foundation card never comes back,
    not even into a space, nor to another foundation."""
    g = make(V, opts, f={1: "6C5C", 5: "6C"}, t=["9H"], s="8D")
    assert refuse(g, "f1t2") == "does_not_fit"
    assert refuse(g, "f1f5") == "does_not_fit"


# ------------------------------------------------------------------ tableau


@BOTH
def test_no_building_on_the_tableau(opts: dict[str, str]) -> None:
    """Rule: tableau piles never hold more than one card; there is no building."""
    g = make(V, opts, f={10: "7D", 14: "7D", 11: "7H", 15: "7H"}, t=["9D", "TH", "9H"],
             w="TD")
    assert refuse(g, "t1t2") == "does_not_fit"  # down in alternate colour: still no
    assert refuse(g, "t3t2") == "does_not_fit"  # down in suit: still no
    assert refuse(g, "wt2") == "does_not_fit"
    assert refuse(g, "t1t2:2") == "bad_count"  # a pile has only one card to move


# ------------------------------------------------------------------ spaces


def test_auto_space_filled_from_waste_top_inside_the_move() -> None:
    """Rule (empty_fill=auto): an emptied tableau pile is filled immediately by the top of
    the waste, as part of the move that emptied it; one pop undoes both."""
    g = make(V, AUTO, f={1: "6C", 10: "7D", 14: "7D", **SPADES}, t=full("5C", "9D"),
             w="QD KD", s=top_first("JD"))
    start = g.position_text()
    play(g, "t1f1")
    assert pile(g, "t1") == "KD"
    assert pile(g, "w") == "QD"
    assert pile(g, "s").endswith("jd")  # the stock is untouched
    assert len(g.moves) == 1
    undo_all(g, start)


def test_auto_space_filled_from_stock_when_waste_empty() -> None:
    """Rule (empty_fill=auto): with the waste empty, the space takes the top of the stock."""
    g = make(V, AUTO, f={1: "6C", **SPADES}, t=full("5C"), s=top_first("JD 2H"))
    start = g.position_text()
    stock = len(g.pos.piles[g.layout.stock])
    play(g, "t1f1")
    assert pile(g, "t1") == "JD"
    assert len(g.pos.piles[g.layout.stock]) == stock - 1
    assert pile(g, "w") == ""
    undo_all(g, start)


def test_auto_several_spaces_fill_in_pile_order() -> None:
    """Rule (empty_fill=auto): when several piles are empty at once they fill in pile order,
    waste first, then stock. (Only a set-up position has spaces beside a non-empty waste.)"""
    t = full("-", "-", "5C")
    g = make(V, AUTO, f={1: "6C", 10: "7D", 14: "7D", **SPADES}, t=t, w="QD KD",
             s=top_first("JD"))
    play(g, "t3f1")
    assert [pile(g, f"t{i}") for i in (1, 2, 3)] == ["KD", "QD", "JD"]
    assert pile(g, "w") == ""


def test_auto_space_stays_empty_once_waste_and_stock_are_empty() -> None:
    """Rule (empty_fill=auto): only when waste and stock are both empty does a space stay
    empty; then any single available card may be moved into it."""
    g = make(V, AUTO, t=["AC", "KH", "AS"])  # everything else home, stock and waste empty
    play(g, "t1f5")
    assert pile(g, "t1") == ""
    play(g, "t2t1")  # a King into the space
    play(g, "t3t2")  # an Ace too: any card
    assert pile(g, "t1") == "KH" and pile(g, "t2") == "AS"
    assert refuse(g, "t1t2") == "does_not_fit"  # a space takes one card, then it is a pile


def test_manual_nothing_fills_a_space() -> None:
    """Rule (empty_fill=manual): a space is not filled automatically, even with cards in the
    waste and the stock."""
    g = make(V, MANUAL, f={1: "6C", 10: "7D", 14: "7D"}, t=["5C"], w="QD KD",
             s=top_first("JD"))
    play(g, "t1f1")
    assert pile(g, "t1") == ""
    assert pile(g, "w") == "QDKD"


def test_manual_player_puts_any_available_card_into_a_space() -> None:
    """Rule (empty_fill=manual): the player puts any card — waste top or a tableau card, of
    any rank — into a space; only one card; not a foundation card."""
    g = make(V, MANUAL, f={10: "7D", 14: "7D"}, t={2: "9D", 3: "QS"}, w="QD KD",
             s=top_first("JD"))
    start = g.position_text()
    play(g, "wt1")
    assert pile(g, "t1") == "KD" and pile(g, "w") == "QD"
    play(g, "t2t4", "t3t5")
    assert pile(g, "t4") == "9D" and pile(g, "t5") == "QS"
    assert refuse(g, "f1t2") == "does_not_fit"
    assert refuse(g, "wt1") == "does_not_fit"  # t1 is no longer a space
    undo_all(g, start)


# ------------------------------------------------------------------ stock and waste


@BOTH
def test_draw_one_stock_top_to_waste_top(opts: dict[str, str]) -> None:
    """Rule: draw 1 to the waste: the top of the stock becomes the top of the waste."""
    g = make(V, opts, f={10: "7D", 14: "7D"}, t=["9D"], s=top_first("JD 2H QD"))
    n = len(g.pos.piles[g.layout.stock])
    play(g, "sw")
    assert pile(g, "w") == "JD"
    play(g, "sw")
    assert pile(g, "w") == "JD2H"
    assert len(g.pos.piles[g.layout.stock]) == n - 2
    assert refuse(g, "sw:2") == "bad_count"


@BOTH
def test_one_pass_only_no_redeal(opts: dict[str, str]) -> None:
    """Rule: one pass only: with the stock empty the waste is never turned over."""
    g = make(V, opts, f={11: "7H", 15: "7H"}, t=["9H"], w="8H 8H TH", rest="w")
    assert refuse(g, "ws") == "no_redeal"
    assert refuse(g, "sw") == "no_stock"
    assert g.pos.redeals == 0


# ------------------------------------------------------------------ won and lost


@BOTH
def test_won_when_all_104_cards_are_home(opts: dict[str, str]) -> None:
    """Rule: won when all 104 cards are on the foundations; nothing moves afterwards."""
    g = make(V, opts, t={4: "AC"})
    assert g.status is Status.PLAYING
    play(g, "t4f5")
    assert g.cards_home == 104
    assert g.status is Status.WON
    assert g.legal_moves() == []
    assert refuse(g, "f5t4") == "game_over"
    g.pop()
    assert g.status is Status.PLAYING


HIGH = ["TH", "TH", "JH", "JH", "QH", "QH", "KH", "KH"]


def _stuck(opts: dict[str, str], *, spaces: int, stock: str = "") -> Game:
    """Every card home but the twelve Hearts 8..K; the 7♥ foundations wait for an 8♥ that lies
    in the waste under one 9♥ (``spaces=0``) or two (``spaces`` 1 or 2: tableau piles 9, 8
    are empty)."""
    if spaces == 0:
        return make(V, opts, f={11: "7H", 15: "7H"}, t=["9H", *HIGH], w="8H 8H 9H",
                    s=top_first(stock))
    t = HIGH[: 9 - spaces]
    under = "".join(HIGH[9 - spaces :])  # Hearts without a pile go under the waste
    return make(V, opts, f={11: "7H", 15: "7H"}, t=t, w=under + "8H8H9H9H", s=top_first(stock))


@BOTH
def test_not_lost_while_the_stock_has_cards(opts: dict[str, str]) -> None:
    """Rule: lost needs the stock empty; a card still in the stock may fit later."""
    g = _stuck(opts, spaces=0, stock="2C")  # the clubs that cannot go home sit under the 2C
    assert [m.text() for m in g.legal_moves()] == ["sw"]
    assert g.status is Status.PLAYING


@BOTH
def test_lost_when_stock_empty_and_no_move(opts: dict[str, str]) -> None:
    """Rule: lost when the stock is empty and no card can reach a foundation (here: no legal
    move at all)."""
    g = _stuck(opts, spaces=0)
    assert g.legal_moves() == []
    assert g.status is Status.LOST
    assert g.is_over()


def test_manual_lost_when_only_shuttles_remain() -> None:
    """Common rule "shuttles are not progress" (empty_fill=manual): one space lets one 9♥ out
    of the waste and then only moves the space around the tableau; the 8♥ under the second
    9♥ never comes out."""
    g = _stuck(MANUAL, spaces=1)
    assert g.legal_moves()  # moves exist: into the space
    assert g.status is Status.LOST


def test_manual_not_lost_while_a_sequence_reaches_a_foundation() -> None:
    """Common rule: never lost while some sequence of moves puts a card home: two spaces take
    both 9♥ off the waste and free an 8♥."""
    g = _stuck(MANUAL, spaces=2)
    assert not [m for m in g.legal_moves() if m.dst.startswith("f")]
    assert g.status is Status.PLAYING
    play(g, "wt8", "wt9", "wf11")  # the proof: the 8♥ goes home
