"""Move generation for the solver: the edges out of a position, with the pruning that is
proved not to lose wins (``docs/solver.md`` gives each argument).

An *edge* is a short sequence of engine moves (index triples ``(src, dst, n)`` from
``Game._legal`` or built from the same rules) that the search treats as one step; after it the
safe foundation moves of :mod:`.safe_moves` are made too. Pruning:

* equivalent targets: among foundations of one group showing the same top, among empty
  tableau piles and among empty cells, only the first is tried;
* moves whose result is the same position up to the key's symmetries are not made (a whole
  pile into an empty pile; a card between two foundations of the same group);
* stock macro-moves, for variants where nothing refills a space: draws and redeals touch only
  the stock and the waste, so they commute with every other move, and any win can be
  reordered so that each run of draws comes just before the waste card it was for. An edge is
  "draw (and redeal) until card X is on top of the waste, then play X", one per reachable card
  and destination; a waste position is reached the cheapest way (fewest redeals used, which
  dominates);
* delayed moves: a move that uncovers a face-up card its group was built on, and a
  take-back from a foundation, only matter once the uncovered or returned card is used, so
  they are searched only together with such a use.

Edges come in the engine's order (foundation moves, tableau moves, waste and cells, then the
stock), which depth-first search follows and best-first search uses to break ties.
"""

from __future__ import annotations

from solrace.shared.cards import RANK_OF, RED_OF, SUIT_OF
from solrace.shared.engine import Game
from solrace.shared.rules import AutoFill, Build, EmptyTableau
from solrace.shared.solver.canonical import suits_matter
from solrace.shared.solver.safe_moves import SafeMoves

Triple = tuple[int, int, int]
Edge = tuple[Triple, ...]


class MoveGen:
    """Edges out of the current position of ``game``; ``pruning=False`` gives the engine's
    moves one by one with no safe moves (the benchmark's baseline)."""

    def __init__(self, game: Game, *, pruning: bool = True) -> None:
        self.game = game
        self.pruning = pruning
        rules = game.rules
        self.rules = rules
        self.pos = game.pos
        self.safe = SafeMoves(game)
        self.F = game._F
        self.T = game._T
        self.Fset = frozenset(game._F)
        self.Tset = frozenset(game._T)
        self.Cset = frozenset(game._C)
        self.S, self.W = game._S, game._W
        self.total = rules.total_cards
        self.macro = pruning and rules.draw > 0 and rules.tableau.auto_fill is AutoFill.NONE
        self.rank_only = not suits_matter(game)
        self.alt = rules.tableau.build is Build.DOWN_ALTERNATE_COLOUR
        group_of: dict[int, int] = {}
        f = game.layout.foundations.start
        for gi, g in enumerate(rules.foundations):
            for i in range(f, f + g.count):
                group_of[i] = gi
            f += g.count
        self.group_of = group_of

    # ------------------------------------------------------------------ applying

    def home(self) -> int:
        piles = self.pos.piles
        return sum(len(piles[f]) for f in self.F)

    def close(self, ops: list, moves: list[Triple]) -> None:
        """Make safe moves until none is left, recording them."""
        if not self.pruning:
            return
        find, do = self.safe.find, self.game._do
        m = find()
        while m is not None:
            ops.extend(do(*m))
            moves.append(m)
            m = find()

    def apply(self, edge: Edge) -> tuple[list, list[Triple]]:
        """Make an edge and the safe moves after it: (undo record, moves made)."""
        do = self.game._do
        ops: list = []
        for t in edge:
            ops.extend(do(*t))
        moves = list(edge)
        self.close(ops, moves)
        return ops, moves

    # ------------------------------------------------------------------ generation

    def _f_target_key(self, f: int) -> tuple[int, int]:
        p = self.pos.piles[f]
        top = p[-1] if p else 255
        if self.rank_only and p:
            top = RANK_OF[top]
        return (self.group_of[f], top)

    def edges(self, inner: bool = False) -> list[Edge]:
        """Every edge out of the current position.

        ``inner``: plain moves only (no delayed-move pairs), for the second half of a pair.
        """
        game = self.game
        if not self.pruning:
            return [((s, d, n),) for s, d, n in game._legal()]
        piles, down = self.pos.piles, self.pos.down
        Fset, Tset, Cset = self.Fset, self.Tset, self.Cset
        S, W = self.S, self.W
        macro = self.macro
        out: list[Edge] = []
        f_seen: set[tuple[int, int, int]] = set()
        empty_seen: set[tuple[int, int, bool]] = set()
        for s, d, n in game._legal():
            if macro and (s in (S, W) or d == S):
                continue  # the stock macro-moves below replace these
            if d in Fset:
                if s in Fset and self.group_of[s] == self.group_of[d]:
                    continue  # the same multiset of foundation tops
                fk = (s, *self._f_target_key(d))
                if fk in f_seen:
                    continue
                f_seen.add(fk)
            elif (d in Tset or d in Cset) and not piles[d]:
                ek = (s, n, d in Tset)
                if ek in empty_seen:
                    continue  # empty piles (and empty cells) are interchangeable
                empty_seen.add(ek)
                if s in Tset and n == len(piles[s]) and d in Tset \
                        and not self.safe.refill_possible():
                    continue  # a whole pile into a space: the same position
            if not inner:
                if s in Tset and d not in Fset and len(piles[s]) - n > down[s] \
                        and self._sits_on_parent(s, n):
                    self._delayed((s, d, n), s, s, out)  # uncovers the card it sat on
                    continue
                if s in Fset and d in Tset:
                    self._delayed((s, d, n), s, d, out)  # take-back
                    continue
            out.append(((s, d, n),))
        if macro and S >= 0:
            self._stock_edges(out)
        return out

    def _delayed(self, first: Triple, src: int, dst: int, out: list[Edge]) -> None:
        """Edges ``first`` + a move that uses what ``first`` changed.

        ``first`` either uncovers a face-up card ``b`` that its group was built on (``src`` =
        ``dst`` = that pile), or takes a card ``c`` back from foundation ``src`` to tableau
        pile ``dst``. Until ``b`` or ``c`` is used — a move from ``src`` or onto ``dst`` —
        nothing depends on ``first`` having been made, so any win can make it just before
        that use. Only such pairs are searched.
        """
        game = self.game
        ops = game._do(*first)
        for e in self.edges(inner=True):
            last = e[-1]
            if last[0] == src or last[1] == dst:
                out.append((first, *e))
        game._revert(ops)

    def _sits_on_parent(self, s: int, n: int) -> bool:
        """Is the group of ``n`` cards on top of ``s`` already built on the card below it?"""
        p = self.pos.piles[s]
        head, below = p[-n], p[-n - 1]
        if RANK_OF[below] != RANK_OF[head] + 1:
            return False
        if self.alt:
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

    def _stock_edges(self, out: list[Edge]) -> None:
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
                for f in to_f.get(c, ()):
                    out.append((*prefix, (W, f, 1)))
                for t in to_t.get(c, ()):
                    out.append((*prefix, (W, t, 1)))
                for t in any_t:
                    out.append((*prefix, (W, t, 1)))
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
