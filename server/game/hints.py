"""Hints in practice games: the solver's next move from a racer's current position.

Why practice games only: the solver is *thoughtful* (``docs/solver.md``, "Hidden
information"): it reads face-down cards and the stock order, so the move it suggests is derived
from cards the player cannot see. That is fine in a game of kind ``practice`` (alone, or
against bots), and never in a race, a rated race or a ranked daily attempt: the request is
refused there with ``not_practice``, whatever else is true of the race.

Why a worker process: the search is CPU-bound pure Python; run on the event loop it would stall
every connection of the process for up to seconds. Hints get their own one-worker spawn pool
(created on the first hint, shut down with the server), apart from the daily certifier's, so a
long certification never delays a hint and the other way round. The worker receives plain
picklable data (variant, options, seed, move texts) and rebuilds the game itself; the cached
game of :class:`~solrace.server.game.races.RaceService` is only read, under its lock.

The same job answers the practice page's "still winnable?" indicator (:meth:`HintService.winnable`,
:mod:`solrace.shared.learning.winnable`): same refusals, same worker, same budget, and no move
in the answer — only whether a win exists from the position, proved either way, or
``undecided``.

The answer is the first move of a winning line the solver found within ``--hint-budget`` nodes
(and at most :data:`HINT_SECONDS` of search, so that a queue of hints cannot grow without
bound), or none: unlike :func:`solrace.shared.solver.hint`, no bot move is offered as a
fallback — a player asking for help should be told plainly that no win was found.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solrace.server.game.lifecycle import RaceEvent, accepts
from solrace.server.game.races import Player, RaceService
from solrace.server.game.worker import Worker
from solrace.server.ops import metrics
from solrace.server.store import Store
from solrace.shared.protocol import ProtocolError

HINT_SECONDS = 5.0  # the most search time one hint (or winnable check) may take


@dataclass(frozen=True, slots=True)
class HintJob:
    """Everything the worker needs for one hint: the deal and the racer's moves so far."""

    race: str
    variant: str
    options: dict[str, str]
    seed: int
    moves: tuple[str, ...]


def solve_position(variant: str, options: dict[str, str], seed: int, moves: tuple[str, ...],
                   nodes: int, seconds: float) -> tuple[str, str | None, int | None]:
    """Runs in the worker: rebuild the game, search it; (outcome, first move, par)."""
    from solrace.shared.engine import Game
    from solrace.shared.solver import Budget, solve

    game = Game(variant, options, seed)
    game.replay(moves)
    result = solve(game, Budget(nodes=nodes, seconds=seconds))
    first = result.moves[0].text() if result.moves else None
    return result.outcome.value, first, result.par


def check_position(variant: str, options: dict[str, str], seed: int, moves: tuple[str, ...],
                   nodes: int, seconds: float) -> dict[str, Any]:
    """Runs in the worker: rebuild the game; whether a win still exists from it."""
    from solrace.shared.engine import Game
    from solrace.shared.learning.winnable import still_winnable
    from solrace.shared.solver import Budget

    game = Game(variant, options, seed)
    game.replay(moves)
    return still_winnable(game, Budget(nodes=nodes, seconds=seconds))


class HintService:
    """Checks a hint request against the race and runs the search off the event loop."""

    def __init__(self, store: Store, races: RaceService, *, budget_nodes: int) -> None:
        self.store = store
        self.races = races
        self.budget_nodes = budget_nodes
        self.worker = Worker()  # a dead worker costs one hint: the next starts a fresh one

    async def close(self) -> None:
        self.worker.close()

    async def prepare(self, player: Player, rid: str, *, what: str = "hints are") -> HintJob:
        """The position to search, or :class:`ProtocolError`: ``race_not_found``,
        ``not_in_race``, ``not_practice`` (its reason begins with ``what``), ``not_running``
        or ``already_finished``."""
        rec = await self.races.record(rid)
        if player.pid not in rec.names:
            raise ProtocolError("not_in_race", "you are not a racer in this race")
        info = await self.races.info(rid)
        if info.kind != "practice":
            raise ProtocolError("not_practice", f"{what} for practice games only (never in "
                                "races, dailies or tournaments)")
        mine = rec.players.get(player.pid, {})
        if mine.get("result"):  # before the race state: a lone racer's end ends the race
            raise ProtocolError("already_finished", "your game is over")
        if not accepts(rec.state, RaceEvent.MOVE):
            raise ProtocolError("not_running", f"the race is {rec.state}")
        if await self.store.server_time_ms() >= rec.num("ends_at"):
            raise ProtocolError("not_running", "time is up")
        entry = await self.races.entry(rid, player.pid)
        async with entry.lock:  # no move of this connection is half applied meanwhile
            if len(entry.game.moves) != int(mine.get("moves") or 0):
                # another process served this player's moves: the cache is behind the log
                entry = await self.races.entry(rid, player.pid, reload=True)
            moves = tuple(m.text() for m in entry.game.moves)
        return HintJob(rid, info.variant, dict(info.options), info.seed, moves)

    async def compute(self, job: HintJob) -> dict[str, Any]:
        """The ``hint`` reply's fields for ``job``, searched in the worker process."""
        outcome, move, par = await self.worker.run(
            solve_position, job.variant, job.options, job.seed, job.moves, self.budget_nodes,
            HINT_SECONDS)
        metrics.HINTS.labels(outcome).inc()
        return {"race": job.race, "seq": len(job.moves), "move": move, "outcome": outcome,
                "par": par}

    async def winnable(self, job: HintJob) -> dict[str, Any]:
        """The ``winnable`` reply's fields for ``job``, searched in the worker process."""
        out = await self.worker.run(check_position, job.variant, job.options, job.seed,
                                    job.moves, self.budget_nodes, HINT_SECONDS)
        return {"race": job.race, "seq": len(job.moves), **out, "nodes": self.budget_nodes}
