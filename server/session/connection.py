"""One websocket connection: lifecycle, limits, dispatch and the bounded send queue.

A connection reads frames, checks them (size, msgpack limits, schema — all in
:mod:`solrace.shared.protocol`), applies the per-connection rate limit and hands each request to
its handler (:mod:`solrace.server.session.handlers`, one module per job). Replies and events leave
through one bounded send queue, so a client that stops reading cannot make the server buffer
without limit: when its queue is full it is disconnected (it can resume and ``sync``).

Race events are delivered in order by the connection's :class:`~solrace.server.fanout.feed.Feed`.

Reading never waits for processing: each frame goes to an in-order worker through a queue of
at most :data:`PIPELINE_DEPTH` frames — handed over by the websocket protocol's own callback
(:class:`~solrace.server.transport.WsConnection`), no reader task — so the websocket keeps
reading (and the client's keepalive pongs keep arriving) while a request runs. Requests run
one at a time in arrival order — moves and their acks, ``sync`` then attach, keep their
order — except the ones that may wait minutes for a solver (:data:`CONCURRENT`: ``daily``
and ``daily.start`` while a deal is certified, and ``hint``), which run beside the queue.
A frame that finds the worker idle with nothing queued is started in the protocol's callback
itself (:meth:`Connection._now`: its checks, and a move's synchronous start, acked from the
store's reply), and frames arriving meanwhile wait behind it exactly as behind the worker.

Two jobs live in mixins of their own: the hello deadline and the idle close
(:mod:`solrace.server.session.closetimer`), and the sending side — the writer task, writing a frame
at once, the close after the last reply (:mod:`solrace.server.session.sending`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from solrace.server.fanout.feed import Feed
from solrace.server.fanout.presence import Presence
from solrace.server.game.races import Player
from solrace.server.ops import metrics
from solrace.server.ops.faults import is_outage, is_store_error
from solrace.server.session.closetimer import CloseTimer
from solrace.server.session.fastmoves import MoveStart
from solrace.server.session.handlers import HANDLERS, accounts, lobby, rematch
from solrace.server.session.outbox import Outbox
from solrace.server.session.sending import Sending
from solrace.server.store.errors import unavailable_reason
from solrace.shared import protocol as P
from solrace.shared.protocol import ProtocolError

if TYPE_CHECKING:
    from solrace.server.ops.app import Context
    from solrace.server.store.accounts import SessionRecord
    from solrace.server.transport import WsConnection

log = logging.getLogger("solrace.connection")

HELLO_TIMEOUT = 10.0
ANONYMOUS_OK = (P.Hello, P.Ping, P.Watch, P.Unwatch, P.LiveRaces, P.Register, P.Login,
                P.Profile, P.Analysis, P.TournamentList, P.TournamentInfo,
                P.TournamentStandings, P.TournamentBracket)
#: Frames received and waiting for the in-order worker; one more is refused (``rate_limited``)
#: instead of making the reader wait (docs/protocol.md section 4: the safe pipelining depth).
PIPELINE_DEPTH = 64
#: Requests that may wait on a solver run beside the in-order queue, at most this many at once.
CONCURRENT = (P.DailyInfo, P.DailyStart)
#: Enough for every daily of a day at once (five variants, three difficulties) and a start.
MAX_CONCURRENT = 16
#: The messages counter's series per request type, looked up once.
_MESSAGES: dict[str, Any] = {}


class Queued:
    """A frame waiting for the worker, with the rate limit's verdict taken when it arrived:
    a frame pays its token on arrival, so frames refused for a full queue later cannot drain
    the bucket under the frames that found room (docs/protocol.md section 4)."""

    __slots__ = ("allowed", "data")

    def __init__(self, data: bytes | str, allowed: bool) -> None:
        self.data, self.allowed = data, allowed


def _dropped(_data: bytes | str) -> None:
    """The sink of a connection whose reader returned (its handler is ending)."""


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


class Connection(MoveStart, CloseTimer, Sending):
    def __init__(self, ws: WsConnection, ctx: Context) -> None:
        self.ws = ws
        self.ctx = ctx
        self.codec = P.codec_for(ws.subprotocol)  # msgpack, or JSON for browsers
        self.player: Player | None = None
        self.session: SessionRecord | None = None  # None: anonymous
        self.session_refreshed = 0.0  # monotonic time of the last last_seen/TTL refresh
        self.session_held: int | None = None  # hub notice token the session was verified under
        self.session_revoked = False  # a revocation notice named this connection's session
        self._close_reason = ""
        self.feed = Feed(self)
        self.presence = Presence(self)
        self.greeted = False
        self.member = f"{ctx.config.process_id}:{secrets.token_hex(4)}"
        self.quick_queue: str | None = None
        self.bucket = TokenBucket(ctx.config.rate, ctx.config.burst)
        self.out = Outbox(ctx.send_queue, self._too_slow, self.codec.encode)
        self.out.direct = self.write_now
        self._tasks: set[asyncio.Task[Any]] = set()
        self.closing = False
        self.hinting = False  # a hint of this connection is being computed
        self.checking = False  # a "still winnable?" check of this connection is computing
        self.analysing = False  # an analysis asked on this connection is being computed
        self._queue: deque[Any] = deque()  # Queued frames (or begun requests) for the worker
        self._wake: asyncio.Future[None] | None = None  # the idle worker waits on it
        # a move started from the frame callback (_now): (its store reply — or, refused, the
        # task finishing it —, request id, request, pending move, start time). One attribute:
        # more than 30 would cost every connection a dict of its own (docs/performance.md,
        # "Lean reading")
        self._moving: tuple[asyncio.Future[Any], Any, P.MakeMove, Any, float] | None = None
        self.concurrent = 0  # CONCURRENT requests running
        self._working = False  # the worker is inside a request
        self._timer: asyncio.TimerHandle | None = None  # hello deadline / idle timeout
        self._closer: asyncio.Future[None] | None = None  # the idle (or no hello) close
        self._hello_deadline = self._last_frame = self._due = 0.0

    @property
    def me(self) -> Player:
        """The greeted player (handlers of requests that need a name only)."""
        assert self.player is not None
        return self.player

    # ------------------------------------------------------------------ lifecycle

    async def run(self) -> None:
        metrics.CONNECTIONS.inc()
        writer = asyncio.create_task(self._writer(), name="writer")
        worker = asyncio.create_task(self._worker(), name="worker")
        try:
            await self._reader()
        finally:
            metrics.CONNECTIONS.dec()
            self.closing = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._queue.clear()  # the peer is gone: what it queued is dropped
            self._push(None)
            # the request in progress finishes (a move is logged or not, never half), and
            # nothing attaches after the clean-up below
            await asyncio.gather(worker, return_exceptions=True)
            while (moving := self._moving) is not None:  # a move started by _now
                await asyncio.gather(moving[0], return_exceptions=True)
                if self._moving is moving:  # never: its callback settles it first
                    break
            if self._closer is not None:  # the idle close, which ended the reader
                await asyncio.gather(self._closer, return_exceptions=True)
            for t in list(self._tasks):
                t.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            self.out.close()
            await self._detach_all()
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)

    def _push(self, data: Queued | tuple[Any, str, P.Request, bool] | None) -> None:
        """Queue a frame (or a request :meth:`_begin` read already) for the worker (None: stop)
        and wake it if it waits — unless a move started from the frame callback is still
        going (:meth:`_now`): then the frame waits for it, and its end wakes the worker."""
        self._queue.append(data)
        if self._moving is None or data is None:
            self._wake_worker()

    def _wake_worker(self) -> None:
        wake = self._wake
        if wake is not None:
            self._wake = None
            if not wake.done():
                wake.set_result(None)

    async def _worker(self) -> None:
        """Handle queued frames one at a time, in the order they arrived. One future per wait
        when the queue ran empty, nothing per frame otherwise."""
        queue = self._queue
        loop = asyncio.get_running_loop()
        while True:
            if not queue:
                self._wake = loop.create_future()
                await self._wake
                continue
            data = queue.popleft()
            if data is None:
                return
            self._working = True
            try:
                if type(data) is tuple:  # read by _now already
                    await self._proceed(*data)
                else:
                    await self.handle(data.data, data.allowed)
            finally:
                self._working = False
                self._recheck()

    def _busy(self) -> bool:
        """Received frames not yet fully handled (the idle timer must not fire meanwhile)."""
        return self._working or bool(self._queue) or self.concurrent > 0

    def _enqueue(self, data: bytes | str) -> None:
        allowed = self.bucket.take()  # every frame costs a token, when it arrives
        if len(self._queue) < PIPELINE_DEPTH:
            self._push(Queued(data, allowed))
            return
        req_id: Any = None
        try:
            req_id = echo_id(P.decode(data).get("id"))
        except ProtocolError as exc:
            self.send(P.error(None, exc.code, exc.reason, **exc.extra))
            return
        metrics.ERRORS.labels("rate_limited").inc()
        self.send(P.error(req_id, "rate_limited", f"more than {PIPELINE_DEPTH} requests are "
                          "waiting on this connection; wait for replies before sending more"))

    async def _reader(self) -> None:
        """Read frames until the peer goes, handing each to the worker at once (reading never
        waits for processing). Hello is due within HELLO_TIMEOUT of connecting (one deadline,
        not reset by other frames); a connection with nothing going on (no race, no watch, no
        queue) is closed after ``idle_timeout`` without a frame. Both are one timer per
        connection (``_on_timer``), which the worker re-arms after each request, so the limit
        always follows the handled state. Frames arrive through
        :meth:`_on_frame` and this only waits for the connection to go."""
        ws = self.ws
        self._hello_deadline = self._last_frame = time.monotonic()
        self._hello_deadline += HELLO_TIMEOUT
        self._recheck()
        ws.set_sink(self._on_frame)  # messages come as protocol callbacks, no task
        try:
            await ws.wait_lost()
        finally:
            ws.set_sink(_dropped)  # the reader returned: later messages are dropped

    def _on_frame(self, data: bytes | str) -> None:
        """One message, from the websocket's ``data_received`` (:mod:`.transport`): what the
        reader loop does with what ``recv()`` returns — or, when the worker is idle with
        nothing queued, the frame's synchronous part at once (:meth:`_now`)."""
        self._last_frame = time.monotonic()
        try:
            if (self._wake is not None and self._moving is None and not self._queue
                    and not self.closing):
                self._now(data)
            else:
                self._enqueue(data)
        except Exception:  # never into the protocol's callback
            log.exception("queueing a frame failed")

    def spawn(self, coro: Any) -> None:
        """Run ``coro`` in the background for as long as this connection lives."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _detach_all(self) -> None:
        try:
            self.ctx.standings.unfollow(self)
            await self.presence.leave_all()
            await self.feed.detach_all()
            if self.player is not None:
                await self.ctx.hub.unwatch_player(self.player.pid, self)
                if self.quick_queue is not None:
                    await self.ctx.store.quick_cancel(self.quick_queue,
                                                      lobby.quick_entry(self, self.ctx))
        except Exception as exc:  # the store may be down; nothing is lost by skipping this
            log.info("cleanup after disconnect failed: %s", exc)

    # ------------------------------------------------------------------ hub subscriber

    def on_race_event(self, rid: str, version: int, event: dict[str, Any]) -> None:
        self.feed.on_race_event(rid, version, event)

    async def advance(self, rid: str, event: dict[str, Any] | None) -> None:
        await self.feed.advance(rid, event)

    def on_spectators(self, rid: str, count: int) -> None:
        self.feed.on_spectators(rid, count)

    def on_player_notice(self, pid: str, notice: dict[str, Any]) -> None:
        if notice.get("k") == "matched":
            self.spawn(lobby.matched(self, self.ctx, str(notice["race"])))
        elif notice.get("k") == "rematch":
            self.spawn(rematch.offered(self, self.ctx, notice))
        elif notice.get("k") == "presence" and notice.get("race") in self.feed.races \
                and notice.get("race") not in self.feed.watching:
            self.send(P.push("presence", race=notice["race"], player=notice["player"],
                             online=bool(notice["online"])))
        elif notice.get("k") == "renamed":  # a moderator renamed this account
            self._renamed(str(notice["name"]))
        elif notice.get("k") == "title":  # this account became a BOT account
            self._titled(str(notice["title"]))
        elif notice.get("k") == "warned":  # a moderator's warning, shown as it is
            self.send(P.push("warning", reason=notice["reason"]))
        elif notice.get("k") == "review":  # a ranked result held or decided (fair play)
            self.send(P.push("review", race=notice["race"], status=notice["status"]))
        elif notice.get("k") == "revoked":
            accounts.on_revoked_notice(self, notice)

    def _renamed(self, name: str) -> None:
        """The account's name changed (server/store/renames.py): this connection's session
        and player follow, and the client is told."""
        if self.session is not None and self.session.kind == "account":
            self.session = dataclasses.replace(self.session, name=name, account=name)
            if self.player is not None:
                self.player.name = name
            self.send(P.push("renamed", name=name))

    def _titled(self, title: str) -> None:
        if self.session is not None and self.session.kind == "account":
            self.session = dataclasses.replace(self.session, title=title)
            if self.player is not None:
                self.player.title = title
            self.send(P.push("titled", title=title))

    # ------------------------------------------------------------------ dispatch

    async def handle(self, data: bytes | str, allowed: bool | None = None) -> None:
        begun = self._begin(data, allowed)
        if begun is not None:
            await self._proceed(*begun)

    def _begin(self, data: bytes | str, allowed: bool | None = None
               ) -> tuple[Any, str, P.Request, bool] | None:
        """A frame's synchronous checks: the rate limit (``allowed``: its token was taken on
        arrival), decoding and the schema, hello and name first, the session as far as it is
        held. Returns (echoed id, type, request, whether the session is held); None when the
        frame was answered (an error)."""
        req_id: Any = None
        kind = "unknown"
        try:
            if allowed is None:  # every frame costs a token, even garbage
                allowed = self.bucket.take()
            msg = self.codec.decode(data)
            req_id = echo_id(msg.get("id"))
            if not allowed:  # refused after reading the id, so the client can match it
                raise ProtocolError("rate_limited", "too many messages; slow down")
            req = P.parse_request(msg)
            kind = req.TYPE
            counted = _MESSAGES.get(kind)
            if counted is None:
                counted = _MESSAGES[kind] = metrics.MESSAGES.labels(kind)
            counted.inc()
            if not self.greeted and not isinstance(req, P.Hello):
                raise ProtocolError("not_authenticated", "say hello first")
            if self.player is None and not isinstance(req, ANONYMOUS_OK):
                raise ProtocolError("not_authenticated", "say hello with a name to race")
            # revoked anywhere: refused here at once
            held = isinstance(req, P.Hello) or accounts.session_held(self, self.ctx)
            return req_id, kind, req, held
        except Exception as exc:
            self._report(req_id, kind, exc)
            return None

    async def _proceed(self, req_id: Any, kind: str, req: P.Request, held: bool) -> None:
        """The rest of a request :meth:`_begin` read: the session asked in Redis unless held,
        then its handler."""
        try:
            if not held:
                await accounts.check_session(self, self.ctx)
            if isinstance(req, CONCURRENT):
                if self.concurrent >= MAX_CONCURRENT:
                    raise ProtocolError("rate_limited", f"at most {MAX_CONCURRENT} daily "
                                        "requests at a time per connection")
                self.concurrent += 1
                self.spawn(self._beside(req_id, req))
                return
            await self._run(req)
        except Exception as exc:
            self._report(req_id, kind, exc)

    async def _beside(self, req_id: Any, req: P.Request) -> None:
        """A CONCURRENT request, run beside the in-order queue."""
        try:
            await self._run(req)
        except Exception as exc:
            self._report(req_id, req.TYPE, exc)
        finally:
            self.concurrent -= 1
            self._recheck()

    async def _run(self, req: P.Request) -> None:
        handler = HANDLERS[type(req)]
        started = time.perf_counter()
        reply = await handler(self, self.ctx, req)
        if isinstance(req, P.MakeMove):
            metrics.MOVE_ACK_SECONDS.observe(time.perf_counter() - started)
        if reply is not None:
            self.send(reply)

    def _report(self, req_id: Any, kind: str, exc: Exception) -> None:
        """The error reply for a failed request: the client's fault, an outage, or a bug."""
        if isinstance(exc, accounts.SessionGone):
            metrics.ERRORS.labels(exc.code).inc()
            self.send(P.error(req_id, exc.code, exc.reason))
            self.spawn(self.close_after_reply("session revoked or expired"))
        elif isinstance(exc, ProtocolError):
            metrics.ERRORS.labels(exc.code).inc()
            self.send(P.error(req_id, exc.code, exc.reason, **exc.extra))
        elif is_store_error(exc) and is_outage(exc):
            metrics.ERRORS.labels("unavailable").inc()
            log.warning("store unavailable during %s: %s: %s", kind, type(exc).__name__, exc)
            self.send(P.error(req_id, "unavailable", unavailable_reason(exc)))
        else:  # a bug, including a command the store refused: retrying would not help
            metrics.ERRORS.labels("internal").inc()
            log.error("internal error handling %s", kind, exc_info=exc)
            self.send(P.error(req_id, "internal", "internal error; the game is unchanged"))
