"""solrace.shared — the sans-I/O core: cards, deals, variants, engine, views, notation.

Nothing here imports asyncio, sockets or Redis; everything is synchronous and deterministic.

    >>> from solrace.shared import Game
    >>> g = Game("unlimited", {"draw": "3"}, seed=42)
    >>> g.push("sw")
    Move.from_text('sw')
"""

# first (sorted first too): the import hook for the compiled hot modules (shared/accel.py)
from solrace.shared import accel as _accel  # noqa: F401
from solrace.shared.cards import card_symbol, card_text, parse_card
from solrace.shared.deal import Position, deal
from solrace.shared.engine import Game, Status
from solrace.shared.errors import IllegalMove, NotationError, OptionError, SolraceError
from solrace.shared.notation import DRAW, REDEAL, Move
from solrace.shared.prng import DealStream, commitment
from solrace.shared.rules import Rules, Variant, options_text
from solrace.shared.variants import VARIANTS, get_variant, resolve
from solrace.shared.views import View, apply_delta, delta, view_of

__all__ = [
    "DRAW",
    "REDEAL",
    "VARIANTS",
    "DealStream",
    "Game",
    "IllegalMove",
    "Move",
    "NotationError",
    "OptionError",
    "Position",
    "Rules",
    "SolraceError",
    "Status",
    "Variant",
    "View",
    "apply_delta",
    "card_symbol",
    "card_text",
    "commitment",
    "deal",
    "delta",
    "get_variant",
    "options_text",
    "parse_card",
    "resolve",
    "view_of",
]
