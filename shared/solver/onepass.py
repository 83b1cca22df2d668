"""The compiled search core for Double Aces and Kings and Sixes and Sevens with automatic
spaces (``onepass.c``), loaded by ctypes.

Why: on these one-pass games the Python search runs at 13–35 thousand nodes per second, and
Double Aces and Kings pays for nodes (at 10k nodes a third of its deals are won, at 10 s well
over half). The core searches exactly the Python search's graph in exactly its order — both
portfolio members, depth-first and best-first, safe moves included — so at a node budget it
gives the same answer, node count and line, only sooner. It is built when solrace is installed
and loaded like the Klondike core (:mod:`.fastcore`); without a build (no C compiler at install),
or with ``SOLRACE_SOLVER_CORE=python``, the Python search runs and nothing else changes.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

from solrace.shared.cards import RANK_OF, SUIT_OF
from solrace.shared.engine import Game
from solrace.shared.rules import AutoFill, Build, EmptyTableau
from solrace.shared.solver import fastcore
from solrace.shared.solver.result import Budget, Outcome

SOURCE = Path(__file__).with_name("onepass.c")


Triple = tuple[int, int, int]
EMPTY = 255  # an empty tableau pile, for the core


def _declare(lib: ctypes.CDLL) -> None:
    fastcore.declare_handle(lib, "op_")
    ip = ctypes.POINTER(ctypes.c_int32)
    lib.op_solve.argtypes = [ctypes.c_void_p, ip, ip, ctypes.c_int, ctypes.c_int,
                             ctypes.c_longlong, ctypes.c_double, ctypes.c_uint]
    lib.op_solve.restype = ctypes.c_int
    lib.op_edges.argtypes = [ctypes.c_void_p, ip, ip, ip]
    lib.op_edges.restype = ctypes.c_int


CORE = fastcore.Core(SOURCE, _declare)


def library() -> ctypes.CDLL | None:
    """The core built at install, loaded on first use; ``None`` when unavailable or turned off."""
    return CORE.library()


def _game(game: Game) -> int | None:
    """Which of the core's games ``game`` plays: 0 Double Aces and Kings (either
    ``reserve_to_space``), 1 Sixes and Sevens with automatic spaces, ``None`` neither."""
    r = game.rules
    t = r.tableau
    fg = r.foundations
    common = (
        len(fg) == 2 and t.build is Build.NONE and t.empty is EmptyTableau.ANY
        and not game._C and r.draw == 1 and r.redeals == 0 and not r.foundation_to_tableau
        and game._S >= 0 and game._W >= 0 and len(game._F) == 16
    )
    if not common:
        return None
    groups = [(g.count, g.start_rank, g.step, g.same_suit, g.prefilled) for g in fg]
    if (r.decks == 4 and groups == [(8, 1, 1, False, False), (8, 13, -1, False, False)]
            and t.piles == 8 and t.auto_fill is AutoFill.STOCK and len(game._R) == 4
            and r.foundation_to_foundation):
        return 0
    if (r.decks == 2 and groups == [(8, 6, -1, True, True), (8, 7, 1, True, True)]
            and t.piles == 9 and t.auto_fill is AutoFill.WASTE_THEN_STOCK and not game._R
            and not r.foundation_to_foundation and not r.reserve_to_space):
        return 1
    return None


def handles(game: Game) -> bool:
    """Are ``game``'s rules one of the core's games (Double Aces and Kings, either option;
    Sixes and Sevens with ``empty_fill=auto``)?"""
    return _game(game) is not None




def _encode(game: Game) -> tuple[list[int], list[int]] | None:
    """The rules' pile indexes and the position, as the core reads them (``op_solve``);
    ``None`` for a position play cannot reach (set up by hand)."""
    kind = _game(game)
    if kind is None:
        return None
    pos = game.pos
    piles = pos.piles
    cfg = [kind, len(game._T), *game._F, *game._T, *(game._R or (-1,) * 4), game._S, game._W,
           int(game.rules.reserve_to_space), game.rules.total_cards]
    code = RANK_OF if kind == 0 else range(52)  # cards as the core writes them
    state: list[int] = [len(piles[f]) for f in game._F]
    if kind == 1:
        if not all(piles[f] for f in game._F):
            return None
        state += [SUIT_OF[piles[f][0]] for f in game._F]
    for t in game._T:
        p = piles[t]
        if len(p) > 1 or pos.down[t]:
            return None
        state.append(code[p[0]] if p else EMPTY)
    for r in game._R:
        state += [len(piles[r]), *(code[c] for c in piles[r])]
    waste, stock = piles[game._W], piles[game._S]
    seq = waste + stock[::-1]
    state += [len(waste), len(seq), *(code[c] for c in seq)]
    return cfg, state


def search(game: Game, budget: Budget, kind: str, *, dead_ends: bool = True, shuffle: int = 0
           ) -> tuple[Outcome, list[Triple], int] | None:
    """Run one portfolio member (``kind``: ``"dfs"`` or ``"best"``) on ``game``'s current
    position: (outcome, engine triples of the line when won, nodes), the same as
    ``Searcher.run_dfs`` / ``run_best`` with pruning; ``None`` when the core is unavailable or
    does not take the position (then the Python search runs). ``dead_ends``: Sixes and
    Sevens' pile-up test (:mod:`.deadends`) at the start and on every node, as
    ``Searcher(dead_ends=...)`` does; off, the core searches the graph of before it.
    ``shuffle`` (``dfs`` only): a seed of the random child order of ``Searcher(...,
    shuffle=seed)`` (the ``rdfs<k>`` restarts), 0 for the engine's order."""
    lib = library()
    encoded = None if lib is None or not handles(game) or game.resigned else _encode(game)
    if lib is None or encoded is None:
        return None
    cfg, state = encoded
    handle = lib.op_new()
    if not handle:
        return None
    try:
        rc = lib.op_solve(handle, fastcore.ints(cfg), fastcore.ints(state),
                          1 if kind == "best" else 0,
                          int(dead_ends),
                          -1 if budget.nodes is None else budget.nodes,
                          budget.seconds if budget.seconds is not None else 0.0,
                          shuffle & 0xFFFFFFFF)
        if rc < 0:
            return None
        count = lib.op_nodes(handle)
        if rc == 1:
            return Outcome.WON, fastcore.line_of(lib, "op_", handle), count
        return (Outcome.LOST if rc == 0 else Outcome.UNKNOWN), [], count
    finally:
        lib.op_free(handle)


def edges(game: Game) -> list[Triple] | None:
    """The core's edges out of ``game``'s position, as engine triples (for the tests, which
    compare them with ``MoveGen.edges()``); ``None`` when the core does not take it."""
    lib = library()
    encoded = None if lib is None or not handles(game) else _encode(game)
    if lib is None or encoded is None:
        return None
    handle = lib.op_new()
    try:
        buf = (ctypes.c_int32 * (3 * 64))()  # one engine move per edge here
        n = lib.op_edges(handle, fastcore.ints(encoded[0]), fastcore.ints(encoded[1]), buf)
        flat = list(buf)
        return None if n < 0 else [(flat[i], flat[i + 1], flat[i + 2])
                                   for i in range(0, 3 * n, 3)]
    finally:
        lib.op_free(handle)
