"""Opening the Redis client(s) from one URL: a single Redis, or a Redis Cluster.

``redis://``, ``rediss://`` and ``unix://`` name one server, exactly as before.
``redis+cluster://[user:password@]HOST:PORT[,HOST:PORT…]`` (``rediss+cluster://`` with TLS)
names a Redis Cluster by seed nodes: any reachable one is enough, the client learns the rest
with ``CLUSTER SLOTS`` and follows ``MOVED``/``ASK`` redirections. The cluster client is
redis-py's :class:`redis.asyncio.cluster.RedisCluster`; the hub's sharded pub/sub
(:mod:`solrace.server.fanout.hub_sharded`) opens its own per-shard connections.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["CLUSTER_SCHEMES", "ClusterUrl", "QueuingCluster", "is_cluster_url", "open_client",
           "parse_cluster_url"]

T = TypeVar("T")

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")


@dataclass(frozen=True, slots=True)
class ClusterUrl:
    seeds: tuple[tuple[str, int], ...]
    username: str | None
    password: str | None
    tls: bool


def is_cluster_url(url: str) -> bool:
    return urlsplit(url).scheme in CLUSTER_SCHEMES


def parse_cluster_url(url: str) -> ClusterUrl:
    """Seeds and credentials of a ``redis+cluster://`` URL; ValueError when malformed."""
    parts = urlsplit(url)
    if parts.scheme not in CLUSTER_SCHEMES:
        raise ValueError(f"not a cluster URL: {parts.scheme}://")
    netloc = parts.netloc
    user = password = None
    if "@" in netloc:
        cred, netloc = netloc.rsplit("@", 1)
        user, _, password = cred.partition(":")
        user, password = unquote(user) or None, unquote(password) or None
    seeds = []
    for item in netloc.split(","):
        host, sep, port = item.strip().rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ValueError(f"a cluster seed must be HOST:PORT, not {item!r}")
        seeds.append((host.strip("[]"), int(port)))
    if parts.path not in ("", "/", "/0"):
        raise ValueError("a Redis Cluster has only database 0")
    return ClusterUrl(tuple(seeds), user, password, parts.scheme.startswith("rediss"))


def _retry(attempts: int, cap: float = 0.5) -> Retry:
    return Retry(ExponentialBackoff(cap=cap, base=0.05), attempts)


def open_client(url: str, *, max_connections: int = 64, retries: int = 3,
                health_check_interval: int = 10) -> Redis | RedisCluster:
    """The command client for ``url`` (``decode_responses=False``).

    Single Redis: a blocking pool (commands queue when every connection is busy) with
    ``retries`` retries after a lost connection — as the server always had. Cluster: a
    :class:`RedisCluster` whose retries also cover a failover window (about 2 s of backoff
    before a request gives up and the caller answers ``unavailable``), with up to
    ``max(8 * max_connections, 512)`` connections per node.
    """
    if not is_cluster_url(url):
        return Redis.from_pool(BlockingConnectionPool.from_url(
            url, max_connections=max_connections, timeout=30, decode_responses=False,
            health_check_interval=health_check_interval,
            retry=_retry(retries, cap=1.0),
            retry_on_error=[RedisConnectionError, RedisTimeoutError],
        ))
    # The cluster pool does not queue a command when every connection of a node is busy (it
    # raises MaxConnectionsError): it gets far more connections per node than the single pool,
    # and the client queues what would go past them (QueuingCluster), as the single pool waits.
    per_node = max(8 * max_connections, 512)
    return open_cluster(url, max_connections=per_node, retries=max(retries, 6),
                        in_flight=per_node)


def open_cluster(url: str, *, max_connections: int = 64, retries: int = 6,
                 in_flight: int | None = None, **kwargs: Any) -> RedisCluster:
    """A cluster client; with ``in_flight``, one that queues commands past that many at once
    (:class:`QueuingCluster`) instead of failing them."""
    spec = parse_cluster_url(url)
    options: dict[str, Any] = {"decode_responses": False, "socket_connect_timeout": 2,
                               "socket_timeout": 5, **kwargs}
    common: dict[str, Any] = {
        "startup_nodes": [ClusterNode(host, port) for host, port in spec.seeds],
        "username": spec.username, "password": spec.password, "ssl": spec.tls,
        "max_connections": max_connections, "retry": _retry(retries), **options,
    }
    if in_flight is None:
        return RedisCluster(**common)
    return QueuingCluster(in_flight=in_flight, **common)


#: Set in a task that holds its client's gate, so a command issued inside a gated call (a
#: transaction pipeline's own commands) does not wait for a place it already has.
_GATED: contextvars.ContextVar[bool] = contextvars.ContextVar("solrace_gated", default=False)


class QueuingCluster(RedisCluster):
    """A :class:`RedisCluster` that queues commands and pipelines past ``in_flight`` at once.

    redis-py's cluster client refuses a command when every connection of its node is busy
    (``MaxConnectionsError``), where the single-Redis pool waits. A burst bigger than the pool
    — thousands of entrants pressing "play" as an event starts — then failed as
    ``unavailable``. With at most ``in_flight`` (≤ connections per node) commands and
    pipelines running at once, no node runs out and the rest wait their turn."""

    def __init__(self, *args: Any, in_flight: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.in_flight = in_flight
        self.gate = asyncio.Semaphore(in_flight)

    async def gated(self, call: Callable[[], Awaitable[T]]) -> T:
        if _GATED.get():
            return await call()
        async with self.gate:
            token = _GATED.set(True)
            try:
                return await call()
            finally:
                _GATED.reset(token)

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        return await self.gated(lambda: super(QueuingCluster, self).execute_command(
            *args, **kwargs))

    def pipeline(self, transaction: Any | None = None, shard_hint: Any | None = None
                 ) -> ClusterPipeline:
        if shard_hint:
            return super().pipeline(transaction, shard_hint)  # refused by redis-py
        return _QueuingPipeline(self, transaction)


class _QueuingPipeline(ClusterPipeline):
    """A pipeline of a :class:`QueuingCluster`: its execution takes one place of the gate."""

    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        client = self.cluster_client
        assert isinstance(client, QueuingCluster)
        return await client.gated(lambda: super(_QueuingPipeline, self).execute(
            *args, **kwargs))
