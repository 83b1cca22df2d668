"""One websocket connection: lifecycle, limits, dispatch and the bounded send queue.

A connection reads frames, checks them (size, msgpack limits, schema — all in
:mod:`solrace.shared.protocol`), applies the per-connection rate limit and hands each request to
its handler (:mod:`solrace.server.handlers`, one module per job). Replies and events leave
through one bounded send queue, so a client that stops reading cannot make the server buffer
without limit: when its queue is full it is disconnected (it can resume and ``sync``).

Race events are delivered in order by the connection's :class:`~solrace.server.feed.Feed`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError
from solrace.server import metrics
from solrace.server.feed import Feed
from solrace.server.handlers import HANDLERS, lobby, rematch
from solrace.server.races import Player
from solrace.shared import protocol as P
from solrace.shared.protocol import ProtocolError

if TYPE_CHECKING:
    from solrace.server.app import Context
    from websockets.asyncio.server import ServerConnection

log = logging.getLogger("solrace.connection")

HELLO_TIMEOUT = 10.0
ANONYMOUS_OK = (P.Hello, P.Ping, P.Watch, P.Unwatch, P.LiveRaces)


def echo_id(value: Any) -> Any:
    """The request id to echo as ``re``: an integer or a string of at most 64 characters."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, str) and len(value) <= 64):
        return value
    return None


class TokenBucket:
    """``rate`` messages per second on average, bursts up to ``burst``."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Connection:
    def __init__(self, ws: ServerConnection, ctx: Context) -> None:
        self.ws = ws
        self.ctx = ctx
        self.codec = P.codec_for(ws.subprotocol)  # msgpack, or JSON for browsers
        self.player: Player | None = None
        self.feed = Feed(self)
        self.greeted = False
        self.member = f"{ctx.config.process_id}:{secrets.token_hex(4)}"
        self.quick_queue: str | None = None
        self.bucket = TokenBucket(ctx.config.rate, ctx.config.burst)
        self.outbox: asyncio.Queue[bytes | str | None] = asyncio.Queue(maxsize=ctx.send_queue)
        self._tasks: set[asyncio.Task[Any]] = set()
        self.closing = False
        self.hinting = False  # a hint of this connection is being computed

    @property
    def me(self) -> Player:
        """The greeted player (handlers of requests that need a name only)."""
        assert self.player is not None
        return self.player

    # ------------------------------------------------------------------ lifecycle

    async def run(self) -> None:
        metrics.CONNECTIONS.inc()
        writer = asyncio.create_task(self._writer(), name="writer")
        try:
            await self._reader()
        finally:
            metrics.CONNECTIONS.dec()
            self.closing = True
            await self._detach_all()
            writer.cancel()
            for t in list(self._tasks):
                t.cancel()
            await asyncio.gather(writer, *self._tasks, return_exceptions=True)

    async def _reader(self) -> None:
        """Read frames until the peer goes. Hello is due within HELLO_TIMEOUT of connecting
        (one deadline, not reset by other frames); a connection with nothing going on (no race,
        no watch, no queue) is closed after ``idle_timeout`` without a frame."""
        ws = self.ws
        hello_deadline = time.monotonic() + HELLO_TIMEOUT
        while True:
            if not self.greeted:
                timeout: float | None = max(0.0, hello_deadline - time.monotonic())
            elif not self.feed.races and self.quick_queue is None:
                timeout = self.ctx.config.idle_timeout
            else:
                timeout = None
            try:
                data = await asyncio.wait_for(ws.recv(), timeout)
            except TimeoutError:
                if not self.greeted:
                    self.send(P.error(None, "not_authenticated", "no hello within 10 s"))
                    await asyncio.sleep(0.05)
                    await ws.close(1008, "no hello")
                else:
                    await ws.close(1001, "idle")
                return
            except Exception:  # closed (normally or not)
                return
            await self.handle(data)

    async def _writer(self) -> None:
        while True:
            frame = await self.outbox.get()
            if frame is None:
                return
            try:
                await self.ws.send(frame)
            except Exception:
                return

    def send(self, message: dict[str, Any]) -> None:
        if self.closing:
            return
        try:
            self.outbox.put_nowait(self.codec.encode(message))
        except asyncio.QueueFull:
            log.info("closing a connection whose send queue is full")
            self.closing = True
            self.spawn(self.ws.close(1013, "too slow: send queue full; resume and sync"))

    def spawn(self, coro: Any) -> None:
        """Run ``coro`` in the background for as long as this connection lives."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _detach_all(self) -> None:
        try:
            await self.feed.detach_all()
            if self.player is not None:
                await self.ctx.hub.unwatch_player(self.player.pid, self)
                if self.quick_queue is not None:
                    await self.ctx.store.quick_cancel(self.quick_queue, lobby.quick_entry(self))
        except Exception as exc:  # the store may be down; nothing is lost by skipping this
            log.info("cleanup after disconnect failed: %s", exc)

    # ------------------------------------------------------------------ hub subscriber

    def on_race_event(self, rid: str, version: int, event: dict[str, Any]) -> None:
        self.feed.on_race_event(rid, version, event)

    async def advance(self, rid: str, event: dict[str, Any] | None) -> None:
        await self.feed.advance(rid, event)

    def on_player_notice(self, pid: str, notice: dict[str, Any]) -> None:
        if notice.get("k") == "matched":
            self.spawn(lobby.matched(self, str(notice["race"])))
        elif notice.get("k") == "rematch":
            self.spawn(rematch.offered(self, notice))

    # ------------------------------------------------------------------ dispatch

    async def handle(self, data: bytes | str) -> None:
        req_id: Any = None
        kind = "unknown"
        try:
            allowed = self.bucket.take()  # every frame costs a token, even garbage
            msg = self.codec.decode(data)
            req_id = echo_id(msg.get("id"))
            if not allowed:  # refused after reading the id, so the client can match it
                raise ProtocolError("rate_limited", "too many messages; slow down")
            req = P.parse_request(msg)
            kind = req.TYPE
            metrics.MESSAGES.labels(kind).inc()
            if not self.greeted and not isinstance(req, P.Hello):
                raise ProtocolError("not_authenticated", "say hello first")
            if self.player is None and not isinstance(req, ANONYMOUS_OK):
                raise ProtocolError("not_authenticated", "say hello with a name to race")
            handler = HANDLERS[type(req)]
            started = time.perf_counter()
            reply = await handler(self, req)
            if isinstance(req, P.MakeMove):
                metrics.MOVE_ACK_SECONDS.observe(time.perf_counter() - started)
            if reply is not None:
                self.send(reply)
        except ProtocolError as exc:
            metrics.ERRORS.labels(exc.code).inc()
            self.send(P.error(req_id, exc.code, exc.reason, **exc.extra))
        except (RedisError, OSError) as exc:
            metrics.ERRORS.labels("unavailable").inc()
            log.warning("store unavailable during %s: %s", kind, exc)
            self.send(P.error(req_id, "unavailable", "the store is unreachable; retry"))
        except Exception:
            metrics.ERRORS.labels("internal").inc()
            log.exception("internal error handling %s", kind)
            self.send(P.error(req_id, "internal", "internal error; the game is unchanged"))
