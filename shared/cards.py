"""Cards as small integers.

A card face is ``suit * 13 + (rank - 1)``: 0..51. Several decks hold identical faces, so the
engine only ever stores faces; the deck a card came from matters only while dealing (see
:mod:`solrace.shared.deal`). Integers keep piles cheap to copy, hash and compare, which is what
the solver needs.

Suits are in bridge order: clubs, diamonds, hearts, spades. Text form is rank then suit,
``"TD"`` for the ten of diamonds; lower case marks a face-down card in position text.
"""

from __future__ import annotations

from typing import NewType

Card = NewType("Card", int)

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RED_SUITS = frozenset({1, 2})

ACE = 1
KING = 13


def card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (1..13) and ``suit`` (0..3)."""
    if not 1 <= rank <= 13 or not 0 <= suit <= 3:
        raise ValueError(f"no card with rank {rank} and suit {suit}")
    return Card(suit * 13 + rank - 1)


def rank(c: int) -> int:
    """1 (Ace) .. 13 (King)."""
    return c % 13 + 1


def suit(c: int) -> int:
    """0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    return c // 13


def is_red(c: int) -> bool:
    return 13 <= c < 39


def card_text(c: int) -> str:
    """``"QS"``; the inverse of :func:`parse_card`."""
    return RANKS[c % 13] + SUITS[c // 13]


def card_symbol(c: int) -> str:
    """``"Q♠"``, for people."""
    return RANKS[c % 13] + SUIT_SYMBOLS[c // 13]


def parse_card(text: str) -> Card:
    """Parse ``"QS"`` (either case; the case carries face-down-ness, which callers read)."""
    if len(text) != 2:
        raise ValueError(f"not a card: {text!r}")
    r = RANKS.find(text[0].upper())
    s = SUITS.find(text[1].upper())
    if r < 0 or s < 0:
        raise ValueError(f"not a card: {text!r}")
    return Card(s * 13 + r)


# Precomputed tables: the engine's hot paths index these instead of dividing.
RANK_OF = tuple(c % 13 + 1 for c in range(52))
SUIT_OF = tuple(c // 13 for c in range(52))
RED_OF = tuple(13 <= c < 39 for c in range(52))
