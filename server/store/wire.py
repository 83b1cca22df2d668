"""The script batcher's own reading of its Redis connection: an :class:`asyncio.Protocol` put
on the transport of the pooled connection the batcher keeps, so that a batch's replies are
parsed where the bytes arrive and the batch is resolved there — no task per batch, no
stream reader, no timeout context (docs/performance.md, "Redis: one kept batch connection").

Why the pooled connection's transport and not a connection of our own: redis-py has already
connected it with every setting of the store's URL (TCP or unix socket, AUTH with
username and password, SELECT, the client name, keep-alive, the timeouts), and its hiredis
reader (:class:`redis._parsers.hiredis._AsyncHiredisParser`'s) is already built with
redis-py's error classes, so an error reply here is the exception redis-py would give
(``NoScriptError``, ``ResponseError``, ``BusyLoadingError``, …). The connection stays the
pool's (in use by the batcher, as before): any failure ends this protocol's use of it, and
the batcher's redis-py path disconnects it, applies the pool's retry policy and connects
afresh (:meth:`.batch.ScriptBatcher._exchange`), exactly as a failure of that path did.

What it keeps from redis-py's reading: the batch's deadline is the connection's socket
timeout, for the write and every reply of the batch together; a stall past it fails the
batch with redis-py's ``TimeoutError``, a closed or reset connection with its
``ConnectionError`` (the messages ``read_response`` gives), an error reply that is a
``ConnectionError`` (``LOADING``) fails the batch as ``read_response`` raises it; a RESP3
push message (redis-py 8 speaks RESP3 by default) goes to the parser's push handler, as
``read_response`` sends it. Only connections with redis-py's hiredis parser, over TCP or a
unix socket, are taken over (TLS is not tested here); anything else stays on the redis-py
path.
"""

from __future__ import annotations

import asyncio
import math
import select
from collections.abc import Callable
from typing import Any

from redis._parsers.base import SERVER_CLOSED_CONNECTION_ERROR
from redis._parsers.hiredis import NOT_ENOUGH_DATA, _AsyncHiredisParser
from redis.exceptions import ConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["BatchWire", "socket_poll", "take_over"]

#: Replies, or the exception that ended the batch.
Done = Callable[[Any], None]


#: Seconds without a batch after which :meth:`BatchWire.ready` polls the socket first.
QUIET = 1.0


class BatchWire(asyncio.Protocol):
    """One pooled redis-py connection's transport, read by the batcher: one batch at a time.

    :meth:`send` writes a packed batch and arms the deadline; :meth:`data_received` feeds
    the connection's hiredis reader and, once the batch's last reply is in, calls the
    batch's ``done`` with the replies in order (error replies in their place). A failure
    calls ``done`` with the exception instead and makes the wire unusable (``failure``);
    so does anything Redis sends outside a batch. The transport's original protocol (the
    connection's ``StreamReaderProtocol``) still hears of the connection's end, so
    redis-py's ``disconnect`` (which waits for it) works as before."""

    def __init__(self, conn: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.conn = conn
        self.loop = loop
        self.transport: Any = conn._writer.transport
        self.inner: Any = self.transport.get_protocol()
        self.reader: Any = conn._parser._reader
        #: hiredis' type of a RESP3 push message (None on RESP2)
        self.push: type | None = getattr(conn._parser, "_hiredis_PushNotificationType", None)
        self._pushes: set[asyncio.Future[Any]] = set()
        timeout = conn.socket_timeout
        self.timeout: float | None = None if timeout is None else float(timeout)
        #: the socket, where the transport has one at hand, asked without waiting before
        #: each batch (see :meth:`ready`): a poll object made once, not a ``MSG_PEEK`` read
        #: (whose "nothing to read" is an exception raised and caught every batch)
        self._poll = socket_poll(self.transport)
        #: what ended the wire's use (the batcher then goes back to redis-py's path)
        self.failure: BaseException | None = None
        #: replies left over after a batch: fine for that batch, not for the connection
        self.dirty = False
        self._count = 0
        self._out: list[Any] = []
        self._done: Done | None = None
        self._deadline = 0.0
        #: loop time of the last :meth:`ready` (for :meth:`send`) and of the last batch sent
        self._now = self._sent = -math.inf
        self._watch: asyncio.TimerHandle | None = None
        self.transport.set_protocol(self)

    def ready(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Whether the next batch can go: same event loop, nothing out, not failed, still
        connected — and, when the wire has been quiet for :data:`QUIET` seconds or more,
        the socket, polled without waiting, holds neither unread data nor the end of the
        stream (nor an error): a connection Redis closed meanwhile (its ``timeout`` for idle
        clients, a restart, ``CLIENT KILL``) shows its end there before the event loop has
        read it, and writing the batch to it would cost a retry with backoff (0.1 s with the
        store's policy). A wire in steady use skips the poll (a system call, about 10k
        instructions with the GIL's release and re-take): a connection closed within the
        last :data:`QUIET` seconds costs that retry instead, the outcome the same."""
        if (
            loop is not self.loop
            or self._done is not None
            or self.failure is not None
            or self.dirty
            or self.conn._writer is None
            or self.transport.is_closing()
        ):
            return False
        poll = self._poll
        self._now = now = loop.time()
        if poll is None or now - self._sent < QUIET:
            return True
        # no event: open, nothing unread; POLLIN: unread data or the end of the stream;
        # POLLHUP / POLLERR / POLLNVAL (always reported): closed, failed
        return not poll.poll(0)

    def send(self, packed: bytes, count: int, done: Done) -> None:
        """Write ``packed`` (``count`` commands); ``done`` gets the replies or the failure.
        Only right after :meth:`ready` said True (its loop time is the batch's start).

        The deadline: one timer for many batches — it is armed only when none is, and when
        it fires before the batch then out is due, it is re-armed for that batch's due time,
        so a stall fails its batch at its socket timeout, not later."""
        self._count, self._out, self._done = count, [], done
        self._sent = self._now
        try:
            self.transport.write(packed)
        except Exception as exc:  # whatever it is, the batch did not go
            self._fail(ConnectionError(f"Error while writing to socket. {exc.args}"))
            return
        if self.timeout is not None:
            self._deadline = due = self._now + self.timeout
            if self._watch is None:
                self._watch = self.loop.call_at(due, self._check)

    def _check(self) -> None:
        self._watch = None
        if self._done is None:
            return
        if self._deadline - self.loop.time() > 0.001:  # a later batch: its own due time
            self._watch = self.loop.call_at(self._deadline, self._check)
            return
        self._fail(RedisTimeoutError("Timeout reading script replies"))

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        done = self._done
        out, want, gets, push = self._out, self._count, reader.gets, self.push
        try:
            reader.feed(data)
            while done is None or len(out) < want:
                reply = gets()
                if reply is NOT_ENOUGH_DATA:
                    return
                if push is not None and isinstance(reply, push):  # RESP3: not a reply
                    self._pushed(reply)
                    continue
                if done is None:  # a reply nobody asked for: not a connection to go on with
                    self.dirty = True
                    return
                if isinstance(reply, ConnectionError):
                    raise reply
                if isinstance(reply, list) and reply and isinstance(reply[0], ConnectionError):
                    raise reply[0]
                out.append(reply)
            while reader.has_data():  # past the batch: push messages only, or unfit
                reply = gets()
                if reply is NOT_ENOUGH_DATA or push is None or not isinstance(reply, push):
                    self.dirty = True
                    break
                self._pushed(reply)
        except Exception as exc:  # a protocol error, a ConnectionError reply
            self._fail(exc)
            return
        self._done = None
        done(out)

    def _pushed(self, message: Any) -> None:
        """A RESP3 push message, to redis-py's handler (as ``read_response`` does)."""
        task = asyncio.ensure_future(self.conn._parser.handle_push_response(message))
        self._pushes.add(task)
        task.add_done_callback(self._pushes.discard)

    def eof_received(self) -> bool:
        self._fail(ConnectionError(SERVER_CLOSED_CONNECTION_ERROR))
        return False  # the transport closes; connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(
            ConnectionError(SERVER_CLOSED_CONNECTION_ERROR)
            if exc is None
            else ConnectionError(f"Error while reading from {self.conn._host_error()} : {exc.args}")
        )
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def _fail(self, exc: BaseException) -> None:
        if self.failure is None:
            self.failure = exc
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.cancel()
        done, self._done = self._done, None
        if done is not None:
            done(exc)


def socket_poll(transport: Any) -> Any:
    """A poll object for the transport's socket (readable, or its end or an error), or None
    where it has no socket at hand, carries TLS (its bytes are records, which the TLS layer
    may hold unread for good reasons) or the system has no ``poll``. The file descriptor
    comes from ``get_extra_info("socket")``, which both event loops the server runs on
    answer: asyncio's selector transports with a ``TransportSocket``, uvloop's with a
    ``PseudoSocket`` (which has ``fileno()`` but refuses ``recv``: so a poll, not a
    ``MSG_PEEK`` read)."""
    get = getattr(transport, "get_extra_info", None)
    sock = get("socket") if get is not None else None
    if sock is None or get("sslcontext") is not None or not hasattr(select, "poll"):
        return None
    try:
        fd = sock.fileno()
    except (OSError, AttributeError, TypeError):
        return None
    if fd < 0:  # closed already
        return None
    poll = select.poll()
    poll.register(fd, select.POLLIN | select.POLLPRI)
    return poll


def take_over(conn: Any, loop: asyncio.AbstractEventLoop) -> BatchWire | None:
    """A :class:`BatchWire` on ``conn``'s transport, or None where the connection is not one
    it can read: not redis-py's hiredis parser, TLS (asyncio's TLS transport could
    carry it, but no test here runs a TLS Redis, so ``rediss://`` keeps redis-py's path), not
    connected, unread data, or an original protocol that is not asyncio's stream protocol."""
    parser = getattr(conn, "_parser", None)
    writer = getattr(conn, "_writer", None)
    stream = getattr(conn, "_reader", None)
    if (
        not isinstance(parser, _AsyncHiredisParser)
        or not parser._connected
        or parser._reader is None
        or writer is None
        or stream is None
    ):
        return None
    transport = writer.transport
    if (
        not isinstance(transport.get_protocol(), asyncio.StreamReaderProtocol)
        or transport.get_extra_info("sslcontext") is not None
        or transport.is_closing()
        or stream.at_eof()
        or stream._buffer
        or parser._reader.has_data()
    ):
        return None
    return BatchWire(conn, loop)
