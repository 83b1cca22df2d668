"""Script calls of one event-loop tick, sent as one pipeline."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable
from typing import Any

from redis._parsers.base import SERVER_CLOSED_CONNECTION_ERROR
from redis._parsers.hiredis import NOT_ENOUGH_DATA, _AsyncHiredisParser
from redis.asyncio import ConnectionPool, Redis
from redis.exceptions import (
    AskError,
    ClusterError,
    ConnectionError,
    MovedError,
    NoScriptError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import TimeoutError as RedisTimeoutError
from solrace.server.store.resp import pack, sha_of
from solrace.server.store.wire import BatchWire, socket_poll, take_over

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
    packed here (:func:`pack`) and written and read on one pooled connection, with the pool's
    retry policy, as redis-py's non-transactional pipeline does — without its per-argument
    encoder, per-command bookkeeping and instrumentation (docs/performance.md, "Redis: one kept
    batch connection"). A cluster client keeps redis-py's pipeline, which routes each call to
    its slot's node.

    Once a batch has ended well on a connection (hiredis parser, RESP2), the next batches
    are written and read on it by a :class:`~.wire.BatchWire`: packed into one write from
    the event loop's callback, their replies parsed as they arrive and the callers' futures
    resolved there — no task, no stream reader, no timeout context per batch. A failure
    there hands the batch to the path above as its first failed attempt (the pool's retry
    policy then disconnects, backs off, reconnects and resends it), so callers see the same
    retries and the same exceptions.
    """

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._pending: list[tuple[Any, list[Any], list[Any], asyncio.Future[Any],
                                  Callable[[Any], None] | None]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._resharding: set[asyncio.Task[None]] = set()  # calls waiting out a migration
        self.batches = 0
        pool = getattr(redis, "connection_pool", None)
        self._pool: ConnectionPool | None = (
            pool if isinstance(redis, Redis) and isinstance(pool, ConnectionPool) else None)
        self._loop: asyncio.AbstractEventLoop | None = None
        #: The pooled connection the last batch ended well on, and its event loop: the next
        #: batch's (see :meth:`_exchange`).
        self._held: tuple[Any, asyncio.AbstractEventLoop] | None = None
        #: The held connection's transport read by the batcher itself, and the batch it has
        #: out (see :meth:`_flush`).
        self._wire: BatchWire | None = None
        self._out: tuple[list[Any], bytes] | None = None

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
        """One write of the packed batch, then its replies in order (an error reply is
        returned in its place, as ``raise_on_error=False`` does).

        The pooled connection a batch ended well on is kept for the next batch (batches go
        one at a time), instead of a ``get_connection``/``release`` per batch — each a lock
        and the pool's instrumentation; the pool's check that a connection is fit (not
        closed by the server, nothing unread) is made here without a coroutine (``_clean``),
        and one that fails it, or any failure of a batch, gives the connection back to the
        pool (disconnected on a failure), and the next batch takes one afresh. A connected
        connection is written to directly, under the same deadline as the replies (the
        connection's socket timeout), not through ``send_packed_command``, which runs the
        write in a task of its own (``asyncio.wait_for``); a write that fails disconnects
        and raises ``ConnectionError`` as it does, so the pool's retry policy sees the same.
        About 40 % of a one-call batch's instructions (docs/performance.md, "Redis: one kept
        batch connection").

        ``first``: the failure of the batch's first attempt on the wire (the held connection's
        own reading, :meth:`_flush`); it counts as the retry policy's first failed attempt,
        after which the batch goes again as above."""
        pool = self._pool
        assert pool is not None
        if packed is None:
            packed = b"".join([pack(sha_of(c[0]), c[1], c[2]) for c in batch])
        loop = asyncio.get_running_loop()
        held, self._held = self._held, None
        if first is not None and held is not None:
            conn = held[0]  # the wire's connection: its failure is the first attempt's
        elif held is not None and held[1] is loop and _clean(held[0]):
            conn = held[0]
        else:
            if held is not None:  # closed by the server, unread data, another event loop:
                with contextlib.suppress(Exception):  # the pool connects it afresh
                    await held[0].disconnect(nowait=True)
                await pool.release(held[0])
            conn = await pool.get_connection()
        kept = False
        try:
            async def io() -> list[Any]:
                nonlocal first
                if first is not None:  # the first attempt, made on the wire, failed
                    error, first = first, None
                    await conn.disconnect(nowait=True)
                    raise error
                writer = conn._writer
                direct = writer is not None and conn.is_connected
                if not direct:  # (re)connects first, as every redis-py command does
                    await conn.send_packed_command(packed, check_health=False)
                out: list[Any] = []
                # one deadline (the connection's socket timeout) for the write and all the
                # batch's replies, not one timer (and a task) for each
                try:
                    async with asyncio.timeout(conn.socket_timeout):
                        if direct:
                            try:
                                writer.write(packed)
                                await writer.drain()
                            except OSError as exc:
                                await conn.disconnect(nowait=True)
                                raise ConnectionError(
                                    f"Error while writing to socket. {exc.args}") from exc
                        if _direct(conn):
                            await _read_replies(conn, len(batch), out)
                        else:
                            for _ in batch:
                                try:
                                    out.append(await conn.read_response(timeout=math.inf))
                                except ResponseError as exc:
                                    out.append(exc)
                except TimeoutError:
                    await conn.disconnect(nowait=True)
                    raise RedisTimeoutError("Timeout reading script replies") from None
                return out

            async def failed(_error: Exception) -> None:
                await conn.disconnect()

            out = await conn.retry.call_with_retry(io, failed)
            kept = conn.is_connected
            return out  # type: ignore[no-any-return]
        except BaseException:
            await conn.disconnect()
            raise
        finally:
            if kept:
                self._held = (conn, loop)
            else:
                await pool.release(conn)

    def _flush(self) -> None:
        """Send what is pending — unless a batch is still out: then the calls wait for it to
        come back and go as the next batch (one batch in flight, so replies are handled in
        the order Redis ran them, and a busy tick's calls share one write and one read).

        On the held connection's wire when it is ready (the usual case): packed, written
        and left to the wire, which calls :meth:`_replied`; otherwise (the first batch, a
        cluster, redis-py's Python parser, after a failure) in a task through redis-py's
        connection (:meth:`_send`)."""
        loop = asyncio.get_running_loop()
        if self._out is not None or (self._tasks and any(
                not t.done() and t.get_loop() is loop for t in self._tasks)):
            return
        batch, self._pending = self._pending, []
        if not batch:
            return
        wire = self._wire
        if wire is None and self._held is not None and self._held[1] is loop:
            wire = self._wire = take_over(self._held[0], loop)
        if wire is not None:
            if wire.ready(loop):
                self.batches += 1
                packed = b"".join([pack(sha_of(c[0]), c[1], c[2]) for c in batch])
                self._out = (batch, packed)
                wire.send(packed, len(batch), self._replied)
                return
            self._wire = None  # its connection is still held: _exchange checks it
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
            self._wire = None
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
            if self._pool is not None:
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


def _clean(conn: Any) -> bool:
    """Whether a kept connection is fit for the next batch: what the pool's
    ``ensure_connection`` checks before it hands a connection out (connected, not closed by
    the server, no unread data), without its coroutine — and, where the transport's socket
    is at hand (asyncio's selector transports and uvloop's, :func:`.wire.socket_poll`), the
    socket itself is polled without waiting: a connection Redis closed a moment ago shows
    its end there before the event loop has read it (the pool, handing out the connection
    released last, rarely meets one; a kept connection always would)."""
    stream = getattr(conn, "_reader", None)
    if not conn.is_connected or stream is None or stream.at_eof() or stream._buffer:
        return False
    reader = getattr(getattr(conn, "_parser", None), "_reader", None)
    if reader is not None and hasattr(reader, "has_data") and reader.has_data():
        return False
    writer = getattr(conn, "_writer", None)
    transport = getattr(writer, "transport", None)
    if transport is not None and transport.is_closing():  # closed under a wire, say
        return False
    poll = socket_poll(transport) if transport is not None else None
    if poll is None:
        return True
    # no event: open, nothing unread; POLLIN: unread data or the end of the stream;
    # POLLHUP / POLLERR / POLLNVAL (always reported): closed, failed
    return not poll.poll(0)


def _direct(conn: Any) -> bool:
    """Whether the batch's replies can be read from the connection's hiredis reader directly:
    redis-py's hiredis parser (the default with ``redis[hiredis]``), connected."""
    parser = getattr(conn, "_parser", None)
    return (isinstance(parser, _AsyncHiredisParser) and parser._connected
            and parser._reader is not None and getattr(conn, "_reader", None) is not None)


async def _read_replies(conn: Any, count: int, out: list[Any]) -> None:
    """``count`` replies into ``out``, parsed by the connection's own ``hiredis.Reader`` from
    the socket in chunks — redis-py's ``read_response`` does the same for one reply at a time,
    with a coroutine chain, a timeout context and a raise of every error reply per call. Error
    replies are put in ``out`` (the reader builds them as redis-py's exceptions:
    ``NoScriptError``, ``ResponseError``, …); a RESP3 push message goes to the parser's push
    handler, as ``read_response`` does it; a socket failure disconnects and raises
    ``ConnectionError`` as ``read_response`` would, so the pool's retry policy sees the same."""
    parser = conn._parser
    reader, stream, size = parser._reader, conn._reader, parser._read_size
    gets, feed = reader.gets, reader.feed
    push = parser._hiredis_PushNotificationType
    try:
        while len(out) < count:
            reply = gets()
            if reply is NOT_ENOUGH_DATA:
                data = await stream.read(size)
                if not data:
                    raise ConnectionError(SERVER_CLOSED_CONNECTION_ERROR)
                feed(data)
                continue
            if push is not None and isinstance(reply, push):  # RESP3: not a reply of ours
                await parser.handle_push_response(reply)
                continue
            if isinstance(reply, ConnectionError) or (
                    isinstance(reply, list) and reply and isinstance(reply[0], ConnectionError)):
                raise reply if isinstance(reply, ConnectionError) else reply[0]
            out.append(reply)
    except OSError as exc:
        await conn.disconnect(nowait=True)
        raise ConnectionError(f"Error while reading from {conn._host_error()} : {exc.args}"
                              ) from None
    except ConnectionError:
        await conn.disconnect(nowait=True)
        raise
