"""Cross-process fan-out: one Redis pub/sub connection per server process.

Every process subscribes to the channels of the races and players that its own connections
care about — one subscription per race per process, however many local subscribers — and hands
each message to those subscribers. Pub/sub may drop messages (a reconnect, a slow consumer);
subscribers never rely on it alone: race events carry versions and a subscriber that sees a gap
reads the missing events from the durable stream (see ``Feed.advance`` in feed.py).

On a Redis Cluster the same interface is :class:`solrace.server.hub_sharded.ShardedHub`
(``SSUBSCRIBE`` on each channel's shard); :func:`open_hub` picks one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import msgpack
from redis.asyncio import Redis
from solrace.server.store import Keys

log = logging.getLogger("solrace.hub")


class Subscriber(Protocol):
    def on_race_event(self, rid: str, version: int, event: dict[str, Any]) -> None: ...

    def on_player_notice(self, pid: str, notice: dict[str, Any]) -> None: ...

    def on_spectators(self, rid: str, count: int) -> None: ...

    async def advance(self, rid: str, event: dict[str, Any] | None) -> None: ...


class HubBase:
    """Who in this process listens to which race and player; dispatch and catch-up. The
    subclasses own the pub/sub connection(s): :class:`Hub` (one Redis) and
    :class:`~solrace.server.hub_sharded.ShardedHub` (a cluster)."""

    def __init__(self, process: str) -> None:
        self._process_channel = f"sr:proc:{{{process}}}"
        self._races: dict[str, set[Subscriber]] = {}
        self._players: dict[str, set[Subscriber]] = {}
        self._lock = asyncio.Lock()
        self.on_reconnect: Callable[[], Awaitable[None]] | None = None

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
                await self._subscribe(channel)
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
                await self._unsubscribe(channel)

    async def watch_race(self, rid: str, sub: Subscriber) -> None:
        await self._watch(self._races, rid, Keys.race_channel(rid), sub)

    async def unwatch_race(self, rid: str, sub: Subscriber) -> None:
        await self._unwatch(self._races, rid, Keys.race_channel(rid), sub)

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

    async def start(self) -> None:
        await self._pubsub.subscribe(self._process_channel)
        self._task = asyncio.create_task(self._run(), name="hub")

    async def close(self) -> None:
        if self._task:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self._pubsub.aclose()

    async def _subscribe(self, channel: str) -> None:
        await self._pubsub.subscribe(channel)

    async def _unsubscribe(self, channel: str) -> None:
        await self._pubsub.unsubscribe(channel)

    async def _run(self) -> None:
        lost = False
        while True:
            try:
                msg = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # connection lost: redis-py resubscribes on reconnect
                log.warning("pub/sub read failed: %s; retrying", exc)
                lost = True
                await asyncio.sleep(0.2)
                continue
            if lost:  # resubscribed: what was published meantime is only in the streams
                lost = False
                await self._catch_up()
            if msg is None or msg.get("type") != "message":
                continue
            try:
                self._dispatch(msg["channel"].decode(), msg["data"])
            except Exception:
                log.exception("bad pub/sub message on %r", msg.get("channel"))
