"""The compiled search core for Forty and Eight (``fortyeight.c``), loaded by ctypes.

Why: Forty and Eight's pruned and plain depth-first searches — the portfolio members that win
its deals — ran in Python at 20–30 thousand nodes per second. The core searches exactly the
Python search's graph in exactly its order (stock macro-moves, delayed pairs, safe moves and
the canonical key for the pruned member; the engine's moves one by one for the plain one), so
at a node budget it gives the same answer, node count and line, only sooner. It is built when
solrace is installed and loaded like the Klondike core (:mod:`.fastcore`); without a build (no
C compiler at install), or with ``SOLRACE_SOLVER_CORE=python``, the Python search runs and
nothing else changes.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

from solrace.shared.cards import SUIT_OF
from solrace.shared.engine import Game
from solrace.shared.rules import AutoFill, Build, EmptyTableau
from solrace.shared.solver import fastcore
from solrace.shared.solver.result import Budget, Outcome

SOURCE = Path(__file__).with_name("fortyeight.c")
MAX_ROOT_PILE = 19  # the core's limit on a starting pile (play reaches at most 17)
MODES = {"dfs": 0, "plain": 1, "gdfs": 2, "gplain": 3}  # the portfolio members the core runs
BEAM_MODE = 4  # the beam (``beam``): the core's own member, with no Python twin
# the beam's width (positions kept per layer) and its walk's limit (new positions per kept
# position): docs/solver.md, "The search"
BEAM_WIDTH = 1000
BEAM_LOCAL = 200
BEAM_WASTE = 0  # the score's weight of a waste card (docs/solver.md, "The search")
BEAM_GREEDY = True  # greedy home moves (False: safe ones only, the others are choices)

Triple = tuple[int, int, int]
LAYOUT = (tuple(range(8)), tuple(range(8, 16)), 16, 17)  # the pile indexes the core uses


def _declare(lib: ctypes.CDLL) -> None:
    fastcore.declare_handle(lib, "fe_")
    ip = ctypes.POINTER(ctypes.c_int32)
    lib.fe_solve.argtypes = [ctypes.c_void_p, ip, ip, ctypes.c_longlong, ctypes.c_double]
    lib.fe_solve.restype = ctypes.c_int
    lib.fe_edges.argtypes = [ctypes.c_void_p, ip, ip, ip, ctypes.c_int]
    lib.fe_edges.restype = ctypes.c_int


CORE = fastcore.Core(SOURCE, _declare)


def library() -> ctypes.CDLL | None:
    """The core built at install, loaded on first use; ``None`` when unavailable or turned off."""
    return CORE.library()


def handles(game: Game) -> bool:
    """Are ``game``'s rules and layout Forty and Eight's (either ``foundation_takeback``)?"""
    r = game.rules
    t = r.tableau
    fg = r.foundations
    return (
        r.decks == 2 and len(fg) == 1 and fg[0].count == 8 and fg[0].start_rank == 1
        and fg[0].step == 1 and fg[0].same_suit and not fg[0].prefilled
        and t.piles == 8 and t.build is Build.DOWN_SAME_SUIT and not t.move_groups
        and t.empty is EmptyTableau.ANY and t.auto_fill is AutoFill.NONE
        and r.draw == 1 and r.redeals == 1 and not r.foundation_to_foundation
        and not r.reserve_to_space and not game._R and not game._C
        and (game._F, game._T, game._S, game._W) == LAYOUT
    )




def _encode(game: Game, kind: str, shuffle: int = 0,
            beam: tuple[int, int, int, int] = (0, 0, 0, 0)) -> tuple[list[int], list[int]] | None:
    """The core's configuration and position (``fe_solve``); ``None`` for one it does not take
    (set up by hand: face-down cards, a pile longer than play makes, a stock over 64).
    ``kind`` ``"beam"``: the beam with ``beam`` = (width, local, waste weight, safe only)."""
    if not handles(game) or game.resigned:
        return None
    pos = game.pos
    piles = pos.piles
    if any(pos.down) or pos.redeals not in (0, 1):
        return None
    mode = BEAM_MODE if kind == "beam" else MODES[kind]
    cfg = [int(game.rules.foundation_to_tableau), mode, shuffle, *beam]
    state = [len(piles[f]) for f in game._F]
    state += [SUIT_OF[piles[f][0]] if piles[f] else 0 for f in game._F]
    for t in game._T:
        p = piles[t]
        if len(p) > MAX_ROOT_PILE:
            return None
        state += [len(p), *p]
    waste, stock = piles[game._W], piles[game._S]
    seq = waste + stock[::-1]
    if len(seq) > 64:
        return None
    state += [pos.redeals, len(waste), len(seq), *seq]
    return cfg, state


def search(game: Game, budget: Budget, kind: str, shuffle: int = 0
           ) -> tuple[Outcome, list[Triple], int] | None:
    """Run one portfolio member (``kind``: ``"dfs"``, pruned; ``"plain"``; ``"gdfs"`` and
    ``"gplain"``, the same with greedy home moves) on ``game``'s current position: (outcome,
    engine triples of the line when won, nodes), the same as ``Searcher(game, pruning=kind in
    ("dfs", "gdfs"), greedy=kind in ("gdfs", "gplain")).run_dfs``; ``None`` when the core is
    unavailable or does not take the position (then the Python search runs). A greedy
    member's exhaustion is the greedy game's: the caller must not report it as a proof.
    ``shuffle``: a seed of the random child order of ``Searcher(..., shuffle=seed)``, 0 for
    the engine's order."""
    lib = library()
    encoded = None if lib is None else _encode(game, kind, shuffle)
    return None if lib is None or encoded is None else _solve(lib, encoded, budget)


def beam(game: Game, budget: Budget, width: int = BEAM_WIDTH, local: int = BEAM_LOCAL,
         waste: int = BEAM_WASTE, greedy: bool = BEAM_GREEDY
         ) -> tuple[Outcome, list[Triple], int] | None:
    """The beam member on ``game``'s current position: (outcome, engine triples of the line
    when won, nodes), or ``None`` when the core is unavailable or does not take the position
    (then the portfolio skips it: it has no Python twin).

    Why: on the deals no depth-first member decides in millions of nodes, a depth-first
    search's first choices fix a subtree it never leaves, while a beam over the stock position
    — the positions after each draw, the best ``width`` of them by cards home, cards buried
    under each pile's top run and spaces, each expanded by a walk of at most ``local`` new
    positions over its non-stock moves, all with greedy home moves — keeps many different
    plays alive through the stock (it won 7 of 25 otherwise undecided deals of 1..150).
    ``waste`` > 0 also ranks down each card left in the waste by that much (the
    second pass, whose stock is the first pass's waste, is what binds; 10-20 won 43-47 of the
    50 deals the default won late, at a fraction of the nodes). ``greedy=False`` makes only the
    safe home moves at once and leaves the others to the walk (some deals need
    a card kept off its foundation: such beams won 6 of the 22 deals of 1..240 no greedy one
    won). It answers won or unknown,
    never lost: its exhaustion is the greedy game's, truncated. Deterministic at a node
    budget."""
    if width < 1 or local < 1 or waste < 0:
        raise ValueError("the beam needs a width and a walk limit of at least 1, a waste "
                         "weight of at least 0")
    lib = library()
    encoded = None if lib is None else _encode(game, "beam",
                                               beam=(width, local, waste, int(not greedy)))
    if lib is None or encoded is None:
        return None
    found = _solve(lib, encoded, budget)
    if found is not None and found[0] is Outcome.LOST:
        return Outcome.UNKNOWN, [], found[2]  # the beam emptied: no proof of anything
    return found


def _solve(lib: ctypes.CDLL, encoded: tuple[list[int], list[int]], budget: Budget
           ) -> tuple[Outcome, list[Triple], int] | None:
    """``fe_solve`` on an encoded position: (outcome, line, nodes), ``None`` when it declines."""
    cfg, state = encoded
    handle = lib.fe_new()
    if not handle:
        return None
    try:
        rc = lib.fe_solve(handle, fastcore.ints(cfg), fastcore.ints(state),
                          -1 if budget.nodes is None else budget.nodes,
                          budget.seconds if budget.seconds is not None else 0.0)
        if rc < 0:
            return None
        count = lib.fe_nodes(handle)
        if rc == 1:
            return Outcome.WON, fastcore.line_of(lib, "fe_", handle), count
        return (Outcome.LOST if rc == 0 else Outcome.UNKNOWN), [], count
    finally:
        lib.fe_free(handle)


def edges(game: Game, kind: str = "dfs") -> list[list[Triple]] | None:
    """The core's edges out of ``game``'s position, each as its engine triples (a stock jump
    spelled out as draws and redeals, without the safe moves after it), for the tests, which
    compare them with ``MoveGen.edges()``; ``None`` when the core does not take it."""
    lib = library()
    encoded = None if lib is None else _encode(game, kind)
    if lib is None or encoded is None:
        return None
    handle = lib.fe_new()
    try:
        cap = 1 << 20
        buf = (ctypes.c_int32 * cap)()
        n = lib.fe_edges(handle, fastcore.ints(encoded[0]), fastcore.ints(encoded[1]), buf, cap)
        if n < 0:
            return None
        flat = list(buf[:n])
        out: list[list[Triple]] = []
        i = 0
        while i < n:
            k = flat[i]
            out.append([(flat[j], flat[j + 1], flat[j + 2])
                        for j in range(i + 1, i + 1 + 3 * k, 3)])
            i += 1 + 3 * k
        return out
    finally:
        lib.fe_free(handle)
