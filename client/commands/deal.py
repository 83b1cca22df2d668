"""Show the starting deal of (variant, options, seed).

A deal is a pure function of those three (``docs/deals.md``), so anyone who knows the seed —
after a race, when the server reveals it — can print the deal and check it against the
commitment published before play. The full position text is therefore public here: it is the
starting deal, nothing a player in a running race could learn from it.
"""

from __future__ import annotations

import argparse
from typing import Any

from solrace.client.commands import (
    add_deal_arguments,
    add_output_arguments,
    option_dict,
    print_json,
    use_color,
)
from solrace.client.render import paint, render_view
from solrace.shared.engine import Game
from solrace.shared.prng import commitment
from solrace.shared.views import view_of

NAME = "deal"
HELP = "show the starting deal of a variant and seed"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_deal_arguments(parser)
    add_output_arguments(
        parser,
        json_help="print {variant, options, seed, commitment, position, view} as JSON",
    )
    parser.add_argument(
        "--text", action="store_true", help="print only the position text (docs/variants.md)"
    )


def deal_json(game: Game) -> dict[str, Any]:
    """The ``deal --json`` document (schema in ``docs/variants.md``)."""
    return {
        "variant": game.variant.name,
        "options": dict(game.options),
        "seed": game.seed,
        "commitment": commitment(game.seed),
        "position": game.position_text(),
        "view": view_of(game).wire(),
    }


def run(args: argparse.Namespace) -> int:
    game = Game(args.variant, option_dict(args), args.seed)
    if args.json:
        print_json(deal_json(game))
        return 0
    if args.text:
        print(game.position_text())
        return 0
    color = use_color(args)
    print(render_view(view_of(game).wire(), color))
    print()
    print(paint(f"seed {game.seed} (0x{game.seed:016x})", "2", color))
    print(paint(f"commitment {commitment(game.seed)}", "2", color))
    return 0
