"""The compiled search core for Klondike (``klondike.c``), built at install, loaded by ctypes.

Why this way: a solver spends its life in move generation and the transposition table, and
Python pays about a hundred times a compiled program's cost per node there. The project must
still install and run on a machine with nothing but Python 3.11, so the core is a plain C file
(no Python API) that installing solrace compiles, when a C compiler is there, as the extension
module ``solrace.shared.solver._klondike`` (setup.py; its only Python part is the empty module
entry of ``coremodule.c``); this module loads that file's functions with ctypes. It loads only
a build of the source beside it (the manifest of shared/accel.py); without one (no compiler at
install, or ``klondike.c`` edited since), or with ``SOLRACE_SOLVER_CORE=python``, the
pure-Python search runs instead and nothing else changes. Nothing is compiled at run time.
The core covers Klondike (the Unlimited variant) only; its line is replayed through
``Game.push`` by :func:`~solrace.shared.solver.search.search_game` before it is reported won,
like every line.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from solrace.shared import accel
from solrace.shared.engine import Game
from solrace.shared.rules import AutoFill, Build, EmptyTableau
from solrace.shared.solver.result import Budget, Outcome

SOURCE = Path(__file__).with_name("klondike.c")
ENTRY = Path(__file__).with_name(accel.CORE_ENTRY)
ENV = "SOLRACE_SOLVER_CORE"  # "python": never use the compiled core; "c": fail without it
MANIFEST: Path | None = None  # the build's manifest (None: accel.MANIFEST); tests point it away


def built(source: Path) -> tuple[Path | None, str]:
    """The current build of the core ``source`` (``klondike.c``, ...), or ``None`` and why."""
    name = f"solrace.shared.solver._{source.stem}"
    found = accel.compiled_path(name, [source, ENTRY], MANIFEST)
    if found is not None:
        return found, ""
    if name in accel.read_manifest(MANIFEST):
        return None, (f"the build of {source.name} is not of the source beside it "
                      f"(edited since the install): reinstall solrace to rebuild it")
    return None, (f"{source.name} was not compiled when solrace was installed "
                  f"(no C compiler or Python headers then)")


class Core:
    """One compiled library (``source``): the build made at install, loaded on first use with
    its functions declared by ``declare``, kept for the process; ``None`` when it is unavailable
    or turned off (``SOLRACE_SOLVER_CORE=python``), a :class:`RuntimeError` when it is required
    (``=c``) and unavailable. ``error`` says why it is unavailable, for people and tests."""

    def __init__(self, source: Path, declare: Callable[[ctypes.CDLL], None]) -> None:
        self.source, self._declare = source, declare
        self._lock = threading.Lock()
        self.lib: ctypes.CDLL | None = None
        self.tried = False
        self.error: str | None = None

    def library(self) -> ctypes.CDLL | None:
        if os.environ.get(ENV, "").lower() == "python":
            return None
        with self._lock:
            if not self.tried:
                self.tried = True
                path, self.error = built(self.source)
                if path is not None:
                    try:
                        lib = ctypes.CDLL(str(path))
                        self._declare(lib)
                        self.lib = lib
                    except (OSError, AttributeError) as e:
                        self.error = f"{path}: {e}"
        if self.lib is None and os.environ.get(ENV, "").lower() == "c":
            raise RuntimeError(f"{ENV}=c but the compiled solver core is unavailable: "
                               f"{self.error}")
        return self.lib


def declare_handle(lib: ctypes.CDLL, prefix: str) -> None:
    """The handle functions every core exports under its prefix (``kl_``, ``op_``, ``fe_``):
    ``new``, ``free``, ``nodes``, ``moves_len`` and ``moves``."""
    getattr(lib, f"{prefix}new").restype = ctypes.c_void_p
    getattr(lib, f"{prefix}free").argtypes = [ctypes.c_void_p]
    for name in ("nodes", "moves_len"):
        fn = getattr(lib, f"{prefix}{name}")
        fn.restype = ctypes.c_longlong
        fn.argtypes = [ctypes.c_void_p]
    getattr(lib, f"{prefix}moves").argtypes = [ctypes.c_void_p, ctypes.c_void_p]


def line_of(lib: ctypes.CDLL, prefix: str, handle: int) -> list[tuple[int, int, int]]:
    """The won line a core's handle holds, as engine triples."""
    n = getattr(lib, f"{prefix}moves_len")(handle)
    buf = (ctypes.c_int32 * max(1, 3 * n))()
    getattr(lib, f"{prefix}moves")(handle, buf)
    flat = list(buf)[: 3 * n]
    return [(flat[i], flat[i + 1], flat[i + 2]) for i in range(0, 3 * n, 3)]


def _declare(lib: ctypes.CDLL) -> None:
    declare_handle(lib, "kl_")
    ip = ctypes.POINTER(ctypes.c_int32)
    lib.kl_solve.argtypes = [ctypes.c_void_p, ip, ip, ip, ip, ctypes.c_int,
                             ctypes.c_int, ctypes.c_longlong, ctypes.c_double]
    lib.kl_solve.restype = ctypes.c_int
    lib.kl_best.argtypes = [ctypes.c_void_p, ip]
    lib.kl_beam.argtypes = [ctypes.c_void_p, ip]


KLONDIKE = Core(SOURCE, _declare)


def library() -> ctypes.CDLL | None:
    """The Klondike core (:class:`Core`), loaded on first use."""
    return KLONDIKE.library()


def handles(game: Game) -> bool:
    """Are ``game``'s rules the ones the core implements (Klondike: the Unlimited variant)?"""
    r = game.rules
    t = r.tableau
    return (
        r.decks == 1 and len(r.foundations) == 1
        and r.foundations[0].count == 4 and r.foundations[0].start_rank == 1
        and r.foundations[0].step == 1 and r.foundations[0].same_suit
        and t.piles == 7 and t.build is Build.DOWN_ALTERNATE_COLOUR and t.move_groups
        and t.empty is EmptyTableau.KING and t.auto_fill is AutoFill.NONE
        and r.draw in (1, 3) and r.redeals is None and not r.foundation_to_foundation
        and not game._R and not game._C and not r.reserve_to_space
        and game._S >= 0 and game._W >= 0
    )


def ints(values: list[int]) -> ctypes.Array:
    """``values`` as a C array of int32 (at least one element, as the cores expect)."""
    return (ctypes.c_int32 * max(1, len(values)))(*values)




STREAMLINE_SHARE = 0.5  # of the budget for the streamlined first phase

# The core's own prunings (klondike.c's OWN_ flags), beyond the Python search's graph: the
# blocking test at the start (1) and at every node (2), rule S (4), the stock order of draw 3
# in the blocking test at the start (8), the blocking test looked one move past (16: a card
# whose one way out is a parent is stuck there for good; docs/solver.md, "Dead ends: the
# blocking test (Klondike core)"; "Dead ends: one move past"); 32 the same on every node (halves
# the node rate: not in ``OWN``); 64 waste dominance, draw 3: a position is not searched when
# one alike but for a waste length with a wider free cycle was seen (docs/solver.md, "Waste
# dominance"; depth-first and best-first, not the beam). ``OWN`` is the default.
DEAD_START, DEAD_NODES, STOCK_HOME, STOCK_ORDER, DEAD_PAST = 1, 2, 4, 8, 16
DEAD_PAST_NODES, WASTE_DOM = 32, 64
OWN = DEAD_START | DEAD_NODES | STOCK_HOME | STOCK_ORDER | DEAD_PAST | WASTE_DOM


def search(game: Game, budget: Budget, seconds: float | None, *, streamline: bool = True,
           dead_ends: bool | int = True, shorten: bool = True,
           share: float = STREAMLINE_SHARE
           ) -> tuple[Outcome, list[tuple[int, int, int]], int] | None:
    """Search ``game``'s current position with the core: (outcome, engine triples of the line
    when won, nodes), or ``None`` when the core is unavailable or the position is not one it
    handles (then the Python search runs). ``seconds``: what is left of a time budget.

    Two phases, like the Python portfolio: first the *streamlined* game, in which every card
    that fits a foundation goes there at once (a smaller game: its wins are wins, its
    exhaustion proves nothing), on ``share`` of the budget; then, unless that won,
    the full search on what is left, which alone can prove a deal lost (``streamline=False``:
    the full search alone). ``dead_ends``: the core's own prunings — the blocking test on the
    starting position and on every node, rule S, the stock order of draw 3 in the blocking test
    at the start (docs/solver.md) — ``True`` for ``OWN``, or
    an int of their flags; ``False`` turns them off, and the core then searches the Python
    search's graph, node for node. ``shorten``: the core shortens a won line itself
    (klondike.c's ``shorten_line``: shorten.py's walk on the core's edges, repeated until a
    pass gains nothing) — in milliseconds, where shorten.py spends 0.1-0.5 s of Python."""
    lib = library()
    if lib is None or not handles(game) or game.resigned:
        return None
    if not streamline:
        return _run(lib, game, budget.nodes, seconds, greedy=False, dead=dead_ends,
                    shorten=shorten)
    t0 = time.perf_counter()
    first = _run(lib, game, _part(budget.nodes, share),
                 None if seconds is None else seconds * share, greedy=True,
                 dead=dead_ends, shorten=shorten)
    if first is None:
        return None
    if first[0] is Outcome.WON:
        return first
    used = first[2]
    nodes = None if budget.nodes is None else max(1, budget.nodes - used)
    left = None if seconds is None else max(1e-3, seconds - (time.perf_counter() - t0))
    second = _run(lib, game, nodes, left, greedy=False, dead=dead_ends, shorten=shorten)
    if second is None:
        return None
    return second[0], second[1], used + second[2]


RESTART_NODES = 25_000  # nodes of the first two restarts; each further pair doubles them
RESTART_JITTER = 40  # restarts add a pseudo-random 0..39 to the move-order scores (10..140)


def restarts(game: Game, budget: Budget, seconds: float | None
             ) -> tuple[Outcome, list[tuple[int, int, int]], int] | None:
    """Short searches in other move orders until one decides or ``budget`` is spent: restart
    ``r`` (1, 2, ...) adds a pseudo-random number, seeded by ``r``, to every move's order score
    (klondike.c's ``shake``), runs on ``RESTART_NODES`` nodes doubled every second restart,
    and is streamlined on odd ``r``, the full search on even ones. Depth-first in a fixed order
    wanders for millions of nodes on some deals that another order wins in tens (draw 1, seeds
    1..200, unknown at 10 s: 6 of 24 won by one of eight 100k-node restarts). A full restart
    that ends is a proof (any order visits every node); a streamlined one proves nothing. The
    order is a function of the seed and the nodes expanded, so node budgets stay
    deterministic. (outcome, line, nodes) as :func:`search`; ``None`` as there."""
    lib = library()
    if lib is None or not handles(game) or game.resigned:
        return None
    t0 = time.perf_counter()
    used, r = 0, 1
    while True:
        size = RESTART_NODES << ((r - 1) // 2)
        if budget.nodes is not None:
            size = min(size, budget.nodes - used)
        left = None if seconds is None else seconds - (time.perf_counter() - t0)
        if size < 1 or (left is not None and left <= 1e-3):
            return Outcome.UNKNOWN, [], used
        run = _run(lib, game, size, left, greedy=r % 2 == 1, dead=True, shorten=True, seed=r,
                   jitter=RESTART_JITTER)
        if run is None:
            return None
        used += run[2]
        if run[0] is not Outcome.UNKNOWN:
            return run[0], run[1], used
        r += 1


# best-first's estimate (klondike.c's ``estimate``): weights per card not home, per face-down
# card, per empty pile (a bonus), per edge from the start, per stock and waste card. The
# default is the Python search's (``Searcher.estimate``).
BEST_WEIGHTS = (4, 2, 2, 1, 0)


def best(game: Game, budget: Budget, seconds: float | None, *, greedy: bool = False,
         weights: tuple[int, int, int, int, int] = BEST_WEIGHTS, dead_ends: bool | int = True,
         shorten: bool = True) -> tuple[Outcome, list[tuple[int, int, int]], int] | None:
    """Best-first search of ``game``'s position by the core: the graph of :func:`search` (its
    moves, safe moves, key and prunings), expanding the open position of the lowest estimate
    (``weights``, see ``BEST_WEIGHTS``) first. Some deals are won in a few thousand best-first
    nodes and not in millions of depth-first ones. ``greedy``: the streamlined game (every card
    that fits a foundation goes there at once; its exhaustion proves nothing). Ties go to the
    position generated first, so a node budget gives the same answer everywhere; an exhausted
    full run is a proof of loss. (outcome, line, nodes) as :func:`search`; ``None`` as there."""
    lib = library()
    if lib is None or not handles(game) or game.resigned:
        return None
    return _run(lib, game, budget.nodes, seconds, greedy=greedy, dead=dead_ends,
                shorten=shorten, best=tuple(weights))


# the beam's shape and score (klondike.c's ``kl_beam``): width (positions kept per layer), local
# (positions each walk expands), weights per card not home, per face-down card, per empty pile
# (a bonus), per stock and waste card, and how many positions one walk may hand to the next layer
# at most (0: any; a few keeps the layer from filling with one position's variations)
BEAM = (5000, 30, 4, 2, 2, 0, 2)
Shape = tuple[int, int, int, int, int, int, int]


def beam(game: Game, budget: Budget, seconds: float | None, *, greedy: bool = False,
         shape: Shape = BEAM, dead_ends: bool | int = True,
         shorten: bool = True) -> tuple[Outcome, list[tuple[int, int, int]], int] | None:
    """A beam search of ``game``'s position by the core: the graph of :func:`search`, walked
    in layers after each card turned face up or sent home, keeping the best ``shape[0]``
    positions of each layer (docs/solver.md, "The compiled cores"). Depth-first and best-first
    orders commit their millions of nodes under their first choices; the beam keeps many lines
    alive and wins deals they miss. It drops positions, so it never proves a loss: its outcome
    is won or unknown. Deterministic at a node budget. (outcome, line, nodes) as
    :func:`search`; ``None`` as there."""
    if len(shape) != len(BEAM):
        raise ValueError(f"a beam shape has {len(BEAM)} numbers: {shape}")
    lib = library()
    if lib is None or not handles(game) or game.resigned:
        return None
    run = _run(lib, game, budget.nodes, seconds, greedy=greedy, dead=dead_ends,
               shorten=shorten, beam=tuple(shape))
    if run is None or run[0] is not Outcome.LOST:
        return run
    return Outcome.UNKNOWN, [], run[2]  # lost at the start by the blocking test: not the beam's


def streamlined(game: Game, budget: Budget, seconds: float | None
                ) -> tuple[Outcome, list[tuple[int, int, int]], int] | None:
    """The first phase of :func:`search` alone: the streamlined game (every card that fits a
    foundation goes there at once) depth-first; won or unknown (its exhaustion proves nothing,
    but fewer nodes than ``budget`` then says the streamlined game is exhausted)."""
    lib = library()
    if lib is None or not handles(game) or game.resigned:
        return None
    return _run(lib, game, budget.nodes, seconds, greedy=True, dead=True, shorten=True)


def _part(nodes: int | None, share: float) -> int | None:
    return None if nodes is None else max(1, int(nodes * share))


def _run(lib: ctypes.CDLL, game: Game, nodes: int | None, seconds: float | None, *,
         greedy: bool, dead: bool | int, shorten: bool, seed: int = 0, jitter: int = 0,
         best: tuple[int, ...] | None = None, beam: tuple[int, ...] | None = None
         ) -> tuple[Outcome, list[tuple[int, int, int]], int] | None:
    pos = game.pos
    piles, down = pos.piles, pos.down
    cfg = [game.rules.draw, int(game.rules.foundation_to_tableau), *game._F, *game._T,
           game._S, game._W, int(greedy), OWN if dead is True else int(dead), int(shorten),
           seed, jitter]
    tabl: list[int] = []
    for t in game._T:
        tabl += [len(piles[t]), down[t], *piles[t]]
    found: list[int] = []
    for f in game._F:
        found += [len(piles[f]), *piles[f]]
    waste, stock = piles[game._W], piles[game._S]
    seq = waste + stock[::-1]
    handle = lib.kl_new()
    if not handle:
        return None
    try:
        if best is not None:  # best-first with these weights (klondike.c's kl_best)
            lib.kl_best(handle, ints([1, *best]))
        if beam is not None:  # the beam with this shape (klondike.c's kl_beam)
            lib.kl_beam(handle, ints([1, *beam]))
        rc = lib.kl_solve(handle, ints(cfg), ints(tabl), ints(found), ints(seq), len(seq),
                          len(waste), -1 if nodes is None else nodes,
                          seconds if seconds is not None else 0.0)
        if rc < 0:
            return None  # not a position from play, or out of memory: the Python search
        count = lib.kl_nodes(handle)
        if rc == 1:
            return Outcome.WON, line_of(lib, "kl_", handle), count
        if rc == 0 and (greedy or beam is not None):
            return Outcome.UNKNOWN, [], count  # the streamlined game is lost: proves nothing
        return (Outcome.LOST if rc == 0 else Outcome.UNKNOWN), [], count
    finally:
        lib.kl_free(handle)
