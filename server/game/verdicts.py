"""The solver's verdict on a race's deal, told to racers and spectators once the race is over.

Why only after the end: whether a deal can be won, and in how many moves, is information about
the hidden cards; during a race it would help a racer. So the deal is solved when the race has
ended — in a worker process (the solver is CPU-bound; never on the event loop), within a node
budget (``--verdict-budget``, deterministic) — and the answer is stored in the race's hash and
emitted as a ``verdict`` event right after the ``end`` event (docs/protocol.md).

* A winnable race (:mod:`solrace.server.game.pool`) and a daily attempt know theirs already (the
  seed was certified): their ``end`` event carries the final verdict.
* Any other race's ``end`` carries ``{"outcome": "pending"}``; connections attached to the
  race stay attached until the ``verdict`` event has reached them.
* The process that ended the race solves it; it first lists the race in ``sr:verdicts`` with
  a lease, so that if it dies (or has :data:`MAX_QUEUE` solves queued already) any process's
  sweep takes the work over. The store writes a verdict once, whoever solves it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import msgpack
from solrace.server.game.lifecycle import RaceEvent, accepts
from solrace.server.game.worker import Worker
from solrace.shared import protocol as P

if TYPE_CHECKING:  # races.py reads stored verdicts from here: no import cycle at run time
    from solrace.server.game.races import RaceInfo, RaceService
    from solrace.server.store import RaceRecord, Store

log = logging.getLogger("solrace.verdicts")

LEASE_MS = 5 * 60 * 1000  # a solver that has not stored its verdict by then is presumed gone
MAX_QUEUE = 20  # verdicts one process solves at most at a time; more are left to the sweep
SWEEP_TAKE = 5  # pending verdicts one sweep takes


def known_verdict(meta: dict[str, str]) -> dict[str, Any] | None:
    """The verdict a race's deal has had since its creation (a certified seed), or None."""
    par = meta.get("certified_par")
    if par:
        return {"outcome": "won", "par": int(par), "certified": True}
    return None


def stored_verdict(meta: dict[str, str]) -> dict[str, Any] | None:
    """The verdict stored in a finished race's hash, or None (none yet, or verdicts off)."""
    outcome = meta.get("verdict")
    if not outcome:
        return None
    out: dict[str, Any] = {"outcome": outcome}
    if meta.get("verdict_par"):
        out["par"] = int(meta["verdict_par"])
    if meta.get("verdict_nodes"):
        out["nodes"] = int(meta["verdict_nodes"])
    if meta.get("certified_par"):
        out["certified"] = True
    return out


def judge(variant: str, options: dict[str, str], seed: int, nodes: int
          ) -> tuple[str, int | None, int]:
    """Solve one deal (runs in the worker process): (outcome, par, nodes searched)."""
    from solrace.shared.solver import Budget, solve

    result = solve((variant, options, seed), Budget(nodes=nodes, seconds=None))
    return result.outcome.value, result.par, result.nodes


class VerdictService:
    """Verdicts of finished races (``budget_nodes`` 0: none, except certified ones)."""

    def __init__(self, store: Store, races: RaceService, *, budget_nodes: int) -> None:
        self.store = store
        self.races = races
        self.budget_nodes = budget_nodes
        self._worker = Worker()
        self._tasks: set[asyncio.Task[None]] = set()
        races.end_fields.append(self.end_field)
        races.on_finished.append(self.on_finished)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._worker.close()

    def end_field(self, info: RaceInfo, rec: RaceRecord) -> dict[str, Any]:
        """What the ``end`` event says of the verdict (nothing when verdicts are off, nor for
        a tournament's deal or match: others may not have played it yet)."""
        if info.kind in ("arena", "knockout"):
            return {}
        known = known_verdict(rec.meta)
        if known is not None:
            return {"verdict": known}
        return {"verdict": {"outcome": "pending"}} if self.budget_nodes > 0 else {}

    async def on_finished(self, info: RaceInfo, rec: RaceRecord,
                          standings: list[dict[str, Any]]) -> None:
        if info.kind in ("arena", "knockout"):
            return
        known = known_verdict(rec.meta)
        if known is not None:  # stored, and emitted for the record (the end carried it)
            await self._save(info.rid, "won", known["par"], 0, known)
            return
        if self.budget_nodes <= 0:
            return
        now = await self.store.server_time_ms()
        busy = len(self._tasks) >= MAX_QUEUE
        await self.store.deals.verdict_pending(info.rid, now if busy else now + LEASE_MS)
        if not busy:
            self._spawn(info)

    def _spawn(self, info: RaceInfo) -> None:
        task = asyncio.ensure_future(self._solve(info))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _solve(self, info: RaceInfo) -> None:
        try:
            outcome, par, nodes = await self._worker.run(
                judge, info.variant, info.options, info.seed, self.budget_nodes)
            verdict: dict[str, Any] = {"outcome": outcome, "nodes": nodes}
            if par is not None:
                verdict["par"] = par
            if outcome == "unknown":
                verdict["budget"] = self.budget_nodes
            await self._save(info.rid, outcome, par, nodes, verdict)
            await self.store.deals.verdict_done(info.rid)
        except asyncio.CancelledError:
            raise
        except Exception:  # left in sr:verdicts: a later sweep retries it
            log.exception("verdict of race %s failed", info.rid)

    async def _save(self, rid: str, outcome: str, par: int | None, nodes: int,
                    verdict: dict[str, Any]) -> None:
        event = msgpack.packb(P.events.Verdict(verdict=verdict).body())
        res = await self.store.deals.save_verdict(rid, outcome, par, nodes, event)
        if res.status not in ("ok", "dup"):
            log.warning("verdict of race %s not stored: race is %s", rid, res.values)

    async def sweep(self) -> int:
        """Take over pending verdicts whose solver has gone; how many were taken."""
        if self.budget_nodes <= 0 or len(self._tasks) >= MAX_QUEUE:
            return 0
        now = await self.store.server_time_ms()
        taken = await self.store.deals.verdicts_due(now, LEASE_MS, SWEEP_TAKE)
        for rid in taken:
            rec = await self.store.read_race(rid)
            if rec is None or not accepts(rec.state, RaceEvent.VERDICT) or rec.meta.get("verdict"):
                await self.store.deals.verdict_done(rid)
                continue
            self._spawn(await self.races.info(rid))
        return len(taken)
