"""Forty and Eight, rule by rule (``/work/shared/rules/README.md``, section "Forty and Eight").

2 decks; 8 foundations by suit from Ace (two per suit); 8 piles of 5 face up building down by
suit, one card at a time; draw 1 with one redeal (two passes). Option ``foundation_takeback``
= no | yes. Positions come from ``positions.make``.
"""

from __future__ import annotations

from collections import Counter

import pytest
from positions import make, pile, play, refuse, run, top_first, undo_all
from solrace.shared import Game, Status

V = "forty-and-eight"
NO = {"foundation_takeback": "no"}
YES = {"foundation_takeback": "yes"}
BOTH = pytest.mark.parametrize("opts", [NO, YES], ids=["takeback_no", "takeback_yes"])

# Stuck set-ups: both Heart foundations wait at the Five for a Six, both Spade foundations at
# the Seven for an Eight; the waste holds the Spades 8..K and some Hearts under a 9♠ that fits
# nowhere. The Sixes of Hearts lie under cards that fit nowhere either.
STUCK_F = {3: run("AH", "5H"), 7: run("AH", "5H"), 4: run("AS", "7S"), 8: run("AS", "7S")}
NO_MOVE = ["6H KH", "6H KH", "8H JH", "8H JH", "TH 9H", "TH 9H", "QH 7H", "QH 7H"]
ONE_SPACE = ["6H JH 9H", "6H JH 9H", "KH", "KH", "7H", "7H", "TS", "-"]
TWO_SPACES = ["6H JH 9H", "6H JH 9H", "KH", "KH", "7H", "7H", "-", "-"]


def stuck(opts: dict[str, str], t: list[str], *, redeals_used: int = 1) -> Game:
    """A stuck set-up with the stock empty; cards not named go under the waste's 9♠."""
    return make(V, opts, f=STUCK_F, t=t, w="9S", rest="w", n=redeals_used)


# ------------------------------------------------------------------ the deal


@BOTH
@pytest.mark.parametrize("seed", [0, 8, 40])
def test_deal_eight_piles_of_five_face_up_and_64_in_the_stock(opts: dict[str, str],
                                                              seed: int) -> None:
    """Rule: 2 decks; tableau 8 piles of 5 face-up cards (40 + 64 stock = 104); 8 empty
    foundations; waste empty; no redeal used."""
    g = Game(V, opts, seed)
    lay, piles = g.layout, g.pos.piles
    assert [len(piles[t]) for t in lay.tableau] == [5] * 8
    assert not any(g.pos.down)
    assert len(piles[lay.stock]) == 64 and piles[lay.waste] == []
    assert len(lay.foundations) == 8 and g.cards_home == 0 and g.pos.redeals == 0
    assert Counter(c for p in piles for c in p) == Counter({c: 2 for c in range(52)})


# ------------------------------------------------------------------ foundations


@BOTH
def test_foundations_by_suit_from_the_ace_two_per_suit(opts: dict[str, str]) -> None:
    """Rule: 8 foundations, by suit, Ace to King: each Ace starts its own foundation, and each
    foundation continues only in its suit."""
    g = make(V, opts, f={3: "-", 7: "-"}, t=["AH", "AH", "2H", "2D", "3H"])
    assert refuse(g, "t3f3") == "does_not_fit"  # only an Ace starts a foundation
    play(g, "t1f3", "t2f7")
    assert refuse(g, "t4f3") == "does_not_fit"  # wrong suit
    assert refuse(g, "t5f3") == "does_not_fit"  # skips a rank
    play(g, "t3f3", "t5f3")
    assert pile(g, "f3") == "AH2H3H" and pile(g, "f7") == "AH"


@BOTH
def test_complete_foundation_accepts_nothing(opts: dict[str, str]) -> None:
    """Edge: a foundation complete to the King takes nothing; the other one of the suit
    takes the second King."""
    g = make(V, opts, t=["KC"])
    assert pile(g, "f1").endswith("KC") and pile(g, "f5").endswith("QC")
    assert refuse(g, "t1f1") == "does_not_fit"
    assert {m.text() for m in g.legal_moves() if m.dst.startswith("f")} == {"t1f5"}


# ------------------------------------------------------------------ tableau


@BOTH
def test_tableau_builds_down_by_suit(opts: dict[str, str]) -> None:
    """Rule: the tableau builds DOWN by suit (a red card on a red card of another suit does not
    do), from the tableau and from the waste."""
    g = make(V, opts, t=["9H", "8H", "8D", "7H", "TH"], w="8H", s=top_first("KS"))
    assert refuse(g, "t3t1") == "does_not_fit"  # other suit, same colour
    assert refuse(g, "t4t1") == "does_not_fit"  # two ranks down
    assert refuse(g, "t5t1") == "does_not_fit"  # up
    play(g, "t2t1")
    assert pile(g, "t1") == "9H8H"
    g.pop()
    play(g, "wt1")
    assert pile(g, "t1") == "9H8H" and pile(g, "w") == ""


@BOTH
def test_one_card_at_a_time(opts: dict[str, str]) -> None:
    """Rule: one card at a time, even a built run, even into a space."""
    g = make(V, opts, t=["9H 8H", "TH"], s=top_first("KS"))
    assert refuse(g, "t1t2:2") == "bad_count"
    assert refuse(g, "t1t3:2") == "bad_count"
    assert not [m for m in g.legal_moves() if m.n > 1]


# ------------------------------------------------------------------ spaces


@BOTH
def test_player_fills_spaces_with_any_card_nothing_fills_them(opts: dict[str, str]) -> None:
    """Rule: any card (tableau top or waste top) may be moved into an empty pile by the
    player; nothing fills a space automatically, even with cards in the stock and waste."""
    g = make(V, opts, f={1: run("AC", "4C")}, t=["5C", "9D 8D", "KS"], w="3H",
             s=top_first("QS"))
    start = g.position_text()
    play(g, "t1f1")
    assert pile(g, "t1") == "" and pile(g, "w") == "3H"
    play(g, "wt1", "t2t4", "t3t5")  # a Three from the waste, an Eight, a King
    assert [pile(g, f"t{i}") for i in (1, 4, 5)] == ["3H", "8D", "KS"]
    assert pile(g, "t3") == ""
    undo_all(g, start)


# ------------------------------------------------------------------ stock, waste, redeal


@BOTH
def test_draw_one_and_exactly_one_redeal(opts: dict[str, str]) -> None:
    """Rule: draw 1 to the waste; when the stock is empty the waste is turned over once (two
    passes in all, the second in the same order); after the second pass no more redeals."""
    f = {3: run("AH", "QH"), 7: run("AH", "QH"), 4: run("AS", "QS"), 8: run("AS", "QS")}
    g = make(V, opts, f=f, s=top_first("KH KS KS KH"))  # all 104 cards placed
    stock = pile(g, "s")
    assert refuse(g, "ws") == "no_redeal"
    play(g, "sw")
    assert pile(g, "w") == "KH"
    assert refuse(g, "ws") == "no_redeal"  # the stock is not empty yet
    play(g, "sw", "sw", "sw")
    first_pass = pile(g, "w")
    assert first_pass == "KHKSKSKH"
    play(g, "ws")
    assert pile(g, "s") == stock and g.pos.redeals == 1
    play(g, *["sw"] * 4)
    assert pile(g, "w") == first_pass
    assert refuse(g, "ws") == "no_redeal"
    assert refuse(g, "sw") == "no_stock"


# ------------------------------------------------------------------ take-back


def test_foundation_takeback_no() -> None:
    """Option foundation_takeback=no (the seed): foundation cards stay home."""
    g = make(V, NO, f={3: run("AH", "8H")}, t=["9H"], s=top_first("KS"))
    assert refuse(g, "f3t1") == "does_not_fit"
    assert refuse(g, "f3t2") == "does_not_fit"  # not even into a space


def test_foundation_takeback_yes() -> None:
    """Option foundation_takeback=yes: a foundation top may return to the tableau, on the
    next higher card of its suit or into a space; one card at a time."""
    g = make(V, YES, f={3: run("AH", "8H")}, t=["9H", "-", "9D"], s=top_first("KS"))
    assert refuse(g, "f3t3") == "does_not_fit"
    assert refuse(g, "f3t1:2") == "bad_count"
    start = g.position_text()
    play(g, "f3t1", "f3t2")
    assert pile(g, "t1") == "9H8H" and pile(g, "t2") == "7H"
    assert pile(g, "f3").endswith("6H")
    undo_all(g, start)


# ------------------------------------------------------------------ won and lost


@BOTH
def test_won_when_104_cards_are_home(opts: dict[str, str]) -> None:
    """Rule: won with 104 cards home; nothing moves afterwards."""
    g = make(V, opts, t={8: "KS"})
    play(g, "t8f8")
    assert g.status is Status.WON and g.cards_home == 104
    assert g.legal_moves() == []
    assert refuse(g, "f8t8") == "game_over"


@BOTH
def test_lost_when_no_legal_move(opts: dict[str, str]) -> None:
    """Rule: lost when there is no legal move (stock empty, redeal used, nothing fits)."""
    g = stuck(opts, NO_MOVE)
    assert g.legal_moves() == []
    assert g.status is Status.LOST


@BOTH
def test_not_lost_while_a_redeal_is_left(opts: dict[str, str]) -> None:
    """Rule: lost needs the stock AND the redeals exhausted; with the redeal left the waste
    comes back (and here the 8♠ under the 9♠ will be drawn)."""
    g = stuck(opts, NO_MOVE, redeals_used=0)
    assert [m.text() for m in g.legal_moves()] == ["ws"]
    assert g.status is Status.PLAYING


@BOTH
def test_lost_when_cards_only_shuttle_between_spaces(opts: dict[str, str]) -> None:
    """Rule: moving single cards between spaces is not progress — nor (take-back) a card
    going from a foundation into a space and back: one space digs out only one of the two
    cards over each 6♥, so nothing can reach a foundation by any sequence of moves."""
    g = stuck(opts, ONE_SPACE)
    moves = {m.text() for m in g.legal_moves()}
    assert {"t3t8", "t7t8", "t1t8"} <= moves
    assert any(m.startswith("f") for m in moves) == (opts is YES)
    assert g.status is Status.LOST


@BOTH
def test_not_lost_while_a_sequence_reaches_a_foundation(opts: dict[str, str]) -> None:
    """Rule: not lost while a card can reach a foundation by some sequence of moves: two
    spaces take the 9♥ and J♥ off a 6♥."""
    g = stuck(opts, TWO_SPACES)
    assert not [m for m in g.legal_moves() if m.dst.startswith("f") and m.src[0] != "f"]
    assert g.status is Status.PLAYING
    play(g, "t1t7", "t1t8", "t1f3")
