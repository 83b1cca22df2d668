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
  they are searched only together with such a use;
* held waste cards (draw 1, unlimited redeals): every stock card stays within free reach, so
  a waste card goes to the tableau only together with a card put onto it.

A macro-move's draws are applied as one *jump* of the waste boundary (``JUMP`` steps) and
recorded as the engine's draws and redeals; the second halves of pairs are generated directly
(:meth:`MoveGen._legal_uses`) rather than by filtering ``Game._legal()``.

Edges come in the engine's order (foundation moves, tableau moves, waste and cells, then the
stock), which depth-first search follows and best-first search uses to break ties.
"""

from __future__ import annotations

from solrace.shared.cards import RANK_OF, RED_OF, SUIT_OF
from solrace.shared.engine import Game
from solrace.shared.rules import AutoFill, Build
from solrace.shared.solver.canonical import suits_matter
from solrace.shared.solver.safe_moves import SafeMoves
from solrace.shared.solver.stock import JUMP, StockEdges

Triple = tuple[int, int, int]
Edge = tuple[tuple, ...]  # Triples, the first possibly a stock jump (JUMP, k, redeals, draws)


class MoveGen(StockEdges):
    """Edges out of the current position of ``game``; ``pruning=False`` gives the engine's
    moves one by one with no safe moves (the benchmark's baseline)."""

    def __init__(self, game: Game, *, pruning: bool = True, streamline: bool = False,
                 greedy: bool = False) -> None:
        self.game = game
        self.pruning = pruning
        rules = game.rules
        self.rules = rules
        self.pos = game.pos
        # the streamliner: never take a card back from a foundation (a search of a smaller
        # game; its wins are wins, its "lost" proves nothing about the real game)
        self.no_takeback = streamline and rules.foundation_to_tableau
        # greedy: any card that fits a foundation goes home at once (a streamliner), in the
        # pruned search or in the plain one
        self.greedy = greedy
        self.safe = SafeMoves(game, takeback=not self.no_takeback, greedy=self.greedy)
        self.F = game._F
        self._f_prefix = len(self.F) if tuple(self.F) == tuple(range(len(self.F))) else 0
        self.T = game._T
        self.Fset = frozenset(game._F)
        self.Tset = frozenset(game._T)
        self.Cset = frozenset(game._C)
        self.S, self.W = game._S, game._W
        self.total = rules.total_cards
        self.macro = pruning and rules.draw > 0 and rules.tableau.auto_fill is AutoFill.NONE
        # draw 1, unlimited redeals, no refill: every stock card stays within reach at no cost,
        # so a waste card put on the tableau matters only once it is used (a card put onto
        # it): such moves are searched only paired with a use (docs/solver.md)
        self.hold_waste = self.macro and rules.draw == 1 and rules.redeals is None
        self.rank_only = not suits_matter(game)
        self.alt = rules.tableau.build is Build.DOWN_ALTERNATE_COLOUR
        group_of: dict[int, int] = {}
        f = game.layout.foundations.start
        for gi, g in enumerate(rules.foundations):
            for i in range(f, f + g.count):
                group_of[i] = gi
            f += g.count
        self.group_of = group_of
        self._walk_fresh = False  # _walk is that of the node being expanded
        self._walk: tuple[list[tuple[int, int, int, int]], list[Triple]] = ([], [])

    # ------------------------------------------------------------------ applying

    def home(self) -> int:
        piles = self.pos.piles
        if self._f_prefix:  # the foundations are piles 0..len(F)-1 (every layout so far)
            return sum(map(len, piles[:self._f_prefix]))
        return sum(len(piles[f]) for f in self.F)

    def close(self, ops: list, moves: list[Triple]) -> None:
        """Make safe moves (greedy ones, when greedy) until none is left, recording them."""
        if not self.pruning and not self.greedy:
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
        moves: list[Triple] = []
        for t in edge:
            if t[0] == JUMP:
                self._jump(t[1], t[2], ops)
                moves.extend(t[3])
            else:
                ops.extend(do(*t))
                moves.append(t)
        self.close(ops, moves)
        return ops, moves

    # ------------------------------------------------------------------ generation

    def _f_target_key(self, f: int) -> tuple[int, int]:
        p = self.pos.piles[f]
        top = p[-1] if p else 255
        if self.rank_only and p:
            top = RANK_OF[top]
        return (self.group_of[f], top)

    def edges(self, inner: bool = False, use: tuple[int, int] | None = None) -> list[Edge]:
        """Every edge out of the current position.

        ``inner``: plain moves only (no delayed-move pairs), for the second half of a pair;
        ``use`` = ``(src, dst)`` then keeps only the edges whose last move is from ``src`` or
        onto ``dst`` (the same edges, in the same order, as filtering the full list).
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
        no_takeback = self.no_takeback
        if not inner:
            self._walk_fresh = False
        for s, d, n in game._legal() if use is None else self._legal_uses(*use):
            if macro and (s in (S, W) or d == S):
                continue  # the stock macro-moves below replace these
            if no_takeback and s in Fset and d not in Fset:
                continue
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
            if use is None or s == use[0] or d == use[1]:
                out.append(((s, d, n),))
        if macro and S >= 0:
            if use is None:
                self._stock_edges(out)
            elif use[1] in Tset:  # a waste card's only use is a move onto the pile
                self._stock_edges(out, use[1])
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
        out.extend([(first, *e) for e in self.edges(inner=True, use=(src, dst))])
        game._revert(ops)

    def _legal_uses(self, src: int, dst: int) -> list[Triple]:
        """``Game._legal()`` restricted to moves from ``src`` or onto tableau pile ``dst``,
        in the same order, without generating the rest: the second halves of delayed-move
        pairs (most of the solver's move generation on Klondike). Stock moves are left out
        (a draw is never from ``src`` nor onto ``dst``). Tested against filtering
        ``Game._legal()``."""
        g = self.game
        piles, down = self.pos.piles, self.pos.down
        out: list[Triple] = []
        if g.resigned or self.home() == self.total:
            return out
        self._uses_to_f(src, out)
        if not g._groups:
            return self._uses_single(src, dst, out)
        # to the tableau: everything from src, and anything onto dst
        T = self.T
        accept = g._t_accept
        king_only = g._king_only
        groups = g._groups
        run_length = g._run_length
        dp = piles[dst]
        d_empty = not dp
        # what dst takes: the head rank wanted and the cards accepted (not empty)
        acc: tuple[int, ...] = ()
        want_rank = 0
        if dp and accept is not None and len(dp) > down[dst]:
            acc = accept[dp[-1]]
            want_rank = RANK_OF[dp[-1]] - 1
        wants: dict[int, list[int]] | None = None  # card -> accepting piles, for src's moves
        empties: list[int] = []
        if src in self.Tset or src in g._to_t_single:
            wants = {}
            for d in T:
                tp = piles[d]
                if not tp:
                    empties.append(d)
                elif accept is not None and len(tp) > down[d]:
                    for c in accept[tp[-1]]:
                        wants.setdefault(c, []).append(d)
        for s in T:
            p = piles[s]
            if not p:
                continue
            if s == src:
                assert wants is not None
                for n in range(1, (run_length(s) if groups else 1) + 1):
                    head = p[-n]
                    ds = wants.get(head)
                    if empties and (RANK_OF[head] == 13 if king_only else n == 1):
                        ds = sorted(ds + empties) if ds else empties
                    if ds:
                        out.extend([(s, d, n) for d in ds if d != s])
            elif s != dst:
                # the run's ranks go up one by one from its top: one head can fit dst
                if d_empty:
                    n = 14 - RANK_OF[p[-1]] if king_only else 1
                elif acc:
                    n = want_rank - RANK_OF[p[-1]] + 1
                else:
                    continue
                if (n == 1 or (n > 1 and groups and n <= run_length(s))) and (
                        d_empty or p[-n] in acc):
                    out.append((s, dst, n))
        src_targets = None
        if src in g._to_t_single and piles[src]:
            assert wants is not None
            src_targets = wants.get(piles[src][-1])
        return self._uses_rest(src, dst, d_empty, acc, empties, src_targets, out)

    def _uses_to_f(self, src: int, out: list[Triple]) -> None:
        """:meth:`_legal_uses`' moves to the foundations: only from ``src``."""
        g = self.game
        piles, down = self.pos.piles, self.pos.down
        p = piles[src] if src >= 0 else []
        if p and src in g._to_f_sources and len(p) > down[src]:
            c = p[-1]
            from_f = src in self.Fset
            f_next, f_first = g._f_next, g._f_first
            for f in self.F:
                fp = piles[f]
                if c in (f_next[f][fp[-1]] if fp else f_first[f]) and not (
                        from_f and (f == src or not fp)):
                    out.append((src, f, 1))

    def _uses_single(self, src: int, dst: int, out: list[Triple]) -> list[Triple]:
        """:meth:`_legal_uses` after the foundation moves, when cards move one at a time
        (no groups: Seven by Five, Forty and Eight): one pass over the tableau finds both the
        moves onto ``dst`` and the piles that take ``src``'s top, whose moves go in at
        ``src``'s place — the same moves in the same order (tested against the engine)."""
        g = self.game
        piles, down = self.pos.piles, self.pos.down
        accept = g._t_accept
        king_only = g._king_only
        dp = piles[dst]
        d_empty = not dp
        acc: tuple[int, ...] = ()
        if dp and accept is not None and len(dp) > down[dst]:
            acc = accept[dp[-1]]
        need_src = src in self.Tset or src in g._to_t_single
        head = piles[src][-1] if need_src and piles[src] else -1
        takes = need_src and head >= 0 and accept is not None
        ds_src: list[int] = []  # non-empty piles taking src's top, in pile order
        empties: list[int] = []
        src_at = -1
        for s in self.T:
            p = piles[s]
            if not p:
                if need_src:
                    empties.append(s)
                continue
            if takes and len(p) > down[s] and head in accept[p[-1]]:  # type: ignore[index]
                ds_src.append(s)
            if s == src:
                src_at = len(out)
            elif s != dst:
                c = p[-1]
                if (not king_only or RANK_OF[c] == 13) if d_empty else c in acc:
                    out.append((s, dst, 1))
        if src_at >= 0:
            ds = ds_src
            if empties and (RANK_OF[head] == 13 if king_only else True):
                ds = sorted(ds + empties) if ds else empties
            out[src_at:src_at] = [(src, d, 1) for d in ds if d != src]
        return self._uses_rest(src, dst, d_empty, acc, empties, ds_src, out)

    def _uses_rest(self, src: int, dst: int, d_empty: bool, acc: tuple[int, ...],
                   empties: list[int], src_targets: list[int] | None,
                   out: list[Triple]) -> list[Triple]:
        """The tail shared by both generators: single-card sources (waste, cells,
        foundations), with ``src``'s top going to ``src_targets`` (and the empty piles it may
        take), then reserve cards into an empty ``dst``, then ``src`` into the cells."""
        g = self.game
        piles = self.pos.piles
        king_only = g._king_only
        for s in g._to_t_single:
            p = piles[s]
            if p:
                c = p[-1]
                if s == src:
                    ds = src_targets
                    if empties and (not king_only or RANK_OF[c] == 13):
                        ds = sorted(ds + empties) if ds else empties
                    if ds:
                        out.extend([(s, d, 1) for d in ds])
                elif (c in acc) if not d_empty else (not king_only or RANK_OF[c] == 13):
                    out.append((s, dst, 1))
        if d_empty and g.rules.reserve_to_space:
            for s in g._R:
                if piles[s]:
                    out.append((s, dst, 1))
        if g._C and src in g._to_c_sources and piles[src]:
            out.extend([(src, c, 1) for c in g._C if not piles[c]])
        return out

    def _sits_on_parent(self, s: int, n: int) -> bool:
        """Is the group of ``n`` cards on top of ``s`` already built on the card below it?"""
        p = self.pos.piles[s]
        head, below = p[-n], p[-n - 1]
        if RANK_OF[below] != RANK_OF[head] + 1:
            return False
        if self.alt:
            return RED_OF[below] != RED_OF[head]
        return SUIT_OF[below] == SUIT_OF[head]
