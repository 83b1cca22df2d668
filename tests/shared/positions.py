"""Build positions for the rule tests in a few lines, and check moves against them.

``Game.from_position`` demands every card exactly ``decks`` times, so a hand-written position
of a 208-card game would be pages long. Here a test names only the cards that matter and
:func:`position` puts every other card where it cannot interfere:

1. foundations the test leaves out are built in order from their start card as far as the
   unused cards allow. Foundation *k* of a same-suit group (counting from 0) holds suit
   *k* mod 4, so f1..f4 are clubs, diamonds, hearts, spades, and Sixes and Sevens' f1..f8
   are 6♣ 6♦ 6♥ 6♠ 6♣ 6♦ 6♥ 6♠ as dealt; a regardless-of-suit foundation takes any suit of
   the rank it needs, preferring the same order;
2. whatever cannot go home that way goes to the bottom of the ``rest`` pile: the stock by
   default, or any pile id the test names. In a variant without a stock the test must name
   one or use only cards that leave nothing over (the ends of suits: Kings for up-foundations,
   Aces for down-foundations).

Pile text is the position-text form (``notation.py``): cards bottom to top, lower case marks a
face-down tableau card, ``-`` or ``""`` is an empty pile; spaces between cards are allowed
for readability. Stock text is also bottom to top, so the *last* card is drawn first (see
:func:`top_first`).

This module is imported as ``positions`` (pytest puts ``tests/shared`` on ``sys.path``
because the test folders are not packages).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from solrace.shared import Game, IllegalMove, Move
from solrace.shared.cards import RANKS, SUITS, card_text, parse_card
from solrace.shared.layout import PileKind
from solrace.shared.variants import resolve

Piles = Sequence[str] | Mapping[int, str] | None


def cards_of(text: str) -> list[str]:
    """``"ah 7C"`` -> ``["ah", "7C"]``; ``"-"`` and ``""`` are empty."""
    text = text.replace(" ", "")
    if text in ("", "-"):
        return []
    if len(text) % 2:
        raise ValueError(f"odd pile text {text!r}")
    return [text[i : i + 2] for i in range(0, len(text), 2)]


def run(first: str, last: str) -> str:
    """Consecutive cards of one suit from ``first`` to ``last`` (up or down):
    ``run("AH", "3H") == "AH2H3H"``, ``run("6C", "4C") == "6C5C4C"``."""
    a, b = parse_card(first), parse_card(last)
    if a // 13 != b // 13:
        raise ValueError("a run is one suit")
    step = 1 if b >= a else -1
    return "".join(card_text(c) for c in range(a, b + step, step))


def top_first(text: str) -> str:
    """Stock text from cards listed in the order they will be drawn."""
    return "".join(reversed(cards_of(text)))


def _by_index(piles: Piles, count: int, group: str) -> dict[int, list[str]]:
    if piles is None:
        return {}
    items = piles.items() if isinstance(piles, Mapping) else enumerate(piles, start=1)
    out: dict[int, list[str]] = {}
    for i, text in items:
        if not 1 <= i <= count:
            raise ValueError(f"no pile {group}{i} (there are {count})")
        out[i] = cards_of(text)
    return out


def position(
    variant: str,
    options: Mapping[str, str] | None = None,
    *,
    f: Piles = None,
    t: Piles = None,
    r: Piles = None,
    c: Piles = None,
    s: str | None = None,
    w: str | None = None,
    n: int = 0,
    rest: str | None = None,
) -> str:
    """Position text of ``variant`` with the given piles and every other card out of the way
    (see the module docstring). ``f``/``t``/``r``/``c`` are lists (pile 1 first) or
    ``{pile number: text}``; piles not named are empty, except foundations, which are filled
    from the unused cards."""
    _, _, rules = resolve(variant, options)
    n_f = sum(g.count for g in rules.foundations)
    groups = {
        "f": _by_index(f, n_f, "f"),
        "t": _by_index(t, rules.tableau.piles, "t"),
        "r": _by_index(r, len(rules.reserve), "r"),
        "c": _by_index(c, rules.cells, "c"),
    }
    single = {"s": cards_of(s or ""), "w": cards_of(w or "")}
    if not rules.draw and (s or w):
        raise ValueError(f"{variant} has no stock or waste")

    unused = Counter({i: rules.decks for i in range(52)})
    named = [ch for g in groups.values() for p in g.values() for ch in p]
    for ch in named + single["s"] + single["w"]:
        card = parse_card(ch)
        unused[card] -= 1
        if unused[card] < 0:
            raise ValueError(f"{ch.upper()} used more than {rules.decks} times")

    # 1. foundations not named: built from their start card as far as the cards allow
    j = 0
    for grp in rules.foundations:
        for k in range(grp.count):
            j += 1
            if j in groups["f"]:
                continue
            pile: list[str] = []
            suits = [k % 4] if grp.same_suit else [(k + i) % 4 for i in range(4)]
            rank = grp.start_rank
            while suits and 1 <= rank <= 13:
                pick = next((x for x in suits if unused[x * 13 + rank - 1]), None)
                if pick is None:
                    break
                unused[pick * 13 + rank - 1] -= 1
                pile.append(RANKS[rank - 1] + SUITS[pick])
                rank += grp.step
            groups["f"][j] = pile

    # 2. the rest: bottom of the ``rest`` pile
    left = [card_text(card) for card in sorted(unused.elements())]
    if left:
        where = rest or ("s" if rules.draw else None)
        if where is None:
            raise ValueError(f"cards left over and no rest pile: {' '.join(left)}")
        if where in single:
            single[where] = left + single[where]
        else:
            kind, num = where[0], int(where[1:])
            groups[kind][num] = left + groups[kind].get(num, [])

    def text(piles: Mapping[int, list[str]], count: int) -> str:
        return "/".join("".join(piles.get(i, [])) or "-" for i in range(1, count + 1))

    parts = [f"f:{text(groups['f'], n_f)}", f"t:{text(groups['t'], rules.tableau.piles)}"]
    if rules.reserve:
        parts.append(f"r:{text(groups['r'], len(rules.reserve))}")
    if rules.cells:
        parts.append(f"c:{text(groups['c'], rules.cells)}")
    if rules.draw:
        parts.append(f"s:{''.join(single['s']).lower() or '-'}")
        parts.append(f"w:{''.join(single['w']) or '-'}")
    parts.append(f"n:{n}")
    return " ".join(parts)


def make(variant: str, options: Mapping[str, str] | None = None, **piles: Any) -> Game:
    """A game at :func:`position` (same arguments)."""
    return Game.from_position(variant, options, position(variant, options, **piles))


def pile(game: Game, pid: str) -> str:
    """One pile as position text (face-down tableau cards in lower case; ``""`` if empty)."""
    i = game.layout.index[pid]
    cards = game.pos.piles[i]
    down = len(cards) if game.layout.kinds[i] is PileKind.STOCK else game.pos.down[i]
    return "".join(card_text(x).lower() if k < down else card_text(x) for k, x in enumerate(cards))


def play(game: Game, *moves: str) -> Game:
    """Push each move after checking that the generator lists it too (``legal_moves`` and
    ``push`` must agree); returns the game for chaining."""
    for m in moves:
        assert Move.from_text(m) in game.legal_moves(), f"{m} missing from legal_moves"
        assert game.is_legal(m)
        game.push(m)
    return game


def refuse(game: Game, move: str) -> str:
    """Assert that ``move`` is illegal everywhere (push, is_legal, legal_moves) and that trying
    it changes nothing; return the ``IllegalMove.detail`` code."""
    before, count = game.position_text(), len(game.moves)
    assert Move.from_text(move) not in game.legal_moves()
    assert not game.is_legal(move)
    with pytest.raises(IllegalMove) as info:
        game.push(move)
    assert game.position_text() == before
    assert len(game.moves) == count
    return info.value.detail


def undo_all(game: Game, start: str) -> None:
    """Pop every move and check that the starting position text comes back exactly."""
    while game.moves:
        game.pop()
    assert game.position_text() == start


__all__ = [
    "cards_of",
    "make",
    "pile",
    "play",
    "position",
    "refuse",
    "run",
    "top_first",
    "undo_all",
]
