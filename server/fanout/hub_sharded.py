"""Fan-out on a Redis Cluster: sharded pub/sub, one connection per shard this process listens to.

Why sharded: plain ``PUBLISH`` on a cluster is broadcast to every node, so fan-out capacity
stays that of one node however many shards there are. ``SPUBLISH`` (Redis >= 7) delivers a
message only within the shard that owns the channel's slot; a race's channel carries the race's
hash tag, so it lives on the race's shard, and fan-out grows with shards.

How: a channel is ``SSUBSCRIBE``-d on the master that owns its slot (the topology comes from a
:class:`RedisCluster` client used only for that). Each shard connection has a reader task. A
shard connection that fails (its master died: failover) or that the server ``SUNSUBSCRIBE``-s
without being asked (its slot moved away: resharding, or the master became a replica) hands its
channels to :meth:`ShardedHub._reroute`: learn the topology again (retrying until the cluster
answers), subscribe each channel on its new owner, then catch up the subscribers of those races
from the durable streams (``Subscriber.advance``), because whatever was published in between
reached nobody. Nothing is lost for long: events carry versions, and ``Feed.advance`` also
repairs any gap that a later event reveals.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from solrace.server.fanout.hub import HubBase
from solrace.server.ops.tasks import cancel_and_wait

log = logging.getLogger("solrace.hub")

__all__ = ["ShardedHub"]


class _Shard:
    """One master's sharded pub/sub connection and the channels subscribed on it."""

    def __init__(self, hub: ShardedHub, host: str, port: int, kwargs: dict[str, Any]) -> None:
        self.hub = hub
        self.addr = (host, port)
        # No retry policy: a lost connection must surface, so the hub re-routes and catches up.
        self.client = Redis(host=host, port=port, decode_responses=False,
                            username=kwargs.get("username"), password=kwargs.get("password"),
                            socket_connect_timeout=2, retry=Retry(NoBackoff(), 0),
                            health_check_interval=10)
        self.pubsub = self.client.pubsub()
        self.channels: set[str] = set()
        self.leaving: set[str] = set()  # sunsubscribe we asked for
        self.task: asyncio.Task[None] | None = None
        self.dead = False

    async def subscribe(self, channel: str) -> None:
        await self.pubsub.ssubscribe(channel)
        self.channels.add(channel)
        self.leaving.discard(channel)
        if self.task is None:
            self.task = asyncio.create_task(self._run(), name=f"hub-shard-{self.addr[1]}")

    async def unsubscribe(self, channel: str) -> None:
        self.channels.discard(channel)
        self.leaving.add(channel)
        await self.pubsub.sunsubscribe(channel)

    async def _run(self) -> None:
        while True:
            try:
                msg = await self.pubsub.get_message(ignore_subscribe_messages=False, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("shard %s:%d pub/sub lost: %s; re-routing %d channels",
                            *self.addr, exc, len(self.channels))
                self.dead = True
                self.hub._lost(self, set(self.channels))
                return
            if msg is None:
                continue
            kind = msg.get("type")
            if isinstance(kind, bytes):
                kind = kind.decode()
            channel = msg["channel"].decode() if msg.get("channel") else ""
            if kind == "smessage":
                try:
                    self.hub._dispatch(channel, msg["data"])
                except Exception:
                    log.exception("bad pub/sub message on %r", channel)
            elif kind == "sunsubscribe":
                if channel in self.leaving:
                    self.leaving.discard(channel)
                elif channel in self.channels:  # the server dropped it: the slot moved
                    log.info("shard %s:%d gave up %s (slot moved); re-routing", *self.addr,
                             channel)
                    self.channels.discard(channel)
                    self.hub._lost(self, {channel})

    async def close(self) -> None:
        self.dead = True
        if self.task is not None:
            await cancel_and_wait(self.task)  # server/ops/tasks.py: why one cancel is not enough
        try:
            await self.pubsub.aclose()
        finally:
            await self.client.aclose()


class ShardedHub(HubBase):
    def __init__(self, cluster: RedisCluster, process: str) -> None:
        super().__init__(process)
        self._cluster = cluster
        self._shards: dict[tuple[str, int], _Shard] = {}
        self._where: dict[str, _Shard] = {}  # channel -> the shard it is subscribed on
        self._pending: set[str] = set()  # channels to re-route
        self._rerouting: asyncio.Task[None] | None = None
        self._closing = False
        self._closers: set[asyncio.Future[None]] = set()
        self.reroutes = 0  # re-routing rounds done, for tests and logs

    async def start(self) -> None:
        await self._cluster.initialize()
        await self._subscribe(self._process_channel)

    async def close(self) -> None:
        self._closing = True
        if self._rerouting is not None:
            self._rerouting.cancel()
            await asyncio.gather(self._rerouting, return_exceptions=True)
        for shard in list(self._shards.values()):
            await shard.close()
        self._shards.clear()
        await self._cluster.aclose()

    def _shard_for(self, channel: str) -> _Shard:
        node = self._cluster.get_node_from_key(channel)
        addr = (node.host, int(node.port))
        shard = self._shards.get(addr)
        if shard is None or shard.dead:
            shard = _Shard(self, *addr, self._cluster.get_connection_kwargs())
            self._shards[addr] = shard
        return shard

    async def _subscribe(self, channel: str) -> None:
        self._pending.discard(channel)
        shard = self._shard_for(channel)
        try:
            await shard.subscribe(channel)
        except Exception:
            # the owner is unreachable (failover under way): subscribe once the cluster answers
            self._where.pop(channel, None)
            self._lost(shard, {channel})
            return
        self._where[channel] = shard

    async def _unsubscribe(self, channel: str) -> None:
        self._pending.discard(channel)
        shard = self._where.pop(channel, None)
        if shard is not None and not shard.dead:
            try:
                await shard.unsubscribe(channel)
            except Exception as exc:
                log.warning("sunsubscribe %s failed: %s", channel, exc)

    def _wanted(self, channel: str) -> bool:
        if channel == self._process_channel:
            return True
        tag = channel[channel.index("{") + 1 : channel.index("}")]
        if channel.startswith("sr:race:"):
            return bool(self._races.get(tag))
        return bool(self._players.get(tag))

    def _lost(self, shard: _Shard, channels: set[str]) -> None:
        """``shard`` no longer carries ``channels``: re-route them in the background."""
        if self._closing:
            return
        for ch in channels:
            if self._where.get(ch) is shard:
                del self._where[ch]
        if shard.dead and self._shards.get(shard.addr) is shard:
            del self._shards[shard.addr]
            task = asyncio.ensure_future(shard.close())
            self._closers.add(task)
            task.add_done_callback(self._closers.discard)
        self._pending |= channels
        if self._rerouting is None or self._rerouting.done():
            self._rerouting = asyncio.create_task(self._reroute(), name="hub-reroute")

    async def _reroute(self) -> None:
        delay = 0.1
        while self._pending and not self._closing:
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)
            try:
                await self._cluster.nodes_manager.initialize()
            except Exception as exc:
                log.warning("cluster topology unavailable (%s); retrying", exc)
                continue
            moved: list[str] = []
            async with self._lock:
                for channel in sorted(self._pending):
                    if not self._wanted(channel):
                        self._pending.discard(channel)
                        continue
                    shard = self._shard_for(channel)
                    try:
                        await shard.subscribe(channel)
                    except Exception as exc:
                        log.warning("ssubscribe %s on %s:%d failed: %s", channel, *shard.addr,
                                    exc)
                        continue
                    self._where[channel] = shard
                    self._pending.discard(channel)
                    moved.append(channel)
            self.reroutes += 1
            rids = [ch[ch.index("{") + 1 : ch.index("}")] for ch in moved
                    if ch.startswith("sr:race:")]
            if moved:
                log.info("re-routed %d channels; catching up %d races", len(moved), len(rids))
                await self._catch_up(rids)
