"""The solver's view of a ranked game's line: computed after the game, in a worker process.

Why: timing alone cannot tell a person from a bot that waits like one and pads its line with
harmless extra moves. What such a bot cannot hide is *which* moves it makes: at a position
where a person has many reasonable moves, it plays the one the solver plays. So, after the
game, the player's line is replayed and, at positions sampled along it, the solver searches
from that position (a node budget: deterministic, bounded CPU). The player *agrees* at a
position when their move there is the solver's first move. Positions with at most one
legal move, and moves that only send a card home, are not sampled: everyone agrees there.

The solver sees every card, hidden ones included; that is fine here, because the analysis
runs after the game and its answers go to moderators only (docs/fairplay.md).

Wasted moves — moves that bring back a position the player had already had — are counted too:
a padding bot shuffles a card out and back; a person does that rarely.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from solrace.shared.engine import Game, Status
from solrace.shared.solver import Budget, solve

#: Positions sampled along a line, and the solver's node budget at each: about a second of one
#: core for a Seven by Five daily line (bench/fairplay.py, "CPU s / analysis").
SAMPLES = 8
NODES = 20_000


def _choice_plies(game: Game, moves: Sequence[str]) -> list[int]:
    """The plies (index of the move played there) where the player had a real choice: at
    least two legal moves, and the move played does not send a card home."""
    out = []
    foundations = set(game.layout.foundations)
    for i, text in enumerate(moves):
        legal = game.legal_triples()
        move = game.push(text)
        if len(legal) >= 2 and game.layout.index[move.dst] not in foundations:
            out.append(i)
    return out


def _spread(items: list[int], k: int) -> list[int]:
    """``k`` items spread evenly over ``items`` (all when fewer)."""
    if len(items) <= k:
        return items
    return [items[(j * (len(items) - 1)) // (k - 1)] for j in range(k)] if k > 1 else items[:1]


def _first_move(game: Game, nodes: int) -> str | None:
    """The solver's first move from ``game``'s position, or None (no win found in budget)."""
    result = solve(game, Budget(nodes=nodes, seconds=None))
    return result.moves[0].text() if result.moves else None


def analyse(variant: str, options: Mapping[str, str], seed: int, moves: Sequence[str], *,
            samples: int = SAMPLES, nodes: int = NODES) -> dict[str, Any]:
    """The solver's view of one line (pure; seconds of CPU: run it in a worker process).

    Returns ``agreement`` (share of decided samples where the player's move was the solver's
    first move; None when nothing could be decided), ``samples``/``agreed``/``undecided``,
    ``wasted`` (moves that brought back an earlier position), the budget and ``cpu_ms``.
    """
    started = time.process_time()
    game = Game(variant, options, seed)
    plies = _choice_plies(game.copy(), moves)
    picked = set(_spread(plies, samples))
    seen = {game.position_text()}
    agreed = undecided = wasted = 0
    for i, text in enumerate(moves):
        if game.status is not Status.PLAYING:
            break
        if i in picked:
            played = game.copy().push(text).text()
            best = _first_move(game.copy(), nodes)
            undecided += best is None
            agreed += best is not None and best == played
        game.push(text)
        key = game.position_text()
        wasted += key in seen
        seen.add(key)
    decided = len(picked) - undecided
    return {
        "samples": len(picked), "agreed": agreed, "undecided": undecided,
        "agreement": round(agreed / decided, 4) if decided else None,
        "wasted": wasted,
        "nodes": nodes, "cpu_ms": round((time.process_time() - started) * 1000),
    }


__all__ = ["NODES", "SAMPLES", "analyse"]
