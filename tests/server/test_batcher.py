"""The script batcher against a real Redis: replies demultiplexed in order (error replies to
their own caller), NOSCRIPT retried, replies split across socket reads, dropped connections
retried by the pool's policy, a stopped Redis and a stalled one reported as outages.

These exercise the batcher's own connection (server/store/wire.py ``ScriptWire``) and the
retry policy around it (server/store/batch.py ``_exchange``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio.connection as rconn
from redis.asyncio import Redis
from redis.exceptions import ResponseError
from solrace.server.ops.faults import is_outage, is_store_error
from solrace.server.ops.redisproc import RedisProcess
from solrace.server.store.batch import ScriptBatcher

LOOPS = ("asyncio", "uvloop")  # every async test runs on both event loops (conftest.py)
pytestmark = pytest.mark.timeout(60)

ECHO = "return {KEYS[1], ARGV[1]}"
FAIL = "return redis.error_reply('ERR no ' .. ARGV[1])"
BIG = "return string.rep(ARGV[1], tonumber(ARGV[2]))"


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url, decode_responses=False)
    try:
        yield client
    finally:
        await client.aclose()


async def test_one_tick_of_calls_is_one_batch_with_each_reply_to_its_caller(redis: Redis
                                                                             ) -> None:
    batcher = ScriptBatcher(redis)
    echo, fail = redis.register_script(ECHO), redis.register_script(FAIL)
    await redis.script_load(ECHO)
    await redis.script_load(FAIL)
    done: list[object] = []
    futs = [batcher.call(fail if i % 7 == 3 else echo, [f"k{i}"], [i],
                         on_done=done.append) for i in range(300)]
    results = await asyncio.gather(*futs, return_exceptions=True)
    assert batcher.batches == 1
    for i, res in enumerate(results):
        if i % 7 == 3:
            assert isinstance(res, ResponseError) and str(res) == f"no {i}"
            assert not is_outage(res)  # a refused command is a bug, not an outage
        else:
            assert res == [f"k{i}".encode(), str(i).encode()]
    assert len(done) == 300 - len(range(3, 300, 7))  # on_done: successful replies only
    assert batcher._wire is not None  # the connection is kept for the next batch


async def test_the_connection_is_kept_between_batches_and_replaced_after_a_failure(
        redis: Redis) -> None:
    """Batches reuse the batcher's connection; one that failed is closed, and the next batch
    opens one afresh. The store's pool is not used for batches at all."""
    batcher = ScriptBatcher(redis)
    echo = redis.register_script(ECHO)
    await redis.script_load(ECHO)
    assert await batcher.call(echo, ["a"], [1]) == [b"a", b"1"]
    first = batcher._wire
    assert first is not None
    for n in range(2, 5):
        assert await batcher.call(echo, ["a"], [n]) == [b"a", str(n).encode()]
        assert batcher._wire is first
    assert await redis.ping()  # the rest of the store still has the pool
    await redis.client_kill_filter(_type="normal", skipme=True)  # every connection dropped
    assert await batcher.call(echo, ["a"], [5]) == [b"a", b"5"]  # retried by the policy
    assert batcher._wire is not None and batcher._wire is not first
    kw = redis.connection_pool.connection_kwargs
    stalled = Redis.from_url(f"redis://{kw['host']}:{kw['port']}", socket_timeout=0.3,
                             retry=None)
    try:
        b2 = ScriptBatcher(stalled)
        e2 = stalled.register_script(ECHO)
        assert await b2.call(e2, ["a"], [6]) == [b"a", b"6"]
        kept = b2._wire
        await redis.execute_command("CLIENT", "PAUSE", "800", "ALL")
        with pytest.raises(Exception) as caught:
            await b2.call(e2, ["a"], [7])
        assert is_outage(caught.value)
        assert b2._wire is None and kept is not None and kept.transport.is_closing()
        await asyncio.sleep(0.7)
        assert await b2.call(e2, ["a"], [8]) == [b"a", b"8"]
        b2.close()
    finally:
        await stalled.aclose()


async def test_noscript_is_retried_after_loading(redis: Redis) -> None:
    batcher = ScriptBatcher(redis)
    echo = redis.register_script(ECHO)
    await redis.script_flush()
    assert await asyncio.gather(*(batcher.call(echo, ["a"], [n]) for n in range(5))) == [
        [b"a", str(n).encode()] for n in range(5)]


async def test_replies_longer_than_one_socket_read(redis: Redis) -> None:
    batcher = ScriptBatcher(redis)
    big = redis.register_script(BIG)
    await redis.script_load(BIG)
    sizes = [1, 70_000, 3, 200_000, 65_536]
    out = await asyncio.gather(*(batcher.call(big, ["x"], [b"ab", n]) for n in sizes))
    assert [len(r) for r in out] == [2 * n for n in sizes]


async def test_a_dropped_connection_is_retried_by_the_pools_policy(redis: Redis) -> None:
    batcher = ScriptBatcher(redis)
    echo = redis.register_script(ECHO)
    await redis.script_load(ECHO)
    assert await batcher.call(echo, ["a"], [1]) == [b"a", b"1"]
    await redis.client_kill_filter(_type="normal", skipme=True)
    assert await batcher.call(echo, ["a"], [2]) == [b"a", b"2"]


async def test_a_stalled_redis_is_a_timeout_outage(redis_url: str) -> None:
    client = Redis.from_url(redis_url, socket_timeout=0.3, retry=None)
    other = Redis.from_url(redis_url)
    try:
        batcher = ScriptBatcher(client)
        echo = client.register_script(ECHO)
        await client.script_load(ECHO)
        await other.execute_command("CLIENT", "PAUSE", "1500", "ALL")
        with pytest.raises(Exception) as caught:
            await batcher.call(echo, ["a"], [1])
        assert is_store_error(caught.value) and is_outage(caught.value)
        await asyncio.sleep(1.3)
        assert await batcher.call(echo, ["a"], [2]) == [b"a", b"2"]  # a fresh connection
    finally:
        await client.aclose()
        await other.aclose()


async def test_a_stopped_redis_is_an_outage_for_every_caller(private_redis: RedisProcess
                                                             ) -> None:
    client = Redis.from_url(private_redis.url, socket_timeout=2, socket_connect_timeout=1)
    try:
        batcher = ScriptBatcher(client)
        echo = client.register_script(ECHO)
        await client.script_load(ECHO)
        assert await batcher.call(echo, ["a"], [0]) == [b"a", b"0"]
        private_redis.kill()
        results = await asyncio.gather(*(batcher.call(echo, ["a"], [n]) for n in range(4)),
                                       return_exceptions=True)
        assert all(isinstance(r, Exception) and is_store_error(r) and is_outage(r)
                   for r in results), results
        private_redis.restart()
        assert await batcher.call(echo, ["a"], [9]) == [b"a", b"9"]
    finally:
        await client.aclose()


@pytest.mark.parametrize("keys,args", [
    ([], []),
    (["k"], [0]),
    (["sr:race:{ab}", b"sr:log:{ab}:p"], ["p1", 12, -3, "é", b"\x00\xff", "", 10**20]),
    ([f"k{i}" for i in range(12)], list(range(30))),
])
def test_pack_is_what_redis_py_sends(keys: list[object], args: list[object]) -> None:
    from solrace.server.store.resp import pack
    sha = b"0123456789abcdef0123456789abcdef01234567"
    expected = b"".join(rconn.Connection().pack_command("EVALSHA", sha, len(keys), *keys, *args))
    assert pack(sha, keys, args) == expected
    assert pack(sha, keys, args) == expected  # the cached head


@pytest.mark.parametrize("bad", [True, 1.5, None])
def test_pack_refuses_other_types(bad: object) -> None:
    from solrace.server.store.resp import pack
    with pytest.raises(TypeError):
        pack(b"0" * 40, ["k"], [bad])
