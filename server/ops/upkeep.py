"""The process's periodic chores (certifying dailies ahead, topping up the winnable pools,
creating the operators' recurring arenas): each is one call repeated for as long as the
process runs, whose failure is logged and tried again next time — never fatal, because the
work is also done on demand (a daily is certified when first asked for, a pool filled when a
race takes from it) or by another process sharing the Redis."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger("solrace.server")


async def quietly(what: str, call: Callable[[], Awaitable[Any]]) -> None:
    """``await call()``; a failure is logged as "``what`` failed", never raised."""
    try:
        await call()
    except Exception as exc:
        log.warning("%s failed: %s", what, exc)


async def every(what: str, call: Callable[[], Awaitable[Any]], period: float,
                first: float = 0.0) -> None:
    """``call()`` after ``first`` seconds, then every ``period`` seconds; a failure is logged
    as "``what`` failed" and the loop goes on."""
    await asyncio.sleep(first)
    while True:
        await quietly(what, call)
        await asyncio.sleep(period)
