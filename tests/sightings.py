"""An independent model of "who has had which physical card face up", for masking tests.

Imported as ``sightings`` (``tests/`` is on ``sys.path``, see ``helpers``). It does not use the
engine's undo record (which :mod:`solrace.shared.masking` follows): it moves card objects by the
moves' own meaning — top ``n`` cards from one pile to another, a draw card by card, a redeal
turning the waste over — and finds automatic fills by comparing pile sizes with the engine's.
After every move it checks that its objects' faces are exactly the engine's cards.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from solrace.shared.cards import card_text
from solrace.shared.deal import deal_objects
from solrace.shared.engine import Game
from solrace.shared.layout import PileKind
from solrace.shared.notation import Move
from solrace.shared.views import view_of

MASKED = "??"


class ObjectGame:
    """A game plus the physical card (deal index) at every place of every pile."""

    def __init__(self, variant: str, options: Any, seed: int) -> None:
        self.game = Game(variant, options, seed)
        g = self.game
        self.piles, _ = deal_objects(g.variant, g.options, g.rules, seed)
        self.check()

    def check(self) -> None:
        faces = [[o % 52 for o in pile] for pile in self.piles]
        assert faces == self.game.pos.piles, "object model lost step with the engine"

    def push(self, text: str) -> None:
        g, lay = self.game, self.game.layout
        move = Move.from_text(text)
        g.push(move)
        s, d = lay.index[move.src], lay.index[move.dst]
        if move.src == "s":
            for _ in range(min(g.rules.draw, len(self.piles[s]))):
                self.piles[d].append(self.piles[s].pop())
        elif move.dst == "s":
            self.piles[d].extend(reversed(self.piles[s]))
            self.piles[s].clear()
        else:
            self.piles[d].extend(self.piles[s][-move.n:])
            del self.piles[s][-move.n:]
        # automatic fills (Sixes and Sevens): tableau piles the engine holds more cards in
        surplus = (len(self.piles[lay.waste]) - len(g.pos.piles[lay.waste])
                   if lay.waste >= 0 else 0)
        for t in lay.tableau:
            while len(self.piles[t]) < len(g.pos.piles[t]):
                src = lay.waste if surplus > 0 else lay.stock
                surplus -= src == lay.waste
                self.piles[t].append(self.piles[src].pop())
        self.check()

    def face_up(self) -> dict[int, list[int]]:
        """Pile index -> the objects its player sees face up now."""
        g = self.game
        out = {}
        for i, kind in enumerate(g.layout.kinds):
            pile = self.piles[i]
            if kind is PileKind.STOCK:
                out[i] = []
            elif kind is PileKind.TABLEAU:
                out[i] = pile[g.pos.down[i]:]
            else:
                out[i] = pile
        return out

    def snapshot(self) -> tuple[list[list[int]], list[int]]:
        """The objects of every pile and the face-down counts now (copies)."""
        return [p[:] for p in self.piles], self.game.pos.down[:]

    def seen_now(self) -> set[int]:
        return {o for objs in self.face_up().values() for o in objs}


def masked_piles(layout: Any, piles: list[list[int]], down: list[int], shown: set[int] | None
                 ) -> dict[str, list[Any]]:
    """Piles as spectators may see them: face-up objects by their face when in ``shown`` (all
    of them when ``shown`` is None: the race is over), the others masked."""
    out = {}
    for i, kind in enumerate(layout.kinds):
        pile = piles[i]
        up = [] if kind is PileKind.STOCK else pile[down[i]:] if kind is PileKind.TABLEAU \
            else pile
        out[layout.ids[i]] = [len(pile) - len(up),
                              [card_text(o % 52) if shown is None or o in shown else MASKED
                               for o in up]]
    return out


def expected_piles(og: ObjectGame, shown: set[int]) -> dict[str, list[Any]]:
    """The piles spectators should see: every shown object by its face, others masked."""
    g = og.game
    up = og.face_up()
    return {g.layout.ids[i]: [len(og.piles[i]) - len(up[i]),
                              [card_text(o % 52) if o in shown else MASKED for o in up[i]]]
            for i in range(len(og.piles))}


def shown_by_all(seen: Iterable[set[int]]) -> set[int]:
    sets = list(seen)
    return set.intersection(*sets) if sets else set()


def spectator_views(variant: str, options: Any, seed: int,
                    moves: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    """Each racer's view as a spectator of the running race must see it, every racer having
    made ``moves[racer]`` (one progress event each): the cards every racer has had face up
    after some event, by face, and the others masked."""
    games, seen = {}, {}
    for p, ms in moves.items():
        og = ObjectGame(variant, options, seed)
        s = og.seen_now()
        for m in ms:
            og.push(m)
            s |= og.seen_now()
        games[p], seen[p] = og, s
    shown = shown_by_all(seen.values())
    return {p: {**view_of(og.game).wire(), "piles": expected_piles(og, shown)}
            for p, og in games.items()}
