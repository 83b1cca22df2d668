"""The solver's public functions: :func:`solve`, :func:`hint` and :func:`par`.

``solve`` takes either a live :class:`~solrace.shared.engine.Game` (it solves the current
position and leaves the game untouched) or a deal identity ``(variant, options, seed)``.
"""

from __future__ import annotations

from collections.abc import Mapping

from solrace.shared.engine import Game, Status
from solrace.shared.notation import Move
from solrace.shared.rules import Variant
from solrace.shared.solver.result import Budget, SolveResult
from solrace.shared.solver.search import search_game

DealId = tuple[str | Variant, Mapping[str, object] | None, int]

HINT_BUDGET = Budget(nodes=20_000)


def _game_of(target: Game | DealId) -> Game:
    if isinstance(target, Game):
        return target
    variant, options, seed = target
    return Game(variant, options, seed)


def solve(target: Game | DealId, budget: Budget | None = None) -> SolveResult:
    """Search for a win from ``target`` within ``budget`` (default: :class:`Budget`'s).

    The answer is ``won`` with a move list that replays to a win through ``Game.push`` from
    the current position, ``lost`` when no sequence of moves wins, or ``unknown`` when the
    budget ran out first. With a node budget the answer is deterministic.
    """
    return search_game(_game_of(target), budget or Budget())


def par(target: Game | DealId, budget: Budget | None = None) -> int | None:
    """The solver's move count for a win, or ``None`` when none was found within budget."""
    return solve(target, budget).par


def hint(game: Game, budget: Budget | None = None) -> Move | None:
    """The next move of a winning line from the current position, for practice games only.

    When the search finds no win within budget (or the position is lost) the hint falls back
    to the medium bot's choice, so a player still gets a sensible move; ``None`` when the game
    is over or no move is left.
    """
    if game.status is not Status.PLAYING:
        return None
    result = solve(game, budget or HINT_BUDGET)
    if result.moves:
        return result.moves[0]
    from solrace.shared.solver.bots import Bot

    return Bot("medium").choose(game)
