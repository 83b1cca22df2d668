"""Moves and positions as text, like UCI and FEN in chess.

Move: ``<from><to>[:<count>]`` with pile ids ``f1..f16`` (foundations), ``t1..t9`` (tableau),
``r1..r4`` (reserve), ``c1..c5`` (cells), ``s`` (stock), ``w`` (waste). ``sw`` draws from the
stock, ``ws`` turns the waste over into the stock, ``t3t5:3`` moves the top three cards of t3 onto
t5. The count is written only when it is more than one.

Position: space-separated groups ``f:`` ``t:`` ``r:`` ``c:`` ``s:`` ``w:`` (only those the variant
has) and ``n:<redeals used>``. Piles within a group are separated by ``/``, an empty pile is
``-``, cards run bottom to top, face-down cards (and all stock cards) in lower case. Example
(Unlimited)::

    f:-/-/-/- t:QD/ah7C/... s:kd5s... w:- n:0
"""

from __future__ import annotations

import re
from typing import NamedTuple

from solrace.shared.cards import card_text, parse_card
from solrace.shared.deal import Position
from solrace.shared.errors import NotationError
from solrace.shared.layout import Layout, PileKind

_PILE = r"(?:s|w|[ftrc][1-9][0-9]?)"
_MOVE_RE = re.compile(rf"^({_PILE})({_PILE})(?::([1-9][0-9]?))?$")


class Move(NamedTuple):
    """A move between two piles: ``Move.from_text("t3t5:3")`` / ``move.text()``."""

    src: str
    dst: str
    n: int = 1

    @classmethod
    def from_text(cls, text: str) -> Move:
        # Every move a server applies arrives as text: valid texts are remembered (a bounded
        # set: the count has at most two digits, and the cache stops growing at a cap)
        known = _PARSED.get(text) if type(text) is str and cls is Move else None
        if known is not None:
            return known
        move = cls._parse(text)
        if cls is Move and len(_PARSED) < _PARSED_CAP:
            _PARSED[text] = move
        return move

    @classmethod
    def _parse(cls, text: str) -> Move:
        m = _MOVE_RE.match(text.strip().lower()) if isinstance(text, str) else None
        if m is None:
            raise NotationError(f"not a move: {text!r} (expected e.g. t3t5, wf2, t1t4:3, sw)")
        src, dst, count = m.groups()
        if src == dst:
            raise NotationError(f"not a move: {text!r} (a pile onto itself)")
        return cls(src, dst, int(count) if count else 1)

    def text(self) -> str:
        return f"{self.src}{self.dst}" + (f":{self.n}" if self.n != 1 else "")

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Move.from_text({self.text()!r})"


_PARSED: dict[str, Move] = {}
_PARSED_CAP = 20_000

DRAW = Move("s", "w")
REDEAL = Move("w", "s")

_GROUP_ORDER = (
    PileKind.FOUNDATION,
    PileKind.TABLEAU,
    PileKind.RESERVE,
    PileKind.CELL,
    PileKind.STOCK,
    PileKind.WASTE,
)


def _pile_text(cards: list[int], n_down: int) -> str:
    if not cards:
        return "-"
    return "".join(
        card_text(c).lower() if i < n_down else card_text(c) for i, c in enumerate(cards)
    )


def position_text(layout: Layout, pos: Position) -> str:
    """The full position, hidden cards included (for the engine, solver and tests only)."""
    groups: dict[PileKind, list[str]] = {}
    for i, kind in enumerate(layout.kinds):
        n_down = len(pos.piles[i]) if kind is PileKind.STOCK else pos.down[i]
        groups.setdefault(kind, []).append(_pile_text(pos.piles[i], n_down))
    parts = [f"{k.value}:{'/'.join(groups[k])}" for k in _GROUP_ORDER if k in groups]
    parts.append(f"n:{pos.redeals}")
    return " ".join(parts)


def parse_position(layout: Layout, text: str) -> Position:
    """Inverse of :func:`position_text`; checks the shape against the layout, not the rules."""
    fields: dict[str, str] = {}
    for token in text.split():
        key, sep, value = token.partition(":")
        if not sep or key in fields:
            raise NotationError(f"bad position field {token!r}")
        fields[key] = value
    piles: list[list[int]] = [[] for _ in range(layout.size)]
    down = [0] * layout.size
    for kind in _GROUP_ORDER:
        indexes = [i for i, k in enumerate(layout.kinds) if k is kind]
        if not indexes:
            if kind.value in fields:
                raise NotationError(f"this variant has no {kind.name.lower()} piles")
            continue
        raw = fields.pop(kind.value, None)
        if raw is None:
            raise NotationError(f"position lacks the {kind.value}: group")
        texts = raw.split("/")
        if len(texts) != len(indexes):
            raise NotationError(f"{kind.value}: needs {len(indexes)} piles, has {len(texts)}")
        for i, pile in zip(indexes, texts):
            if pile == "-":
                continue
            if len(pile) % 2:
                raise NotationError(f"bad pile {pile!r}")
            chunks = [pile[j : j + 2] for j in range(0, len(pile), 2)]
            try:
                piles[i] = [parse_card(ch) for ch in chunks]
            except ValueError as exc:
                raise NotationError(str(exc)) from None
            lowered = [ch == ch.lower() for ch in chunks]  # the suit letter carries the case
            n_down = lowered.index(False) if False in lowered else len(lowered)
            if kind is PileKind.TABLEAU:
                if any(lowered[n_down:]):
                    raise NotationError(f"face-down card above a face-up one in {pile!r}")
                if n_down == len(chunks):
                    raise NotationError(f"the top card of {pile!r} must be face up")
                down[i] = n_down
            elif kind is PileKind.STOCK:
                if not all(lowered):
                    raise NotationError(f"stock cards are face down (lower case): {pile!r}")
            elif any(lowered):
                raise NotationError(f"{kind.name.lower()} cards are face up (upper case): "
                                    f"{pile!r}")
    redeals = fields.pop("n", "0")
    if fields:
        raise NotationError(f"unknown position fields {sorted(fields)}")
    if not redeals.isdigit():
        raise NotationError(f"bad redeal count {redeals!r}")
    return Position(piles, down, int(redeals))
