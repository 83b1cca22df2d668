"""The generic engine: one Game class that plays every variant from its :class:`Rules`.

In the spirit of python-chess's ``Board``: ``legal_moves()``, ``push(move)`` (illegal moves
raise :class:`IllegalMove` and leave the game untouched), ``pop()`` to undo, ``status``, and
text forms of moves and positions. Automatic effects — turning up an exposed face-down card,
filling a space from the waste or stock — happen inside the move that causes them, so that a
move log replays to exactly the same position.

Internally a move is a triple of pile indexes ``(src, dst, n)`` and an applied move leaves a
list of primitive operations that undo it exactly; the solver uses that fast path.

Why one module of this size: it is one class with one job, the state of a game and its moves
(generate, check, apply, undo). Won/lost lives in :mod:`.status`, text forms in
:mod:`.notation`, what a seat sees in :mod:`.views`; what is left here shares the per-layout
tables built in ``_prepare`` and is compiled as one unit (``shared/accel.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

try:
    import cython
except ImportError:  # Cython is optional at run time: its declarations are then no-ops
    from solrace.shared import nocython as cython

from solrace.shared.cards import RANK_OF, RED_OF, SUIT_OF
from solrace.shared.deal import Position, deal_position
from solrace.shared.errors import IllegalMove, NotationError
from solrace.shared.layout import Layout, PileKind, layout_of
from solrace.shared.notation import Move, parse_position, position_text
from solrace.shared.rules import AutoFill, Build, EmptyTableau, LostCheck, Variant, options_text
from solrace.shared.status import Status, compute_status
from solrace.shared.variants import resolve

# Primitive operations recorded for undo.
_TRANSFER = 0  # (0, src, dst, count, one_by_one)  cards moved src -> dst
_TURN_UP = 1  # (1, pile)                          down[pile] decreased by one
_REDEAL = 2  # (2,)                                redeals increased by one

Op = tuple[int, ...]
Triple = tuple[int, int, int]


def _accept_tables() -> tuple[
    dict[int, tuple[int, ...]],
    dict[tuple[int, bool], tuple[tuple[int, ...], ...]],
    dict[bool, tuple[tuple[int, ...], ...]],
]:
    """The building rules as lookup tables, indexed by the card on top of the pile:

    * ``FIRST[rank]``: the cards an empty foundation starting at ``rank`` accepts (rank 0: the
      padding of non-foundation piles, nothing);
    * ``NEXT[step, same_suit][top]``: the cards a foundation accepts on ``top``;
    * ``BUILD_ON[alternate][top]``: the cards a tableau pile accepts on ``top`` (one lower,
      alternate colour or same suit).

    The same tests as ``_fits_foundation`` / ``_fits_tableau``, evaluated once at import."""
    cards = range(52)
    first = {r: tuple(c for c in cards if RANK_OF[c] == r) for r in range(14)}
    nxt = {
        (step, same): tuple(
            tuple(
                c for c in cards
                if step and RANK_OF[c] == RANK_OF[top] + step
                and (not same or SUIT_OF[c] == SUIT_OF[top])
            )
            for top in cards
        )
        for step in (-1, 0, 1)
        for same in (False, True)
    }
    build_on = {
        alt: tuple(
            tuple(
                c for c in cards
                if RANK_OF[c] == RANK_OF[top] - 1
                and (RED_OF[c] != RED_OF[top] if alt else SUIT_OF[c] == SUIT_OF[top])
            )
            for top in cards
        )
        for alt in (False, True)
    }
    return first, nxt, build_on


_FIRST, _NEXT, _BUILD_ON = _accept_tables()
_MOVES: dict[tuple[str, ...], dict[Triple, Move]] = {}  # layout ids -> triple -> Move
# pile count P -> the one-card triples, ``(s, d, 1)`` at ``s * P + d``: the generation lists
# these shared tuples instead of building (and freeing) a tuple and boxing its three ints per
# move listed; tuples are immutable, so sharing them changes nothing a reader can see
_ONES: dict[int, tuple[Triple, ...]] = {}
# layout ids -> move text -> (its triple, its Move), for texts pushed before (legal then): a
# server applies every move as text. Bounded: only texts of applied moves, and a cap per layout
_BY_TEXT: dict[tuple[str, ...], dict[str, tuple[Triple, Move]]] = {}
_BY_TEXT_CAP = 20_000

# Enum members as module constants: on Python 3.11 ``Enum.MEMBER`` goes through the enum
# metaclass's ``__getattr__`` hook (about 850 instructions a lookup, compiled or not), a module
# global is a dict lookup. The move path tests a few of them per move.
_PLAYING = Status.PLAYING
_RESIGNED = Status.RESIGNED
_STOCK = PileKind.STOCK
_TABLEAU = PileKind.TABLEAU
_FOUNDATION = PileKind.FOUNDATION
_RESERVE = PileKind.RESERVE
_CELL = PileKind.CELL
_WASTE = PileKind.WASTE
_NO_FILL = AutoFill.NONE


@cython.cclass
class Game:
    """One player's game of one deal.

    Compiled, an extension type (``cython.cclass``) whose attributes are C struct fields: a
    read of ``self.pos`` in the engine's own methods is a pointer load instead of a dict lookup
    in the instance and one in the type (about 280 instructions each; the move path reads some
    sixty a move), and from other modules a descriptor call. It also means a compiled game
    takes no attribute beyond those declared here (from source, ``Game`` is a plain class and
    the declarations below are class attributes that ``__init__`` shadows). Every attribute is
    public: ``status``, ``views``, ``pointing``, the solver and the tests read the tables."""

    variant = cython.declare(object, visibility="public")
    options = cython.declare(object, visibility="public")
    rules = cython.declare(object, visibility="public")
    layout = cython.declare(object, visibility="public")
    seed = cython.declare(object, visibility="public")
    pos = cython.declare(object, visibility="public")
    moves = cython.declare(list, visibility="public")
    resigned = cython.declare(cython.bint, visibility="public")
    _undo = cython.declare(list, visibility="public")
    _status = cython.declare(object, visibility="public")
    _cache = cython.declare(list, visibility="public")
    _texts = cython.declare(dict, visibility="public")
    total_cards = cython.declare(cython.Py_ssize_t, visibility="public")
    _S = cython.declare(cython.Py_ssize_t, visibility="public")
    _W = cython.declare(cython.Py_ssize_t, visibility="public")
    _draws_keep_status = cython.declare(cython.bint, visibility="public")
    _alt = cython.declare(cython.bint, visibility="public")
    _groups = cython.declare(cython.bint, visibility="public")
    _king_only = cython.declare(cython.bint, visibility="public")
    _F = cython.declare(tuple, visibility="public")
    _T = cython.declare(tuple, visibility="public")
    _R = cython.declare(tuple, visibility="public")
    _C = cython.declare(tuple, visibility="public")
    _F_set = cython.declare(frozenset, visibility="public")
    _T_set = cython.declare(frozenset, visibility="public")
    _f_slice = cython.declare(object, visibility="public")
    _kinds = cython.declare(object, visibility="public")
    _start = cython.declare(object, visibility="public")
    _step = cython.declare(object, visibility="public")
    _same = cython.declare(object, visibility="public")
    _build = cython.declare(object, visibility="public")
    _auto = cython.declare(object, visibility="public")
    _to_f_sources = cython.declare(tuple, visibility="public")
    _to_f_rest = cython.declare(tuple, visibility="public")
    _to_t_single = cython.declare(tuple, visibility="public")
    _to_c_sources = cython.declare(tuple, visibility="public")
    _move_of = cython.declare(dict, visibility="public")
    _f_first = cython.declare(tuple, visibility="public")
    _f_next = cython.declare(tuple, visibility="public")
    _t_accept = cython.declare(object, visibility="public")
    _run_next = cython.declare(tuple, visibility="public")
    _gen = cython.declare(tuple, visibility="public")
    _ones = cython.declare(tuple, visibility="public")
    _P = cython.declare(cython.Py_ssize_t, visibility="public")
    _f_lo = cython.declare(cython.Py_ssize_t, visibility="public")
    _f_hi = cython.declare(cython.Py_ssize_t, visibility="public")
    _t_lo = cython.declare(cython.Py_ssize_t, visibility="public")
    _t_hi = cython.declare(cython.Py_ssize_t, visibility="public")
    _texts_one = cython.declare(list, visibility="public")
    _by_text = cython.declare(dict, visibility="public")

    def __init__(
        self,
        variant: str | Variant,
        options: Mapping[str, object] | None = None,
        seed: int = 0,
        *,
        position: Position | None = None,
    ) -> None:
        self.variant, self.options, self.rules = resolve(variant, options)
        self.layout: Layout = layout_of(self.rules)
        self.seed = seed
        self.pos: Position = (
            deal_position(self.variant, self.options, self.rules, seed)
            if position is None
            else position
        )
        self.moves: list[Move] = []
        self.resigned = False
        self._undo: list[list[Op]] = []
        self._status: Status | None = None
        # What is known of the current position: ``[legal triples or None, cards home or -1]``,
        # or None. The legal moves once asked (legal_triples: validation, the status check and
        # the legal move texts of an ack share one generation) and the cards home once counted
        # (cards_home: the server asks four times per move). One attribute, so that every
        # change of the position through the engine forgets both with the one store it paid
        # for the legal moves alone before (``_do``/``_revert`` are the solver's inner loop).
        self._cache: list | None = None
        self._texts: dict[Triple, str] | None = None  # pointing.legal_texts' table (per layout)
        self._texts_one: list[str | None] | None = None  # ... its one-card texts, by s * P + d
        self._prepare()

    @classmethod
    def from_position(
        cls, variant: str | Variant, options: Mapping[str, object] | None, text: str
    ) -> Game:
        """A game set up from position text (tests, puzzles, the solver)."""
        _, _, rules = resolve(variant, options)
        pos = parse_position(layout_of(rules), text)
        counts = [0] * 52
        for pile in pos.piles:
            for c in pile:
                counts[c] += 1
        if any(n != rules.decks for n in counts):
            raise NotationError(f"a position must hold each card exactly {rules.decks} times")
        return cls(variant, options, 0, position=pos)

    def _prepare(self) -> None:
        lay, r = self.layout, self.rules
        self._F = tuple(lay.foundations)
        self._f_slice = slice(lay.foundations.start, lay.foundations.stop)
        self._T = tuple(lay.tableau)
        self._F_set, self._T_set = frozenset(self._F), frozenset(self._T)
        self._R = tuple(lay.reserve)
        self._C = tuple(lay.cells)
        self._S = lay.stock
        self._W = lay.waste
        self._kinds = lay.kinds
        self._start = lay.f_start
        self._step = lay.f_step
        self._same = lay.f_same_suit
        self._build = r.tableau.build
        self._alt = r.tableau.build is Build.DOWN_ALTERNATE_COLOUR
        self._groups = r.tableau.move_groups
        self._king_only = r.tableau.empty is EmptyTableau.KING
        self._auto = r.tableau.auto_fill
        waste = (self._W,) if self._W >= 0 else ()
        back = self._F if r.foundation_to_foundation else ()
        self._to_f_sources = self._T + self._R + self._C + waste + back
        # (source, is a foundation) in _to_f_sources order after the tableau piles, for _legal
        self._to_f_rest = tuple((p, p in self._F) for p in self._to_f_sources[len(self._T):])
        self._to_t_single = waste + self._C + (self._F if r.foundation_to_tableau else ())
        self._to_c_sources = self._T + waste
        # Move objects are immutable: one per (src, dst, n) and layout, shared by every game
        self._move_of = _MOVES.setdefault(lay.ids, {})
        # What each pile top accepts, as tables (see _accept_tables): move generation looks a
        # card up instead of testing every (source, destination) pair.
        self._f_first = tuple(_FIRST[start] for start in self._start)
        self._f_next = tuple(_NEXT[step, same] for step, same in zip(self._step, self._same))
        self._t_accept = None if self._build is Build.NONE else _BUILD_ON[self._alt]
        # lower card -> continues a built run on upper? (``lower in _run_next[upper]``; the same
        # test as _run_length's)
        self._run_next = _BUILD_ON[self._alt]
        self.total_cards = r.total_cards
        P = len(lay.ids)
        ones = _ONES.get(P)
        if ones is None:
            ones = _ONES[P] = tuple((s, d, 1) for s in range(P) for d in range(P))
        self._ones = ones
        self._P = P
        # the foundations and the tableau are each one run of pile indexes: membership is
        # two C comparisons (``_F_set``/``_T_set`` are the same sets as Python objects)
        self._f_lo, self._f_hi = lay.foundations.start, lay.foundations.stop
        self._t_lo, self._t_hi = lay.tableau.start, lay.tableau.stop
        self._by_text = _BY_TEXT.setdefault(lay.ids, {})
        # what _legal reads of the game, fixed for its life: one attribute read per generation
        # instead of twenty (each about 280 instructions compiled, a dict lookup in the
        # instance and one in the type)
        self._gen = (self._F, self._T, self._R, self._C, self._S, self._W, self._f_slice,
                     self.total_cards, self._f_next, self._f_first, self._t_accept,
                     self._to_f_rest, self._king_only, self._groups, self._run_next,
                     self._to_t_single, r.reserve_to_space, self._to_c_sources, r.redeals,
                     P, ones)
        self._draws_keep_status = r.lost_check is LostCheck.KLONDIKE and r.redeals is None

    # ----------------------------------------------------------------- public API

    def legal_moves(self) -> list[Move]:
        """Every legal move, in a fixed order: to foundations, to the tableau, to cells,
        then draw or redeal."""
        ids, get = self.layout.ids, self._move_of.get
        return [get(t) or self._new_move(ids, t) for t in self._legal()]

    def _new_move(self, ids: tuple[str, ...], t: Triple) -> Move:
        m = self._move_of[t] = Move(ids[t[0]], ids[t[1]], t[2])
        return m

    def legal_triples(self) -> list[Triple]:
        """``_legal()`` of the current position, generated once per position and shared (the
        server asks for the legal moves three times per move: to validate the next one, for the
        status and for the ack's legal move texts). The list is the cache itself: read it, do
        not change it. Every change of the position through the engine (``push``, ``pop``,
        ``_do``, ``_revert``, ``resign``) forgets it; a change made to ``pos`` directly does
        not (change a position through the engine, or build a new game from it)."""
        cache = self._cache
        if cache is None:
            legal = self._legal()
            self._cache = [legal, -1]
            return legal
        legal = cache[0]
        if legal is None:
            legal = cache[0] = self._legal()
        return legal

    def is_legal(self, move: Move | str) -> bool:
        try:
            self._check(*self._resolve(move))
        except (IllegalMove, NotationError):
            return False
        return True

    @cython.locals(s=cython.Py_ssize_t, d=cython.Py_ssize_t, cache=list, known=tuple,
                   t=tuple, by_text=dict)
    def push(self, move: Move | str) -> Move:
        """Apply a move (object or text). Raises :class:`IllegalMove` or
        :class:`NotationError` and changes nothing when the move is not allowed."""
        # a text pushed before on this layout names the same piles again (resolving is a pure
        # function of the text and the layout): its triple and Move are looked up, not parsed
        by_text = self._by_text
        known = by_text.get(move) if type(move) is str else None
        if known is not None:
            t, m = known
            s, d, n = t
        else:
            s, d, n = self._resolve(move)
            # the shared one-card triple when it is one (the generation lists the same object:
            # the membership test below then matches by identity)
            t = self._ones[s * self._P + d] if type(n) is int and n == 1 else (s, d, n)
            m = None
        # A draw or redeal cannot change a Klondike-checked status when the stock and waste
        # are on their cycle before it: with unlimited redeals each (waste length) state has
        # one successor, and the states from the empty waste on (0, draw, 2·draw, ..., the
        # full length, 0 again) form one cycle, so the cards that can reach the waste top are
        # the same on every state of it. A waste length off the cycle (draw 3, a length that
        # is not a multiple of 3 and not the full one) is left for good by a draw: the cards
        # only it reaches are lost to the waste top, and a PLAYING can become LOST.
        keep = (self._draws_keep_status and self._status is _PLAYING
                and (d == self._S or (s == self._S
                                      and len(self.pos.piles[d]) % self.rules.draw == 0)))
        cache = self._cache
        # a move among the known legal moves passes _check (every move _legal lists does): only
        # the others need it, for the refusal's reason
        if cache is None or cache[0] is None or t not in cache[0]:
            self._check(s, d, n)
        self._undo.append(self._do(s, d, n))
        if cache is not None and cache[1] >= 0:  # the count home follows from the move's piles
            home = cache[1]  # (auto-fill and turning up never touch them)
            if self._f_lo <= d < self._f_hi:
                home += n
            if self._f_lo <= s < self._f_hi:
                home -= n
            self._cache = [None, home]
        if m is None:
            # a Move that resolved names exactly these piles: keep it rather than build its twin
            if type(move) is Move:
                m = move
            else:  # the shared Move of these piles (see _move_of)
                m = self._move_of.get(t) or self._new_move(self.layout.ids, t)
                if type(move) is str and len(by_text) < _BY_TEXT_CAP:
                    by_text[move] = (t, m)
        self.moves.append(m)
        if not keep:  # (see above: a known PLAYING stays PLAYING)
            self._status = None
        return m

    def pop(self) -> Move:
        """Undo the last move (for the solver and analysis; races never offer it)."""
        if not self._undo:
            raise IndexError("no move to undo")
        self._revert(self._undo.pop())
        self._status = None
        return self.moves.pop()

    def resign(self) -> None:
        self.resigned = True
        self._cache = None

    @property
    def cards_home(self) -> int:
        """Cards on the foundations: counted once per position (see ``_cache``)."""
        cache = self._cache
        if cache is None:
            home = sum(map(len, self.pos.piles[self._f_slice]))
            self._cache = [None, home]
            return home
        home = cache[1]
        if home < 0:
            home = cache[1] = sum(map(len, self.pos.piles[self._f_slice]))
        return home

    @property
    def status(self) -> Status:
        if self.resigned:
            return _RESIGNED
        status = self._status
        if status is None:
            status = self._status = compute_status(self)
        return status

    def is_over(self) -> bool:
        return self.status is not _PLAYING

    def position_text(self) -> str:
        return position_text(self.layout, self.pos)

    def replay(self, moves: Iterable[Move | str]) -> None:
        for m in moves:
            self.push(m)

    def copy(self) -> Game:
        g = Game(self.variant, self.options, self.seed, position=self.pos.copy())
        g.moves = self.moves[:]
        g._undo = [ops[:] for ops in self._undo]
        g.resigned = self.resigned
        return g

    def __repr__(self) -> str:
        return (
            f"<Game {self.variant.name} {options_text(self.options) or '-'} seed={self.seed} "
            f"moves={len(self.moves)} home={self.cards_home}/{self.total_cards}>"
        )

    # ----------------------------------------------------------------- checking

    def _resolve(self, move: Move | str) -> Triple:
        if isinstance(move, str):
            move = Move.from_text(move)
        index = self.layout.index
        s = index.get(move.src)
        d = index.get(move.dst)
        if s is None or d is None:
            bad = move.src if s is None else move.dst
            raise IllegalMove("no_such_pile", f"{self.variant.title} has no pile {bad}")
        return s, d, move.n

    def _check(self, s: int, d: int, n: int) -> None:
        # cards_home, inlined: this runs once per move checked
        if self.resigned or sum(map(len, self.pos.piles[self._f_slice])) == self.total_cards:
            raise IllegalMove("game_over", "the game is over")
        piles, down, kinds = self.pos.piles, self.pos.down, self._kinds
        ks, kd = kinds[s], kinds[d]
        if ks is _STOCK or kd is _STOCK:
            self._check_stock(s, d, n)
            return
        src = piles[s]
        if not src:
            raise IllegalMove("empty_source", f"{self.layout.ids[s]} is empty")
        if n < 1 or n > len(src):
            raise IllegalMove("bad_count", f"{self.layout.ids[s]} has no {n} cards to move")
        if ks is _TABLEAU and len(src) - n < down[s]:
            raise IllegalMove("not_available", "face-down cards cannot move")
        if n > 1:
            if not (ks is _TABLEAU and kd is _TABLEAU and self._groups):
                raise IllegalMove("bad_count", "only one card moves at a time here")
            if self._run_length(s) < n:
                raise IllegalMove("bad_count", f"the top {n} cards of {self.layout.ids[s]} "
                                  "are not a built sequence")
        card = src[-n]
        if kd is _FOUNDATION:
            if ks is _FOUNDATION:
                if not self.rules.foundation_to_foundation:
                    raise IllegalMove("does_not_fit", "cards do not move between foundations here")
                if not piles[d]:  # "where it continues that sequence": never starts one
                    raise IllegalMove("does_not_fit", "a foundation card only continues another "
                                      "foundation's sequence")
            if not self._fits_foundation(card, d):
                raise IllegalMove("does_not_fit", f"that card does not go on {self.layout.ids[d]}")
        elif kd is _TABLEAU:
            if ks is _RESERVE and not (self.rules.reserve_to_space and not piles[d]):
                raise IllegalMove("does_not_fit", "reserve cards play only to the foundations")
            if ks is _FOUNDATION and not self.rules.foundation_to_tableau:
                raise IllegalMove("does_not_fit", "foundation cards stay home in this game")
            if not self._fits_tableau(card, d, n):
                raise IllegalMove("does_not_fit", self._tableau_reason(d))
        elif kd is _CELL:
            if piles[d]:
                raise IllegalMove("does_not_fit", f"cell {self.layout.ids[d]} is taken")
            if ks not in (_TABLEAU, _WASTE):
                raise IllegalMove("does_not_fit", "only tableau or waste cards go to a cell")
        else:
            raise IllegalMove("does_not_fit", f"no card may be put on {self.layout.ids[d]}")

    def _check_stock(self, s: int, d: int, n: int) -> None:
        piles, S, W = self.pos.piles, self._S, self._W
        if n != 1:
            raise IllegalMove("bad_count", "draws and redeals take no count")
        if s == S and d == W:
            if not piles[S]:
                hint = " (redeal: ws)" if self._redeal_allowed() and piles[W] else ""
                raise IllegalMove("no_stock", "the stock is empty" + hint)
            return
        if s == W and d == S:
            if piles[S]:
                raise IllegalMove("no_redeal", "the stock is not empty yet")
            if not piles[W]:
                raise IllegalMove("no_redeal", "the waste is empty")
            if not self._redeal_allowed():
                raise IllegalMove("no_redeal", "no redeals left")
            return
        raise IllegalMove("does_not_fit", "the stock only deals to the waste")

    def _redeal_allowed(self) -> bool:
        limit = self.rules.redeals
        return limit is None or self.pos.redeals < limit

    def _tableau_reason(self, d: int) -> str:
        if not self.pos.piles[d]:
            return "only a King may go into an empty pile" if self._king_only else \
                "only a single card may go into an empty pile"
        if self._build is Build.NONE:
            return "tableau piles hold one card; no building"
        if self._alt:
            return "tableau builds down in alternating colours"
        return "tableau builds down by suit"

    def _fits_foundation(self, c: int, f: int) -> bool:
        fp = self.pos.piles[f]
        if not fp:
            return RANK_OF[c] == self._start[f]
        top = fp[-1]
        return RANK_OF[c] == RANK_OF[top] + self._step[f] and (
            not self._same[f] or SUIT_OF[c] == SUIT_OF[top]
        )

    def _fits_tableau(self, c: int, t: int, n: int) -> bool:
        tp = self.pos.piles[t]
        if not tp:
            return RANK_OF[c] == 13 if self._king_only else n == 1
        if self._build is Build.NONE or len(tp) <= self.pos.down[t]:
            return False
        top = tp[-1]
        if RANK_OF[c] != RANK_OF[top] - 1:
            return False
        return RED_OF[c] != RED_OF[top] if self._alt else SUIT_OF[c] == SUIT_OF[top]

    def _run_length(self, t: int) -> int:
        """How many cards on top of tableau pile ``t`` form a movable built sequence."""
        p = self.pos.piles[t]
        if not p:
            return 0
        if not self._groups:
            return 1
        lo = self.pos.down[t]
        i = len(p) - 1
        alt = self._alt
        while i > lo:
            upper, lower = p[i - 1], p[i]
            if RANK_OF[lower] != RANK_OF[upper] - 1:
                break
            if (RED_OF[lower] == RED_OF[upper]) if alt else (SUIT_OF[lower] != SUIT_OF[upper]):
                break
            i -= 1
        return len(p) - i

    # ----------------------------------------------------------------- generation

    # C types for the generation's locals (compiled only; the .py runs as written): the piles
    # as lists read by C index, the tables as tuples, indexes and cards as C integers. Every
    # value declared here is exactly of that type (Position holds lists of ints 0..51, _gen
    # tuples of pile indexes), so the compiled code computes what the .py does.
    @cython.locals(piles=list, down=list, out=list, home=list, want=list, empties=list,
                   free=list, fp=list, tp=list, p=list, F=tuple, T=tuple, R=tuple, C=tuple,
                   to_f_rest=tuple, to_t_single=tuple, to_c_sources=tuple, f_next=tuple,
                   f_first=tuple, run_next=tuple, d=cython.Py_ssize_t, s=cython.Py_ssize_t,
                   f=cython.Py_ssize_t, i=cython.Py_ssize_t, lo=cython.Py_ssize_t,
                   n=cython.Py_ssize_t, S=cython.Py_ssize_t, W=cython.Py_ssize_t,
                   total=cython.Py_ssize_t, top=cython.Py_ssize_t, head=cython.Py_ssize_t,
                   upper=cython.Py_ssize_t, king_only=cython.bint, groups=cython.bint,
                   reserve_to_space=cython.bint, any_home=cython.bint, any_want=cython.bint,
                   c=cython.Py_ssize_t, P=cython.Py_ssize_t, ones=tuple)
    def _legal(self) -> list[Triple]:
        """Every legal move as a triple. The fits are looked up: each destination's top says
        which cards it accepts (``_FIRST``/``_NEXT``/``_BUILD_ON``), so the cost grows with the
        number of piles, not with sources times destinations. Same moves, same order as testing
        ``_fits_foundation``/``_fits_tableau`` on every pair. Written as plain loops (no
        comprehensions, no calls): this runs for every position a player reaches."""
        (F, T, R, C, S, W, f_slice, total, f_next, f_first, accept, to_f_rest, king_only, groups,
         run_next, to_t_single, reserve_to_space, to_c_sources, redeals, P, ones) = self._gen
        pos = self.pos
        piles = pos.piles
        if self.resigned or sum(map(len, piles[f_slice])) == total:
            return []
        out: list[Triple] = []
        append = out.append
        down = pos.down
        # card -> the foundation accepting it, or the list of them, in pile order, when several
        # do (``home`` and ``want`` below hold a pile index for one, a list only for more: most
        # cards fit one place, and a list per entry was most of this function's allocations)
        # (both indexed by the card, 0..51: a list read by index is cheaper than a dict)
        home: list[int | list[int] | None] = [None] * 52
        any_home = False
        for f in F:
            fp = piles[f]
            for c in f_next[f][fp[-1]] if fp else f_first[f]:
                fs = home[c]
                if fs is None:
                    home[c] = f
                elif type(fs) is int:
                    home[c] = [fs, f]
                else:
                    fs.append(f)
                any_home = True
        # One pass over the tableau: its moves home (the first sources of _to_f_sources), and
        # card -> non-empty tableau piles accepting it, in pile order; and the empty piles
        want: list[int | list[int] | None] = [None] * 52
        any_want = False
        empties: list[int] = []
        for d in T:
            tp = piles[d]
            if not tp:
                empties.append(d)
            elif len(tp) > down[d]:
                top = tp[-1]
                fs = home[top]
                if fs is not None:
                    if type(fs) is int:
                        append(ones[d * P + fs])
                    else:
                        for f in fs:
                            append(ones[d * P + f])
                if accept is not None:
                    for c in accept[top]:
                        ds = want[c]
                        if ds is None:
                            want[c] = d
                        elif type(ds) is int:
                            want[c] = [ds, d]
                        else:
                            ds.append(d)
                        any_want = True
        if any_home:  # the other sources of moves home, after the tableau's
            for s, back in to_f_rest:
                p = piles[s]
                if len(p) > down[s]:
                    fs = home[p[-1]]
                    if fs is not None:
                        if type(fs) is int:
                            fs = (fs,)
                        if back:  # foundation to foundation: only onto a sequence
                            for f in fs:
                                if f != s and piles[f]:
                                    append(ones[s * P + f])
                        else:
                            for f in fs:
                                append(ones[s * P + f])
        if any_want or empties:
            for s in T:
                p = piles[s]
                if not p:
                    continue
                # the top n cards for n = 1, 2, ... while they form a built run (_run_length)
                i, lo, n = len(p) - 1, down[s], 1
                head = p[i]
                while True:
                    ds = want[head]
                    if empties and (RANK_OF[head] == 13 if king_only else n == 1):
                        if ds is None:
                            ds = empties
                        else:
                            ds = sorted([ds, *empties] if type(ds) is int else [*ds, *empties])
                    if ds is not None:
                        if type(ds) is int:  # one destination (see home above)
                            if ds != s:
                                append(ones[s * P + ds] if n == 1 else (s, ds, n))
                        else:
                            for d in ds:
                                if d != s:
                                    append(ones[s * P + d] if n == 1 else (s, d, n))
                    if not groups or i <= lo:
                        break
                    upper = p[i - 1]  # the next head, when head continues a run on it
                    if head not in run_next[upper]:
                        break
                    head = upper
                    i -= 1
                    n += 1
            for s in to_t_single:
                p = piles[s]
                if p:
                    c = p[-1]
                    ds = want[c]
                    if ds is not None and type(ds) is int:
                        ds = (ds,)
                    if empties and (not king_only or RANK_OF[c] == 13):
                        ds = sorted([*ds, *empties]) if ds else empties
                    if ds:
                        for d in ds:
                            append(ones[s * P + d])
        if empties and reserve_to_space:
            for s in R:
                if piles[s]:
                    for d in empties:
                        append(ones[s * P + d])
        if C:
            free = [c for c in C if not piles[c]]
            if free:
                for s in to_c_sources:
                    if piles[s]:
                        for c in free:
                            append(ones[s * P + c])
        if S >= 0:
            if piles[S]:
                append(ones[S * P + W])
            elif piles[W] and (redeals is None or pos.redeals < redeals):  # _redeal_allowed
                append(ones[W * P + S])
        return out

    # ----------------------------------------------------------------- applying

    def _do(self, s: int, d: int, n: int) -> list[Op]:
        """Apply a checked move; return the operations that undo it."""
        self._cache = None
        pos = self.pos
        piles = pos.piles
        S, W = self._S, self._W
        if s == S:
            stock, waste = piles[S], piles[W]
            k = min(self.rules.draw, len(stock))
            for _ in range(k):
                waste.append(stock.pop())
            return [(_TRANSFER, S, W, k, 1)]
        if d == S:
            stock, waste = piles[S], piles[W]
            k = len(waste)
            stock.extend(reversed(waste))
            waste.clear()
            pos.redeals += 1
            return [(_TRANSFER, W, S, k, 1), (_REDEAL,)]
        src, dst = piles[s], piles[d]
        if n == 1:
            dst.append(src.pop())
        else:
            dst.extend(src[-n:])
            del src[-n:]
        ops: list[Op] = [(_TRANSFER, s, d, n, 0)]
        if self._kinds[s] is _TABLEAU:
            down = pos.down
            if down[s] and len(src) == down[s]:
                down[s] -= 1
                ops.append((_TURN_UP, s))
            if not src and self._auto is not _NO_FILL:
                self._auto_fill(ops)
        return ops

    def _auto_fill(self, ops: list[Op]) -> None:
        piles, S, W = self.pos.piles, self._S, self._W
        for t in self._T:
            if piles[t]:
                continue
            if self._auto is AutoFill.WASTE_THEN_STOCK and piles[W]:
                source = W
            elif piles[S]:
                source = S
            else:
                return
            piles[t].append(piles[source].pop())
            ops.append((_TRANSFER, source, t, 1, 0))

    def _revert(self, ops: list[Op]) -> None:
        self._cache = None
        pos = self.pos
        piles = pos.piles
        for op in reversed(ops):
            if op[0] == _TRANSFER:
                _, a, b, k, one_by_one = op
                src, dst = piles[b], piles[a]
                if one_by_one:
                    for _ in range(k):
                        dst.append(src.pop())
                elif k == 1:
                    dst.append(src.pop())
                else:
                    dst.extend(src[-k:])
                    del src[-k:]
            elif op[0] == _TURN_UP:
                pos.down[op[1]] += 1
            else:
                pos.redeals -= 1
