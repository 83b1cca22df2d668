"""Double Aces and Kings, rule by rule (``/work/shared/rules/README.md``, section "Double Aces
and Kings").

4 decks; 16 foundations regardless of suit: f1..f8 build UP from Ace, f9..f16 DOWN from King.
Option ``reserve_to_space`` = no | yes. Positions come from ``positions.make``: foundations a
test does not name are filled as far as the unused cards allow.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from positions import make, pile, play, refuse, run, top_first, undo_all
from solrace.shared import Game, Status

V = "double-aces-and-kings"
NO = {"reserve_to_space": "no"}
YES = {"reserve_to_space": "yes"}
BOTH = pytest.mark.parametrize("opts", [NO, YES], ids=["reserve_to_space=no", "yes"])

# A stuck set-up: f8 (up) waits at a Four and f16 (down) at a Six, both for a Five; every other
# foundation is complete. The two Fives not home lie in the waste under three cards that fit
# nowhere; the tableau holds Hearts that fit nowhere either.
UP4 = "AC2C3C4C"
DOWN6 = run("KC", "6C")
BURIED = "5C 5D KS QS JS"  # waste, bottom to top
HEARTS = ["AH", "2H", "3H", "4H", "6H", "7H", "8H", "9H"]


def stuck(opts: dict[str, str], *, t: list[str] = HEARTS, w: str = BURIED, **kw: Any) -> Game:
    """The stuck set-up; cards left over go to the bottom of the waste, under the Fives."""
    f = {8: UP4, 16: DOWN6, **kw.pop("f", {})}
    return make(V, opts, f=f, t=t, w=w, rest="w", **kw)


# ------------------------------------------------------------------ the deal


@BOTH
@pytest.mark.parametrize("seed", [0, 5, 77])
def test_deal_layout(opts: dict[str, str], seed: int) -> None:
    """Rules: 4 decks (208 cards); 16 foundations that start EMPTY; reserve 4 piles of 13
    face-up cards; tableau 8 piles of 1 face-up card; stock the remaining 148; waste empty."""
    g = Game(V, opts, seed)
    lay, piles = g.layout, g.pos.piles
    assert len(lay.foundations) == 16 and g.cards_home == 0
    assert [len(piles[r]) for r in lay.reserve] == [13, 13, 13, 13]
    assert [len(piles[t]) for t in lay.tableau] == [1] * 8
    assert not any(g.pos.down)
    assert len(piles[lay.stock]) == 148 and piles[lay.waste] == []
    assert Counter(c for p in piles for c in p) == Counter({c: 4 for c in range(52)})
    assert g.status is Status.PLAYING


# ------------------------------------------------------------------ foundations


@BOTH
def test_empty_foundations_take_an_ace_up_or_a_king_down(opts: dict[str, str]) -> None:
    """Rule: an up-foundation accepts only an Ace to start, a down-foundation only a King."""
    g = make(V, opts, f={1: "-", 9: "-"}, t=["AC", "KD", "2H", "QS"])
    assert refuse(g, "t1f9") == "does_not_fit"
    assert refuse(g, "t2f1") == "does_not_fit"
    assert refuse(g, "t3f1") == "does_not_fit"
    assert refuse(g, "t4f9") == "does_not_fit"
    play(g, "t1f1", "t2f9")
    assert pile(g, "f1") == "AC" and pile(g, "f9") == "KD"


@BOTH
def test_foundations_build_regardless_of_suit(opts: dict[str, str]) -> None:
    """Rule: 8 built UP from Ace to King and 8 built DOWN from King to Ace, regardless of
    suit; one rank at a time in the foundation's direction."""
    g = make(V, opts, f={1: "AC", 9: "KS"}, t=["2H", "QD", "3C", "JS", "2S", "KH"])
    assert refuse(g, "t3f1") == "does_not_fit"  # skips a rank
    assert refuse(g, "t4f9") == "does_not_fit"  # skips a rank
    assert refuse(g, "t6f1") == "does_not_fit"  # wrong direction for an up-foundation
    assert refuse(g, "t5f9") == "does_not_fit"
    play(g, "t1f1", "t2f9", "t3f1", "t4f9")
    assert pile(g, "f1") == "AC2H3C" and pile(g, "f9") == "KSQDJS"


@BOTH
def test_complete_foundations_accept_nothing(opts: dict[str, str]) -> None:
    """Edge: an up-foundation ends at its King, a down-foundation at its Ace; complete, they
    take nothing (here only the empty down-foundation f16 takes the King)."""
    g = make(V, opts, t=["KC", "AC"])
    assert len(pile(g, "f1")) == 26 and pile(g, "f1")[-2] == "K"  # complete up
    assert len(pile(g, "f9")) == 26 and pile(g, "f9")[-2] == "A"  # complete down
    assert pile(g, "f16") == ""
    assert refuse(g, "t1f1") == "does_not_fit"
    assert refuse(g, "t2f1") == "does_not_fit"
    assert refuse(g, "t2f9") == "does_not_fit"
    home = {m.text() for m in g.legal_moves() if m.dst.startswith("f") and m.src[0] != "f"}
    assert home == {"t1f16"}


# ------------------------------------------------------------------ reserve


@BOTH
def test_reserve_top_plays_to_a_foundation(opts: dict[str, str]) -> None:
    """Rule: reserve piles are face up; only the top card plays, to a foundation."""
    g = make(V, opts, f={1: "-"}, r=["5H 2C AC"], t=["9D"])
    assert refuse(g, "r1f1:2") == "bad_count"
    play(g, "r1f1", "r1f1")
    assert pile(g, "f1") == "AC2C"
    assert pile(g, "r1") == "5H"
    assert refuse(g, "r1f1") == "does_not_fit"


@BOTH
def test_reserve_cards_never_go_onto_piles(opts: dict[str, str]) -> None:
    """Rule: reserve cards play only to the foundations: not onto a tableau card, another
    reserve; and nothing goes onto a reserve."""
    g = make(V, opts, r=["5H", "6H"], t=["6S"], s=top_first("9D"))
    assert refuse(g, "r1t1") == "does_not_fit"
    assert refuse(g, "r1r2") == "does_not_fit"
    assert refuse(g, "t1r2") == "does_not_fit"


def test_reserve_top_into_a_space_only_with_reserve_to_space() -> None:
    """Option reserve_to_space: once the stock is empty a space may be filled by the player
    with the top of the waste or a tableau card — not a reserve card (``no``, the default),
    or a reserve card too (``yes``)."""
    t = HEARTS[:7]  # t8 is a space
    no = stuck(NO, t=t, r=["9D"])
    assert refuse(no, "r1t8") == "does_not_fit"
    play(no, "wt8")
    no.pop()
    play(no, "t1t8")
    yes = stuck(YES, t=t, r=["9D"])
    play(yes, "r1t8")
    assert pile(yes, "t8") == "9D" and pile(yes, "r1") == ""


# ------------------------------------------------------------------ tableau


@BOTH
def test_no_building_on_the_tableau(opts: dict[str, str]) -> None:
    """Rule: tableau piles of 1 card; no building, from the tableau or from the waste."""
    g = make(V, opts, t=["6S", "7H", "5D"], w="6D", s=top_first("9C"))
    assert refuse(g, "t1t2") == "does_not_fit"
    assert refuse(g, "t3t1") == "does_not_fit"
    assert refuse(g, "wt2") == "does_not_fit"
    assert refuse(g, "t1t2:2") == "bad_count"


@BOTH
def test_waste_top_and_tableau_cards_play_to_foundations(opts: dict[str, str]) -> None:
    """Rule: playable are the top of the waste and each tableau card, to a foundation; only
    the top of the waste."""
    g = make(V, opts, f={1: "-", 2: "-"}, t=[*HEARTS[4:], "AD", "KH", "QH", "JH"],
             w="AS 9C AC", s=top_first("9S 8S"))
    play(g, "wf1")
    assert refuse(g, "wf2") == "does_not_fit"  # the A♠ is under the 9♣
    play(g, "t5f2")
    assert pile(g, "f1") == "AC" and pile(g, "f2") == "AD"
    assert pile(g, "t5") == "9S"  # (the space refilled from the stock)


# ------------------------------------------------------------------ foundation to foundation


@BOTH
def test_foundation_top_continues_another_foundation(opts: dict[str, str]) -> None:
    """Rule: the top card of a foundation may move to another foundation where it continues
    that sequence — up to up, up to down, down to up."""
    g = make(V, opts, f={1: "AC 2D", 2: "AH", 3: "AS 2S", 4: run("AD", "5D"),
                         9: run("KH", "6H"), 10: "KC QC", 11: "KD"},
             s=top_first("9C"))
    start = g.position_text()
    assert refuse(g, "f1f3") == "does_not_fit"  # a Two does not go on a Two
    play(g, "f1f2")  # up to up
    assert pile(g, "f2") == "AH2D"
    play(g, "f4f9")  # up to down: the 5♦ continues K..6
    play(g, "f10f11")  # down to down
    assert pile(g, "f9").endswith("6H5D") and pile(g, "f11") == "KDQC"
    play(g, "f9f4")  # and back
    undo_all(g, start)


@BOTH
def test_foundation_top_never_starts_an_empty_foundation(opts: dict[str, str]) -> None:
    """Rule "the top card of a foundation may move to another foundation where it continues
    that sequence": an empty foundation has no sequence to continue, so not even the King on
    top of a complete up-foundation may start an empty down-foundation (nor an Ace an empty
    up-foundation); onto a non-empty foundation it continues, it may go."""
    g = make(V, opts, f={1: "-", 16: "-"}, s=top_first("9C"))  # the rest: in the stock
    assert pile(g, "f2")[-2] == "K" and pile(g, "f9")[-2] == "A"
    assert refuse(g, "f2f16") == "does_not_fit"
    assert refuse(g, "f9f1") == "does_not_fit"
    assert "f2f16" not in [m.text() for m in g.legal_moves()]
    g2 = make(V, opts, f={1: "-", 2: "AC 2C", 16: "-", 15: "KS QS"}, s=top_first("9C"))
    assert refuse(g2, "f2f1") == "does_not_fit"
    assert refuse(g2, "f15f16") == "does_not_fit"


@BOTH
def test_foundation_cards_never_go_to_the_tableau(opts: dict[str, str]) -> None:
    """Rule: foundation tops move only to other foundations (no take-back), not even into a
    space once the stock is empty."""
    g = stuck(opts, t=HEARTS[:7])
    assert refuse(g, "f8t8") == "does_not_fit"
    assert refuse(g, "f1t1") == "does_not_fit"


# ------------------------------------------------------------------ spaces


@BOTH
def test_space_filled_from_the_stock_not_the_waste(opts: dict[str, str]) -> None:
    """Rule: an empty tableau pile is filled immediately and automatically from the top of the
    stock (even when the waste has cards), inside the move that emptied it."""
    g = make(V, opts, f={1: "-"}, t=["AC", *HEARTS[4:], "KH", "QH", "JH"], w="KS",
             s=top_first("QS JS"))
    start = g.position_text()
    play(g, "t1f1")
    assert pile(g, "t1") == "QS" and pile(g, "w") == "KS"
    assert pile(g, "s").endswith("js")
    assert len(g.moves) == 1
    undo_all(g, start)


@BOTH
def test_space_stays_empty_once_the_stock_is_empty(opts: dict[str, str]) -> None:
    """Rule: once the stock is empty a space stays empty until the player fills it, with the
    top of the waste or with a tableau card."""
    g = stuck(opts, t=["5C", *HEARTS[4:], "9D", "9S"], w="5D KS QS JS",
              f={8: run("AC", "4C")})
    play(g, "t1f8")
    assert pile(g, "t1") == "" and pile(g, "w").endswith("JS")
    play(g, "wt1")
    assert pile(g, "t1") == "JS"
    g.pop()
    play(g, "t2t1")
    assert pile(g, "t1") == "6H" and pile(g, "t2") == ""


# ------------------------------------------------------------------ stock


@BOTH
def test_draw_one_to_the_waste(opts: dict[str, str]) -> None:
    """Rule: draw 1 to the waste: the stock top becomes the waste top."""
    g = make(V, opts, t=HEARTS, s=top_first("QS JS"))
    play(g, "sw")
    assert pile(g, "w").endswith("QS")
    play(g, "sw")
    assert pile(g, "w").endswith("QSJS")
    assert refuse(g, "sw:3") == "bad_count"


@BOTH
def test_no_redeal(opts: dict[str, str]) -> None:
    """Rule: no redeal: with the stock empty the waste never goes back."""
    g = stuck(opts)
    assert pile(g, "s") == ""
    assert refuse(g, "ws") == "no_redeal"
    assert refuse(g, "sw") == "no_stock"


# ------------------------------------------------------------------ won and lost


@BOTH
def test_won_when_208_cards_are_home(opts: dict[str, str]) -> None:
    """Rule: won when all 208 cards are home; nothing moves afterwards."""
    g = make(V, opts, t={3: "AC"})
    assert len(pile(g, "f16")) == 24 and pile(g, "f16")[-2] == "2"
    play(g, "t3f16")
    assert g.cards_home == 208 and g.status is Status.WON
    assert g.legal_moves() == []
    assert refuse(g, "f16f1") == "game_over"


@BOTH
def test_not_lost_while_the_stock_has_cards(opts: dict[str, str]) -> None:
    """Rule: lost needs the stock empty."""
    g = stuck(opts, s=top_first("TS"))
    assert [m.text() for m in g.legal_moves()] == ["sw"]
    assert g.status is Status.PLAYING


@BOTH
def test_lost_when_stock_empty_and_no_legal_move(opts: dict[str, str]) -> None:
    """Rule: lost when the stock is empty and no legal move makes progress (here: none)."""
    g = stuck(opts)
    assert g.legal_moves() == []
    assert g.status is Status.LOST


@BOTH
def test_lost_when_only_shuttles_remain(opts: dict[str, str]) -> None:
    """Rule + common rule "shuttles are not progress": one space takes the J♠ off the waste
    and then only moves around the tableau; the Fives stay under the Q♠ and K♠."""
    g = stuck(opts, t=HEARTS[:7])
    assert g.legal_moves()
    assert g.status is Status.LOST


@BOTH
def test_lost_when_only_foundation_shuttles_remain(opts: dict[str, str]) -> None:
    """Rule: moving a card between foundations is not progress (no card comes home): a Two
    that can go back and forth between two Ace-foundations does not keep the game alive."""
    g = stuck(opts, t=[*HEARTS[4:], "TH", "JH", "QH", "KH"], f={1: "AC 2C", 2: "AD"})
    assert {m.text() for m in g.legal_moves()} == {"f1f2"}
    assert g.status is Status.LOST


@BOTH
def test_not_lost_while_spaces_can_dig_out_a_card(opts: dict[str, str]) -> None:
    """Common rule: never lost while some sequence of moves puts a card home: three spaces
    take J♠, Q♠, K♠ off the waste and free a Five."""
    g = stuck(opts, t=HEARTS[:5])
    assert not [m for m in g.legal_moves() if m.dst.startswith("f")]
    assert g.status is Status.PLAYING
    play(g, "wt6", "wt7", "wt8", "wf8")


def test_reserve_to_space_decides_lost_or_playing() -> None:
    """Option reserve_to_space: a K♠ on top of a reserve pile covers the Fives; with one space
    the game is alive only if the reserve card may go into it."""
    kw: dict[str, Any] = {"t": HEARTS[:7], "r": ["5C 5D KS"], "w": "QS JS"}
    assert stuck(NO, **kw).status is Status.LOST
    yes = stuck(YES, **kw)
    assert yes.status is Status.PLAYING
    play(yes, "r1t8", "r1f8")
