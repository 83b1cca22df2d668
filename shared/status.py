"""Is the game won, lost or still playing?

``lost`` is declared only when it is certain (``rules/README.md``): never while some sequence
of moves could still put another card home. Two proofs, chosen by ``Rules.lost_check``:

* ``REACHABILITY`` (every variant without unlimited redeals): when the stock can bring no new
  card (stock empty, no redeal left), the positions reachable without a foundation gain are
  finite. A depth-first search over them (tableau piles and cells canonically sorted, since
  they are interchangeable) looks for one where another card goes home. None found: lost.
  The search has a node budget; when the budget runs out the answer is "not sure", so the game
  stays ``playing`` and the player resigns or the clock ends it.
* ``KLONDIKE`` (Unlimited): the waste and stock cycle forever, so the check is the one the
  rules page gives: no tableau move turns up a card, empties a column or plays home, and no
  card that can ever reach the top of the waste plays anywhere. With foundation take-back a
  foundation card that could come back to the tableau also counts as "not sure".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from solrace.shared.rules import LostCheck

if TYPE_CHECKING:
    from solrace.shared.engine import Game, Status

REACHABILITY_BUDGET = 2_000


def compute_status(game: Game) -> Status:
    from solrace.shared.engine import Status

    if game.cards_home == game.total_cards:
        return Status.WON
    moves = game._legal()
    if not moves:
        return Status.LOST
    if game.rules.lost_check is LostCheck.KLONDIKE:
        return Status.LOST if klondike_stuck(game, moves) else Status.PLAYING
    if progress_reachable(game, REACHABILITY_BUDGET) is False:
        return Status.LOST
    return Status.PLAYING


def _stock_can_deliver(game: Game) -> bool:
    S = game._S
    if S < 0:
        return False
    piles = game.pos.piles
    return bool(piles[S]) or (bool(piles[game._W]) and game._redeal_allowed())


def _key(game: Game) -> tuple[object, ...]:
    piles = game.pos.piles
    parts: list[object] = [tuple(piles[i]) for i in game._F]
    parts.append(tuple(sorted(tuple(piles[i]) for i in game._T)))
    parts.extend(tuple(piles[i]) for i in game._R)
    parts.append(tuple(sorted(tuple(piles[i]) for i in game._C)))
    if game._W >= 0:
        parts.append(tuple(piles[game._W]))
    return tuple(parts)


def progress_reachable(game: Game, budget: int) -> bool | None:
    """True when some sequence of moves puts another card home, False when none can, None when
    the budget ran out first. Only answers (other than True) while the stock can deliver
    nothing new; the game is left exactly as it was."""
    if _stock_can_deliver(game):
        return True
    home = game.cards_home
    for s, d, _ in game._legal():
        if d in game._F and s not in game._F:
            return True
    seen = {_key(game)}
    path: list[list[tuple[int, ...]]] = []
    stack = [iter(game._legal())]
    nodes = 0
    try:
        while stack:
            triple = next(stack[-1], None)
            if triple is None:
                stack.pop()
                if path:
                    game._revert(path.pop())
                continue
            ops = game._do(*triple)
            if game.cards_home > home:
                game._revert(ops)
                return True
            k = _key(game)
            if k in seen:
                game._revert(ops)
                continue
            seen.add(k)
            nodes += 1
            if nodes > budget:
                game._revert(ops)
                return None
            path.append(ops)
            stack.append(iter(game._legal()))
        return False
    finally:
        while path:
            game._revert(path.pop())


def waste_reachable(game: Game) -> list[int]:
    """Cards that can become the top of the waste by drawing and redealing alone.

    Drawing and redealing keep the combined sequence (waste bottom to top, then stock top to
    bottom) fixed, so the state is just the waste length; simulate until it repeats."""
    piles = game.pos.piles
    waste, stock = piles[game._W], piles[game._S]
    seq = waste + stock[::-1]
    total = len(seq)
    draw = game.rules.draw
    redeals_left = None if game.rules.redeals is None else game.rules.redeals - game.pos.redeals
    k = len(waste)
    tops: list[int] = []
    seen: set[int] = set()
    while k not in seen:
        seen.add(k)
        if k:
            tops.append(seq[k - 1])
        if k == total:
            if redeals_left == 0 or total == 0:
                break
            if redeals_left is not None:
                redeals_left -= 1
                seen.clear()
            k = 0
        else:
            k = min(k + draw, total)
    return tops


def klondike_stuck(game: Game, moves: list[tuple[int, int, int]]) -> bool:
    piles, down = game.pos.piles, game.pos.down
    F, T = set(game._F), set(game._T)
    for s, d, n in moves:
        if d in F and s not in F:
            return False  # plays home
        if s in T and d in T:
            left = len(piles[s]) - n
            if left and left == down[s]:
                return False  # turns up a card
            if left == 0 and piles[d]:
                return False  # empties a column (not a King shuttle between spaces)
        if s in F and d in T:
            return False  # take-back: not sure
    for c in waste_reachable(game):
        if any(game._fits_foundation(c, f) for f in game._F):
            return False
        if any(game._fits_tableau(c, t, 1) for t in game._T):
            return False
    return True


__all__ = ["compute_status", "klondike_stuck", "progress_reachable", "waste_reachable"]
