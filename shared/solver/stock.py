"""The stock side of the solver's move generation (a mixin of :class:`.moves.MoveGen`).

Where nothing refills a space, draws and redeals commute with every other move, so the
solver never stops on a bare draw: an edge is "draw (and redeal) until card X tops the
waste, then play X" (a *macro-move*, ``docs/solver.md``). This module finds those edges:
which cards fit where (:meth:`StockEdges._waste_targets`), which waste positions are
reachable the cheapest way (:meth:`StockEdges._stock_walk`, once per node), the edges
themselves, and with draw 1 and unlimited redeals the *held* waste cards, played to the
tableau only together with a card put onto them. Draws are applied as one jump of the waste
boundary (:meth:`StockEdges._jump`) and recorded as the engine's moves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from solrace.shared.cards import RANK_OF, RED_OF, SUIT_OF
from solrace.shared.rules import Build, EmptyTableau

if TYPE_CHECKING:
    from solrace.shared.solver.moves import Edge, Triple

JUMP = -1  # marks a stock jump: the first element of a macro edge's first step


class StockEdges:
    """Stock macro-moves, for :class:`~solrace.shared.solver.moves.MoveGen` (which holds the
    game, the position and the pile indexes these methods read)."""

    def _jump(self, k: int, redeals: int, ops: list) -> None:
        """Draw and redeal until the waste holds ``k`` cards, ``redeals`` redeals used, in one
        step: the order "waste bottom-to-top, then stock top-to-bottom" never changes, so the
        draws of a stock macro-move only move the boundary. The undo records are the engine's
        (one-by-one transfers and redeal marks), so ``Game._revert`` undoes it."""
        pos = self.pos
        piles = pos.piles
        S, W = self.S, self.W
        waste, stock = piles[W], piles[S]
        j = k - len(waste)
        if j > 0:
            moved = stock[-j:]
            del stock[-j:]
            moved.reverse()
            waste.extend(moved)
            ops.append((0, S, W, j, 1))
        elif j < 0:
            moved = waste[j:]
            del waste[j:]
            moved.reverse()
            stock.extend(moved)
            ops.append((0, W, S, -j, 1))
        if redeals:
            pos.redeals += redeals
            ops.extend([(2,)] * redeals)

    def _waste_targets(self, foundations: bool = True
                       ) -> tuple[dict[int, list[int]], dict[int, list[int]], list[int]]:
        """Which cards fit where right now: foundation targets by card (none unless
        ``foundations``), tableau targets by card, and empty tableau piles that take any
        card."""
        piles, down = self.pos.piles, self.pos.down
        rules = self.rules
        to_f: dict[int, list[int]] = {}
        seen: set[tuple[int, int]] = set()
        g = self.game
        group_of, rank_only = self.group_of, self.rank_only
        for f in self.F if foundations else ():
            p = piles[f]  # the target key of f, as _f_target_key (inlined: a hot loop)
            tk = (group_of[f], (RANK_OF[p[-1]] if rank_only else p[-1]) if p else 255)
            if tk in seen:
                continue
            seen.add(tk)
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

    def _fits_on(self, t: int) -> dict[int, list[int]] | None:
        """The waste cards tableau pile ``t`` takes, as ``_waste_targets`` has them for
        ``t`` (card -> [t]); ``None`` when ``t`` is an empty pile that takes any card."""
        piles, down = self.pos.piles, self.pos.down
        p = piles[t]
        if not p:
            if any(not piles[u] for u in self.T if u < t):
                return {}  # only the first empty pile is a target
            if self.rules.tableau.empty is EmptyTableau.KING:
                return {su * 13 + 12: [t] for su in range(4)}
            return None
        build = self.rules.tableau.build
        if build is Build.NONE or len(p) <= down[t]:
            return {}
        top = p[-1]
        r = RANK_OF[top] - 1
        if r < 1:
            return {}
        if build is Build.DOWN_SAME_SUIT:
            return {top - 1: [t]}
        return {su * 13 + r - 1: [t] for su in ((0, 3) if RED_OF[top] else (1, 2))}

    def _stock_walk(self) -> tuple[list[tuple[int, int, int, int]], list[Triple]]:
        """The waste positions reachable by draws and redeals, the cheapest way: (card on
        top, waste length, redeals used, number of draws and redeals) for each, and the
        draws and redeals in order. Cached for one node: the first half of a delayed-move
        pair never touches the stock or the waste, so its second half sees the same walk."""
        piles = self.pos.piles
        S, W = self.S, self.W
        waste, stock = piles[W], piles[S]
        if self._walk_fresh:
            return self._walk
        seq = waste + stock[::-1]
        total = len(seq)
        draw = self.rules.draw
        limit = self.rules.redeals
        redeals_left = None if limit is None else limit - self.pos.redeals
        k = len(waste)
        if draw == 1 and total and self.walk_closed_form:
            walk, path = self._walk_draw1(seq, k, redeals_left != 0)
            self._walk_fresh, self._walk = True, (walk, path)
            return walk, path
        path: list[Triple] = []
        redealt = 0
        reached: set[int] = set()
        walk: list[tuple[int, int, int, int]] = []
        while total and k not in reached:
            reached.add(k)
            if k:
                walk.append((seq[k - 1], k, redealt, len(path)))
            if k == total:
                if redeals_left == 0:
                    break
                if redeals_left is not None:
                    redeals_left -= 1
                path.append((W, S, 1))
                redealt += 1
                k = 0
            else:
                path.append((S, W, 1))
                k = min(k + draw, total)
        self._walk_fresh, self._walk = True, (walk, path)
        return walk, path

    walk_closed_form = True  # False: the general loop (the tests compare the two)

    def _walk_draw1(self, seq: list[int], k0: int, redeal: bool
                    ) -> tuple[list[tuple[int, int, int, int]], list[Triple]]:
        """:meth:`_stock_walk`'s loop in closed form for draw 1 (the same entries and path,
        tested): draw to the end of the sequence, then, if a redeal is left, redeal and draw
        until the starting boundary comes round again."""
        S, W = self.S, self.W
        total = len(seq)
        ahead = total - k0
        walk = [(seq[k - 1], k, 0, k - k0) for k in range(max(k0, 1), total + 1)]
        path: list[Triple] = [(S, W, 1)] * ahead
        if redeal:
            walk += [(seq[k - 1], k, 1, ahead + 1 + k) for k in range(1, k0)]
            path += [(W, S, 1)] + [(S, W, 1)] * k0
        return walk, path

    def _stock_edges(self, out: list[Edge], only: int | None = None) -> None:
        """Macro edges: draw/redeal to each reachable waste position, then play its top
        (``only``: onto that tableau pile only)."""
        W = self.W
        if only is None:
            to_f, to_t, any_t = self._waste_targets()
        else:
            to_f, any_t = {}, []
            to_t = self._fits_on(only)
            if to_t is None:
                any_t = [only]
            elif not to_t:
                return
        walk, path = self._stock_walk()
        hold = self.hold_waste and only is None
        for c, k, redealt, steps in walk:
            if c in to_f or c in to_t or any_t:
                jump = (JUMP, k, redealt, tuple(path[:steps])) if steps else None
                if hold:
                    for d in to_f.get(c, ()):
                        out.append((jump, (W, d, 1)) if jump else ((W, d, 1),))
                    for d in [*to_t.get(c, ()), *any_t]:
                        self._held(((W, d, 1),) if jump is None else (jump, (W, d, 1)), d, out)
                    continue
                targets = [*to_f.get(c, ()), *to_t.get(c, ()), *any_t]
                if jump:
                    out.extend([(jump, (W, d, 1)) for d in targets])
                else:
                    out.extend([((W, d, 1),) for d in targets])

    def _held(self, first_edge: Edge, dst: int, out: list[Edge]) -> None:
        """Edges: waste card to tableau pile ``dst`` (``first_edge``: the play, or the jump
        and the play) + a move onto that card. With draw 1 and unlimited redeals the card
        could have stayed in the stock until then, so any win can play it right before such a
        use."""
        ops: list = []
        for t in first_edge:
            if t[0] == JUMP:
                self._jump(t[1], t[2], ops)
            else:
                ops.extend(self.game._do(*t))
        walk = self._walk
        self._walk_fresh = False  # the waste changed: its own walk
        pairs = [(*first_edge, *e) for e in self.edges(inner=True, use=(-1, dst))]
        self.game._revert(ops)
        self._walk, self._walk_fresh = walk, True
        out.extend(pairs)
