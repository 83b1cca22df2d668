"""Choosing the Redis client from the URL: one Redis, or a cluster by seed nodes."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from solrace.server.ops.config import Config, mask_url
from solrace.server.store.connect import is_cluster_url, open_client, parse_cluster_url

SECRET = "x" * 20


def test_cluster_url_seeds_and_credentials() -> None:
    url = parse_cluster_url("redis+cluster://me:p%40ss@10.0.0.1:7000,redis-c2:7001,[::1]:7002")
    assert url.seeds == (("10.0.0.1", 7000), ("redis-c2", 7001), ("::1", 7002))
    assert (url.username, url.password, url.tls) == ("me", "p@ss", False)
    assert parse_cluster_url("rediss+cluster://h:1").tls


@pytest.mark.parametrize("bad", [
    "redis+cluster://host", "redis+cluster://h:1,h2", "redis+cluster://:1",
    "redis+cluster://h:1/3", "redis://h:1",
])
def test_malformed_cluster_urls_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_cluster_url(bad)


def test_config_accepts_a_cluster_url_and_refuses_a_bad_one() -> None:
    assert Config(secret=SECRET, redis_url="redis+cluster://a:1,b:2").redis_url
    with pytest.raises(ValueError, match="HOST:PORT"):
        Config(secret=SECRET, redis_url="redis+cluster://a")
    with pytest.raises(ValueError, match="wait_replicas"):
        Config(secret=SECRET, wait_replicas=-1)


def test_cluster_url_password_is_masked() -> None:
    assert mask_url("redis+cluster://u:secret@a:1,b:2") == "redis+cluster://u:***@a:1,b:2"


async def test_the_scheme_picks_the_client() -> None:
    single = open_client("redis://127.0.0.1:1/0")
    cluster = open_client("redis+cluster://127.0.0.1:1,127.0.0.1:2")
    try:
        assert isinstance(single, Redis) and not is_cluster_url("redis://127.0.0.1:1/0")
        assert isinstance(cluster, RedisCluster)
    finally:
        await single.aclose()
        await cluster.aclose()
