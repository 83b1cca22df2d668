"""Script calls of one event-loop tick, sent as one pipeline."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from redis.asyncio import ConnectionPool, Redis
from redis.exceptions import (
    AskError,
    ClusterError,
    MovedError,
    NoScriptError,
    TryAgainError,
)
from solrace.server.store.resp import pack, sha_of
from solrace.server.store.wire import ScriptWire, WireSettings, open_wire

log = logging.getLogger("solrace.store")

#: A Redis Cluster slot being migrated answers ASK (its keys moved), TRYAGAIN (a script's keys
#: split between the two nodes) or, after the move, MOVED; redis-py follows each for a handful
#: of quick attempts and then gives up ("TTL exhausted"). A resharding lasts longer than that:
#: a call is retried for this long (backoff from 50 ms) before its caller hears
#: ``unavailable`` (docs/scaling.md, "Redis Cluster").
RESHARD_WAIT = 2.0
RESHARDING = (AskError, TryAgainError, MovedError, ClusterError)


class ScriptBatcher:
    """Sends the script calls made during one event-loop tick as one pipeline, one batch at a
    time (calls made while a batch is out go together as the next one).

    Hundreds of connections each awaiting their own round trip cost hundreds of socket writes,
    reads and parser passes; one pipeline per tick costs one of each. Results are demultiplexed
    to each caller's future, so callers still see one call and one answer. Scripts are called by
    SHA (EVALSHA); a server that lost its script cache (a restart) answers NOSCRIPT, and those
    calls — which did not run — are retried once after loading the script.

    On a single Redis (a :class:`redis.asyncio.Redis` over a connection pool) the batch is
    packed here (:func:`pack`) and written and read on a connection of the batcher's own
    (:class:`~.wire.ScriptWire`: the public ``hiredis.Reader``, opened with the pool's
    settings): packed into one write from the event loop's callback, its replies parsed as
    they arrive and the callers' futures resolved there — no task, no stream reader, no
    timeout context per batch (docs/performance.md, "Redis: one batch connection of its
    own"). A failure there hands the batch to :meth:`_exchange`, which applies the pool's
    retry policy (a fresh connection, backoff) with that failure as its first attempt, so
    callers see the same retries and the same exceptions as through redis-py. A cluster
    client, or a pool the wire cannot stand in for (TLS), keeps redis-py's public pipeline,
    which routes each call to its slot's node.
    """

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._pending: list[tuple[Any, list[Any], list[Any], asyncio.Future[Any],
                                  Callable[[Any], None] | None]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._resharding: set[asyncio.Task[None]] = set()  # calls waiting out a migration
        self.batches = 0
        pool = getattr(redis, "connection_pool", None)
        self._settings: WireSettings | None = (
            WireSettings.of(pool) if isinstance(redis, Redis) and isinstance(pool, ConnectionPool)
            else None)
        self._loop: asyncio.AbstractEventLoop | None = None
        #: The batcher's own connection (single Redis), and the batch it has out with its
        #: packed bytes (see :meth:`_flush`).
        self._wire: ScriptWire | None = None
        self._out: tuple[list[Any], bytes] | None = None

    def close(self) -> None:
        """Close the batcher's own connection (the store's client is closed by its owner)."""
        wire, self._wire = self._wire, None
        if wire is not None:
            wire.close()

    def call(self, script: Any, keys: list[Any], args: list[Any],
             on_done: Callable[[Any], None] | None = None) -> asyncio.Future[Any]:
        """The script's reply, as a future. ``on_done`` is called with a successful reply
        before the future resolves, even when nobody awaits it any more (a closed
        connection): the store's local delivery of a move's events."""
        loop = self._loop
        if loop is None or loop.is_closed():
            loop = self._loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._flush)
        self._pending.append((script, keys, args, fut, on_done))
        return fut

    async def _exchange(self, batch: list[Any], packed: bytes | None = None,
                        first: BaseException | None = None) -> list[Any]:
        """One write of the packed batch on the batcher's own connection, then its replies
        in order (an error reply in its place, as ``raise_on_error=False`` does) — under the
        pool's retry policy: a failed attempt closes the connection, and the next one (after
        the policy's backoff) opens a fresh one. ``first``: the failure of the batch's first
        attempt, made on the wire by :meth:`_flush`; it counts as the policy's first failed
        attempt."""
        settings = self._settings
        assert settings is not None
        if packed is None:
            packed = b"".join([pack(sha_of(c[0]), c[1], c[2]) for c in batch])
        loop = asyncio.get_running_loop()
        count = len(batch)

        async def attempt() -> list[Any]:
            nonlocal first
            if first is not None:  # the first attempt, made on the wire, failed
                error, first = first, None
                raise error
            wire = self._wire
            if wire is None or not wire.ready(loop):
                if wire is not None:
                    wire.close()
                wire = self._wire = None
                wire = self._wire = await open_wire(settings, loop)
            return await wire.call(packed, count)

        async def failed(_error: Exception) -> None:
            wire, self._wire = self._wire, None
            if wire is not None:
                wire.close()

        if settings.retry is not None:
            return await settings.retry.call_with_retry(  # type: ignore[no-any-return]
                attempt, failed)
        try:
            return await attempt()
        except Exception as exc:
            await failed(exc)
            raise

    def _flush(self) -> None:
        """Send what is pending — unless a batch is still out: then the calls wait for it to
        come back and go as the next batch (one batch in flight, so replies are handled in
        the order Redis ran them, and a busy tick's calls share one write and one read).

        On the batcher's wire when it is ready (the usual case): packed, written and left to
        the wire, which calls :meth:`_replied`; otherwise (the first batch, a cluster, after a
        failure) in a task (:meth:`_send`)."""
        loop = asyncio.get_running_loop()
        if self._out is not None or (self._tasks and any(
                not t.done() and t.get_loop() is loop for t in self._tasks)):
            return
        batch, self._pending = self._pending, []
        if not batch:
            return
        wire = self._wire
        if wire is not None:
            if wire.ready(loop):
                self.batches += 1
                packed = b"".join([pack(sha_of(c[0]), c[1], c[2]) for c in batch])
                self._out = (batch, packed)
                wire.send(packed, len(batch), self._replied)
                return
            if wire.loop is not loop or wire.failure is not None:
                wire.close()
                self._wire = None
        self.batches += 1
        self._start(self._send(batch))

    def _start(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._sent)

    def _replied(self, results: Any) -> None:
        """The wire's answer to the batch out: its replies, or the failure that ended it
        (the batch then goes through :meth:`_exchange`, that failure its first attempt)."""
        out, self._out = self._out, None
        assert out is not None
        batch, packed = out
        if isinstance(results, BaseException):
            self._start(self._send(batch, packed, results))
            return
        if _noscript(results):
            self._start(self._settle(batch, results))
            return
        _deliver(batch, results)
        if self._pending:  # the calls made while this batch was out go now; a later call
            self._flush()  # schedules the next flush itself (call: nothing was pending)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._flush()

    async def _send(self, batch: list[Any], packed: bytes | None = None,
                    first: BaseException | None = None) -> None:
        try:
            if self._settings is not None:
                results = await self._exchange(batch, packed, first)
            else:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for script, keys, args, *_ in batch:
                        pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
                    results = await pipe.execute(raise_on_error=False)
        except Exception as exc:
            _fail(batch, exc)
            return
        await self._settle(batch, results)

    async def _settle(self, batch: list[Any], results: list[Any]) -> None:
        """Each reply to its caller, in order; a NOSCRIPT one (the call did not run) after
        loading the script and calling it again."""
        try:
            for (script, keys, args, fut, on_done), res in zip(batch, results):
                if isinstance(res, NoScriptError):
                    await self.redis.script_load(script.script)
                    try:
                        res = await self.redis.evalsha(script.sha, len(keys), *keys, *args)
                    except Exception as exc:
                        res = exc
                if isinstance(res, RESHARDING):  # waited out beside the next batches
                    task = asyncio.ensure_future(
                        self._through_reshard(script, keys, args, res, fut, on_done))
                    self._resharding.add(task)
                    task.add_done_callback(self._resharding.discard)
                    continue
                _resolve(fut, on_done, res)
        except Exception as exc:
            _fail(batch, exc)


    async def _through_reshard(self, script: Any, keys: Any, args: Any, first: Exception,
                               fut: asyncio.Future[Any], on_done: Callable[[Any], None] | None
                               ) -> None:
        """One call again, alone, while its slot is being migrated: redis-py follows the
        redirections, this waits out the rest (up to :data:`RESHARD_WAIT`), beside the
        batches of other slots. The scripts are safe to repeat (a move already applied is
        answered ``dup``). The caller gets the last error when the slot stays unavailable."""
        loop = asyncio.get_running_loop()
        deadline, delay, res = loop.time() + RESHARD_WAIT, 0.05, first
        while loop.time() + delay < deadline:
            await asyncio.sleep(delay)
            delay = min(2 * delay, 0.4)
            try:
                res = await self.redis.evalsha(script.sha, len(keys), *keys, *args)
                break
            except NoScriptError:
                await self.redis.script_load(script.script)
            except RESHARDING as exc:
                res = exc
            except Exception as exc:  # not a resharding: its caller decides
                res = exc
                break
        _resolve(fut, on_done, res)


def _resolve(fut: asyncio.Future[Any], on_done: Callable[[Any], None] | None, res: Any
             ) -> None:
    if on_done is not None and not isinstance(res, Exception):
        try:
            on_done(res)
        except Exception:
            log.exception("after-reply callback of a script call failed")
    if fut.done():
        return
    if isinstance(res, Exception):
        fut.set_exception(res)
    else:
        fut.set_result(res)


def _noscript(results: list[Any]) -> bool:
    """Whether a NOSCRIPT reply is among ``results`` (one pass, no generator: every batch)."""
    for res in results:  # noqa: SIM110 — a generator per batch costs more than the loop
        if isinstance(res, NoScriptError):
            return True
    return False


def _deliver(batch: list[Any], results: list[Any]) -> None:
    """Each reply to its caller, in order (no NOSCRIPT among them)."""
    for (_script, _keys, _args, fut, on_done), res in zip(batch, results):
        _resolve(fut, on_done, res)


def _fail(batch: list[Any], exc: Exception) -> None:
    for *_, fut, _ in batch:
        if not fut.done():
            fut.set_exception(exc)
