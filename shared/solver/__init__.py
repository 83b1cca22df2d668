"""The solver: certifies deals, computes par, gives hints and drives practice bots.

It is *thoughtful*: it sees every card, face-down and stock cards included, exactly as the
engine's :class:`~solrace.shared.deal.Position` holds them. That is right for the server's uses —
certifying that a daily deal can be won, and the par (the solver's move count) published after a
race — and it is why a hint or a bot move is never offered in ranked play: it would leak hidden
cards. Nothing here does I/O; ``docs/solver.md`` explains the search and its proofs.

    >>> from solrace.shared.solver import solve, Budget
    >>> result = solve(("seven-by-five", {"cells": "5", "empty_fill": "any"}, 1), Budget(50_000))
    >>> result.outcome.value
    'won'
"""

from solrace.shared.solver.api import hint, par, solve
from solrace.shared.solver.bots import Bot, Strength
from solrace.shared.solver.result import Budget, Outcome, SolveResult

__all__ = ["Bot", "Budget", "Outcome", "SolveResult", "Strength", "hint", "par", "solve"]
