"""Play a list of moves on a deal and show where they lead.

For checking a move log (a race's log is public once the seed is revealed), for trying lines
by hand and for bug reports. Moves use the notation of ``docs/variants.md`` (``t3t5:3``, ``sw``,
``ws``, ``wf2``); several may share one argument, separated by spaces or commas. The first move
that does not parse or is illegal stops the replay with its number, its text and the reason.

``--analyse`` asks the solver, on this machine, where the line lost (``docs/solver.md``,
"The move that lost it"): the line and the deal are the player's own or a finished race's
public log, so nothing hidden is learnt that the published seed does not already tell.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from solrace.client.commands import (
    CommandError,
    add_deal_arguments,
    add_output_arguments,
    option_dict,
    print_json,
    use_color,
)
from solrace.client.render import paint, render_view
from solrace.shared.engine import Game
from solrace.shared.errors import IllegalMove, NotationError
from solrace.shared.views import view_of

NAME = "replay"
HELP = "apply moves to a deal and show the final position"

LEGAL_SHOWN = 24  # legal moves listed after an illegal one


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_deal_arguments(parser, seed_required=True)
    add_output_arguments(
        parser,
        json_help="print {variant, options, seed, moves, status, home, total, view} as JSON",
    )
    parser.add_argument(
        "--text", action="store_true", help="print only the final position text"
    )
    parser.add_argument(
        "--analyse", action="store_true",
        help="find the move that lost the line and a win from just before it "
             "(or, for a won line, moves over par and the longest detour)",
    )
    parser.add_argument("moves", nargs="*", metavar="MOVE", help="moves, e.g. t3t5:3 sw wf2")


def split_moves(args: list[str]) -> list[str]:
    return [m for a in args for m in re.split(r"[\s,]+", a) if m]


def _legal_hint(game: Game) -> str:
    legal = [m.text() for m in game.legal_moves()]
    if not legal:
        return "no legal move here"
    more = f" … ({len(legal) - LEGAL_SHOWN} more)" if len(legal) > LEGAL_SHOWN else ""
    return "legal here: " + " ".join(legal[:LEGAL_SHOWN]) + more


def replay(game: Game, moves: list[str]) -> None:
    """Push ``moves``; the first bad one raises :class:`CommandError` naming it."""
    for number, text in enumerate(moves, 1):
        try:
            game.push(text)
        except NotationError as exc:
            raise CommandError(f"move {number} {text!r}: {exc.reason}") from None
        except IllegalMove as exc:
            raise CommandError(
                f"move {number} {text!r} is illegal: {exc.reason} ({exc.detail})\n"
                f"  {_legal_hint(game)}"
            ) from None


def replay_json(game: Game) -> dict[str, Any]:
    view = view_of(game).wire()
    return {
        "variant": game.variant.name,
        "options": dict(game.options),
        "seed": game.seed,
        "moves": [m.text() for m in game.moves],
        "status": view["status"],
        "home": view["home"],
        "total": view["total"],
        "view": view,
    }


def analysis_lines(result: dict[str, Any]) -> list[str]:
    """The analysis in a player's words; ``undecided`` names no move."""
    kind = result["result"]
    budget = f"(solver: {result['probes']} positions, {result['nodes']} nodes each)"
    if kind == "found":
        return [f"the move that lost it: move {result['ply'] + 1} {result['move']}",
                f"before it, {result['claim']}:",
                "  " + " ".join(result["continuation"]), budget]
    if kind == "winnable_at_end":
        return [f"the line never lost: at its end {result['claim']}:",
                "  " + " ".join(result["continuation"]), budget]
    if kind == "lost_from_start":
        return ["no move lost it: the deal itself has no win (proven)", budget]
    if kind == "won":
        par = result["par"]
        lines = [f"won in {result['moves']} moves; par {par}, {result['over_par']} over par"
                 if par is not None else f"won in {result['moves']} moves; par not found"]
        detour = result["detour"]
        lines.append(f"longest detour: moves {detour['from'] + 1}-{detour['to']} came back to "
                     f"the position before move {detour['from'] + 1}" if detour
                     else "no detour: the line never came back to a position")
        return [*lines, budget]
    lo, hi = result["between"]
    where = (f"somewhere between move {lo + 1} and move {hi}" if lo is not None
             and hi is not None else "nowhere decided")
    return [f"undecided: the solver could not decide within its budget ({where}); "
            "no move is named", budget]


def run(args: argparse.Namespace) -> int:
    game = Game(args.variant, option_dict(args), args.seed)
    moves = split_moves(args.moves)
    replay(game, moves)
    if args.analyse:
        from solrace.shared.learning.lost import find_losing_move

        result = find_losing_move(game.variant.name, dict(game.options), args.seed,
                                  [m.text() for m in game.moves])
        if args.json:
            print_json({**replay_json(game), "analysis": result})
        else:
            print("\n".join(analysis_lines(result)))
        return 0
    if args.json:
        print_json(replay_json(game))
        return 0
    if args.text:
        print(game.position_text())
        return 0
    color = use_color(args)
    view = view_of(game).wire()
    print(render_view(view, color))
    print()
    print(
        f"status: {paint(view['status'], '1', color)}   "
        f"home: {view['home']}/{view['total']}   moves: {view['moves']}"
    )
    return 0
