"""``--wait-replicas``: the barrier + WAIT after a move, on one Redis with a real replica.

A move is acknowledged only once the replica holds it; with no replica connected the move is
still logged on the master but the call raises :class:`ReplicationLag` (answered
``unavailable``), and its retry is a duplicate that goes through the same barrier.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator

import msgpack
import pytest
import redis
from redis.asyncio import Redis
from solrace.server.ops.redisproc import RedisProcess
from solrace.server.store import Keys, ReplicationLag, Store
from solrace.server.store.errors import unavailable_reason


@pytest.fixture
def master_and_replica() -> Iterator[tuple[RedisProcess, RedisProcess]]:
    master = RedisProcess(extra_args=("--repl-diskless-sync-delay", "0")).start()
    replica = RedisProcess(extra_args=("--replicaof", "127.0.0.1", str(master.port))).start()
    try:
        deadline = time.monotonic() + 10
        with redis.Redis(port=master.port) as r:
            while r.info("replication").get("slave0", {}).get("state") != "online":
                assert time.monotonic() < deadline, "the replica did not sync"
                time.sleep(0.05)
        yield master, replica
    finally:
        replica.kill()  # a replica restarted mid-test can take 10 s over a clean shutdown
        replica.stop()
        master.stop()


@pytest.fixture
async def running(master_and_replica: tuple[RedisProcess, RedisProcess]
                  ) -> AsyncIterator[tuple[Store, str]]:
    master, _ = master_and_replica
    client = Redis.from_url(master.url)
    store = Store(client, wait_replicas=1, wait_timeout_ms=1500)  # 300 ms: too tight under load
    rid = "r1"
    await client.hset(Keys.race(rid), mapping={"state": "running", "started_at": 0,
                                                 "ends_at": 10**15, "version": 0})
    try:
        yield store, rid
    finally:
        assert store.replication is not None
        await store.replication.close()
        await client.aclose()


def event() -> bytes:
    return msgpack.packb({"k": "progress", "player": "p1"})


async def test_move_is_on_the_replica_when_acknowledged(
    running: tuple[Store, str], master_and_replica: tuple[RedisProcess, RedisProcess],
) -> None:
    store, rid = running
    _, replica = master_and_replica
    res = await store.append_move(rid, "p1", 0, "sw", 1, False, "", event())
    assert res.status == "ok"
    with redis.Redis(port=replica.port) as r:  # no waiting: WAIT already saw it there
        assert r.lrange(Keys.log(rid, "p1"), 0, -1) == [b"sw"]


async def test_no_replica_means_unavailable_and_the_retry_is_a_duplicate(
    running: tuple[Store, str], master_and_replica: tuple[RedisProcess, RedisProcess],
) -> None:
    store, rid = running
    _, replica = master_and_replica
    replica.kill()
    await asyncio.sleep(0.1)
    with pytest.raises(ReplicationLag) as caught:
        await store.append_move(rid, "p1", 0, "sw", 1, False, "", event())
    assert "retry" in unavailable_reason(caught.value)
    assert await store.read_log(rid, "p1") == ["sw"]  # logged on the master all the same
    replica.restart()
    deadline = time.monotonic() + 10
    while True:  # the retry: answered as a duplicate, once the replica is back
        try:
            res = await store.append_move(rid, "p1", 0, "sw", 1, False, "", event())
            break
        except ReplicationLag:
            assert time.monotonic() < deadline, "the replica never came back"
    assert res.status == "dup"
    with redis.Redis(port=replica.port) as r:
        assert r.lrange(Keys.log(rid, "p1"), 0, -1) == [b"sw"]


async def test_without_wait_replicas_there_is_no_barrier(redis_url: str) -> None:
    client = Redis.from_url(redis_url)
    try:
        store = Store(client)
        assert store.replication is None
        await client.hset(Keys.race("r2"), mapping={"state": "running", "started_at": 0,
                                                      "ends_at": 10**15, "version": 0})
        assert (await store.append_move("r2", "p1", 0, "sw", 1, False, "", event())).status \
            == "ok"
        assert not await client.exists(Keys.barrier("r2"))
    finally:
        await client.aclose()


async def test_the_retry_of_a_games_last_move_is_a_duplicate_once_the_game_is_over(
    running: tuple[Store, str], master_and_replica: tuple[RedisProcess, RedisProcess],
) -> None:
    """The move that ends a game answered ``unavailable`` (no replica) is logged and ends the
    game on the master: its retry must be the duplicate a retry always is, not
    ``already_finished`` (docs/protocol.md section 9.1) — for a single move and a batch."""
    store, rid = running
    _, replica = master_and_replica
    replica.kill()
    await asyncio.sleep(0.1)
    with pytest.raises(ReplicationLag):
        await store.append_move(rid, "p1", 0, "t1f1", 52, True, "won", event())
    with pytest.raises(ReplicationLag):
        await store.append_batch(rid, "p2", 0, [("sw", 1, False, event()),
                                                ("wf1", 52, True, event())], "won")
    replica.restart()
    deadline = time.monotonic() + 10
    while True:
        try:
            again = await store.append_move(rid, "p1", 0, "t1f1", 52, True, "won", event())
            batch = await store.append_batch(rid, "p2", 0, [("sw", 1, False, event()),
                                                          ("wf1", 52, True, event())], "won")
            break
        except ReplicationLag:
            assert time.monotonic() < deadline, "the replica never came back"
    assert (again.status, batch.status) == ("dup", "dup"), (again, batch)
    other = await store.append_move(rid, "p1", 0, "t2f1", 52, True, "won", event())
    assert (other.status, other.values[0]) == ("err", "already_finished")  # not the same move
