"""The script batcher's own Redis connection: an :class:`asyncio.Protocol` with the public
:class:`hiredis.Reader`, so that a batch's replies are parsed where the bytes arrive and the
batch is resolved there — no task per batch, no stream reader, no timeout context
(docs/performance.md, "Redis: one batch connection of its own").

Why a connection of our own rather than one of redis-py's pool: reading the replies where they
arrive needs the connection's transport and reader, which redis-py keeps private. This one is
opened with the settings of the store's URL, read from the pool's public
``connection_kwargs``: TCP or unix socket, AUTH with username and password, SELECT, the client
name, the connect and socket timeouts. It speaks RESP2 (no ``HELLO``), so Redis never sends it
push messages. Error replies become redis-py's public exception classes by their first word
(:func:`reply_error`), as redis-py's own parser names them: ``NoScriptError``,
``BusyLoadingError``, ``ReadOnlyError``, …

What it keeps of redis-py's reading: the batch's deadline is the socket timeout, for the write
and every reply of the batch together; a stall past it fails the batch with redis-py's
``TimeoutError``, a closed or reset connection with its ``ConnectionError``; an error reply
that is a ``ConnectionError`` (``LOADING``) fails the batch. The batcher's retry policy (the
pool's :class:`~redis.asyncio.retry.Retry`) then opens a fresh connection and sends the batch
again (:meth:`.batch.ScriptBatcher._exchange`).
"""

from __future__ import annotations

import asyncio
import math
import select
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import hiredis
from redis import exceptions as rx
from redis.asyncio.connection import Connection, ConnectionPool, UnixDomainSocketConnection
from solrace.server.store.resp import pack_command

__all__ = ["ScriptWire", "WireSettings", "open_wire", "reply_error", "socket_poll"]

#: Replies, or the exception that ended the batch.
Done = Callable[[Any], None]

#: Seconds without a batch after which :meth:`ScriptWire.ready` polls the socket first.
QUIET = 1.0
#: Redis's message when it closed the connection.
CLOSED = "Connection closed by server."

#: Error replies by first word, as redis-py's parser names them (public classes).
ERRORS: dict[str, type[rx.RedisError]] = {
    "NOSCRIPT": rx.NoScriptError,
    "LOADING": rx.BusyLoadingError,
    "READONLY": rx.ReadOnlyError,
    "OOM": rx.OutOfMemoryError,
    "NOAUTH": rx.AuthenticationError,
    "WRONGPASS": rx.AuthenticationError,
    "NOPERM": rx.NoPermissionError,
    "MASTERDOWN": rx.MasterDownError,
    "EXECABORT": rx.ExecAbortError,
    "ERR": rx.ResponseError,
}
#: ``ERR`` replies redis-py gives a class of their own, by their text.
ERR_TEXTS: dict[str, type[rx.RedisError]] = {
    "max number of clients reached": rx.ConnectionError,
    "invalid password": rx.AuthenticationError,
}


def reply_error(message: str) -> rx.RedisError:
    """The exception of an error reply: redis-py's class for its first word, the word removed
    (as redis-py's parser does), else ``ResponseError`` with the whole message."""
    code, _, rest = message.partition(" ")
    cls = ERRORS.get(code)
    if cls is None:
        return rx.ResponseError(message)
    if code == "ERR":
        cls = ERR_TEXTS.get(rest, cls)
    return cls(rest)


@dataclass(frozen=True, slots=True)
class WireSettings:
    """Where and how to connect, from a pool's public ``connection_kwargs``."""

    host: str
    port: int
    path: str | None
    db: int
    username: str | None
    password: str | None
    client_name: str | None
    socket_timeout: float | None
    connect_timeout: float | None

    retry: Any  # the pool's retry policy (redis.asyncio.retry.Retry)

    @classmethod
    def of(cls, pool: ConnectionPool) -> WireSettings | None:
        """The settings of ``pool``'s connections (read off one it makes, unconnected: its
        public attributes carry redis-py's defaults), or None when this wire cannot stand in
        for them (TLS, a credential provider, a connection class of another kind)."""
        if pool.connection_class not in (Connection, UnixDomainSocketConnection) or (
                pool.connection_kwargs.get("credential_provider") is not None):
            return None
        c: Any = pool.connection_class(**pool.connection_kwargs)
        timeout, connect = c.socket_timeout, c.socket_connect_timeout
        return cls(
            host=getattr(c, "host", "localhost"), port=int(getattr(c, "port", 6379)),
            path=getattr(c, "path", None) if isinstance(c, UnixDomainSocketConnection) else None,
            db=int(c.db or 0), username=c.username, password=c.password,
            client_name=c.client_name,
            socket_timeout=None if timeout is None else float(timeout),
            connect_timeout=None if connect is None else float(connect),
            retry=c.retry,
        )

    def hello(self) -> list[tuple[Any, ...]]:
        """The commands that set the connection up, before any batch."""
        out: list[tuple[Any, ...]] = []
        if self.password is not None:
            out.append(("AUTH", self.username, self.password) if self.username
                       else ("AUTH", self.password))
        if self.db:
            out.append(("SELECT", self.db))
        if self.client_name:
            out.append(("CLIENT", "SETNAME", self.client_name))
        return out


class ScriptWire(asyncio.Protocol):
    """One connection of the batcher's: one batch at a time.

    :meth:`send` writes a packed batch and arms the deadline; :meth:`data_received` feeds the
    hiredis reader and, once the batch's last reply is in, calls the batch's ``done`` with the
    replies in order (error replies in their place). A failure calls ``done`` with the
    exception instead and makes the wire unusable (``failure``); so does anything Redis sends
    outside a batch."""

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float | None) -> None:
        self.loop = loop
        self.timeout = timeout
        self.transport: Any = None
        #: error replies, nested ones too, are built by :func:`reply_error` inside hiredis
        self.reader = hiredis.Reader(protocolError=rx.InvalidResponse, replyError=reply_error)
        self._poll: Any = None
        #: what ended the wire's use (the batcher then opens another)
        self.failure: BaseException | None = None
        self._count = 0
        self._out: list[Any] = []
        self._done: Done | None = None
        self._deadline = 0.0
        #: loop time of the last :meth:`ready` (for :meth:`send`) and of the last batch sent
        self._now = self._sent = -math.inf
        self._watch: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self._poll = socket_poll(transport)

    def ready(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Whether the next batch can go: same event loop, nothing out, not failed, still
        connected — and, when the wire has been quiet for :data:`QUIET` seconds or more, the
        socket, polled without waiting, holds neither unread data nor the end of the stream:
        a connection Redis closed meanwhile (its idle ``timeout``, a restart, ``CLIENT
        KILL``) shows its end there before the event loop has read it, and writing the batch
        to it would cost a retry with backoff. A wire in steady use skips the poll."""
        if (loop is not self.loop or self._done is not None or self.failure is not None
                or self.transport is None or self.transport.is_closing()):
            return False
        poll = self._poll
        self._now = now = loop.time()
        if poll is None or now - self._sent < QUIET:
            return True
        return not poll.poll(0)  # no event: open, nothing unread

    def send(self, packed: bytes, count: int, done: Done) -> None:
        """Write ``packed`` (``count`` commands); ``done`` gets the replies or the failure.
        Only right after :meth:`ready` said True (its loop time is the batch's start).

        The deadline: one timer for many batches — armed only when none is, and when it
        fires before the batch then out is due, re-armed for that batch's due time."""
        self._count, self._out, self._done = count, [], done
        self._sent = self._now
        try:
            self.transport.write(packed)
        except Exception as exc:  # whatever it is, the batch did not go
            self._fail(rx.ConnectionError(f"Error while writing to socket. {exc.args}"))
            return
        if self.timeout is not None:
            self._deadline = due = self._now + self.timeout
            if self._watch is None:
                self._watch = self.loop.call_at(due, self._check)

    async def call(self, packed: bytes, count: int) -> list[Any]:
        """:meth:`send` awaited: the replies, or the failure raised."""
        self.ready(self.loop)
        fut: asyncio.Future[Any] = self.loop.create_future()

        def done(result: Any) -> None:
            if not fut.done():
                fut.set_result(result)

        self.send(packed, count, done)
        result = await fut
        if isinstance(result, BaseException):
            raise result
        return result  # type: ignore[no-any-return]

    def _check(self) -> None:
        self._watch = None
        if self._done is None:
            return
        if self._deadline - self.loop.time() > 0.001:  # a later batch: its own due time
            self._watch = self.loop.call_at(self._deadline, self._check)
            return
        self._fail(rx.TimeoutError("Timeout reading script replies"))
        self.close()

    def data_received(self, data: bytes) -> None:
        reader, done = self.reader, self._done
        out, want, gets = self._out, self._count, reader.gets
        try:
            reader.feed(data)
            while len(out) < want:
                reply = gets()
                if reply is False:
                    return
                if done is None:
                    break
                if isinstance(reply, rx.ConnectionError):  # LOADING: the store's state
                    raise reply
                out.append(reply)
            if done is None or reader.has_data():  # a reply nobody asked for
                raise rx.InvalidResponse("a reply outside a batch")
        except Exception as exc:  # a protocol error, a ConnectionError reply
            self._fail(exc)
            self.close()
            return
        self._done = None
        done(out)

    def eof_received(self) -> bool:
        self._fail(rx.ConnectionError(CLOSED))
        return False  # the transport closes; connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(rx.ConnectionError(CLOSED) if exc is None
                   else rx.ConnectionError(f"Error while reading from Redis: {exc.args}"))

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def _fail(self, exc: BaseException) -> None:
        if self.failure is None:
            self.failure = exc
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.cancel()
        done, self._done = self._done, None
        if done is not None:
            done(exc)


async def open_wire(settings: WireSettings, loop: asyncio.AbstractEventLoop) -> ScriptWire:
    """A connected, set-up wire; redis-py's ``ConnectionError`` / ``TimeoutError`` (or an
    ``AuthenticationError``) when it cannot be had."""
    wire = ScriptWire(loop, settings.socket_timeout)
    try:
        async with asyncio.timeout(settings.connect_timeout):
            if settings.path is not None:
                await loop.create_unix_connection(lambda: wire, settings.path)
            else:
                await loop.create_connection(lambda: wire, settings.host, settings.port)
    except TimeoutError:
        raise rx.TimeoutError("Timeout connecting to Redis") from None
    except OSError as exc:
        where = settings.path or f"{settings.host}:{settings.port}"
        raise rx.ConnectionError(f"Error connecting to {where}: {exc}") from None
    hello = settings.hello()
    if hello:
        try:
            replies = await wire.call(b"".join(pack_command(*c) for c in hello), len(hello))
        except BaseException:
            wire.close()
            raise
        for reply in replies:
            if isinstance(reply, rx.ResponseError) and "password" in str(reply).lower():
                wire.close()
                raise rx.AuthenticationError(str(reply))
            if isinstance(reply, Exception):
                wire.close()
                raise reply
    return wire


def socket_poll(transport: Any) -> Any:
    """A poll object for the transport's socket (readable, or its end or an error), or None
    where it has no socket at hand or the system has no ``poll``. The file descriptor comes
    from ``get_extra_info("socket")``, which both event loops the server runs on answer:
    asyncio's selector transports with a ``TransportSocket``, uvloop's with a
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
