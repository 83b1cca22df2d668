"""Still winnable? Whether a win exists from a game's current position, as a practice game's
live indicator says it (docs/protocol.md, ``winnable``).

Only proofs are believed, as in :mod:`solrace.shared.learning.lost`: ``winnable`` needs the
solver's line to replay to a win through ``Game.push`` (checked here again), ``lost`` needs the
solver's ``lost`` answer (every reachable position was searched: no sequence of moves wins);
anything else — the budget ran out first — is ``undecided`` and claims nothing.

What ``winnable`` claims depends on what is still hidden *now*: the solver reads face-down cards
and the stock order (docs/solver.md, "thoughtful" solitaire). While any tableau card is face
down or the stock holds a card, the claim is "a win exists from here for the cards as they lie"
— the player may not be able to find it from what they see; once every card is in sight it is
plainly "a win exists from here". A ``lost`` answer holds for every player whatever they see:
if no sequence of moves wins knowing every card, none wins without knowing them.

Pure and synchronous; up to seconds of CPU: the server runs it in a worker process.
"""

from __future__ import annotations

from typing import Any

from solrace.shared.engine import Game, Status
from solrace.shared.solver import Budget, Outcome, solve
from solrace.shared.views import view_of

CLAIM_OPEN = "a win exists from here"
CLAIM_HIDDEN = "a win exists from here for the cards as they lie (the solver sees hidden cards)"
CLAIM_LOST = "no sequence of moves wins from here"


def hidden_now(game: Game) -> bool:
    """Whether the position hides a card from its player: a face-down tableau card, or a card
    in the stock (whose order the player does not know)."""
    return any(pile.hidden > 0 for pile in view_of(game).piles
               if pile.id.startswith("t") or pile.id == "s")


def still_winnable(game: Game, budget: Budget) -> dict[str, Any]:
    """``{"outcome", "claim"}`` for ``game``'s current position: ``winnable`` (a replayed win),
    ``lost`` (a proof) or ``undecided`` (no answer within ``budget``; ``claim`` None)."""
    if game.status is Status.WON:
        return {"outcome": "winnable", "claim": CLAIM_OPEN}
    result = solve(game.copy(), budget)
    if result.outcome is Outcome.WON:
        check = game.copy()
        for move in result.moves:
            check.push(move.text())
        if check.status is Status.WON:
            return {"outcome": "winnable",
                    "claim": CLAIM_HIDDEN if hidden_now(game) else CLAIM_OPEN}
    elif result.outcome is Outcome.LOST:
        return {"outcome": "lost", "claim": CLAIM_LOST}
    return {"outcome": "undecided", "claim": None}


__all__ = ["CLAIM_HIDDEN", "CLAIM_LOST", "CLAIM_OPEN", "hidden_now", "still_winnable"]
