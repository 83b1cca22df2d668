"""What a seat may see: the only path by which game state leaves the engine.

A view lists every pile as ``(hidden, visible cards)``: face-down tableau cards and the whole
stock are a count, nothing more; the waste, foundations, reserves and cells are face up. Player
and spectator views carry the same information. Deltas between two views are what a move's
acknowledgement carries.

Wire form (plain data for msgpack/JSON, documented in ``docs/protocol.md``)::

    {"variant": "unlimited", "options": {"draw": "1", ...}, "moves": 12, "home": 5,
     "total": 52, "status": "playing", "redeals": 0, "redeals_left": null,
     "piles": {"t2": [1, ["QS"]], "s": [23, []], ...}}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

try:
    import cython
except ImportError:  # Cython is optional at run time: its declarations are then no-ops
    from solrace.shared import nocython as cython

from solrace.shared.cards import card_text, parse_card
from solrace.shared.engine import Game
from solrace.shared.layout import PileKind

WirePile = list[Any]  # [hidden: int, cards: list[str]]
_TEXTS = tuple(card_text(c) for c in range(52))  # card -> its text


@dataclass(frozen=True, slots=True)
class PileView:
    id: str
    hidden: int
    cards: tuple[str, ...]  # the visible cards, bottom to top

    def wire(self) -> WirePile:
        return [self.hidden, list(self.cards)]


@dataclass(frozen=True, slots=True)
class View:
    variant: str
    options: Mapping[str, str]
    piles: tuple[PileView, ...]
    moves: int
    home: int
    total: int
    status: str
    redeals: int
    redeals_left: int | None

    def wire(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "options": dict(self.options),
            "moves": self.moves,
            "home": self.home,
            "total": self.total,
            "status": self.status,
            "redeals": self.redeals,
            "redeals_left": self.redeals_left,
            "piles": {p.id: p.wire() for p in self.piles},
        }

    def text(self) -> str:
        """Position text with hidden cards as a count: ``t:3#QS`` (see ``docs/variants.md``)."""
        return view_text(self.wire())


def _pile(game: Game, i: int) -> PileView:
    """Pile ``i`` as a seat sees it: face-down tableau cards and the stock as a count."""
    pile = game.pos.piles[i]
    hidden = len(pile) if game.layout.kinds[i] is PileKind.STOCK else game.pos.down[i]
    return PileView(game.layout.ids[i], hidden, tuple(card_text(c) for c in pile[hidden:]))


def view_of(game: Game) -> View:
    out = [_pile(game, i) for i in range(len(game.layout.ids))]
    limit = game.rules.redeals
    return View(
        variant=game.variant.name,
        options=dict(game.options),
        piles=tuple(out),
        moves=len(game.moves),
        home=game.cards_home,
        total=game.total_cards,
        status=game.status.value,
        redeals=game.pos.redeals,
        redeals_left=None if limit is None else limit - game.pos.redeals,
    )


_SCALARS = ("moves", "home", "status", "redeals", "redeals_left")


# C types for advance's locals (compiled only; the .py runs as written): every value declared
# is exactly of that type (Position holds lists, the ops tuples of ints).
@cython.locals(touched=set, op=tuple, piles=list, down=list, pile=list, wire=list, change=dict,
               changed=dict, scalars=dict, i=cython.Py_ssize_t, hidden=cython.Py_ssize_t,
               stock=cython.Py_ssize_t, redeals=cython.Py_ssize_t, c=cython.Py_ssize_t)
def advance(game: Game, view: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The wire view after the game's last move, and its delta from ``view`` (the wire view
    before that move) — computed from the piles the move touched, not from a full view.
    Equal to ``view_of(game).wire()`` and ``delta(view, that)``, keys in the same order (the
    server runs this once per move: plain loops, card texts from a table).

    A plain ``dict`` view (the server's) takes :func:`_advance_dict`: the same result built by
    one copy of the view and of its piles and five stores, the scalars compared one by one
    (``{**view, **scalars, "piles": {**old, **changed}}`` is that copy and those stores)."""
    if type(view) is dict and type(view.get("piles")) is dict:
        return _advance_dict(game, view)
    touched: set[int] = set()
    for op in game._undo[-1]:
        if op[0] == 0:  # a transfer between two piles
            touched.add(op[1])
            touched.add(op[2])
        elif op[0] == 1:  # a face-down card turned up
            touched.add(op[1])
    pos = game.pos
    limit = game.rules.redeals
    redeals = pos.redeals
    scalars = {
        # (``_value_``: the member's value; ``.value`` is a Python-level enum property)
        "moves": len(game.moves), "home": game.cards_home, "status": game.status._value_,
        "redeals": redeals, "redeals_left": None if limit is None else limit - redeals,
    }
    get = view.get
    change = {}
    for k, v in scalars.items():
        if get(k) != v:
            change[k] = v
    old = view["piles"]
    piles, down, ids, stock = pos.piles, pos.down, game.layout.ids, game.layout.stock
    changed = {}
    for i in sorted(touched):
        pile = piles[i]
        hidden = len(pile) if i == stock else down[i]
        wire = [hidden, [_TEXTS[c] for c in pile[hidden:]]]
        pid = ids[i]
        if old.get(pid) != wire:
            changed[pid] = wire
    new = {**view, **scalars, "piles": {**old, **changed}}
    if changed:
        change["piles"] = changed
    return new, change


@cython.cfunc
@cython.locals(touched=list, ops=list, op=tuple, piles=list, down=list, pile=list, wire=list,
               change=dict, changed=dict, new=dict, old=dict, cards=list, view=dict,
               i=cython.Py_ssize_t, hidden=cython.Py_ssize_t, stock=cython.Py_ssize_t,
               c=cython.Py_ssize_t, kind=cython.Py_ssize_t, j=cython.Py_ssize_t)
def _advance_dict(game: Game, view: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """:func:`advance` of a plain dict view whose piles are a dict (see there)."""
    touched = []  # the piles the move's operations name, each once (a move names two to four)
    ops = game._undo[-1]
    for op in ops:
        kind = op[0]
        if kind == 0:  # a transfer between two piles
            i = op[1]
            if i not in touched:
                touched.append(i)
            i = op[2]
            if i not in touched:
                touched.append(i)
        elif kind == 1:  # a face-down card turned up
            i = op[1]
            if i not in touched:
                touched.append(i)
    touched.sort()
    pos = game.pos
    limit = game.rules.redeals
    redeals = pos.redeals
    moves = len(game.moves)
    home = game.cards_home
    status = game.status._value_  # (the member's value; ``.value`` is a Python property)
    left = None if limit is None else limit - redeals
    get = view.get
    change = {}
    if get("moves") != moves:
        change["moves"] = moves
    if get("home") != home:
        change["home"] = home
    if get("status") != status:
        change["status"] = status
    if get("redeals") != redeals:
        change["redeals"] = redeals
    if get("redeals_left") != left:
        change["redeals_left"] = left
    old = view["piles"]
    piles, down = pos.piles, pos.down
    lay = game.layout
    ids, stock = lay.ids, lay.stock
    changed = {}
    for j in range(len(touched)):
        i = touched[j]
        pile = piles[i]
        hidden = len(pile) if i == stock else down[i]
        cards = []
        for c in pile[hidden:]:
            cards.append(_TEXTS[c])
        wire = [hidden, cards]
        pid = ids[i]
        if old.get(pid) != wire:
            changed[pid] = wire
    new = view.copy()  # {**view, **scalars, "piles": ...}: a copy, then stores in that order
    new["moves"] = moves
    new["home"] = home
    new["status"] = status
    new["redeals"] = redeals
    new["redeals_left"] = left
    old = old.copy()
    if changed:
        old.update(changed)
        change["piles"] = changed
    new["piles"] = old
    return new, change


def delta(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """The changes from wire view ``old`` to ``new``: changed scalars and changed piles only."""
    out: dict[str, Any] = {k: new[k] for k in _SCALARS if old.get(k) != new[k]}
    piles = {pid: p for pid, p in new["piles"].items() if old["piles"].get(pid) != p}
    if piles:
        out["piles"] = piles
    return out


def apply_delta(view: Mapping[str, Any], change: Mapping[str, Any]) -> dict[str, Any]:
    """``view`` with ``change`` applied (what a client does with an ack)."""
    out = dict(view)
    for k in _SCALARS:
        if k in change:
            out[k] = change[k]
    if "piles" in change:
        out["piles"] = {**view["piles"], **change["piles"]}
    return out


_GROUPS = "ftrcsw"


def view_text(view: Mapping[str, Any]) -> str:
    groups: dict[str, list[str]] = {}
    for pid, (hidden, cards) in view["piles"].items():
        body = (f"{hidden}#" if hidden else "") + "".join(cards)
        groups.setdefault(pid[0], []).append(body or "-")
    parts = [f"{g}:{'/'.join(groups[g])}" for g in _GROUPS if g in groups]
    parts.append(f"n:{view['redeals']}")
    return " ".join(parts)


def visible_cards(view: Mapping[str, Any]) -> list[int]:
    """Every card a view shows (for tests and clients that count what they can see)."""
    return [parse_card(c) for _, cards in view["piles"].values() for c in cards]
