"""Playing by pointing: moves a human makes with one word, resolved by the rules (sans-I/O).

Every solitaire app moves a card to its best place with one click and plays safe cards home by
itself. Here that is decided once, for every client, from the engine's own legal moves:

* :func:`resolve_source` turns a *source only* (``t3``, ``t3:4``, ``w``, ``c2``, ``r1``,
  ``f2``, ``s``) into one legal move by one fixed priority (:func:`priority`, and
  ``docs/variants.md`` "Moves by pointing");
* :func:`autoplay` plays every provably safe card home, by the solver's safe-move rules
  (:class:`~solrace.shared.solver.safe_moves.SafeMoves`): a move that keeps every winnable
  position winnable, so playing it never costs the player anything;
* :func:`finish` plays the rest of the game when it plays itself (see :func:`finish_blocker`);
* :func:`legal_texts` lists the legal moves in full notation, for thin clients that highlight
  targets without knowing the rules.

Every decision here reads only what the player sees (tops, counts, face-up cards): none of
them can tell a player anything about a face-down or stock card that the view does not.
:func:`plan` is what the server calls: it applies a request's moves to a game, or raises and
leaves the game as it was.
"""

from __future__ import annotations

import re

try:
    import cython
except ImportError:  # Cython is optional at run time: its declarations are then no-ops
    from solrace.shared import nocython as cython

from solrace.shared.cards import card_text
from solrace.shared.engine import Game
from solrace.shared.errors import CannotFinish, IllegalMove, NoLegalMove, NotationError
from solrace.shared.layout import PileKind
from solrace.shared.notation import DRAW, REDEAL, Move
from solrace.shared.solver.safe_moves import SafeMoves

#: The most moves one request may apply (autoplay, finish, a move with ``auto``). A finish of
#: Unlimited (draw 1) with a full stock cycles the stock once per card at worst: well below.
MAX_BATCH = 1000

_SOURCE_RE = re.compile(r"^(s|w|[ftrc][1-9][0-9]?)(?::([1-9][0-9]?))?$")


def parse_source(text: str) -> tuple[str, int | None] | None:
    """``(pile, count)`` when ``text`` names a source only (``t3``, ``t3:4``); else ``None``.
    A count is allowed only on a tableau pile."""
    m = _SOURCE_RE.match(text.strip().lower()) if isinstance(text, str) else None
    if m is None:
        return None
    pile, count = m.groups()
    if count is not None and not pile.startswith("t"):
        return None
    return pile, int(count) if count else None


def priority(game: Game, move: Move) -> tuple[int, ...] | None:
    """The rank of a legal ``move`` among the moves from its source: smaller is better, ``None``
    for a move a click never makes. The rules, in order (each with its reason):

    0. to a foundation — a card home is the progress every player wants; a non-empty foundation
       before an empty one (continue a sequence rather than start a second one);
    1. onto a non-empty tableau pile — the longest group first (a whole built run keeps its
       sequence together instead of splitting it);
    2. to a free cell — a cell holds one card and nothing builds on it: the cheaper resource;
    3. into an empty tableau pile — the dearest resource, so last; the longest group first;
       never all of a tableau pile into an empty pile (it changes nothing but the pile's name);

    the lowest destination pile number breaks every tie. A waste card never "moves" to the
    stock (that is the redeal, reached by ``s``)."""
    lay = game.layout
    s, d = lay.index[move.src], lay.index[move.dst]
    ks, kd = lay.kinds[s], lay.kinds[d]
    piles = game.pos.piles
    if kd in (PileKind.STOCK, PileKind.WASTE):
        return None  # the stock: only through "s"
    number = int(move.dst[1:])
    if kd is PileKind.FOUNDATION:
        return (0, 0 if piles[d] else 1, number)
    if kd is PileKind.TABLEAU:
        if piles[d]:
            return (1, -move.n, number)
        if ks is PileKind.TABLEAU and move.n == len(piles[s]):
            return None  # the whole pile into a space: the same position, renamed
        return (3, -move.n, number)
    return (2, number)  # a cell


def candidates(game: Game, src: str, count: int | None = None) -> list[Move]:
    """The legal moves from ``src`` (with ``count`` cards, when given) a click may make, best
    first by :func:`priority`."""
    ranked = []
    for m in game.legal_moves():
        if m.src != src or (count is not None and m.n != count):
            continue
        key = priority(game, m)
        if key is not None:
            ranked.append((key, m))
    ranked.sort(key=lambda km: km[0])
    return [m for _, m in ranked]


def resolve_source(game: Game, text: str) -> Move:
    """The move a click on ``text`` (a source only) makes; the game is not changed.

    Raises :class:`NotationError` when ``text`` is no source, :class:`IllegalMove`
    (``no_such_pile``) for a pile the variant lacks, :class:`NoLegalMove` with a reason when
    nothing may move from there."""
    parsed = parse_source(text)
    if parsed is None:
        raise NotationError(f"not a pile: {text!r} (expected e.g. t3, t3:2, w, c1, r2, f1, s)")
    src, count = parsed
    if src not in game.layout.index:
        raise IllegalMove("no_such_pile", f"{game.variant.title} has no pile {src}")
    if game.is_over():
        raise NoLegalMove("the game is over")
    if src == "s":
        legal = game.legal_moves()
        for m in (DRAW, REDEAL):
            if m in legal:
                return m
        raise NoLegalMove("the stock is empty and no redeal is left")
    ranked = candidates(game, src, count)
    if ranked:
        return ranked[0]
    raise NoLegalMove(_why_not(game, src, count))


def _why_not(game: Game, src: str, count: int | None) -> str:
    i = game.layout.index[src]
    pile, down = game.pos.piles[i], game.pos.down[i]
    if not pile:
        return f"{src} is empty"
    if count is not None and count > len(pile) - down:
        return f"{src} has no {count} face-up cards"
    if game.layout.kinds[i] is PileKind.TABLEAU and any(
            m.src == src and m.n == len(pile) for m in game.legal_moves()):
        return f"moving all of {src} into an empty pile changes nothing"
    what = card_text(pile[-count if count else -1])
    return f"{what} from {src} fits nowhere"


def click_for(game: Game, move: Move) -> str | None:
    """The shortest source-only text that makes ``move`` in this position (``t3``, then
    ``t3:2``; ``s`` for a draw or redeal), or ``None`` when no click makes it."""
    if move in (DRAW, REDEAL):
        clicks = ["s"]
    else:
        clicks = [move.src, f"{move.src}:{move.n}"] if move.src.startswith("t") else [move.src]
    for click in clicks:
        try:
            if resolve_source(game, click) == move:
                return click
        except (NoLegalMove, IllegalMove, NotationError):
            return None
    return None


#: layout ids -> (source, destination, count) -> full notation; every ack carries the legal
#: moves, so their text is built once per layout rather than once per move per ack
_TEXTS: dict[tuple[str, ...], dict[tuple[int, int, int], str]] = {}
#: layout ids -> the one-card moves' texts, at ``s * P + d`` (P piles): most legal moves move
#: one card, and a list read by C index costs less than hashing a tuple for the dict
_TEXTS_ONE: dict[tuple[str, ...], list[str | None]] = {}


@cython.locals(table=dict, one=list, out=list, legal=list, t=tuple, s=cython.Py_ssize_t,
               d=cython.Py_ssize_t, P=cython.Py_ssize_t, i=cython.Py_ssize_t, ids=tuple)
def legal_texts(game: Game) -> list[str]:
    """Every legal move of the position, full notation, in the engine's fixed order (the
    tables and the lists typed for the compiled module: the dict's and the list's C calls)."""
    one = game._texts_one
    P = game._P
    if one is None:
        one = game._texts_one = _TEXTS_ONE.setdefault(game.layout.ids, [None] * (P * P))
    out = []
    legal = game.legal_triples()
    for t in legal:
        s, d, n = t
        if n == 1:
            i = s * P + d
            text = one[i]
            if text is None:
                ids = game.layout.ids
                text = one[i] = Move(ids[s], ids[d], 1).text()
        else:
            table = game._texts
            if table is None:
                table = game._texts = _TEXTS.setdefault(game.layout.ids, {})
            text = table.get(t)
            if text is None:
                ids = game.layout.ids
                text = table[t] = Move(ids[s], ids[d], n).text()
        out.append(text)
    return out


def autoplay(game: Game, limit: int = MAX_BATCH) -> list[Move]:
    """Play every provably safe card home (applied to ``game``); the moves, in order.

    Safe is the solver's rule (``docs/solver.md``): a card goes home when nothing can ever need
    it on the tableau again. Double Aces and Kings has no safe card (which foundation takes a
    card is a real choice there), and draw-3 waste cards are never safe (removing one shifts the
    next pass), so autoplay plays nothing of those."""
    safe = SafeMoves(game)
    ids = game.layout.ids
    out: list[Move] = []
    while len(out) < limit and game.cards_home < game.total_cards and not game.resigned:
        t = safe.find()
        if t is None:
            break
        out.append(game.push(Move(ids[t[0]], ids[t[1]], t[2])))
    return out


def finish_blocker(game: Game) -> str | None:
    """Why the rest of the game does not (yet) play itself, from visible facts; ``None`` when
    it may. It plays itself when no card is hidden — no face-down tableau card and an empty
    stock — with one exception: a draw-1 stock with unlimited redeals (Unlimited, draw 1) may
    still hold cards, since every stock card reaches the top of the waste on every pass, so
    their order cannot matter. (Whether the moves then reach the win is :func:`finish`'s
    trial, which reads only visible cards; so a refusal reveals nothing.)"""
    if game.is_over():
        return "the game is over"
    down = sum(game.pos.down)
    if down:
        return f"{down} face-down card{'s' if down > 1 else ''} still to turn up"
    stock = game.layout.stock
    cycles = game.rules.draw == 1 and game.rules.redeals is None
    if stock >= 0 and game.pos.piles[stock] and not cycles:
        n = len(game.pos.piles[stock])
        return f"the stock still holds {n} card{'s' if n > 1 else ''}"
    return None


def finish(game: Game, limit: int = MAX_BATCH) -> list[Move]:
    """Play the rest of the game to the win (applied to ``game``); the moves, in order.

    The moves are fixed, no choice made: while the game is not won, the first card the engine
    lists as fitting a foundation goes home (never foundation to foundation); when none fits,
    draw, else redeal. It is tried on a copy first: if it cannot win — a pass through the stock
    that sends nothing home, or no card fits and nothing can be drawn — :class:`CannotFinish`
    says why and ``game`` is unchanged."""
    why = finish_blocker(game)
    if why is not None:
        raise CannotFinish(why)
    trial = game.copy()
    kinds, index = trial.layout.kinds, trial.layout.index
    moves: list[Move] = []
    home_at_redeal = -1
    while trial.cards_home < trial.total_cards:
        if len(moves) >= limit:
            raise CannotFinish(f"the rest takes more than {limit} moves")
        legal = trial.legal_moves()
        move = next(
            (m for m in legal if kinds[index[m.dst]] is PileKind.FOUNDATION
             and kinds[index[m.src]] is not PileKind.FOUNDATION), None)
        if move is None:
            if DRAW in legal:
                move = DRAW
            elif REDEAL in legal and trial.cards_home != home_at_redeal:
                home_at_redeal = trial.cards_home
                move = REDEAL
            else:
                raise CannotFinish("no card fits a foundation: the rest needs your choices")
        moves.append(trial.push(move))
    if trial.status.value != "won":
        raise CannotFinish("the rest does not lead to a win")
    for m in moves:
        game.push(m)
    return moves


def plan(game: Game, kind: str, text: str | None = None, auto: bool = False) -> list[Move]:
    """Apply the moves of one request to ``game`` and return them: ``kind`` is ``move`` (full
    notation or a source only in ``text``; with ``auto``, then :func:`autoplay`), ``autoplay``
    or ``finish``. On an error nothing is applied."""
    if kind == "autoplay":
        return autoplay(game)
    if kind == "finish":
        return finish(game)
    if kind != "move" or text is None:
        raise ValueError(f"no plan for {kind!r}")
    try:
        first = Move.from_text(text)
    except NotationError:
        first = resolve_source(game, text)  # NotationError again when no source either
    moves = [game.push(first)]
    if auto:
        moves += autoplay(game, MAX_BATCH - 1)
    return moves
