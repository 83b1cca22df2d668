"""Unlimited (Klondike with unlimited redeals), rule by rule (``/work/shared/rules/README.md``,
section "Unlimited").

Options: ``draw`` = 1 | 3, ``foundation_takeback`` = yes | no. Positions come from
``positions.make``: cards a test does not name go home when they can, else to the stock.

Reading of "Stock to waste, ``draw`` cards at a time (top of the drawn group on top)": the
group is turned over onto the waste as in every Klondike program (PySolFC deals the cards one by
one), so the first card drawn ends lowest and the last one — the third card from the top of the
stock — is the new top of the waste; the cards stay in the same combined order, which is what
makes "turned over, in order and unshuffled" repeat the same pass.
"""

from __future__ import annotations

import pytest
from positions import make, pile, play, refuse, run, top_first, undo_all
from solrace.shared import Game, Status

V = "unlimited"
ALL_OPTIONS = [{"draw": d, "foundation_takeback": t} for d in ("1", "3") for t in ("yes", "no")]
EACH = pytest.mark.parametrize(
    "opts", ALL_OPTIONS, ids=[f"draw{o['draw']}-takeback_{o['foundation_takeback']}"
                              for o in ALL_OPTIONS]
)
DRAWS = pytest.mark.parametrize("draw", ["1", "3"])
TAKEBACK = pytest.mark.parametrize("takeback", ["yes", "no"])

# Stuck set-ups for the lost check. Clubs home to 8, spades to 8, diamonds complete, hearts
# to 2: the next cards (9♣, 9♠, 3♥) are face down. Every top is black, so no top takes
# another; the stock's small Hearts fit no top and no foundation.
STUCK_F = {1: run("AC", "8C"), 2: run("AD", "KD"), 3: "AH2H", 4: run("AS", "8S")}
STUCK_STOCK = top_first("4H 5H 6H 7H 8H")
STUCK = ["9c TC", "9s TS", "ks 3h JC", "9h th kh JS", "jh QC", "qh QS", "KC"]
# Like STUCK with an empty column: the lone Kings can only shuttle between the spaces and the
# J♥ between the two black Queens.
SHUTTLE = ["9c tc QC JH", "QS", "KC", "3h 9h th kh JS", "9s ts qh JC", "KS", "-"]


def opts_of(draw: str = "1", takeback: str = "no") -> dict[str, str]:
    return {"draw": draw, "foundation_takeback": takeback}


# ------------------------------------------------------------------ the deal


@EACH
@pytest.mark.parametrize("seed", [0, 11, 123])
def test_deal_columns_of_k_minus_1_face_down_and_1_face_up(opts: dict[str, str],
                                                            seed: int) -> None:
    """Rule: 1 deck; 7 columns, column k has k−1 face-down cards and 1 face-up card on top;
    stock the other 24, face down; 4 empty foundations; waste empty."""
    g = Game(V, opts, seed)
    lay = g.layout
    assert [len(g.pos.piles[t]) for t in lay.tableau] == list(range(1, 8))
    assert [g.pos.down[t] for t in lay.tableau] == list(range(7))
    assert len(g.pos.piles[lay.stock]) == 24 and g.pos.piles[lay.waste] == []
    assert len(lay.foundations) == 4 and g.cards_home == 0
    assert sorted(c for p in g.pos.piles for c in p) == list(range(52))


# ------------------------------------------------------------------ foundations


@EACH
def test_foundations_start_with_an_ace_and_build_up_by_suit(opts: dict[str, str]) -> None:
    """Rule: foundations, 4, by suit, Ace to King."""
    g = make(V, opts, f={3: "-", 2: run("AD", "QD")}, t=["AH", "2H", "JH", "KD"])
    assert refuse(g, "t2f3") == "does_not_fit"  # a Two on an empty foundation
    assert refuse(g, "t3f2") == "does_not_fit"  # wrong suit
    play(g, "t1f3", "t2f3", "t4f2")
    assert pile(g, "f3") == "AH2H"
    assert refuse(g, "t3f3") == "does_not_fit"  # not the next rank
    assert not [m for m in g.legal_moves() if m.dst == "f2"]  # complete: takes nothing


# ------------------------------------------------------------------ tableau


@EACH
def test_tableau_builds_down_in_alternating_colours(opts: dict[str, str]) -> None:
    """Rule: the tableau builds DOWN in alternating colours."""
    g = make(V, opts, t=["9S", "8C", "8H", "7H", "TH"])
    assert refuse(g, "t2t1") == "does_not_fit"  # same colour
    assert refuse(g, "t4t1") == "does_not_fit"  # two ranks down
    assert refuse(g, "t5t1") == "does_not_fit"  # up
    play(g, "t3t1")
    assert pile(g, "t1") == "9S8H"


@EACH
def test_a_built_sequence_moves_as_a_group(opts: dict[str, str]) -> None:
    """Rule: any face-up card with a valid sequence above it moves as a group (all of it, or
    from any card of it)."""
    g = make(V, opts, t=["9S 8H 7C", "TH", "9C"])
    start = g.position_text()
    assert refuse(g, "t1t2:2") == "does_not_fit"  # the 8♥ does not go on the 10♥
    assert refuse(g, "t1t2:4") == "bad_count"  # there are only three cards
    play(g, "t1t2:3")
    assert pile(g, "t2") == "TH9S8H7C" and pile(g, "t1") == ""
    g.pop()
    play(g, "t1t3:2")
    assert pile(g, "t3") == "9C8H7C" and pile(g, "t1") == "9S"
    undo_all(g, start)


@EACH
def test_a_group_must_be_a_built_run_of_face_up_cards(opts: dict[str, str]) -> None:
    """Rule: only face-up cards with a VALID sequence above them move together: not a broken
    run, not a face-down card."""
    g = make(V, opts, t=["9S 8S", "TH", "9d 8C", "9H"])
    assert refuse(g, "t1t2:2") == "bad_count"  # 8♠ on 9♠ is not a built run
    assert refuse(g, "t3t2:2") == "not_available"  # the 9♦ is face down
    play(g, "t3t4")  # the top card alone may go
    assert pile(g, "t4") == "9H8C"


@EACH
def test_only_a_king_or_a_king_headed_group_into_an_empty_column(opts: dict[str, str]) -> None:
    """Rule: only a King, or a group headed by a King, goes into an empty column."""
    g = make(V, opts, t=["KS QH JC", "5d QD"], w="KH QS")
    assert refuse(g, "t1t3:2") == "does_not_fit"  # headed by a Queen
    assert refuse(g, "t1t3") == "does_not_fit"
    assert refuse(g, "t2t3") == "does_not_fit"
    assert refuse(g, "wt3") == "does_not_fit"  # the Q♠ on the waste
    play(g, "t1t3:3")
    assert pile(g, "t3") == "KSQHJC"
    g.pop()
    g2 = make(V, opts, t=["KS QH JC", "5d QD"], w="QS KH")
    play(g2, "wt3")
    assert pile(g2, "t3") == "KH"


@EACH
def test_a_face_down_card_turns_up_inside_the_move(opts: dict[str, str]) -> None:
    """Rule: a face-down card that becomes the top of its column turns face up at once —
    whether its cover went to another column, as part of a group, or home; one pop undoes
    it."""
    g = make(V, opts, f={3: "-"}, t=["2c 9H", "qd jd 9D 8C", "TC", "TS", "qs AH"])
    start = g.position_text()
    play(g, "t1t3")
    assert pile(g, "t1") == "2C"
    play(g, "t2t4:2")
    assert pile(g, "t2") == "qdJD"
    play(g, "t5f3")
    assert pile(g, "t5") == "QS"
    assert g.pos.down[g.layout.index["t2"]] == 1
    undo_all(g, start)
    assert pile(g, "t1") == "2c9H"


# ------------------------------------------------------------------ stock and waste


@EACH
def test_draw_turns_draw_cards_top_of_group_on_top(opts: dict[str, str]) -> None:
    """Rule: stock to waste, ``draw`` cards at a time (see the module docstring for the order);
    fewer when fewer are left; only the top of the waste plays."""
    # Spades home to 9: the stock holds exactly 10♠ J♠ Q♠ K♠, drawn in that order.
    g = make(V, opts, f={4: run("AS", "9S")}, s=top_first("TS JS QS KS"))
    if opts["draw"] == "1":
        play(g, "sw")
        assert pile(g, "w") == "TS" and pile(g, "s") == "ksqsjs"
        play(g, "wf4", "sw", "sw")
        assert pile(g, "w") == "JSQS"
        assert refuse(g, "wf4") == "does_not_fit"  # J♠ is under the Q♠
    else:
        play(g, "sw")
        assert pile(g, "w") == "TSJSQS" and pile(g, "s") == "ks"
        assert refuse(g, "wf4") == "does_not_fit"  # the 10♠ is not the top
        play(g, "sw")
        assert pile(g, "w") == "TSJSQSKS" and pile(g, "s") == ""
    assert refuse(g, "sw:3") == "bad_count"


@EACH
def test_redeal_turns_the_waste_over_in_order_any_number_of_times(opts: dict[str, str]) -> None:
    """Rule: when the stock is empty the waste is turned over, in order and unshuffled, to
    become the stock again, any number of times."""
    g = make(V, opts, f={4: run("AS", "9S")}, s=top_first("TS KH JS QS KS"))
    stock = pile(g, "s")
    draws = 5 if opts["draw"] == "1" else 2
    for k in range(1, 8):
        play(g, *["sw"] * draws)
        assert pile(g, "s") == ""
        seen = pile(g, "w")
        play(g, "ws")
        assert pile(g, "s") == stock and pile(g, "w") == ""
        assert g.pos.redeals == k and g.position_text().endswith(f"n:{k}")
    assert seen == "TSKHJSQSKS"  # the waste shows the pass in drawing order


@EACH
def test_redeal_only_when_the_stock_is_empty(opts: dict[str, str]) -> None:
    """Rule: the waste turns over only when the stock is empty (and only if it has cards)."""
    g = make(V, opts, f={4: run("AS", "9S")}, s=top_first("TS JS QS KS"))
    assert refuse(g, "ws") == "no_redeal"  # nothing drawn yet: the waste is empty
    play(g, "sw")
    assert refuse(g, "ws") == "no_redeal"  # the stock still has cards
    play(g, *["sw"] * (3 if opts["draw"] == "1" else 1))
    assert refuse(g, "sw") == "no_stock"
    play(g, "ws")


# ------------------------------------------------------------------ take-back


@DRAWS
def test_foundation_takeback_yes(draw: str) -> None:
    """Option foundation_takeback=yes: a foundation top may return to the tableau, following
    the tableau rules (down in alternate colour; only a King into a space); one card."""
    g = make(V, opts_of(draw, "yes"), f={3: run("AH", "8H")}, t=["9S", "-", "9H"])
    assert refuse(g, "f3t3") == "does_not_fit"  # same colour
    assert refuse(g, "f3t2") == "does_not_fit"  # a space takes a King only
    assert refuse(g, "f3t1:2") == "bad_count"
    play(g, "f3t1")
    assert pile(g, "t1") == "9S8H" and pile(g, "f3").endswith("7H")
    play(g, "f2t2")  # the K♦ of a complete foundation into the space
    assert pile(g, "t2") == "KD"


@DRAWS
def test_foundation_takeback_no(draw: str) -> None:
    """Option foundation_takeback=no: foundation cards stay home."""
    g = make(V, opts_of(draw, "no"), f={3: run("AH", "8H")}, t=["9S", "-"])
    assert refuse(g, "f3t1") == "does_not_fit"
    assert refuse(g, "f2t2") == "does_not_fit"


# ------------------------------------------------------------------ won and lost


@EACH
def test_won_when_52_cards_are_home(opts: dict[str, str]) -> None:
    """Rule: won with all 52 cards home; nothing moves afterwards."""
    g = make(V, opts, t={6: "KS"})
    play(g, "t6f4")
    assert g.status is Status.WON
    assert g.legal_moves() == []
    assert refuse(g, "f4t6") == "game_over"


@EACH
def test_lost_when_no_progress_even_though_recycling_is_legal(opts: dict[str, str]) -> None:
    """Rule: recycling is always legal, so "no legal move" never happens; lost when no tableau
    move turns up a card, empties a column or plays home, and no card that can reach the top
    of the waste plays anywhere — before and after going through the stock."""
    g = make(V, opts, f=STUCK_F, t=STUCK, s=STUCK_STOCK)
    assert [m.text() for m in g.legal_moves()] == ["sw"]
    assert g.status is Status.LOST
    play(g, *["sw"] * (5 if opts["draw"] == "1" else 2))
    assert [m.text() for m in g.legal_moves()] == ["ws"]
    assert g.status is Status.LOST


@EACH
def test_lost_when_no_legal_move_at_all(opts: dict[str, str]) -> None:
    """Common rule: lost when there is no legal move at all (stock and waste empty)."""
    t = [*STUCK[:6], "4h 5h 6h 7h 8h KC"]
    g = make(V, opts, f=STUCK_F, t=t)
    assert g.legal_moves() == []
    assert g.status is Status.LOST


@EACH
def test_not_lost_while_a_stock_card_plays_home(opts: dict[str, str]) -> None:
    """Rule: a card that can reach the top of the waste and plays to a foundation keeps the
    game alive (3♥ put last, where draw 3 reaches it too)."""
    t = [*STUCK[:2], "ks 4h JC", *STUCK[3:]]
    g = make(V, opts, f=STUCK_F, t=t, s=top_first("5H 6H 7H 8H 3H"))
    assert g.status is Status.PLAYING


@EACH
def test_not_lost_while_a_stock_card_plays_to_the_tableau(opts: dict[str, str]) -> None:
    """Rule: a card that can reach the top of the waste and plays to the tableau keeps the game
    alive (9♥ onto a black Ten)."""
    t = [*STUCK[:3], "8h th kh JS", *STUCK[4:]]
    g = make(V, opts, f=STUCK_F, t=t, s=top_first("4H 5H 6H 7H 9H"))
    assert g.status is Status.PLAYING


@TAKEBACK
def test_draw_3_only_cards_at_reachable_waste_positions_count(takeback: str) -> None:
    """Rule: for draw 3 only cards at a reachable position count ("computed exactly"): with
    five cards in the stock, draw 3 shows the 3rd and the 5th, never the 1st; draw 1 shows
    every card."""
    t = [*STUCK[:2], "ks 4h JC", *STUCK[3:]]
    first = top_first("3H 5H 6H 7H 8H")  # 3♥ drawn first: under the group with draw 3
    third = top_first("5H 6H 3H 7H 8H")
    assert make(V, opts_of("3", takeback), f=STUCK_F, t=t, s=first).status is Status.LOST
    assert make(V, opts_of("1", takeback), f=STUCK_F, t=t, s=first).status is Status.PLAYING
    assert make(V, opts_of("3", takeback), f=STUCK_F, t=t, s=third).status is Status.PLAYING


@TAKEBACK
def test_draw_3_reachable_positions_start_from_the_current_waste(takeback: str) -> None:
    """Rule (draw 3, computed exactly): the reachable positions depend on how many cards are
    already on the waste. With the 8♥ on the waste and four in the stock the waste grows
    1 → 4 → 5, and after a redeal 0 → 3 → 5: the 2nd card of the pass is never on top, the
    3rd is."""
    t = [*STUCK[:2], "ks 4h JC", *STUCK[3:]]
    second = make(V, opts_of("3", takeback), f=STUCK_F, t=t, w="8H", s=top_first("3H 5H 6H 7H"))
    assert second.status is Status.LOST
    third = make(V, opts_of("3", takeback), f=STUCK_F, t=t, w="8H", s=top_first("5H 3H 6H 7H"))
    assert third.status is Status.PLAYING
    play(third, "sw", "sw", "ws", "sw")  # the proof: 8♥ 5♥ 3♥ turned, the 3♥ on top
    assert pile(third, "w").endswith("3H")


@TAKEBACK
def test_a_tableau_move_that_turns_up_a_card_is_progress(takeback: str) -> None:
    """Rule: a tableau move that turns up a card is progress (J♥ off a face-down Q♣)."""
    t = ["9c tc qc JH", *SHUTTLE[1:]]
    g = make(V, opts_of("1", takeback), f=STUCK_F, t=t, s=STUCK_STOCK)
    assert g.status is Status.PLAYING


@TAKEBACK
def test_a_tableau_move_that_empties_a_column_is_progress(takeback: str) -> None:
    """Rule: a tableau move that empties a column is progress (a lone J♥ onto a black
    Queen)."""
    t = ["9c tc QC", *SHUTTLE[1:6], "JH"]
    g = make(V, opts_of("1", takeback), f=STUCK_F, t=t, s=STUCK_STOCK)
    assert {m.text() for m in g.legal_moves()} == {"t7t1", "t7t2", "sw"}
    assert g.status is Status.PLAYING


@DRAWS
def test_shuttles_are_not_progress(draw: str) -> None:
    """Common rule: tableau moves that only shuttle — Kings between empty columns, the J♥ back
    and forth between two black Queens — are legal but not progress: lost."""
    g = make(V, opts_of(draw, "no"), f=STUCK_F, t=SHUTTLE, s=STUCK_STOCK)
    assert {m.text() for m in g.legal_moves()} == {"t1t2", "t3t7", "t6t7", "sw"}
    assert g.status is Status.LOST


@DRAWS
def test_takeback_keeps_the_game_playing_when_not_sure(draw: str) -> None:
    """Conservative take-back case (``shared/status.py``): with foundation_takeback=yes a
    foundation card that could come back to the tableau (here the K♦ into the empty column)
    makes the check "not sure", so the same position stays playing."""
    g = make(V, opts_of(draw, "yes"), f=STUCK_F, t=SHUTTLE, s=STUCK_STOCK)
    assert "f2t7" in {m.text() for m in g.legal_moves()}
    assert g.status is Status.PLAYING


@TAKEBACK
def test_uncovering_a_card_that_plays_home_is_progress(takeback: str) -> None:
    """Common rule "lost only when certain": moving the 8♥ off the face-up 9♣ lets the 9♣ go
    home, so the game is not lost, although that move neither turns up a card, nor empties a
    column, nor plays home itself. (The page's list for Unlimited misses this case; the engine
    counts it as progress — found by this test.)"""
    t = ["9C 8H", "8s 9S", "KC", "KS", "tc jc 7h th QC", "ts js jh 9h qh kh QS", "-"]
    f = {1: run("AC", "8C"), 2: run("AD", "KD"), 3: run("AH", "6H"), 4: run("AS", "7S")}
    g = make(V, opts_of("1", takeback), f=f, t=t)
    assert not [m for m in g.legal_moves() if m.dst.startswith("f") and m.src[0] != "f"]
    assert g.status is Status.PLAYING
    play(g, "t1t2", "t1f1")
