"""The solver's analysis of ranked lines, run after the game in a worker process, queued.

Why a queue with leases: an analysis takes about a second of CPU (the solver is pure Python),
so it never runs on the event loop and never during play. The process that screened the
result lists its case in ``sr:fp:due`` with a lease and analyses it in its own worker process
(at most :data:`MAX_RUNNING` at a time); a case whose lease ends — its process died, or had too
many running — is taken over by any process's sweep. Until its analysis is in, a result that
needs one is not listed (status ``pending``): a held result must never be shown first and
taken down later.

A case whose analysis keeps failing (:data:`MAX_ATTEMPTS`) is finished without it, on its
timing evidence alone, so an honest player's result is never stuck.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from solrace.server.game.worker import Worker
from solrace.server.store import Store
from solrace.shared.fairplay.analysis import SAMPLES, analyse

log = logging.getLogger("solrace.fairplay")

#: An analysis not finished by then is presumed lost (its process gone): the sweep retakes it.
LEASE_MS = 2 * 60 * 1000
#: Analyses one process runs at a time; more wait for the sweep.
MAX_RUNNING = 8
#: Due cases one sweep takes.
SWEEP_TAKE = 8
#: Failed analyses of one case before it is finished on its timing evidence alone.
MAX_ATTEMPTS = 3

Finish = Callable[[str, dict[str, Any] | None], Awaitable[None]]


def run_analysis(variant: str, options: dict[str, str], seed: int, moves: list[str],
                 nodes: int) -> dict[str, Any]:
    """One line's analysis (runs in the worker process)."""
    return analyse(variant, options, seed, moves, samples=SAMPLES, nodes=nodes)


class Analyses:
    """Runs due analyses in a worker process and hands each result to ``finish``."""

    def __init__(self, store: Store, finish: Finish, *, nodes: int) -> None:
        self.store = store
        self.finish = finish
        self.nodes = nodes
        self._worker = Worker()
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._failures: dict[str, int] = {}

    async def submit(self, cid: str) -> None:
        """List ``cid`` as due, leased to this process: :meth:`start` runs it once the caller
        has stored what its outcome acts on (the daily entry, a race's held ratings) — an
        analysis finished before that would clear a result that is not there yet."""
        now = await self.store.server_time_ms()
        await self.store.analysis_due(cid, now + LEASE_MS)

    async def start(self, cid: str) -> None:
        """Run a submitted analysis here when there is room; else hand it to the sweep."""
        if len(self._tasks) < MAX_RUNNING:
            self._spawn(cid)
        else:
            await self.store.analysis_due(cid, await self.store.server_time_ms())

    def _spawn(self, cid: str) -> None:
        if cid in self._tasks:
            return
        task = asyncio.ensure_future(self._run(cid))
        self._tasks[cid] = task
        task.add_done_callback(lambda _t: self._tasks.pop(cid, None))

    async def _run(self, cid: str) -> None:
        rid, _, pid = cid.partition(":")
        try:
            case = await self.store.read_case(rid, pid)
            if case is None:  # expired with its race: nothing to analyse
                await self.store.analysis_done(cid)
                return
            deal = case["deal"]
            moves = await self.store.read_log(rid, pid)
            result = await self._worker.run(run_analysis, deal["variant"], deal["options"],
                                            int(deal["seed"]), moves, self.nodes)
        except asyncio.CancelledError:
            raise
        except Exception:
            failures = self._failures[cid] = self._failures.get(cid, 0) + 1
            log.exception("fair-play analysis of case %s failed (%d)", cid, failures)
            if failures < MAX_ATTEMPTS:
                return  # left due: the sweep retries it when its lease ends
            result = None
        self._failures.pop(cid, None)
        await self.finish(cid, result)
        await self.store.analysis_done(cid)

    async def sweep(self) -> int:
        """Take over due analyses whose lease has ended; how many were taken."""
        room = MAX_RUNNING - len(self._tasks)
        if room <= 0:
            return 0
        now = await self.store.server_time_ms()
        taken = await self.store.analyses_due(now, LEASE_MS, min(room, SWEEP_TAKE))
        for cid in taken:
            self._spawn(cid)
        return len(taken)

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._worker.close()
