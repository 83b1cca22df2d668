"""Is the game won, lost or still playing?

``lost`` is declared only when it is certain (``rules/README.md``): never while some sequence
of moves could still put another card home. Two proofs, chosen by ``Rules.lost_check``:

* ``REACHABILITY`` (every variant without unlimited redeals): when the stock can bring no new
  card (stock empty, no redeal left), the positions reachable without a foundation gain are
  finite. A depth-first search over them (tableau piles and cells canonically sorted, since
  they are interchangeable) looks for one where another card goes home. None found: lost.
  The search has a node budget; when the budget runs out the answer is "not sure", so the game
  stays ``playing`` and the player resigns or the clock ends it.
* ``KLONDIKE`` (Unlimited): the waste and stock cycle forever, so the check is the one the
  rules page gives: no tableau move turns up a card, empties a column or plays home (or
  uncovers a face-up card that plays home: the page's list misses that case, and lost must be
  certain), and no card that can ever reach the top of the waste plays anywhere. With
  foundation take-back a foundation card that could come back to the tableau also counts as
  "not sure".
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

try:
    import cython
except ImportError:  # Cython is optional at run time: its declarations are then no-ops
    from solrace.shared import nocython as cython

from solrace.shared.rules import LostCheck

if TYPE_CHECKING:
    from collections.abc import Callable

    from solrace.shared.engine import Game, Triple

REACHABILITY_BUDGET = 2_000
_KINGS = (12, 25, 38, 51)


class Status(enum.Enum):
    """A game's state (``solrace.shared.engine`` exports it too; it lives here so that the
    status check needs no import at call time)."""

    PLAYING = "playing"
    WON = "won"
    LOST = "lost"
    RESIGNED = "resigned"


# Enum members as module constants (``Status.WON`` costs a call of the enum metaclass's
# ``__getattr__`` hook on Python 3.11; a module global is a dict lookup).
_WON, _LOST, _PLAYING = Status.WON, Status.LOST, Status.PLAYING
_KLONDIKE = LostCheck.KLONDIKE


def compute_status(game: Game) -> Status:
    if game.cards_home == game.total_cards:
        return _WON
    # Cheap answers first (the server asks after every move). The legal moves are the game's
    # shared list (Game.legal_triples): the ack lists them anyway.
    if game.rules.lost_check is _KLONDIKE:
        # Not stuck (klondike_stuck) when a move makes progress or a card that can reach the
        # waste top plays: checked in the cheapest order (a stock that can deliver makes a
        # draw or redeal legal, so it needs no test of its own).
        moves = game.legal_triples()
        if not moves:
            return _LOST
        return _PLAYING if _plays_home(game, moves) or _makes_progress(game, moves) or \
            _waste_card_plays(game) else _LOST
    # A stock that can deliver means a draw or redeal is legal, so "no legal move" cannot
    # hold, and the reachability proof answers True at once.
    if not game.resigned and _stock_can_deliver(game):
        return _PLAYING
    moves = game.legal_triples()
    if not moves:
        return _LOST
    known = game._cache  # (legal moves, cards home) of this position
    lost = _search(game, REACHABILITY_BUDGET, moves, eager=True) is False
    game._cache = known  # the search left the position as it was (its do/undo forgot it)
    return _LOST if lost else _PLAYING


# C types (compiled only; the .py runs as written): the moves are the engine's triples of pile
# indexes, the piles lists, and the foundations and the tableau each one run of indexes
# (``Game._f_lo``.. ``_f_hi``, ``_t_lo``.. ``_t_hi``): membership is two C comparisons where
# the sets ``_F_set``/``_T_set`` cost a hash lookup of a boxed int each.
@cython.locals(moves=list, t=tuple, s=cython.Py_ssize_t, d=cython.Py_ssize_t,
               f_lo=cython.Py_ssize_t, f_hi=cython.Py_ssize_t)
def _plays_home(game: Game, moves: list[Triple]) -> bool:
    f_lo, f_hi = game._f_lo, game._f_hi
    for t in moves:  # (a loop: cheaper than any() of a generator)
        s, d = t[0], t[1]
        if f_lo <= d < f_hi and not f_lo <= s < f_hi:
            return True
    return False


def _stock_can_deliver(game: Game) -> bool:
    S = game._S
    if S < 0:
        return False
    piles = game.pos.piles
    return bool(piles[S]) or (bool(piles[game._W]) and game._redeal_allowed())


def _keyer(game: Game) -> Callable[[], bytes]:
    """A function giving the current position's key for the search's ``seen`` set.

    Tableau piles and cells are sorted (interchangeable). Piles are packed as bytes (cards are
    0..51; 0xfe and 0xff separate piles), which is injective for a fixed layout: two positions
    get equal keys exactly when the former tuple-of-tuples keys were equal. Foundations and
    reserves are left out when no move of the search can change them without putting a card
    home (which ends the search): they are the same in every key of one search, so leaving
    them out merges no positions that were distinct."""
    piles, lay, rules = game.pos.piles, game.layout, game.rules
    volatile_f = rules.foundation_to_tableau or rules.foundation_to_foundation
    volatile_r = rules.reserve_to_space or rules.foundation_to_tableau
    fs = slice(lay.foundations.start, lay.foundations.stop if volatile_f else 0)
    rs = slice(lay.reserve.start, lay.reserve.stop if volatile_r else 0)
    ts = slice(lay.tableau.start, lay.tableau.stop)
    cs = slice(lay.cells.start, lay.cells.stop)
    w = game._W
    sep, join = b"\xfe".join, b"\xff".join

    def key() -> bytes:
        parts = list(map(bytes, piles[fs]))
        parts.append(sep(sorted(map(bytes, piles[ts]))))
        parts.extend(map(bytes, piles[rs]))
        parts.append(sep(sorted(map(bytes, piles[cs]))))
        if w >= 0:
            parts.append(bytes(piles[w]))
        return join(parts)

    return key


def _key(game: Game) -> bytes:
    """The search key of the current position (only comparable within one search)."""
    return _keyer(game)()


def progress_reachable(game: Game, budget: int) -> bool | None:
    """True when some sequence of moves puts another card home, False when none can, None when
    the budget ran out first. Only answers (other than True) while the stock can deliver
    nothing new; the game is left exactly as it was."""
    return _search(game, budget, game._legal(), eager=False)


def _search(game: Game, budget: int, moves: list[Triple], *, eager: bool) -> bool | None:
    """The depth-first search behind :func:`progress_reachable`; ``moves`` are the legal moves
    of the current position.

    ``eager``: as each position is entered, look through its moves for one that goes home and
    answer True at once instead of exploring the earlier moves' subtrees first. That can turn a
    None (budget spent before reaching it) into True, never anything into False or back, so
    "is it lost" (``is False``) gets the same answer sooner. When, besides, no tableau card is
    face down (every position of a variant proved this way, as dealt), the children of each
    position are tried in :func:`_dig_first` order. The order cannot change a False: keys then
    identify positions up to interchangeable piles, so the set of keys reachable without
    progress, and whether one of them has a move home, do not depend on the order in which
    they are explored; a False means all of them were explored within the budget, in any order.

    Moves into the second, third... empty cell (or empty tableau pile) are skipped: they lead
    to the same key as the same move into the first one, tried just before (``_legal`` lists
    destinations in pile order), so the full search would only find the key seen and undo
    them. Skipping them changes neither the positions explored nor the node count."""
    if _stock_can_deliver(game):
        return True
    F = game._F_set  # (a set: membership of a range costs three times as much)
    for s, d, _ in moves:
        if d in F and s not in F:
            return True
    piles, f_slice = game.pos.piles, game._f_slice
    T, C = game._T, game._C
    home = cur = game.cards_home
    do, revert, legal, key = game._do, game._revert, game._legal, _keyer(game)
    dig = eager and not any(game.pos.down)

    def distinct(moves: list[Triple]) -> list[Triple]:
        spare = [t for t in T if not piles[t]][1:] + [c for c in C if not piles[c]][1:]
        return [m for m in moves if m[1] not in spare] if spare else moves

    seen = {key()}
    path: list[tuple[list[tuple[int, ...]], int]] = []
    stack = [iter(distinct(_dig_first(game, moves) if dig else moves))]
    nodes = 0
    try:
        while stack:
            triple = next(stack[-1], None)
            if triple is None:
                stack.pop()
                if path:
                    ops, cur = path.pop()
                    revert(ops)
                continue
            s, d, n = triple
            ops = do(s, d, n)
            # only a move from or to a foundation changes the count (auto-fill never does)
            now = sum(map(len, piles[f_slice])) if (s in F or d in F) else cur
            if now > home:
                revert(ops)
                return True
            k = key()
            if k in seen:
                revert(ops)
                continue
            seen.add(k)
            nodes += 1
            if nodes > budget:
                revert(ops)
                return None
            path.append((ops, cur))
            cur = now
            nxt = legal()
            if eager and cur == home:
                for s, d, _ in nxt:
                    if d in F and s not in F:
                        return True
            stack.append(iter(distinct(_dig_first(game, nxt) if dig else nxt)))
        return False
    finally:
        while path:
            revert(path.pop()[0])


def _dig_first(game: Game, moves: list[Triple]) -> list[Triple]:
    """``moves`` reordered so that the search digs toward cards that could go home: first moves
    off the tableau pile where such a card lies shallowest, and last moves that bury one.
    Otherwise (ties, and when no such card is in the tableau) the ``_legal`` order stays."""
    piles = game.pos.piles
    f_next, f_first = game._f_next, game._f_first
    needed: set[int] = set()
    for f in game._F:
        fp = piles[f]
        needed.update(f_next[f][fp[-1]] if fp else f_first[f])
    depth: dict[int, int] = {}
    for t in game._T:
        p = piles[t]
        for i in range(len(p) - 1, -1, -1):
            if p[i] in needed:
                depth[t] = len(p) - 1 - i
                break
    if not depth:
        return moves
    get = depth.get
    return sorted(moves, key=lambda m: get(m[0], 99) + (100 if m[1] in depth else 0))


def waste_reachable(game: Game) -> list[int]:
    """Cards that can become the top of the waste by drawing and redealing alone.

    Drawing and redealing keep the combined sequence (waste bottom to top, then stock top to
    bottom) fixed, so the state is just the waste length; simulate until it repeats."""
    piles = game.pos.piles
    waste, stock = piles[game._W], piles[game._S]
    seq = waste + stock[::-1]
    total = len(seq)
    draw = game.rules.draw
    redeals_left = None if game.rules.redeals is None else game.rules.redeals - game.pos.redeals
    k = len(waste)
    tops: list[int] = []
    seen: set[int] = set()
    while k not in seen:
        seen.add(k)
        if k:
            tops.append(seq[k - 1])
        if k == total:
            if redeals_left == 0 or total == 0:
                break
            if redeals_left is not None:
                redeals_left -= 1
                seen.clear()
            k = 0
        else:
            k = min(k + draw, total)
    return tops


def klondike_stuck(game: Game, moves: list[tuple[int, int, int]]) -> bool:
    return not _makes_progress(game, moves) and not _waste_card_plays(game)


@cython.locals(piles=list, down=list, s=cython.Py_ssize_t,
               d=cython.Py_ssize_t, f_lo=cython.Py_ssize_t, f_hi=cython.Py_ssize_t,
               t_lo=cython.Py_ssize_t, t_hi=cython.Py_ssize_t, sF=cython.bint, dF=cython.bint,
               dT=cython.bint)
def _makes_progress(game: Game, moves: list[tuple[int, int, int]]) -> bool:
    """Does one of ``moves`` play home, turn up a card, empty a column, uncover a face-up card
    that plays home, or take a card back from a foundation (not sure)?"""
    pos = game.pos
    piles, down = pos.piles, pos.down
    f_lo, f_hi, t_lo, t_hi = game._f_lo, game._f_hi, game._t_lo, game._t_hi
    wanted: set[int] | None = None  # the cards some foundation accepts (_fits_foundation)
    for t in moves:
        s, d, n = t
        sF, dF = f_lo <= s < f_hi, f_lo <= d < f_hi
        if dF and not sF:
            return True  # plays home
        dT = t_lo <= d < t_hi
        if t_lo <= s < t_hi and dT:
            left = len(piles[s]) - n
            if left and left == down[s]:
                return True  # turns up a card
            if left == 0 and piles[d]:
                return True  # empties a column (not a King shuttle between spaces)
            if left > down[s]:
                if wanted is None:
                    wanted = _home_wanted(game)
                if piles[s][left - 1] in wanted:
                    return True  # uncovers a face-up card that plays home
        if sF and dT:
            return True  # take-back: not sure
    return False


def _home_wanted(game: Game) -> set[int]:
    """The cards some foundation accepts now (``_fits_foundation`` of any foundation, as the
    engine's acceptance tables give it)."""
    piles, f_next, f_first = game.pos.piles, game._f_next, game._f_first
    wanted: set[int] = set()
    for f in game._F:
        fp = piles[f]
        wanted.update(f_next[f][fp[-1]] if fp else f_first[f])
    return wanted


def _waste_card_plays(game: Game) -> bool:
    """Can a card that can ever reach the top of the waste go to a foundation or onto the
    tableau right now? (``_fits_foundation`` / ``_fits_tableau`` of each such card, answered
    from the set of every card some pile accepts.)"""
    piles, down = game.pos.piles, game.pos.down
    rules = game.rules
    every = rules.redeals is None and rules.draw == 1  # every waste and stock card (see below)
    if every:
        waste, stock = piles[game._W], piles[game._S]
        if not waste and not stock:
            return False
    else:
        tops = _waste_tops(game)
        if not tops:
            return False
    wanted = _home_wanted(game)
    accept = game._t_accept
    for t in game._T:
        tp = piles[t]
        if not tp:
            if not game._king_only:
                return True  # any single card goes into a space
            wanted.update(_KINGS)
        elif accept is not None and len(tp) > down[t]:
            wanted.update(accept[tp[-1]])
    if every:
        return not (wanted.isdisjoint(waste) and wanted.isdisjoint(stock))
    return not wanted.isdisjoint(tops)


def _waste_tops(game: Game) -> set[int] | list[int]:
    """The cards of :func:`waste_reachable` (as a set, or its list), without the simulation
    when redeals are unlimited: drawing ``draw`` at a time from waste length ``k`` reaches the
    lengths ``k, k + draw, ...``, the full length, then after the redeal ``0, draw, ...`` (until
    a length seen; those are among the first ones). With ``draw`` 1 that is every length."""
    rules = game.rules
    if rules.redeals is not None:
        return waste_reachable(game)
    piles = game.pos.piles
    waste, stock = piles[game._W], piles[game._S]
    if rules.draw == 1:
        return {*waste, *stock}
    seq = waste + stock[::-1]
    total, draw = len(seq), rules.draw
    lengths = {*range(len(waste), total, draw), *range(draw, total, draw), total}
    return {seq[k - 1] for k in lengths if k}


__all__ = ["compute_status", "klondike_stuck", "progress_reachable", "waste_reachable"]
