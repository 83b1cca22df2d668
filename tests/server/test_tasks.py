"""``server/ops/tasks.py``: a background task that consumed a cancel still stops."""

from __future__ import annotations

import asyncio

import pytest
from solrace.server.ops.tasks import cancel_and_wait

pytestmark = pytest.mark.timeout(30)


async def _swallows_first_cancels(times: int, log: list[str]) -> None:
    """What a loop around ``get_message(timeout=...)`` does when a cancel lands as the inner
    timeout expires: the cancel looks like a quiet interval and the loop goes on."""
    swallowed = 0
    while True:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            if swallowed < times:
                swallowed += 1
                log.append("swallowed")
                continue
            log.append("ended")
            raise


async def test_a_task_that_swallows_cancels_is_cancelled_again_until_it_ends() -> None:
    log: list[str] = []
    task = asyncio.create_task(_swallows_first_cancels(2, log))
    await asyncio.sleep(0)
    async with asyncio.timeout(5):  # one cancel and an await would wait for ever here
        await cancel_and_wait(task, every=0.01)
    assert task.cancelled() and log == ["swallowed", "swallowed", "ended"]


async def test_one_cancel_alone_would_not_have_stopped_it() -> None:
    log: list[str] = []
    task = asyncio.create_task(_swallows_first_cancels(1, log))
    await asyncio.sleep(0)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=0.2)
    assert not done and log == ["swallowed"]  # the hazard is real
    await cancel_and_wait(task, every=0.01)
    assert task.cancelled()


async def test_a_finished_or_failed_task_is_left_as_it_is() -> None:
    async def fails() -> None:
        raise ValueError("boom")

    ok = asyncio.create_task(asyncio.sleep(0, "x"))
    bad = asyncio.create_task(fails())
    await asyncio.sleep(0.01)
    await cancel_and_wait(ok)
    await cancel_and_wait(bad)  # its exception is retrieved, not raised
    assert ok.result() == "x" and isinstance(bad.exception(), ValueError)
