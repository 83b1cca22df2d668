"""Make a winning line shorter, so that par means something.

Depth-first search wanders: it never revisits a position, but it reaches the win through long
detours. :func:`shorten` walks the line once; at each position it tries every edge out of it
and, when one lands exactly on a position further along the line in fewer moves, it takes
that shortcut (and when the line comes back to the very same position later, it skips the loop
outright). Positions are compared exactly, not up to symmetry, so the spliced line still
replays move for move. The work is capped by ``max_edges`` edges tried, which keeps it
deterministic and bounded.
"""

from __future__ import annotations

import time

from solrace.shared.engine import Game
from solrace.shared.solver.moves import MoveGen, Triple

_SEP = b"\xff"


def _exact(game: Game, limited: bool) -> bytes:
    pos = game.pos
    tail = bytes(pos.down) + (pos.redeals.to_bytes(4, "big") if limited else b"")
    return _SEP.join([bytes(p) for p in pos.piles]) + b"\xfe" + tail


def shorten(game: Game, line: list[Triple], max_edges: int = 20_000,
            deadline: float | None = None) -> list[Triple]:
    """A line from ``game``'s position to the same win, never longer than ``line``.

    ``game`` is used as scratch and left at its starting position. Past ``deadline`` (a
    ``time.perf_counter()`` value: a time budget's end) no more shortcuts are tried."""
    limited = game.rules.redeals is not None
    keys = [_exact(game, limited)]
    undo = []
    for t in line:
        undo.append(game._do(*t))
        keys.append(_exact(game, limited))
    for ops in reversed(undo):
        game._revert(ops)
    last = {k: i for i, k in enumerate(keys)}  # the latest index of each position
    gen = MoveGen(game)
    out: list[Triple] = []
    path: list[list] = []  # undo records of everything applied, to restore the game
    budget = max_edges
    i, n = 0, len(line)
    try:
        while i < n:
            j = last[keys[i]]
            if j > i:  # the line returns here later: skip the loop
                for t in line[i:j]:
                    path.append(game._do(*t))
                i = j
                continue
            best: tuple[int, list[Triple]] | None = None
            if deadline is not None and budget > 0 and time.perf_counter() > deadline:
                budget = 0
            if budget > 0:
                for edge in gen.edges():
                    budget -= 1
                    ops, moves = gen.apply(edge)
                    j = last.get(_exact(game, limited), -1)
                    game._revert(ops)
                    gain = j - i - len(moves)
                    if gain > 0 and (best is None or gain > best[0] - i - len(best[1])):
                        best = (j, moves)
            if best is None:
                path.append(game._do(*line[i]))
                out.append(line[i])
                i += 1
            else:
                j, moves = best
                for t in moves:
                    path.append(game._do(*t))
                out.extend(moves)
                i = j
        return out
    finally:
        for ops in reversed(path):
            game._revert(ops)
