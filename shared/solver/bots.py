"""Bot players of three strengths, for practice races and load tests.

``Bot(strength).choose(game)`` returns the bot's next move, or ``None`` when it gives up (the
caller resigns for it). Bots read the engine's full position, so a strong bot plays with
knowledge of hidden cards: fine for practice opponents and load tests, which is all they are
for, and the reason they never sit in ranked races.

* ``weak`` — random, but takes a foundation move four times in five when there is one;
* ``medium`` — greedy: safe and other foundation moves, then moves that turn up a card or
  empty a pile, then waste and cell cards to the tableau, then other tableau moves, then the
  stock; never steps back into a position it has already produced;
* ``strong`` — follows a solver line found with a small node budget, re-planned whenever the
  game leaves it, and plays like ``medium`` when the solver finds nothing.

All three give up after ``patience`` moves in a row that neither bring the number of cards
home above its best so far nor turn up a face-down card, so a bot driving a load test always
finishes its game.
"""

from __future__ import annotations

import enum
import random

from solrace.shared.engine import Game, Status
from solrace.shared.notation import Move
from solrace.shared.solver.canonical import key_function
from solrace.shared.solver.result import Budget
from solrace.shared.solver.safe_moves import SafeMoves
from solrace.shared.solver.search import search_game

Triple = tuple[int, int, int]


class Strength(enum.Enum):
    WEAK = "weak"
    MEDIUM = "medium"
    STRONG = "strong"


STRONG_BUDGET = Budget(nodes=5_000)
RETRY_AFTER = 15  # moves the strong bot plays like medium after a search that found nothing


class Bot:
    """A practice opponent. One bot plays one game at a time (it remembers the positions it
    has produced and, when strong, its plan); :meth:`reset` or a fresh bot per game."""

    def __init__(
        self,
        strength: Strength | str = Strength.MEDIUM,
        seed: int = 0,
        *,
        budget: Budget | None = None,
        patience: int = 400,
    ) -> None:
        self.strength = Strength(strength)
        self.rng = random.Random(seed)  # bots only: deals never use Python's random
        self.budget = budget or STRONG_BUDGET
        self.patience = patience
        self.reset()

    def reset(self) -> None:
        self._seen: set[bytes] = set()
        self._plan: list[Move] = []
        self._plan_at = -1  # len(game.moves) when the next plan move applies
        self._plan_game: int | None = None
        self._retry_at = 0  # when the solver found nothing: no new search before this move
        self._idle = 0
        self._progress: tuple[int, int] | None = None

    def __repr__(self) -> str:
        return f"Bot({self.strength.value!r})"

    # ------------------------------------------------------------------ choosing

    def choose(self, game: Game) -> Move | None:
        """The bot's move in ``game``'s current position (the game is left untouched)."""
        if game.status is not Status.PLAYING:
            return None
        home, down = game.cards_home, sum(game.pos.down)
        best = self._progress
        if best is None or home > best[0] or down < best[1]:
            self._idle = 0
            self._progress = (home if best is None else max(home, best[0]),
                              down if best is None else min(down, best[1]))
        else:
            self._idle += 1
        if self._idle > self.patience:
            return None
        if self.strength is Strength.WEAK:
            return self._weak(game)
        if self.strength is Strength.STRONG:
            planned = self._planned(game)
            if planned is not None:
                return planned
        return self._medium(game)

    def _weak(self, game: Game) -> Move | None:
        moves = game._legal()
        if not moves:
            return None
        F = set(game._F)
        home = [m for m in moves if m[1] in F and m[0] not in F]
        pick = self.rng.choice(home) if home and self.rng.random() < 0.8 else \
            self.rng.choice(moves)
        return self._move(game, pick)

    def _medium(self, game: Game) -> Move | None:
        key = key_function(game)
        self._seen.add(key())
        safe = SafeMoves(game).find()
        if safe is not None:
            return self._move(game, safe)
        piles, down = game.pos.piles, game.pos.down
        F, T = set(game._F), set(game._T)
        stock_moves = []
        ranked: list[tuple[int, int, Triple]] = []
        for i, (s, d, n) in enumerate(game._legal()):
            if s == game._S or d == game._S:
                stock_moves.append((s, d, n))
                continue
            if d in F:
                score = 0 if s not in F else 6
            elif s in T and d in T:
                left = len(piles[s]) - n
                if left and left == down[s]:
                    score = 1
                elif left == 0 and piles[d]:
                    score = 2
                else:
                    score = 4
            elif d in T:
                score = 3 if s not in F else 6
            else:
                score = 5
            ranked.append((score, i, (s, d, n)))
        ranked.sort()
        for _, _, triple in ranked:
            ops = game._do(*triple)
            fresh = key() not in self._seen
            game._revert(ops)
            if fresh:
                return self._move(game, triple)
        if stock_moves:
            return self._move(game, stock_moves[0])
        return None

    def _planned(self, game: Game) -> Move | None:
        if self._plan and self._plan_game == id(game) and self._plan_at == len(game.moves):
            move = self._plan.pop(0)
            if game.is_legal(move):
                self._plan_at += 1
                return move
        if self._retry_at > len(game.moves) and self._plan_game == id(game):
            return None  # the solver found nothing lately: play medium for a while
        result = search_game(game, self.budget)
        self._plan_game = id(game)
        if not result.moves:
            self._plan = []
            self._retry_at = len(game.moves) + RETRY_AFTER
            return None
        self._plan = list(result.moves[1:])
        self._plan_at = len(game.moves) + 1
        return result.moves[0]

    @staticmethod
    def _move(game: Game, triple: Triple) -> Move:
        ids = game.layout.ids
        s, d, n = triple
        return Move(ids[s], ids[d], n)
