"""Fair live spectating: who has had which card face up, and what a spectator may be shown.

Every racer of a race plays the same deal, so a rival's board shows cards of one's own game
(their waste shows one's stock order). While a race runs, a spectator is therefore shown a
card's identity only once **every** racer of the race has had that card face up; any other
card is :data:`MASKED` (pile sizes stay as they are). After the end everything is shown.

The unit is the physical card of the deal (:func:`~solrace.shared.deal.deal_objects`), not
its face: with two decks there are two 7♠, and a racer who has seen one of them knows nothing
about where the other lies. Showing every 7♠ once each racer had *a* 7♠ face up would place the
unseen one on a rival's board, which tells that racer where it lies in their own deal (the same
place, since the deal is the same). So each racer's game is replayed with its cards as objects
— the engine plays faces; the replica follows the objects through the engine's own record of
what each move transferred — and an object counts as seen by a racer once it was face up in
their view after one of their progress events (the deal's face-up cards are seen by all).

:class:`Census` is that bookkeeping for one race; :class:`Masker` folds the race's durable
event stream (the server's form of every event, with ``move`` and ``delta``) into the events
spectators receive. Both are pure: the server feeds them events and sends what comes out.
A card that becomes shown later (the last racer turns it up) is sent in the same event as a
``reveal`` of every pile, on every racer's board, where it lies face up.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from solrace.shared.cards import card_text
from solrace.shared.deal import deal_objects
from solrace.shared.engine import Game
from solrace.shared.layout import PileKind
from solrace.shared.views import apply_delta, view_of

#: How a spectator sees a card that not every racer has had face up (wire form).
MASKED = "??"

_TRANSFER, _TURN_UP = 0, 1  # the engine's undo operations (see engine.py)
_TEXT = tuple(card_text(c) for c in range(52))


class Census:
    """Every racer's game with its cards as objects, who has seen which object, and the
    masked views that allows.

    ``racers`` are the race's racers at its start. :meth:`play` applies one progress event's
    moves to one racer's replica and returns what changed for spectators.
    """

    def __init__(self, variant: str, options: Mapping[str, str] | None, seed: int,
                 racers: Sequence[str]) -> None:
        self.racers = list(racers)
        self.games: dict[str, Game] = {}
        self.objects: dict[str, list[list[int]]] = {}
        self.broken: set[str] = set()  # replicas that lost step with the events: all masked
        self._seen: dict[str, set[int]] = {}
        first = Game(variant, options, seed)
        piles, _ = deal_objects(first.variant, first.options, first.rules, seed)
        self._count = [0] * sum(map(len, piles))  # racers who have seen each object
        self.shown: set[int] = set()
        for i, p in enumerate(self.racers):
            self.games[p] = first if i == 0 else Game(variant, options, seed)
            self.objects[p] = [pile[:] for pile in piles]
            self._seen[p] = set()
            self._look(p, range(len(piles)))

    # ------------------------------------------------------------------ bookkeeping

    def _face_up(self, p: str, i: int) -> list[int]:
        """The objects of pile ``i`` that racer ``p`` sees face up."""
        game = self.games[p]
        kind = game.layout.kinds[i]
        if kind is PileKind.STOCK:
            return []
        pile = self.objects[p][i]
        return pile[game.pos.down[i]:] if kind is PileKind.TABLEAU else pile

    def _look(self, p: str, piles: Iterable[int]) -> set[int]:
        """Racer ``p`` sees what lies face up in ``piles``; returns the objects that became
        shown (seen by every racer) by it."""
        seen, new = self._seen[p], set()
        for i in piles:
            for o in self._face_up(p, i):
                if o not in seen:
                    seen.add(o)
                    self._count[o] += 1
                    if self._count[o] == len(self.racers):
                        self.shown.add(o)
                        new.add(o)
        return new

    def _follow(self, p: str) -> set[int]:
        """Replay on ``p``'s objects what the engine's last move transferred; the touched
        piles."""
        piles = self.objects[p]
        touched: set[int] = set()
        for op in self.games[p]._undo[-1]:  # the engine's record of the move
            if op[0] == _TRANSFER:
                _, s, d, k, one_by_one = op
                src, dst = piles[s], piles[d]
                if one_by_one:
                    for _ in range(k):
                        dst.append(src.pop())
                else:
                    dst.extend(src[len(src) - k:])
                    del src[len(src) - k:]
                touched.update((s, d))
            elif op[0] == _TURN_UP:
                touched.add(op[1])
        return touched

    # ------------------------------------------------------------------ events

    def play(self, p: str, moves: Sequence[str], count: int | None = None
             ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Apply racer ``p``'s ``moves`` (one progress event: one move, or a batch).

        Returns ``(piles, reveal)``: the masked content of every pile of ``p`` the moves
        touched, and per racer the masked content of the other piles where a card just became
        shown. ``count`` is the move count the event claims: a replica that disagrees (or
        cannot play a move) is broken and shows nothing more."""
        if p not in self.games:
            return {}, {}
        game = self.games[p]
        touched: set[int] = set()
        if p not in self.broken:
            try:
                for text in moves:
                    game.push(text)
                    touched |= self._follow(p)
            except Exception:  # the events and the deal disagree: fail closed
                self.broken.add(p)
            if count is not None and count != len(game.moves):
                self.broken.add(p)
        new = self._look(p, touched) if p not in self.broken else set()
        piles = {game.layout.ids[i]: self.pile(p, i) for i in sorted(touched)}
        reveal: dict[str, dict[str, Any]] = {}
        if new:
            for q in (q for q in self.racers if q not in self.broken):
                for i in range(len(self.objects[q])):
                    if (q == p and i in touched) or not new.intersection(self._face_up(q, i)):
                        continue
                    reveal.setdefault(q, {})[self.games[q].layout.ids[i]] = self.pile(q, i)
        return piles, reveal

    def pile(self, p: str, i: int) -> list[Any]:
        """Pile ``i`` of racer ``p`` as spectators see it: ``[hidden, cards]``, each card its
        text once shown, :data:`MASKED` otherwise."""
        up = self._face_up(p, i)
        hidden = len(self.objects[p][i]) - len(up)
        if p in self.broken:
            return [hidden, [MASKED] * len(up)]
        shown = self.shown
        return [hidden, [_TEXT[o % 52] if o in shown else MASKED for o in up]]

    def view(self, p: str) -> dict[str, Any]:
        """Racer ``p``'s wire view (see :mod:`solrace.shared.views`) with its cards masked."""
        game = self.games[p]
        out = view_of(game).wire()
        out["piles"] = {pid: self.pile(p, i) for i, pid in enumerate(game.layout.ids)}
        return out


def moves_of(event: Mapping[str, Any]) -> list[str]:
    """The moves a progress event applied, in order: a list of them (a batch) under ``moves``,
    ``batch`` or ``move`` if the event has one, else its single ``move`` (``moves`` is usually
    the racer's move count, an int). A list wins over a single move: a batch's event may name
    its first move alone as ``move``."""
    for key in ("moves", "batch", "move"):
        value = event.get(key)
        if isinstance(value, list):
            return [str(m) for m in value]
    move = event.get("move")
    return [move] if isinstance(move, str) else []


ABSENT = "\x00absent"  # the racer who never moves (not a player id: those are hex)


class Masker:
    """Folds one race's events (server form, version order from 1) into spectator form.

    - ``join``/``leave``: the racers at the start;
    - ``start``: the deal's view, masked (the deal's face-up cards are seen by all);
    - ``progress``: ``delta.piles`` masked, and ``reveal`` (player -> pile id -> pile) when
      this event made cards shown on other piles; ``move`` is pile notation, which names no
      card, and passes unchanged;
    - ``end``: ``boards``, every racer's final board, nothing masked;
    - anything else unchanged.

    It also folds the unmasked boards from the events' own deltas (no engine): the end's
    ``boards``, and what a broken replica's board is masked from.
    """

    def __init__(self, variant: str, options: Mapping[str, str] | None, seed: int,
                 absent: bool = False) -> None:
        """``absent``: count one more racer who never moves — someone who may still play this
        deal (a tournament's deal, while the tournament runs): then no card is shown that was
        not face up in the deal, and the ``end`` event's boards are masked too."""
        self.variant, self.options, self.seed = variant, options, seed
        self.absent = absent
        self.racers: list[str] = []
        self.census: Census | None = None
        self.raw: dict[str, dict[str, Any]] = {}  # player -> unmasked board
        self.version = 0

    def push(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """The spectator form of ``event`` (the next version)."""
        self.version = int(event.get("v", self.version + 1))
        kind = event.get("k")
        out = dict(event)
        if kind == "join" and event.get("player") not in self.racers:
            self.racers.append(event["player"])
        elif kind == "leave":
            self.racers = [p for p in self.racers if p != event.get("player")]
        elif kind == "start":
            self.census = Census(self.variant, self.options, self.seed,
                                 [*self.racers, ABSENT] if self.absent else self.racers)
            self.raw = {p: {"seq": 0, "view": event["view"]} for p in self.racers}
            if self.racers:
                out["view"] = self.census.view(self.racers[0])
        elif kind == "progress" and "delta" in event and event.get("player") in self.raw:
            self._progress(event, out)
        elif kind == "end" and self.census is not None:
            if self.absent:  # the deal is still to be played by others: boards stay masked
                out["boards"] = {p: {"seq": self.raw[p]["seq"], "view": self.census.view(p)}
                                 for p in self.racers}
            else:
                out["boards"] = {p: self.raw[p] for p in self.racers}
        return out

    def _progress(self, event: Mapping[str, Any], out: dict[str, Any]) -> None:
        assert self.census is not None
        p, delta = event["player"], dict(event["delta"])
        board = self.raw[p]
        count = event.get("moves")  # the move count (an int)
        seq = count if isinstance(count, int) else delta.get("moves", board["seq"])
        self.raw[p] = {"seq": seq, "view": apply_delta(board["view"], delta)}
        piles, reveal = self.census.play(p, moves_of(event),
                                         count if isinstance(count, int) else None)
        if p in self.census.broken:
            if "piles" in delta:
                delta["piles"] = {pid: _all_masked(pile) for pid, pile in delta["piles"].items()}
        else:
            # The piles the event lists, and those whose cards changed as objects though not as
            # faces (one 2♣ replaced by the other deck's 2♣): a shown card must not stay shown
            # where an unseen one now lies.
            index = self.census.games[p].layout.index
            for pid in delta.get("piles", {}):
                if pid not in piles:  # (not setdefault: that would mask the pile anyway)
                    piles[pid] = self.census.pile(p, index[pid])
            if piles:
                delta["piles"] = piles
        out["delta"] = delta
        if reveal:
            out["reveal"] = reveal

    def boards(self) -> dict[str, dict[str, Any]]:
        """Every racer's board now, as spectators see it."""
        out = {}
        for p, board in self.raw.items():
            if self.census is None or p in self.census.broken:
                view = dict(board["view"])
                view["piles"] = {pid: _all_masked(x) for pid, x in view["piles"].items()}
            else:
                view = self.census.view(p)
            out[p] = {"seq": board["seq"], "view": view}
        return out


def _all_masked(pile: Sequence[Any]) -> list[Any]:
    return [pile[0], [MASKED] * len(pile[1])]


def apply_reveal(boards: dict[str, dict[str, Any]], reveal: Mapping[str, Mapping[str, Any]]
                 ) -> None:
    """Replace, in ``boards`` (player -> board), the piles an event's ``reveal`` lists (what
    a spectator does after applying the event's ``delta``)."""
    for p, piles in reveal.items():
        if p in boards:
            view = boards[p]["view"]
            boards[p] = {**boards[p], "view": {**view, "piles": {**view["piles"], **piles}}}
