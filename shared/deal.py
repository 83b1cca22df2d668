"""Deals: a pure function of (variant, options, seed).

The order, specified in ``docs/deals.md``:

1. The decks in canonical order: deck 0..d-1, within a deck clubs, diamonds, hearts, spades,
   within a suit Ace..King (card ``i`` has face ``i % 52``).
2. Prefilled foundations take their start cards out first, in foundation order, each the
   first remaining card of its start rank in canonical order (so Sixes and Sevens' f1..f8
   hold 6♣ 6♦ 6♥ 6♠ 6♣ 6♦ 6♥ 6♠ and f9..f16 the Sevens likewise).
3. The remaining cards are shuffled by :class:`~solrace.shared.prng.DealStream`, keyed by
   the seed and by the deal's context ``"<variant>|<options as k=v,k=v sorted>"``, so the same
   seed gives unrelated deals in different variants or option sets.
4. The shuffled sequence is dealt from its start: tableau piles 1..n, each pile bottom to top
   (its face-down cards first), then reserve piles 1..m the same way; the rest is the stock,
   whose top (the next card drawn) is the next card of the sequence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from solrace.shared.layout import layout_of
from solrace.shared.prng import DealStream, seed_bytes
from solrace.shared.rules import Rules, Variant, options_text


@dataclass(slots=True)
class Position:
    """The full state of one game, hidden cards included: never sent anywhere as such.

    ``piles[i]`` lists pile ``i`` bottom to top (for the stock, the last element is the next card
    drawn); ``down[i]`` counts the face-down cards at the bottom of pile ``i`` (tableau only; the
    stock is hidden as a whole); ``redeals`` counts waste-to-stock turnovers made.
    """

    piles: list[list[int]]
    down: list[int]
    redeals: int = 0

    def copy(self) -> Position:
        return Position([p[:] for p in self.piles], self.down[:], self.redeals)


def deal(variant: str | Variant, options: Mapping[str, object] | None, seed: int) -> Position:
    """The starting position of (variant, options, seed)."""
    from solrace.shared.variants import resolve

    v, opts, rules = resolve(variant, options)
    return deal_position(v, opts, rules, seed)


def deal_context(variant: Variant, options: Mapping[str, str]) -> bytes:
    return f"{variant.name}|{options_text(options)}".encode()


def deal_position(
    variant: Variant, options: Mapping[str, str], rules: Rules, seed: int
) -> Position:
    piles, down = deal_objects(variant, options, rules, seed)
    return Position([[c % 52 for c in pile] for pile in piles], down, 0)


def deal_objects(
    variant: Variant, options: Mapping[str, str], rules: Rules, seed: int
) -> tuple[list[list[int]], list[int]]:
    """The deal as physical cards: ``(piles, down)`` like :class:`Position`, but each card is
    its index ``0 .. 52 * decks - 1`` in the canonical order (face ``i % 52``, deck
    ``i // 52``), so that two equal faces of different decks stay apart. The engine plays
    faces; spectator masking (:mod:`solrace.shared.masking`) follows the objects."""
    seed_bytes(seed)  # validates the range
    layout = layout_of(rules)
    cards = list(range(52 * rules.decks))
    piles: list[list[int]] = [[] for _ in range(layout.size)]
    down = [0] * layout.size

    f = layout.foundations.start
    for group in rules.foundations:
        for _ in range(group.count):
            if group.prefilled:
                pick = next(c for c in cards if c % 13 + 1 == group.start_rank)
                cards.remove(pick)
                piles[f].append(pick)
            f += 1

    DealStream(seed, deal_context(variant, options)).shuffle(cards)
    it = iter(cards)
    for p, (n_down, n_up) in zip(layout.tableau, rules.tableau.deal):
        piles[p] = [next(it) for _ in range(n_down + n_up)]
        down[p] = n_down
    for p, size in zip(layout.reserve, rules.reserve):
        piles[p] = [next(it) for _ in range(size)]
    rest = list(it)
    if layout.stock >= 0:
        piles[layout.stock] = rest[::-1]  # the next card of the sequence is the top
    elif rest:
        raise AssertionError("cards left over in a variant without stock")
    return piles, down
