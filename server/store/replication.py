"""``--wait-replicas N``: a move is acknowledged only once N replicas hold it.

Why: Redis replication is asynchronous. A master that dies after answering a move but before
its replica received it takes the move with it; the promoted replica has a game one move
shorter than the one its player saw acknowledged. ``WAIT N timeout`` blocks until N replicas
acknowledge every write *this connection* made so far — so the wait must follow a write on the
same connection as the one it covers.

How: after a move's script answered (``ok`` or ``dup``), one pipeline on one connection to the
master that owns the race's slot: ``SET <race barrier key> PX``, then ``WAIT`` (``WAITAOF 0 N``
on servers that have it, 7.2+: the replicas have also fsynced it). A master's replication
stream is ordered, so once its replicas have the barrier they have every earlier write of that
master, the move included, whichever connection wrote it. A duplicate (a retry after a lost or
refused ack) goes through the same barrier, so its ack too means "replicated". Fewer than N
replicas within the timeout: :class:`ReplicationLag` (the caller answers ``unavailable``; the
move is logged on the master, and a retry is answered as a duplicate once replicated).
Cost: one more round trip plus the replica's acknowledgement (figures in docs/scaling.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import AskError, RedisError, ResponseError

if TYPE_CHECKING:
    from solrace.server.store import Store

__all__ = ["BARRIER_TTL_MS", "Replication", "ReplicationLag"]

BARRIER_TTL_MS = 60_000


class ReplicationLag(RedisError):
    """Fewer replicas than ``--wait-replicas`` acknowledged in time."""


class Replication:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.replicas = store.wait_replicas
        self.timeout_ms = store.wait_timeout_ms
        self._waitaof: bool | None = None  # unknown until the first wait
        self._nodes: dict[tuple[str, int], Redis] = {}

    async def wait(self, barrier: str) -> None:
        for attempt in range(3):
            client = self._client_for(barrier)
            try:
                acked = await self._barrier(client, barrier)
            except AskError:  # MOVED/ASK: the slot moved (resharding, failover); learn and retry
                if attempt == 2:
                    raise
                await self._refresh()
                continue
            if acked < self.replicas:
                raise ReplicationLag(f"the write reached {acked} of {self.replicas} replicas "
                                     f"in {self.timeout_ms} ms")
            return

    def _client_for(self, key: str) -> Redis:
        redis = self.store.redis
        if not isinstance(redis, RedisCluster):
            return redis
        node = redis.get_node_from_key(key)
        addr = (node.host, int(node.port))
        client = self._nodes.get(addr)
        if client is None:
            kw = redis.get_connection_kwargs()
            client = Redis(host=addr[0], port=addr[1], username=kw.get("username"),
                           password=kw.get("password"), socket_timeout=5 + self.timeout_ms / 1000,
                           socket_connect_timeout=2, decode_responses=False)
            self._nodes[addr] = client
        return client

    async def _refresh(self) -> None:
        redis = self.store.redis
        if isinstance(redis, RedisCluster):
            await redis.nodes_manager.initialize()

    async def _barrier(self, client: Redis, barrier: str) -> int:
        async with client.pipeline(transaction=False) as p:
            p.set(barrier, b"1", px=BARRIER_TTL_MS)
            if self._waitaof is not False:
                p.execute_command("WAITAOF", 0, self.replicas, self.timeout_ms)
            else:
                p.execute_command("WAIT", self.replicas, self.timeout_ms)
            res = await p.execute(raise_on_error=False)
        if isinstance(res[0], Exception):
            raise res[0]
        if (isinstance(res[1], ResponseError)
                and "unknown command" in " ".join(map(str, res[1].args)).lower()):
            # (concurrent first calls may all have sent WAITAOF: each falls back)
            self._waitaof = False  # Redis < 7.2: plain WAIT (in memory on the replicas)
            return await self._barrier(client, barrier)
        if isinstance(res[1], Exception):
            raise res[1]
        self._waitaof = self._waitaof if self._waitaof is not None else True
        return _replicas(res[1])

    async def close(self) -> None:
        for client in self._nodes.values():
            await client.aclose()
        self._nodes.clear()


def _replicas(reply: Any) -> int:
    """WAIT answers a count; WAITAOF ``[local, replicas]``."""
    if isinstance(reply, list | tuple):
        return int(reply[1])
    return int(reply)
