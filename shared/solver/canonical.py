"""Canonical position keys: one bytes value per class of positions that play identically.

The transposition table stores these keys, so two positions that differ only in ways the rules
cannot see are searched once. What the rules cannot see:

* the order of the tableau piles, of the reserve piles and of the cells — every pile of a kind
  obeys the same rules, so any permutation of them plays the same (each pile is written as
  its face-down count followed by its cards, then the piles are sorted);
* which foundation of a group holds what — foundations of one group are interchangeable, so
  the group is written as the sorted list of its top cards (a same-suit foundation's content
  is fixed by its top card; an empty foundation is 255);
* the suit of every card when no rule ever looks at suits (Double Aces and Kings: foundations
  regardless of suit and no building on the tableau) — then every card is written as its
  rank, and the 16 copies of a rank become one;
* duplicate cards of multi-deck games are the same integer in the engine already.

Stock and waste: drawing, redealing and playing the waste top never change the order of the
cards in "waste bottom-to-top, then stock top-to-bottom", they only move the boundary or take
cards out. With one deck that sequence is therefore fixed by which cards are elsewhere, and the
key records only the waste length; with one pass (no redeal) the stock is a suffix of the
dealt stock and the key records its length and the waste; otherwise both in full. Redeals used
are part of the key when they are limited (they limit the future).
"""

from __future__ import annotations

from collections.abc import Callable

from solrace.shared.engine import Game
from solrace.shared.rules import AutoFill, Build

EMPTY = 255
_PILE_SEP = b"\xff"
_PART_SEP = b"\xfe"
RANK_TABLE = bytes(i % 13 if i < 52 else i for i in range(256))


def suits_matter(game: Game) -> bool:
    """False when no rule of the game ever looks at a card's suit or colour."""
    rules = game.rules
    return rules.tableau.build is not Build.NONE or any(g.same_suit for g in rules.foundations)


_ONE = [bytes((i,)) for i in range(256)]  # byte i, prebuilt (the same bytes, faster)


def key_function(game: Game) -> Callable[[], bytes]:
    """A function of no arguments returning the key of ``game``'s current position.

    It reads ``game.pos`` each time, so it follows the game through ``_do`` and ``_revert``.
    Forty and Eight and Seven by Five get the same bytes from a closure written for their
    layout (one foundation group, suits kept, no reserves; tested against the general one).
    """
    fast = _special_key(game)
    return fast if fast is not None else general_key_function(game)


def _special_key(game: Game) -> Callable[[], bytes] | None:
    """:func:`general_key_function`'s key, fewer branches, where the layout allows it."""
    rules = game.rules
    pos = game.pos
    T, C, S, W = game._T, game._C, game._S, game._W
    if len(rules.foundations) != 1 or game._R or not suits_matter(game):
        return None
    grp = tuple(range(game.layout.foundations.start,
                      game.layout.foundations.start + rules.foundations[0].count))
    sep, part, one = _PILE_SEP, _PART_SEP, _ONE
    if S < 0 and C:  # Seven by Five with cells
        def key_cells() -> bytes:
            piles, down = pos.piles, pos.down
            return part.join([
                bytes(sorted([piles[i][-1] if piles[i] else EMPTY for i in grp])),
                sep.join(sorted([one[down[i]] + bytes(piles[i]) for i in T])),
                bytes(sorted([piles[i][0] if piles[i] else EMPTY for i in C])),
            ])
        return key_cells
    if (S >= 0 and not C and rules.decks > 1 and rules.redeals is not None
            and rules.redeals > 0):  # Forty and Eight: waste and stock, redeals limited
        def key_stock() -> bytes:
            piles, down = pos.piles, pos.down
            return part.join([
                bytes(sorted([piles[i][-1] if piles[i] else EMPTY for i in grp])),
                sep.join(sorted([one[down[i]] + bytes(piles[i]) for i in T])),
                bytes(piles[W]) + sep + bytes(piles[S]),
                one[min(pos.redeals, 250)],
            ])
        return key_stock
    return None


def general_key_function(game: Game) -> Callable[[], bytes]:
    """The key for any layout (what :func:`key_function` returns where no special form
    applies)."""
    rules = game.rules
    pos = game.pos
    table = None if suits_matter(game) else RANK_TABLE
    groups: list[tuple[int, ...]] = []
    f = game.layout.foundations.start
    for g in rules.foundations:
        groups.append(tuple(range(f, f + g.count)))
        f += g.count
    T, R, C = game._T, game._R, game._C
    S, W = game._S, game._W
    one_deck = rules.decks == 1
    one_pass = rules.redeals == 0
    limited = rules.redeals is not None
    # Unlimited redeals and nothing refilling a space: draws and redeals are free moves that
    # only shift the boundary of the fixed sequence "waste, then stock reversed", so positions
    # whose boundaries can reach each other by draws alone play identically. With draw 1 every
    # boundary reaches every other; with draw ``d`` the boundaries at multiples of ``d`` and at
    # the end reach each other (and nothing else reaches them all), any other one is itself.
    draw = rules.draw
    cycle = not limited and draw > 0 and rules.tableau.auto_fill is AutoFill.NONE

    def key() -> bytes:
        piles = pos.piles
        down = pos.down
        parts = []
        for grp in groups:
            tops = bytes([piles[i][-1] if piles[i] else EMPTY for i in grp])
            if table is not None:
                tops = tops.translate(table)  # before sorting: the order is by rank then
            parts.append(bytes(sorted(tops)))
        if table is None:
            parts.append(_PILE_SEP.join(sorted([_ONE[down[i]] + bytes(piles[i]) for i in T])))
        else:
            parts.append(
                _PILE_SEP.join(sorted(bytes((down[i],)) + bytes(piles[i]).translate(table)
                                      for i in T))
            )
        if R:
            if table is None:
                parts.append(_PILE_SEP.join(sorted([bytes(piles[i]) for i in R])))
            else:
                parts.append(_PILE_SEP.join(sorted([bytes(piles[i]).translate(table)
                                                    for i in R])))
        if C:
            parts.append(bytes(sorted([piles[i][0] if piles[i] else EMPTY for i in C])))
        if S >= 0:
            waste, stock = piles[W], piles[S]
            if cycle:
                k = len(waste)
                if draw == 1 or k % draw == 0 or not stock:
                    k = EMPTY  # any boundary of the free cycle
                if one_deck:
                    parts.append(bytes((k,)))
                else:
                    seq = waste + stock[::-1]
                    sb = bytes(seq) if table is None else bytes(seq).translate(table)
                    parts.append(sb + bytes((k,)))
            elif one_deck:
                parts.append(bytes((len(waste), len(stock))))
            else:
                wb = bytes(waste) if table is None else bytes(waste).translate(table)
                if one_pass:
                    parts.append(wb + _PILE_SEP + len(stock).to_bytes(2, "big"))
                else:
                    sb = bytes(stock) if table is None else bytes(stock).translate(table)
                    parts.append(wb + _PILE_SEP + sb)
            if limited:
                parts.append(bytes((min(pos.redeals, 250),)))
        return _PART_SEP.join(parts)

    return key
