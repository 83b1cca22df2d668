"""The vocabulary a variant is written in: rules as data, read by one generic engine.

A :class:`Rules` value says how many decks, which foundations (start rank, direction, suit
rule), how the tableau is dealt and built, what fills a space, the reserve, free cells, the
stock and its redeals. Each variant in :mod:`solrace.shared.variants` is a short function from
its options to a ``Rules``; nothing in a variant file is code that plays the game.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


class Build(enum.Enum):
    """How a card goes onto a non-empty tableau pile."""

    NONE = "none"  # never: tableau piles hold one card and take cards only into spaces
    DOWN_ALTERNATE_COLOUR = "down, alternate colour"
    DOWN_SAME_SUIT = "down, same suit"


class EmptyTableau(enum.Enum):
    """What the player may put into an empty tableau pile."""

    KING = "a King (or a group headed by a King)"
    ANY = "any single available card"


class AutoFill(enum.Enum):
    """What fills a tableau pile the moment it empties, inside the move that emptied it."""

    NONE = "nothing"
    WASTE_THEN_STOCK = "top of the waste, else top of the stock"
    STOCK = "top of the stock"


class LostCheck(enum.Enum):
    """How the engine proves a game lost (see ``solrace.shared.status``)."""

    REACHABILITY = "no reachable position puts another card home"
    KLONDIKE = "no tableau progress and no waste card ever playable"


@dataclass(frozen=True, slots=True, kw_only=True)
class FoundationGroup:
    """``count`` foundations that behave alike."""

    count: int
    start_rank: int  # the rank an empty foundation accepts (and that prefilled ones hold)
    step: int  # +1 builds up, -1 builds down
    same_suit: bool  # False: regardless of suit
    prefilled: bool = False  # starts holding its start card, taken out before the shuffle

    def __post_init__(self) -> None:
        if self.step not in (1, -1) or not 1 <= self.start_rank <= 13 or self.count < 1:
            raise ValueError(f"bad foundation group {self}")

    @property
    def end_rank(self) -> int:
        return 13 if self.step == 1 else 1

    @property
    def size(self) -> int:
        """Cards a complete foundation of this group holds."""
        return abs(self.end_rank - self.start_rank) + 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Tableau:
    deal: tuple[tuple[int, int], ...]  # per pile: (face-down cards, face-up cards)
    build: Build
    move_groups: bool = False  # a built run of face-up cards moves as one
    empty: EmptyTableau = EmptyTableau.ANY
    auto_fill: AutoFill = AutoFill.NONE

    @property
    def piles(self) -> int:
        return len(self.deal)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rules:
    """Everything the engine needs to know about one (variant, options)."""

    decks: int
    foundations: tuple[FoundationGroup, ...]
    tableau: Tableau
    reserve: tuple[int, ...] = ()  # face-up cards per reserve pile; tops play to foundations
    reserve_to_space: bool = False  # a reserve top may also go into an empty tableau pile
    cells: int = 0  # free cells, one card each
    draw: int = 0  # cards per draw from the stock to the waste; 0: no stock, no waste
    redeals: int | None = 0  # waste-to-stock turnovers allowed; None: unlimited
    foundation_to_tableau: bool = False  # a foundation top may come back to the tableau
    foundation_to_foundation: bool = False  # a foundation top may continue another foundation
    lost_check: LostCheck = LostCheck.REACHABILITY

    @property
    def total_cards(self) -> int:
        return 52 * self.decks

    def __post_init__(self) -> None:
        home = sum(g.count * g.size for g in self.foundations)
        if home != self.total_cards:
            raise ValueError(f"foundations hold {home} cards, the decks {self.total_cards}")
        dealt = sum(d + u for d, u in self.tableau.deal) + sum(self.reserve)
        prefilled = sum(g.count for g in self.foundations if g.prefilled)
        if dealt + prefilled > self.total_cards:
            raise ValueError("the layout deals more cards than the decks hold")
        if self.draw == 0 and dealt + prefilled != self.total_cards:
            raise ValueError("a variant without stock must deal every card")


@dataclass(frozen=True, slots=True)
class Option:
    """One option of a variant; ``values[0]`` is the default."""

    name: str
    values: tuple[str, ...]
    help: str

    @property
    def default(self) -> str:
        return self.values[0]


@dataclass(frozen=True, slots=True, kw_only=True)
class Variant:
    """A named game: its options and the function from options to :class:`Rules`."""

    name: str
    title: str
    summary: str
    options: tuple[Option, ...]
    make_rules: Callable[[Mapping[str, str]], Rules] = field(repr=False)
    #: Said wherever the variant is offered with its default options (``variants``, a race's
    #: lobby): what a player should know before choosing them. Empty: nothing to say.
    advice: str = ""

    def normalize(self, options: Mapping[str, object] | None = None) -> dict[str, str]:
        """Validated options with defaults filled in, in declaration order.

        Raises ``ValueError`` naming the bad option and the allowed values.
        """
        given = {str(k): str(v).lower() for k, v in (options or {}).items()}
        out: dict[str, str] = {}
        for opt in self.options:
            value = given.pop(opt.name, opt.default)
            if value not in opt.values:
                raise ValueError(
                    f"{self.name}: option {opt.name} must be one of "
                    f"{', '.join(opt.values)}, not {value!r}"
                )
            out[opt.name] = value
        if given:
            known = ", ".join(o.name for o in self.options) or "none"
            raise ValueError(f"{self.name}: unknown option {sorted(given)[0]!r} (known: {known})")
        return out

    def rules(self, options: Mapping[str, object] | None = None) -> Rules:
        return self.make_rules(self.normalize(options))


def options_text(options: Mapping[str, str]) -> str:
    """Canonical ``k=v,k=v`` form (sorted), used in keys, queues and deal identities."""
    return ",".join(f"{k}={options[k]}" for k in sorted(options))
