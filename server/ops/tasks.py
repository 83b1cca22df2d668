"""Stopping a background task for sure.

``task.cancel()`` followed by one ``await`` is not always enough on Python 3.11: a cancel that
lands while an inner ``asyncio.timeout`` is expiring — redis-py's ``get_message(timeout=...)``,
which the hub calls four times a second — can be consumed as that timeout, the call returns
``None`` as after any quiet interval, and a ``while True`` loop around it runs on: the stop
that awaited it waits for ever (seen as a rare hang of a server stop in the test suite).
"""

from __future__ import annotations

import asyncio
from typing import Any

#: Seconds between repeated cancels of a task that has not ended yet.
RECANCEL_EVERY = 0.1


async def cancel_and_wait(task: asyncio.Task[Any], *, every: float = RECANCEL_EVERY) -> None:
    """Cancel ``task`` and wait until it has ended, cancelling it again every ``every`` seconds
    while it has not. Its result or exception is retrieved (and dropped); a cancel of the
    caller itself still propagates."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=every)
    if not task.cancelled():
        task.exception()
