"""Cross-process fan-out: one Redis pub/sub connection per server process.

Every process subscribes to the channels of the races and players that its own connections
care about — one subscription per race per process, however many local subscribers — and hands
each message to those subscribers. Pub/sub may drop messages (a reconnect, a slow consumer);
subscribers never rely on it alone: race events carry versions and a subscriber that sees a gap
reads the missing events from the durable stream (see ``Feed.advance`` in feed.py).

On a Redis Cluster the same interface is :class:`solrace.server.fanout.hub_sharded.ShardedHub`
(``SSUBSCRIBE`` on each channel's shard); :func:`open_hub` picks one.

The player channels also carry revocation notices, and a connection may hold its verified
session without asking Redis on every request only while those notices provably reach this
process: :meth:`HubBase.notices_live` (docs/protocol.md section 20.6).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import msgpack
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from solrace.server.ops.faults import is_store_error
from solrace.server.ops.tasks import cancel_and_wait
from solrace.server.store import Keys

log = logging.getLogger("solrace.hub")

#: The hub PINGs its pub/sub connection this often (seconds) ...
PING_EVERY = 0.25
#: ... and notices count as live while the newest answered PING was sent at most this long ago.
#: A notice published before that PING was sent has then been read (one connection delivers in
#: order), so a revocation stays unseen at most this long even if the connection stalls.
NOTICE_FRESH = 1.0
#: A (un)subscribe that fails while the pub/sub connection is being remade is retried this
#: often (seconds) for at most this long, then reported as an outage (Hub._while_reconnecting).
RESUBSCRIBE_PAUSE = 0.05
RESUBSCRIBE_WITHIN = 1.0


class Subscriber(Protocol):
    def on_race_event(self, rid: str, version: int, event: dict[str, Any]) -> None: ...

    def on_player_notice(self, pid: str, notice: dict[str, Any]) -> None: ...

    def on_spectators(self, rid: str, count: int) -> None: ...

    async def advance(self, rid: str, event: dict[str, Any] | None) -> None: ...


class HubBase:
    """Who in this process listens to which race and player; dispatch and catch-up. The
    subclasses own the pub/sub connection(s): :class:`Hub` (one Redis) and
    :class:`~solrace.server.fanout.hub_sharded.ShardedHub` (a cluster)."""

    def __init__(self, process: str) -> None:
        self._process_channel = f"sr:proc:{{{process}}}"
        self._races: dict[str, set[Subscriber]] = {}
        self._players: dict[str, set[Subscriber]] = {}
        self._lock = asyncio.Lock()
        self.on_reconnect: Callable[[], Awaitable[None]] | None = None
        # Called with (race, True) once this process subscribed to a race's channel and
        # (race, False) after it unsubscribed: Store.follow, so that other processes' moves
        # publish to it (moves are published only when another process follows the race).
        self.follow: Callable[[str, bool], Awaitable[None]] | None = None
        # Monotonic time each channel's SUBSCRIBE was sent (popped at UNSUBSCRIBE).
        self._since: dict[str, float] = {}

    def notices_live(self, pid: str) -> int | None:
        """A token under which a session of ``pid`` verified in Redis from now on may be held
        without asking again, for as long as this returns the same token; None: ask Redis on
        every request. The token changes (or None is returned) whenever a notice on the
        player's channel could have been missed. Base: never (fail closed)."""
        return None

    async def start(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    async def _subscribe(self, channel: str) -> None:
        raise NotImplementedError

    async def _unsubscribe(self, channel: str) -> None:
        raise NotImplementedError

    def race_watchers(self, rid: str) -> int:
        return len(self._races.get(rid, ()))

    async def _watch(self, table: dict[str, set[Subscriber]], key: str, channel: str,
                     sub: Subscriber) -> None:
        async with self._lock:
            subs = table.setdefault(key, set())
            if not subs:
                self._since[channel] = time.monotonic()
                try:
                    await self._subscribe(channel)
                except BaseException:
                    self._since.pop(channel, None)
                    raise
            subs.add(sub)

    async def _unwatch(self, table: dict[str, set[Subscriber]], key: str, channel: str,
                       sub: Subscriber) -> None:
        async with self._lock:
            subs = table.get(key)
            if subs is None:
                return
            subs.discard(sub)
            if not subs:
                del table[key]
                self._since.pop(channel, None)
                await self._unsubscribe(channel)

    async def watch_race(self, rid: str, sub: Subscriber) -> None:
        """Subscribe (first local subscriber: the channel, then Store.follow); the caller
        reads the stream after this, so nothing published before the follow is missed."""
        async with self._lock:
            subs = self._races.setdefault(rid, set())
            if not subs:
                await self._subscribe(Keys.race_channel(rid))
                if self.follow is not None:
                    await self.follow(rid, True)
            subs.add(sub)

    async def unwatch_race(self, rid: str, sub: Subscriber) -> None:
        async with self._lock:
            subs = self._races.get(rid)
            if subs is None:
                return
            subs.discard(sub)
            if subs:
                return
            del self._races[rid]
            await self._unsubscribe(Keys.race_channel(rid))
            if self.follow is not None:
                try:
                    await self.follow(rid, False)
                except Exception as exc:  # a stale entry only costs needless PUBLISHes
                    log.info("unfollow of race %s failed: %s", rid, exc)

    def deliver(self, rid: str, version: int, event: dict[str, Any]) -> None:
        """An event of this process's own move (Store.local): to the local subscribers of the
        race, exactly as if it had come through pub/sub."""
        for sub in list(self._races.get(rid, ())):
            sub.on_race_event(rid, version, event)

    async def watch_player(self, pid: str, sub: Subscriber) -> None:
        await self._watch(self._players, pid, Keys.player_channel(pid), sub)

    async def unwatch_player(self, pid: str, sub: Subscriber) -> None:
        await self._unwatch(self._players, pid, Keys.player_channel(pid), sub)

    async def _catch_up(self, rids: list[str] | None = None) -> None:
        """After a reconnect, every local subscriber reads the events it missed (no later
        event may come to reveal the gap)."""
        for rid, subs in list(self._races.items()):
            if rids is not None and rid not in rids:
                continue
            for sub in list(subs):
                try:
                    await sub.advance(rid, None)
                except Exception as exc:
                    log.warning("catch-up of race %s failed: %s", rid, exc)
        if self.on_reconnect:
            await self.on_reconnect()

    def _dispatch(self, channel: str, data: bytes) -> None:
        tag = channel[channel.index("{") + 1 : channel.index("}")]
        if channel.startswith("sr:race:"):
            head, _, payload = data.partition(b":")
            if head == b"n":  # a spectator count: not an event, no version (see store/lua.py)
                for sub in list(self._races.get(tag, ())):
                    sub.on_spectators(tag, int(payload))
                return
            version = int(head)
            event = msgpack.unpackb(payload, raw=False)
            event["v"] = version
            for sub in list(self._races.get(tag, ())):
                sub.on_race_event(tag, version, event)
        elif channel.startswith("sr:player:"):
            notice = msgpack.unpackb(data, raw=False)
            for sub in list(self._players.get(tag, ())):
                sub.on_player_notice(tag, notice)


class Hub(HubBase):
    """Plain pub/sub on one Redis: one connection, ``SUBSCRIBE`` per channel."""

    def __init__(self, redis: Redis, process: str) -> None:
        super().__init__(process)
        self._pubsub = redis.pubsub()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.epoch = 0  # bumped at every (re)connect or read failure of the pub/sub connection
        self._pinged = -math.inf  # when the last PING was sent
        self._answered = -math.inf  # when the newest answered PING was sent

    async def start(self) -> None:
        await self._pubsub.subscribe(self._process_channel)
        conn = self._pubsub.connection
        assert conn is not None
        conn.register_connect_callback(self._on_connect)
        self._task = asyncio.create_task(self._run(), name="hub")

    def _on_connect(self, _conn: Any) -> None:
        """A (re)connect: notices published meanwhile are lost; held sessions are re-checked."""
        self._lost()

    def _lost(self) -> None:
        self.epoch += 1
        self._answered = -math.inf

    def notices_live(self, pid: str) -> int | None:
        """Live when the pub/sub connection is up, the player's channel was subscribed before
        the newest answered PING was sent (so Redis had the subscription), and that PING was
        sent less than :data:`NOTICE_FRESH` ago."""
        since = self._since.get(Keys.player_channel(pid))
        answered = self._answered
        if since is None or answered <= since or time.monotonic() - answered > NOTICE_FRESH:
            return None
        conn = self._pubsub.connection
        if conn is None or not conn.is_connected:
            return None
        return self.epoch

    async def close(self) -> None:
        self._closing = True  # the loop ends at its next turn even if a cancel is consumed
        if self._task:
            await cancel_and_wait(self._task)  # server/ops/tasks.py: why one cancel is not enough
        await self._pubsub.aclose()

    async def _subscribe(self, channel: str) -> None:
        await self._while_reconnecting(self._pubsub.subscribe, channel)

    async def _unsubscribe(self, channel: str) -> None:
        await self._while_reconnecting(self._pubsub.unsubscribe, channel)

    async def _while_reconnecting(self, call: Callable[[str], Awaitable[Any]],
                                  channel: str) -> None:
        """``call(channel)``, retried while the pub/sub connection is being remade.

        redis-py's ``PubSub`` connects on demand from whichever task uses it: after Redis came
        back, the reader (:meth:`_run`) and a ``SUBSCRIBE`` for a joining player can both be
        in its ``connect`` at once, and the second then fails on the half-made connection
        (seen: an ``AttributeError`` on its writer) — which the player would get as an
        internal error. Both calls are idempotent, so a failure while the connection is down
        (or any store error) is retried every :data:`RESUBSCRIBE_PAUSE` s for up to
        :data:`RESUBSCRIBE_WITHIN` s; after that it is an outage (``ConnectionError``:
        ``unavailable``, never a client's fault). A failure on a connection that is up and
        not from the store is a bug and raised at once."""
        deadline = time.monotonic() + RESUBSCRIBE_WITHIN
        while True:
            try:
                await call(channel)
                return
            except Exception as exc:
                conn = self._pubsub.connection
                down = conn is None or not conn.is_connected
                if not (down or is_store_error(exc)):
                    raise
                if self._closing or time.monotonic() >= deadline:
                    if is_store_error(exc):
                        raise
                    raise RedisConnectionError(
                        f"pub/sub connection not ready: {type(exc).__name__}: {exc}") from exc
            await asyncio.sleep(RESUBSCRIBE_PAUSE)

    async def _run(self) -> None:
        lost = False
        while not self._closing:
            try:
                now = time.monotonic()
                if now - self._pinged >= PING_EVERY:  # the liveness proof of notices_live
                    self._pinged = now
                    await self._pubsub.ping(repr(now))
                msg = await self._pubsub.get_message(ignore_subscribe_messages=True,
                                                     timeout=PING_EVERY)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # connection lost: redis-py resubscribes on reconnect
                log.warning("pub/sub read failed: %s; retrying", exc)
                lost = True
                self._lost()
                await asyncio.sleep(0.2)
                continue
            if lost:  # resubscribed: what was published meantime is only in the streams
                lost = False
                await self._catch_up()
            if msg is None:
                continue
            if msg.get("type") == "pong":
                self._pong(msg.get("data"))
                continue
            if msg.get("type") != "message":
                continue
            try:
                self._dispatch(msg["channel"].decode(), msg["data"])
            except Exception:
                log.exception("bad pub/sub message on %r", msg.get("channel"))

    def _pong(self, data: Any) -> None:
        try:
            sent = float(data)
        except (TypeError, ValueError):  # redis-py's own health check
            return
        if sent > self._answered:
            self._answered = sent
