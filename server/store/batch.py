"""Script calls of one event-loop tick, sent as one pipeline."""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import NoScriptError


class ScriptBatcher:
    """Sends the script calls made during one event-loop tick as one pipeline.

    Hundreds of connections each awaiting their own round trip cost hundreds of socket writes,
    reads and parser passes; one pipeline per tick costs one of each. Results are demultiplexed
    to each caller's future, so callers still see one call and one answer. Scripts are called by
    SHA (EVALSHA); a server that lost its script cache (a restart) answers NOSCRIPT, and those
    calls — which did not run — are retried once after loading the script.
    """

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._pending: list[tuple[Any, list[Any], list[Any], asyncio.Future[Any]]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self.batches = 0

    def call(self, script: Any, keys: list[Any], args: list[Any]) -> asyncio.Future[Any]:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if not self._pending:
            asyncio.get_running_loop().call_soon(self._flush)
        self._pending.append((script, keys, args, fut))
        return fut

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        if batch:
            task = asyncio.ensure_future(self._send(batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _send(self, batch: list[tuple[Any, list[Any], list[Any], asyncio.Future[Any]]]
                    ) -> None:
        self.batches += 1
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for script, keys, args, _ in batch:
                    pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
                results = await pipe.execute(raise_on_error=False)
            for (script, keys, args, fut), res in zip(batch, results):
                if isinstance(res, NoScriptError):
                    await self.redis.script_load(script.script)
                    try:
                        res = await self.redis.evalsha(script.sha, len(keys), *keys, *args)
                    except Exception as exc:
                        res = exc
                if fut.done():
                    continue
                if isinstance(res, Exception):
                    fut.set_exception(res)
                else:
                    fut.set_result(res)
        except Exception as exc:
            for *_, fut in batch:
                if not fut.done():
                    fut.set_exception(exc)
