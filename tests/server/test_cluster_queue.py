"""A burst of commands bigger than the cluster client's pool waits for a connection instead of
failing (server/store/connect.py, ``QueuingCluster``): redis-py's cluster client refuses a
command when every connection of its node is busy, where the single-Redis pool waits."""

from __future__ import annotations

import asyncio

from redis.exceptions import RedisError
from solrace.server.store.connect import QueuingCluster, open_client, open_cluster

BACKENDS = ("cluster",)
BURST = 300


async def _burst(client: object) -> list[object]:
    r = client
    script = r.register_script("return redis.call('INCR', KEYS[1])")  # type: ignore[attr-defined]

    async def one(i: int) -> object:
        key = f"{{burst}}:k{i % 7}"
        if i % 3 == 0:
            return await script(keys=[key])
        if i % 3 == 1:
            async with r.pipeline(transaction=i % 2 == 0) as p:  # type: ignore[attr-defined]
                p.incr(key)
                p.get(key)
                return await p.execute()
        return await r.incr(key)  # type: ignore[attr-defined]
    return await asyncio.gather(*(one(i) for i in range(BURST)), return_exceptions=True)


async def test_a_burst_past_the_pool_waits_instead_of_failing(redis_url: str) -> None:
    plain = open_cluster(redis_url, max_connections=2)
    queued = open_cluster(redis_url, max_connections=2, in_flight=2)
    try:
        refused = [r for r in await _burst(plain) if isinstance(r, Exception)]
        assert refused, "the plain client took the burst: the check below proves nothing"
        assert all(isinstance(r, RedisError) for r in refused), refused[:3]
        done = await _burst(queued)
        assert not [r for r in done if isinstance(r, Exception)], done[:5]
    finally:
        await plain.aclose()
        await queued.aclose()


async def test_the_server_client_queues_on_a_cluster(redis_url: str) -> None:
    client = open_client(redis_url, max_connections=1)
    try:
        assert isinstance(client, QueuingCluster)
        assert client.in_flight <= 512  # no more than a node's connections
        assert not [r for r in await _burst(client) if isinstance(r, Exception)]
    finally:
        await client.aclose()
