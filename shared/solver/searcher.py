"""The Python search: one best-first or depth-first run over :mod:`.moves`' graph.

A :class:`Searcher` works on the solver's own copy of the game and moves with ``Game._do`` /
``Game._revert``. A *node* is a position after one edge (:mod:`.moves`) and the safe moves that
follow it; its canonical key (:mod:`.canonical`) enters the table the first time the position
is reached, and the position is never searched again. Either search, run to the end, visits
every node reachable from the start, so ending without a win proves the position lost (the
pruning keeps a win whenever there is one: ``docs/solver.md``). The portfolios that combine
runs, and the compiled cores that replace them, are :mod:`.search`'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from heapq import heappop, heappush

from solrace.shared.cards import RANK_OF
from solrace.shared.engine import Game
from solrace.shared.solver.canonical import key_function
from solrace.shared.solver.deadends import dead_end_test
from solrace.shared.solver.moves import Edge, MoveGen, Triple
from solrace.shared.solver.result import Budget, Outcome
from solrace.shared.solver.stock import JUMP

_TIME_CHECK = 256  # nodes between clock readings
_M64 = (1 << 64) - 1
_SEP = b"\xff"
Snapshot = tuple[bytes, bytes, int]

class Searcher(MoveGen):
    """One search from the current position of ``game`` (which it changes and restores)."""

    # weights of the best-first estimate (lower is closer to a win)
    W_HOME = 4  # per card not yet home
    W_DOWN = 2  # per face-down card
    W_DISORDER = 1  # per card above a lower card in a pile (Ace-up games: it must move first)
    W_EMPTY = 2  # bonus per empty tableau pile
    W_WASTE = 1  # per waste card, when redeals are limited (it may be buried for good)
    W_DEPTH = 1  # per edge from the start: prefers short lines

    def __init__(self, game: Game, *, pruning: bool = True, streamline: bool = False,
                 greedy: bool = False, dead_ends: bool = True, shuffle: int = 0) -> None:
        super().__init__(game, pruning=pruning, streamline=streamline, greedy=greedy)
        # the depth-first search's children in a random order (seed; 0: the engine's)
        self.shuffle = shuffle & 0xFFFFFFFF
        rules = game.rules
        self.key = key_function(game)
        # a position this proves lost is counted as a node and never expanded (deadends.py)
        self.dead = dead_end_test(game) if pruning and dead_ends else None
        self.nodes = 0
        self.up_only = all(g.step == 1 and g.start_rank == 1 for g in rules.foundations)
        self.stacks = game._T + game._R
        self.waste_limited = rules.draw > 0 and rules.redeals is not None

    # ------------------------------------------------------------------ both searches

    def _begin(self, budget: Budget, clock: Callable[[], float]
               ) -> tuple[float | None, int | None, list, list[Triple]]:
        """A run's start: its deadline and node cap, and the safe moves closed at the root
        (their undo ops, for the caller's ``finally``, and the moves, the line's prefix)."""
        deadline = None if budget.seconds is None else clock() + budget.seconds
        ops0: list = []
        prefix: list[Triple] = []
        self.close(ops0, prefix)
        return deadline, budget.nodes, ops0, prefix

    def _decided_at_root(self, prefix: list[Triple]) -> tuple[Outcome, list[Triple]] | None:
        """Won by the safe moves alone, or lost by the dead-end test at the root: the answer
        (one node), else ``None``."""
        if self.home() == self.total:
            return Outcome.WON, prefix
        dead = self.dead
        if dead is not None and dead():
            self.nodes = 1
            return Outcome.LOST, []
        return None

    # ------------------------------------------------------------------ depth-first

    def run_dfs(self, budget: Budget, clock: Callable[[], float] = time.perf_counter
                ) -> tuple[Outcome, list[Triple]]:
        game = self.game
        deadline, max_nodes, ops0, prefix = self._begin(budget, clock)
        path_ops: list[list] = []
        total, dead = self.total, self.dead
        try:
            early = self._decided_at_root(prefix)
            if early is not None:
                return early
            key = self.key
            seen = {key()}
            path_moves: list[list[Triple]] = []
            children = self._shuffled if self.shuffle else self.edges
            self._rng = self.shuffle
            stack = [iter(children())]
            revert, apply, home = game._revert, self.apply, self.home
            nodes = self.nodes = 1
            while stack:
                edge = next(stack[-1], None)
                if edge is None:
                    stack.pop()
                    if path_ops:
                        revert(path_ops.pop())
                        path_moves.pop()
                    continue
                ops, moves = apply(edge)
                if home() == total:
                    revert(ops)
                    return Outcome.WON, prefix + [m for ms in path_moves for m in ms] + moves
                k = key()
                if k in seen:
                    revert(ops)
                    continue
                if (max_nodes is not None and nodes >= max_nodes) or (
                    deadline is not None and nodes % _TIME_CHECK == 0 and clock() > deadline
                ):
                    revert(ops)
                    return Outcome.UNKNOWN, []
                seen.add(k)
                nodes = self.nodes = nodes + 1
                if dead is not None and dead():
                    revert(ops)
                    continue
                path_ops.append(ops)
                path_moves.append(moves)
                stack.append(iter(children()))
            return Outcome.LOST, []
        finally:
            while path_ops:
                game._revert(path_ops.pop())
            game._revert(ops0)

    def _shuffled(self) -> list[Edge]:
        """The edges in a random order (Fisher-Yates over splitmix64), a trailing draw or
        redeal (one engine move from or to the stock; never a jump) kept last: the order of
        the compiled cores' shuffled members (``fortyeight.c``, ``onepass.c``), draw for
        draw."""
        edges = self.edges()
        n = len(edges)
        if n:
            last = edges[-1]
            if len(last) == 1 and last[0][0] != JUMP and self.S in (last[0][0], last[0][1]):
                n -= 1
        x = self._rng
        for i in range(n, 1, -1):
            x = (x + 0x9E3779B97F4A7C15) & _M64
            z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
            j = (z ^ (z >> 31)) % i
            edges[i - 1], edges[j] = edges[j], edges[i - 1]
        self._rng = x
        return edges

    # ------------------------------------------------------------------ best-first

    def snapshot(self) -> Snapshot:
        pos = self.pos
        return _SEP.join([bytes(p) for p in pos.piles]), bytes(pos.down), pos.redeals

    def restore(self, snap: Snapshot) -> None:
        body, down, redeals = snap
        pos = self.pos
        pos.piles = [list(b) for b in body.split(_SEP)]
        pos.down = list(down)
        pos.redeals = redeals

    def estimate(self) -> int:
        """Work left, roughly (lower is better): what best-first expands first."""
        piles, down = self.pos.piles, self.pos.down
        h = (self.total - self.home()) * self.W_HOME
        if self.up_only:
            for t in self.stacks:
                lo = 99
                for c in piles[t]:
                    r = RANK_OF[c]
                    if r > lo:
                        h += self.W_DISORDER
                    else:
                        lo = r
        for t in self.T:
            h += down[t] * self.W_DOWN
            if not piles[t]:
                h -= self.W_EMPTY
        if self.waste_limited:
            h += len(piles[self.W]) * self.W_WASTE
        return h

    def run_best(self, budget: Budget, clock: Callable[[], float] = time.perf_counter
                 ) -> tuple[Outcome, list[Triple]]:
        game = self.game
        deadline, max_nodes, ops0, prefix = self._begin(budget, clock)
        root = self.snapshot()
        total, dead = self.total, self.dead
        try:
            early = self._decided_at_root(prefix)
            if early is not None:
                return early
            key, apply, revert, home = self.key, self.apply, game._revert, self.home
            seen = {key()}
            parent: list[int] = [-1]
            edge_in: list[list[Triple]] = [[]]
            snaps: list[Snapshot | None] = [root]
            depth: list[int] = [0]
            heap: list[tuple[int, int]] = [(0, 0)]
            nodes = self.nodes = 1
            while heap:
                _, i = heappop(heap)
                snap = snaps[i]
                snaps[i] = None  # expanded: its position is no longer needed
                assert snap is not None
                self.restore(snap)
                d1 = depth[i] + 1
                for edge in self.edges():
                    ops, moves = apply(edge)
                    if home() == total:
                        line = moves
                        j = i
                        while j > 0:
                            line = edge_in[j] + line
                            j = parent[j]
                        return Outcome.WON, prefix + line
                    k = key()
                    if k in seen:
                        revert(ops)
                        continue
                    if (max_nodes is not None and nodes >= max_nodes) or (
                        deadline is not None and nodes % _TIME_CHECK == 0 and clock() > deadline
                    ):
                        return Outcome.UNKNOWN, []
                    seen.add(k)
                    nodes = self.nodes = nodes + 1
                    if dead is not None and dead():
                        revert(ops)
                        continue
                    parent.append(i)
                    edge_in.append(moves)
                    depth.append(d1)
                    snaps.append(self.snapshot())
                    heappush(heap, (self.estimate() + self.W_DEPTH * d1, len(parent) - 1))
                    revert(ops)
            return Outcome.LOST, []
        finally:
            self.restore(root)
            game._revert(ops0)
