"""Seven by Five, rule by rule (``/work/shared/rules/README.md``, section "Seven by Five").

Options: ``cells`` = 0 (seed) | 5, ``empty_fill`` = king (seed) | any. One deck and no stock, so
every position names all 52 cards: the tests use the ends of suits (which the foundations of
``positions.make`` absorb) or put the remaining cards into a pile given as ``rest``.

Reading of the "Lost" rule: "no legal move other than shuttles that lead back to a position
already seen" is read with its parenthesis — the reachable positions are finite and are
searched — and with the common rule that lost means no card can ever reach a foundation again.
So a position with legal moves (into cells, between piles) is lost when none of the positions
they reach lets a card go home.
"""

from __future__ import annotations

import pytest
from positions import make, pile, play, refuse, run, undo_all
from solrace.shared import Game, Status

V = "seven-by-five"
SEED = {"cells": "0", "empty_fill": "king"}
ALL_OPTIONS = [
    {"cells": c, "empty_fill": e} for c in ("0", "5") for e in ("king", "any")
]
EACH = pytest.mark.parametrize(
    "opts", ALL_OPTIONS, ids=[f"cells{o['cells']}-{o['empty_fill']}" for o in ALL_OPTIONS]
)
CELLS = [{"cells": "5", "empty_fill": e} for e in ("king", "any")]
# All four suits home up to the Nine: the Tens are the next cards each foundation needs.
NINES = {1: run("AC", "9C"), 2: run("AD", "9D"), 3: run("AH", "9H"), 4: run("AS", "9S")}


# ------------------------------------------------------------------ the deal


@EACH
@pytest.mark.parametrize("seed", [0, 3, 99])
def test_deal_seven_piles_of_8_8_8_7_7_7_7_all_face_up(opts: dict[str, str], seed: int) -> None:
    """Rule: 1 deck; tableau 7 piles dealt 8, 8, 8, 7, 7, 7, 7, all face up; no stock, no
    waste; 4 empty foundations; ``cells`` empty cells."""
    g = Game(V, opts, seed)
    lay = g.layout
    assert [len(g.pos.piles[t]) for t in lay.tableau] == [8, 8, 8, 7, 7, 7, 7]
    assert not any(g.pos.down)
    assert lay.stock == -1 and lay.waste == -1
    assert " s:" not in g.position_text() and " w:" not in g.position_text()
    assert len(lay.foundations) == 4 and g.cards_home == 0
    assert len(lay.cells) == int(opts["cells"])
    assert all(g.pos.piles[c] == [] for c in lay.cells)
    assert sorted(c for p in g.pos.piles for c in p) == list(range(52))


# ------------------------------------------------------------------ foundations


@EACH
def test_foundation_starts_with_an_ace(opts: dict[str, str]) -> None:
    """Rule: foundations, one per suit, built UP from Ace: an empty foundation takes only an
    Ace."""
    g = make(V, opts, f={1: "-"}, t=["AC", "2C"], rest="t7")  # 3♣..K♣ under t7's top
    assert refuse(g, "t2f1") == "does_not_fit"
    play(g, "t1f1", "t2f1")
    assert pile(g, "f1") == "AC2C"


@EACH
def test_foundation_builds_up_by_suit(opts: dict[str, str]) -> None:
    """Rule: foundations build UP by suit: the next rank of the same suit only."""
    g = make(V, opts, f={2: run("AD", "JD"), 3: run("AH", "JH")},
             t=["KH", "QD", "QH", "KD"])
    assert refuse(g, "t1f3") == "does_not_fit"  # skips the Queen
    assert refuse(g, "t2f3") == "does_not_fit"  # the next rank, but the wrong suit
    assert refuse(g, "t3f2") == "does_not_fit"  # the same
    play(g, "t3f3", "t1f3", "t2f2", "t4f2")
    assert g.status is Status.WON


@EACH
def test_full_foundation_accepts_nothing(opts: dict[str, str]) -> None:
    """Edge: a foundation complete to the King takes no further card (no wrapping round to
    the Ace)."""
    g = make(V, opts, f={1: "-"}, t=["AC"], rest="t7")
    assert pile(g, "f4").endswith("KS")
    assert not [m for m in g.legal_moves() if m.dst == "f4"]
    assert refuse(g, "t1f4") == "does_not_fit"


# ------------------------------------------------------------------ tableau


@EACH
def test_tableau_builds_down_in_alternating_colours(opts: dict[str, str]) -> None:
    """Rule: the tableau builds DOWN in alternating colours."""
    g = make(V, opts, t=["8S", "7C", "6H", "9H", "7H", "7D"], rest="t7")
    assert refuse(g, "t2t1") == "does_not_fit"  # same colour
    assert refuse(g, "t3t1") == "does_not_fit"  # two ranks down
    assert refuse(g, "t4t1") == "does_not_fit"  # up
    start = g.position_text()
    play(g, "t5t1")
    assert pile(g, "t1") == "8S7H"
    assert refuse(g, "t6t1") == "does_not_fit"  # the 8♠ is covered now
    undo_all(g, start)


@EACH
def test_one_card_moves_at_a_time(opts: dict[str, str]) -> None:
    """Rule: one card moves at a time, even when the top cards form a built sequence."""
    g = make(V, opts, t=["8S 7H", "9H", "9D"], rest="t7")
    assert refuse(g, "t1t2:2") == "bad_count"
    assert refuse(g, "t1t3:2") == "bad_count"
    assert not [m for m in g.legal_moves() if m.n > 1]


@EACH
def test_a_top_card_moves_to_a_pile_or_to_its_foundation(opts: dict[str, str]) -> None:
    """Rule: a top card may move to another pile or to its foundation; cards under it may
    not."""
    g = make(V, opts, f={4: run("AS", "9S")}, t=["TS 9H", "TC"], rest="t7")
    assert refuse(g, "t1f4") == "does_not_fit"  # the 10♠ is under the 9♥
    play(g, "t1t2", "t1f4")
    assert pile(g, "t2") == "TC9H"
    assert pile(g, "f4").endswith("9STS")


# ------------------------------------------------------------------ spaces


@pytest.mark.parametrize("cells", ["0", "5"])
def test_only_a_king_goes_into_an_empty_pile(cells: str) -> None:
    """Rule (empty_fill=king, the seed): only a King may go into an empty pile."""
    g = make(V, {"cells": cells, "empty_fill": "king"}, t={1: "QH", 2: "KC", 3: "KD"},
             rest="t7")
    assert refuse(g, "t1t4") == "does_not_fit"
    play(g, "t2t4")
    assert pile(g, "t4") == "KC"


@pytest.mark.parametrize("cells", ["0", "5"])
def test_any_card_goes_into_an_empty_pile(cells: str) -> None:
    """Option empty_fill=any (PySolFC): any card may go into a space, still one at a time."""
    g = make(V, {"cells": cells, "empty_fill": "any"}, t={1: "8S 7H", 2: "2D"}, rest="t7")
    assert refuse(g, "t1t4:2") == "bad_count"
    play(g, "t2t4", "t1t5")
    assert pile(g, "t4") == "2D" and pile(g, "t5") == "7H"


# ------------------------------------------------------------------ cells


@pytest.mark.parametrize("opts", CELLS, ids=["king", "any"])
def test_cells_hold_one_card_each_and_take_any_card(opts: dict[str, str]) -> None:
    """Option cells=5: five cells; a cell holds one card; any card may go to an empty cell."""
    g = make(V, opts, t=["KC QH 2D", "AS"], rest="t7")
    assert [pile(g, f"c{i}") for i in range(1, 6)] == [""] * 5
    start = g.position_text()
    play(g, "t1c1")  # a Two
    assert refuse(g, "t1c1") == "does_not_fit"  # taken
    play(g, "t1c2", "t1c3", "t2c5")  # a Queen, a King, an Ace (which could also go home)
    assert [pile(g, f"c{i}") for i in range(1, 6)] == ["2D", "QH", "KC", "", "AS"]
    assert refuse(g, "t7c4:2") == "bad_count"  # one card per cell
    undo_all(g, start)


@pytest.mark.parametrize("opts", CELLS, ids=["king", "any"])
def test_cell_card_goes_to_the_tableau_or_its_foundation(opts: dict[str, str]) -> None:
    """Option cells=5: a cell card may go to the tableau (building down in alternate colours)
    or to its foundation."""
    g = make(V, opts, f=NINES, t=["JD"], c=["TC", "TH", "TS"], rest="t7")
    assert refuse(g, "c2t1") == "does_not_fit"  # same colour
    play(g, "c1t1", "c3f4")
    assert pile(g, "t1") == "JDTC" and pile(g, "c1") == "" and pile(g, "c3") == ""
    assert pile(g, "f4").endswith("TS")


def test_cell_card_into_a_space_follows_empty_fill() -> None:
    """Options cells=5 with empty_fill: from a cell too, only a King goes into a space under
    ``king``; any card under ``any``."""
    king = make(V, {"cells": "5", "empty_fill": "king"}, c=["QH", "KH"], rest="t7")
    assert refuse(king, "c1t1") == "does_not_fit"
    play(king, "c2t1")
    anyc = make(V, {"cells": "5", "empty_fill": "any"}, c=["QH", "KH"], rest="t7")
    play(anyc, "c1t1")


def test_no_cells_in_the_seed_game() -> None:
    """Option cells=0 (the seed): there are no cells at all."""
    g = make(V, SEED, t=["KC QH"], rest="t7")
    assert len(g.layout.cells) == 0
    assert " c:" not in g.position_text()
    assert refuse(g, "t1c1") == "no_such_pile"


@pytest.mark.parametrize("opts", CELLS, ids=["king", "any"])
def test_foundation_cards_stay_home(opts: dict[str, str]) -> None:
    """Rule: moves go from a top card to a pile, a cell or its foundation; a foundation card
    never leaves (no take-back in this game)."""
    g = make(V, opts, f=NINES, t=["TC", "JD"], rest="t7")
    assert refuse(g, "f4c1") == "does_not_fit"
    assert refuse(g, "f1t2") == "does_not_fit"


# ------------------------------------------------------------------ won and lost


@EACH
def test_won_when_52_cards_are_home(opts: dict[str, str]) -> None:
    """Rule: won when all 52 cards are home; nothing moves afterwards."""
    g = make(V, opts, t={5: "KS"})
    assert g.status is Status.PLAYING
    play(g, "t5f4")
    assert g.status is Status.WON and g.cards_home == 52
    assert g.legal_moves() == []
    assert refuse(g, "f4t5") == "game_over"


# Positions with the Tens next for every foundation (``NINES``) and the Tens buried.
NO_MOVE = ["TC KC", "TD KD", "TH KH", "TS KS", "QC JC", "QD JD", "QH QS JS JH"]
KING_SHUTTLE = ["TS JH", "KC", "TC TD TH QC KD KH KS QD QH QS JC JD JS"]
CARD_SHUTTLE = ["KC KD KH KS TC TD TH TS QD QH JC JD JS QC", "QS JH"]
ONE_STEP = ["TS JH", "QC", "TC TD TH KC KD KH KS QD QH QS JC JD JS"]


@pytest.mark.parametrize("fill", ["king", "any"])
def test_lost_when_no_legal_move(fill: str) -> None:
    """Rule: lost when there is no legal move and cards are still out."""
    g = make(V, {"cells": "0", "empty_fill": fill}, f=NINES, t=NO_MOVE)
    assert g.legal_moves() == []
    assert g.status is Status.LOST


def test_not_lost_when_a_cell_frees_a_card() -> None:
    """Rule with cells=5: the same position is not lost: a King goes to a cell and a Ten home."""
    g = make(V, {"cells": "5", "empty_fill": "king"}, f=NINES, t=NO_MOVE)
    assert g.status is Status.PLAYING
    play(g, "t1c1", "t1f1")


def test_lost_when_only_a_king_shuttles_between_spaces() -> None:
    """Rule: lost when the only legal moves are shuttles (a King between empty piles)."""
    g = make(V, SEED, f=NINES, t=KING_SHUTTLE)
    assert {m.src for m in g.legal_moves()} == {"t2"}
    assert g.status is Status.LOST


@pytest.mark.parametrize("cells", ["0", "5"])
def test_lost_when_a_card_only_shuttles_between_two_piles(cells: str) -> None:
    """Rule: lost when every move only leads back to positions already seen (here the J♥
    between the two black Queens, and with cells, cards in and out of cells that never free
    a Ten)."""
    g = make(V, {"cells": cells, "empty_fill": "king"}, f=NINES, t=CARD_SHUTTLE)
    assert g.legal_moves()
    assert g.status is Status.LOST


def test_not_lost_when_any_card_may_fill_a_space() -> None:
    """Option empty_fill=any: the shuttle position above is not lost: cards moved into the
    spaces dig out a Ten (found by searching the reachable positions)."""
    g = make(V, {"cells": "0", "empty_fill": "any"}, f=NINES, t=CARD_SHUTTLE)
    assert not [m for m in g.legal_moves() if m.dst.startswith("f")]
    assert g.status is Status.PLAYING


@EACH
def test_not_lost_while_a_sequence_of_moves_reaches_a_foundation(opts: dict[str, str]) -> None:
    """Common rule: never lost while a move could still lead to progress: the J♥ onto the
    Q♣ uncovers the 10♠, which goes home."""
    g = make(V, opts, f=NINES, t=ONE_STEP)
    assert not [m for m in g.legal_moves() if m.dst.startswith("f")]
    assert g.status is Status.PLAYING
    play(g, "t1t2", "t1f4")
