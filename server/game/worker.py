"""One worker process for CPU-bound solver work (daily certification, hints, strong bots).

The solver is pure Python: run on the event loop, one search would stall every connection of
the process for up to seconds. Each service owns one :class:`Worker` — a single-process spawn
pool, created on first use so that a server that never certifies, hints or hosts a strong bot
never starts it, and kept apart per service so that a long certification never delays a hint.
Arguments and results must pickle (plain data: variant, options, seed, move texts).

A worker that dies (killed, out of memory) breaks its pool; the call that was running fails
with :class:`BrokenProcessPool` and the next call starts a fresh process, instead of the
service failing forever.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["BrokenProcessPool", "Worker"]


class Worker:
    """A lazily started, self-replacing one-process pool."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the worker process."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        pool = self._pool
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
        except BrokenProcessPool:
            if self._pool is pool:  # the next call starts a fresh process
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
            raise

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
