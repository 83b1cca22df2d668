"""Depth-first search with a transposition table, over the engine's fast path.

The searcher works on its own copy of the game and moves with ``Game._do`` / ``Game._revert``
(index triples and undo records, no validation: every triple comes from ``Game._legal`` or is
built from the same rules). A *node* is a position after one chosen move and all the safe
foundation moves that follow it (:mod:`.safe_moves`); its canonical key (:mod:`.canonical`)
goes into the table the first time it is reached and is never searched again. Depth-first
search over a finite graph with such a table visits every reachable node, so when it ends
without a win the position is proved lost — provided each pruning keeps some win when there
is one (``docs/solver.md`` gives each argument).

Pruning beyond the table:

* equivalent targets: among foundations of one group showing the same top, among empty
  tableau piles and among empty cells, only the first is tried;
* moves whose result is the same position up to the key's symmetries are dropped before
  they are made (a whole pile into an empty pile; a card between two foundations of the same
  group);
* stock macro-moves (variants where nothing refills a space): draws and redeals touch only the
  stock and the waste, so they commute with every other move, and any win can be reordered so
  that each run of draws comes just before the waste card it was for. The searcher therefore
  never stops at a bare draw: an edge is "draw (and redeal) until card X is on the waste, then
  play X", one per reachable card and destination. Reaching a position with a redeal to spare
  dominates reaching it with fewer left, so only the cheapest way to each waste position is
  tried.

Move ordering (which branch first) decides how fast wins are found, not what is proved:
foundation moves, then moves that turn up a face-down card (deepest pile first) or empty a
pile, then waste and cell cards to the tableau, then the rest, then take-backs and draws.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from heapq import heappop, heappush

from solrace.shared.cards import RANK_OF, RED_OF, SUIT_OF
from solrace.shared.engine import Game
from solrace.shared.notation import Move
from solrace.shared.rules import AutoFill, Build, EmptyTableau
from solrace.shared.solver.canonical import key_function, suits_matter
from solrace.shared.solver.result import Budget, Outcome, SolveResult
from solrace.shared.solver.safe_moves import SafeMoves

Triple = tuple[int, int, int]
Edge = tuple[Triple, ...]

_TIME_CHECK = 512  # nodes between clock readings
_SEP = b"\xff"


class Searcher:
    """One search from the current position of ``game`` (which it modifies and restores)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        rules = game.rules
        self.rules = rules
        self.pos = game.pos
        self.key = key_function(game)
        self.safe = SafeMoves(game)
        self.F = game._F
        self.T = game._T
        self.Fset = frozenset(game._F)
        self.Tset = frozenset(game._T)
        self.Cset = frozenset(game._C)
        self.S, self.W = game._S, game._W
        self.total = rules.total_cards
        self.macro = rules.draw > 0 and rules.tableau.auto_fill is AutoFill.NONE
        self.rank_only = not suits_matter(game)
        group_of: dict[int, int] = {}
        f = game.layout.foundations.start
        for gi, g in enumerate(rules.foundations):
            for i in range(f, f + g.count):
                group_of[i] = gi
            f += g.count
        self.group_of = group_of
        self.nodes = 0
        self.up_only = all(g.step == 1 and g.start_rank == 1 for g in rules.foundations)
        self.stacks = game._T + game._R
        self.w_home, self.w_disorder, self.w_down, self.w_empty, self.w_depth = 4, 1, 2, 2, 1

    # ------------------------------------------------------------------ state

    def home(self) -> int:
        piles = self.pos.piles
        return sum(len(piles[f]) for f in self.F)

    def close(self, ops: list, moves: list[Triple]) -> None:
        """Apply safe moves until none is left, recording them."""
        find, do = self.safe.find, self.game._do
        m = find()
        while m is not None:
            ops.extend(do(*m))
            moves.append(m)
            m = find()

    def apply(self, edge: Edge) -> tuple[list, list[Triple]]:
        do = self.game._do
        ops: list = []
        for t in edge:
            ops.extend(do(*t))
        moves = list(edge)
        self.close(ops, moves)
        return ops, moves

    # ------------------------------------------------------------------ move generation

    def _f_target_key(self, f: int) -> tuple[int, int]:
        p = self.pos.piles[f]
        top = p[-1] if p else 255
        if self.rank_only and p:
            top = RANK_OF[top]
        return (self.group_of[f], top)

    def edges(self, inner: bool = False) -> list[Edge]:
        """Every edge out of the current position, best first.

        ``inner``: the plain moves only (no delayed-move expansion), for the second half of a
        delayed move.
        """
        game = self.game
        piles, down = self.pos.piles, self.pos.down
        Fset, Tset, Cset = self.Fset, self.Tset, self.Cset
        S, W = self.S, self.W
        macro = self.macro
        scored: list[tuple[int, int, Edge]] = []
        f_seen: set[tuple[int, int, int]] = set()
        empty_seen: set[tuple[int, int, str]] = set()
        for s, d, n in game._legal():
            if s == S or d == S:
                if not macro:
                    scored.append((6, 0, ((s, d, n),)))
                continue
            if s == W and macro:
                continue
            if d in Fset:
                if s in Fset and self.group_of[s] == self.group_of[d]:
                    continue  # same multiset of foundation tops: no change
                fk = (s, *self._f_target_key(d))
                if fk in f_seen:
                    continue
                f_seen.add(fk)
                scored.append((0 if s not in Fset else 5, -down[s] if s in Tset else 0,
                               ((s, d, n),)))
                continue
            target_empty = not piles[d]
            if target_empty:
                kind = "t" if d in Tset else "c"
                ek = (s, n, kind)
                if ek in empty_seen:
                    continue
                empty_seen.add(ek)
            if s in Tset:
                left = len(piles[s]) - n
                if left == 0 and target_empty and d in Tset:
                    continue  # a whole pile into a space: the same position
                if left > down[s] and self._sits_on_parent(s, n):
                    # uncovers a face-up card the group was built on: delayed move
                    if inner:
                        scored.append((4, 0, ((s, d, n),)))
                    else:
                        self._delayed((s, d, n), s, s, 4, scored)
                elif d in Cset:
                    scored.append((4, 1, ((s, d, n),)))
                elif left and left == down[s]:
                    scored.append((1, -down[s], ((s, d, n),)))
                elif left == 0:
                    scored.append((2, 0, ((s, d, n),)))
                else:
                    scored.append((3, 0, ((s, d, n),)))
            elif s in Fset:
                if inner:
                    scored.append((5, 0, ((s, d, n),)))
                else:
                    self._delayed((s, d, n), s, d, 5, scored)  # take-back
            elif d in Cset:
                scored.append((4, 1, ((s, d, n),)))
            else:
                scored.append((2, 0, ((s, d, n),)))
        if macro and S >= 0:
            self._stock_edges(scored)
        scored.sort(key=lambda e: (e[0], e[1]))
        return [e for _, _, e in scored]

    def _delayed(self, first: Triple, src: int, dst: int, cat: int,
                 scored: list[tuple[int, int, Edge]]) -> None:
        """Edges ``first`` + a move that uses what ``first`` changed.

        ``first`` either uncovers a face-up card ``b`` that its group was built on (``src`` =
        ``dst`` = that pile), or takes a card ``c`` back from foundation ``src`` to tableau
        pile ``dst``. Until ``b`` or ``c`` is used — a move from or onto the watched pile —
        nothing else depends on ``first`` having been made, so any win can make it just
        before that use (``docs/solver.md``, delayed moves). Only such pairs are searched.
        """
        game = self.game
        ops = game._do(*first)
        for e in self.edges(inner=True):
            last = e[-1]
            if last[0] == src or last[1] == dst:
                scored.append((cat, 0, (first, *e)))
        game._revert(ops)

    def _sits_on_parent(self, s: int, n: int) -> bool:
        """Is the group of ``n`` cards on top of ``s`` already built on the card below it?"""
        p = self.pos.piles[s]
        head, below = p[-n], p[-n - 1]
        if RANK_OF[below] != RANK_OF[head] + 1:
            return False
        if self.rules.tableau.build is Build.DOWN_ALTERNATE_COLOUR:
            return RED_OF[below] != RED_OF[head]
        return SUIT_OF[below] == SUIT_OF[head]

    def _waste_targets(self) -> tuple[dict[int, list[int]], dict[int, list[int]], list[int]]:
        """Which cards fit where right now: foundation targets by card, tableau targets by
        card, and empty tableau piles that take any card."""
        piles, down = self.pos.piles, self.pos.down
        rules = self.rules
        to_f: dict[int, list[int]] = {}
        seen: set[tuple[int, int]] = set()
        for f in self.F:
            tk = self._f_target_key(f)
            if tk in seen:
                continue
            seen.add(tk)
            g = self.game
            p = piles[f]
            if p:
                top = p[-1]
                end = 13 if g._step[f] == 1 else 1
                if RANK_OF[top] == end:
                    continue
                r = RANK_OF[top] + g._step[f]
                suits = (SUIT_OF[top],) if g._same[f] else range(4)
            else:
                r = g._start[f]
                suits = range(4)
            for su in suits:
                to_f.setdefault(su * 13 + r - 1, []).append(f)
        to_t: dict[int, list[int]] = {}
        any_t: list[int] = []
        build = rules.tableau.build
        king_only = rules.tableau.empty is EmptyTableau.KING
        empty_done = False
        for t in self.T:
            p = piles[t]
            if not p:
                if empty_done:
                    continue
                empty_done = True
                if king_only:
                    for su in range(4):
                        to_t.setdefault(su * 13 + 12, []).append(t)
                else:
                    any_t.append(t)
                continue
            if build is Build.NONE or len(p) <= down[t]:
                continue
            top = p[-1]
            r = RANK_OF[top] - 1
            if r < 1:
                continue
            if build is Build.DOWN_SAME_SUIT:
                to_t.setdefault(top - 1, []).append(t)
            else:
                for su in ((0, 3) if RED_OF[top] else (1, 2)):
                    to_t.setdefault(su * 13 + r - 1, []).append(t)
        return to_f, to_t, any_t

    def _stock_edges(self, scored: list[tuple[int, int, Edge]]) -> None:
        """Macro edges: draw/redeal to each reachable waste position, then play its top."""
        piles = self.pos.piles
        S, W = self.S, self.W
        waste, stock = piles[W], piles[S]
        seq = waste + stock[::-1]
        total = len(seq)
        if not total:
            return
        draw = self.rules.draw
        limit = self.rules.redeals
        redeals_left = None if limit is None else limit - self.pos.redeals
        to_f, to_t, any_t = self._waste_targets()
        k = len(waste)
        path: list[Triple] = []
        reached: set[int] = set()
        while k not in reached:
            reached.add(k)
            if k:
                c = seq[k - 1]
                prefix = tuple(path)
                cost = len(prefix)
                for f in to_f.get(c, ()):
                    scored.append((0, cost, (*prefix, (W, f, 1))))
                for t in to_t.get(c, ()):
                    scored.append((2, cost, (*prefix, (W, t, 1))))
                for t in any_t:
                    scored.append((3, cost, (*prefix, (W, t, 1))))
            if k == total:
                if redeals_left == 0:
                    break
                if redeals_left is not None:
                    redeals_left -= 1
                path.append((W, S, 1))
                k = 0
            else:
                path.append((S, W, 1))
                k = min(k + draw, total)

    # ------------------------------------------------------------------ search

    def run(self, budget: Budget, clock: Callable[[], float] = time.perf_counter
            ) -> tuple[Outcome, list[Triple]]:
        game = self.game
        start = clock()
        deadline = None if budget.seconds is None else start + budget.seconds
        max_nodes = budget.nodes
        ops0: list = []
        prefix: list[Triple] = []
        path_ops: list[list] = []
        self.close(ops0, prefix)
        total = self.total
        try:
            if self.home() == total:
                return Outcome.WON, prefix
            key = self.key
            seen = {key()}
            path_moves: list[list[Triple]] = []
            stack = [iter(self.edges())]
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
                path_ops.append(ops)
                path_moves.append(moves)
                stack.append(iter(self.edges()))
            return Outcome.LOST, []
        finally:
            while path_ops:
                game._revert(path_ops.pop())
            game._revert(ops0)


    # ------------------------------------------------------------------ best-first

    def snapshot(self) -> tuple[bytes, bytes, int]:
        pos = self.pos
        return _SEP.join([bytes(p) for p in pos.piles]), bytes(pos.down), pos.redeals

    def restore(self, snap: tuple[bytes, bytes, int]) -> None:
        body, down, redeals = snap
        pos = self.pos
        pos.piles = [list(b) for b in body.split(_SEP)]
        pos.down = list(down)
        pos.redeals = redeals

    def score(self) -> int:
        """Estimated distance to a win (lower is better) for best-first search."""
        piles, down = self.pos.piles, self.pos.down
        home = 0
        for f in self.F:
            home += len(piles[f])
        h = (self.total - home) * self.w_home
        if self.up_only:
            for t in self.stacks:
                p = piles[t]
                lo = 99
                for c in p:
                    r = RANK_OF[c]
                    if r > lo:
                        h += self.w_disorder
                    else:
                        lo = r
        for t in self.T:
            h += down[t] * self.w_down
            if not piles[t]:
                h -= self.w_empty
        return h

    def run_best(self, budget: Budget, clock: Callable[[], float] = time.perf_counter
                 ) -> tuple[Outcome, list[Triple]]:
        game = self.game
        deadline = None if budget.seconds is None else clock() + budget.seconds
        max_nodes = budget.nodes
        ops0: list = []
        prefix: list[Triple] = []
        self.close(ops0, prefix)
        root = self.snapshot()
        total = self.total
        try:
            if self.home() == total:
                return Outcome.WON, prefix
            key, apply, revert, home, score = self.key, self.apply, game._revert, self.home, \
                self.score
            seen = {key()}
            parents: list[int] = [-1]
            edges_in: list[list[Triple]] = [[]]
            snaps: list[tuple[bytes, bytes, int] | None] = [root]
            depth: list[int] = [0]
            heap: list[tuple[int, int]] = [(0, 0)]
            nodes = self.nodes = 1
            g_weight = self.w_depth
            while heap:
                _, i = heappop(heap)
                snap = snaps[i]
                snaps[i] = None
                self.restore(snap)  # type: ignore[arg-type]
                d1 = depth[i] + 1
                for edge in self.edges():
                    ops, moves = apply(edge)
                    if home() == total:
                        line: list[Triple] = moves
                        j = i
                        while j > 0:
                            line = edges_in[j] + line
                            j = parents[j]
                        self.restore(root)
                        return Outcome.WON, prefix + line
                    k = key()
                    if k in seen:
                        revert(ops)
                        continue
                    if (max_nodes is not None and nodes >= max_nodes) or (
                        deadline is not None and nodes % _TIME_CHECK == 0 and clock() > deadline
                    ):
                        self.restore(root)
                        return Outcome.UNKNOWN, []
                    seen.add(k)
                    nodes = self.nodes = nodes + 1
                    j = len(parents)
                    parents.append(i)
                    edges_in.append(moves)
                    depth.append(d1)
                    snaps.append(self.snapshot())
                    heappush(heap, (score() + g_weight * d1, j))
                    revert(ops)
            self.restore(root)
            return Outcome.LOST, []
        finally:
            game._revert(ops0)


# ---------------------------------------------------------------------- public API


def _moves_of(game: Game, triples: list[Triple]) -> tuple[Move, ...]:
    ids = game.layout.ids
    return tuple(Move(ids[s], ids[d], n) for s, d, n in triples)


def search_game(game: Game, budget: Budget, strategy: str | None = None) -> SolveResult:
    """Solve the current position of ``game`` (left untouched) within ``budget``."""
    import os
    strategy = strategy or os.environ.get("SOLVER_STRATEGY", "dfs")
    work = Game(game.variant, game.options, game.seed, position=game.pos.copy())
    t0 = time.perf_counter()
    searcher = Searcher(work)
    if os.environ.get("SOLVER_W"):
        ws = [int(x) for x in os.environ["SOLVER_W"].split(",")]
        (searcher.w_home, searcher.w_disorder, searcher.w_down, searcher.w_empty,
         searcher.w_depth) = ws
    run = searcher.run_best if strategy == "best" else searcher.run
    outcome, triples = run(budget)
    elapsed = time.perf_counter() - t0
    moves = _moves_of(work, triples) if outcome is Outcome.WON else ()
    if outcome is Outcome.WON:
        check = Game(game.variant, game.options, game.seed, position=game.pos.copy())
        for m in moves:
            check.push(m)  # raises if the solver and the engine ever disagree
        if check.cards_home != check.total_cards:
            raise AssertionError("solver produced a line that does not win")
    return SolveResult(outcome, moves, searcher.nodes, elapsed, budget)
