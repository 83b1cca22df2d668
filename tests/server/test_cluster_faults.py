"""Redis Cluster faults in the middle of a race: a master killed, a slot migrated, a restart.

Each test runs a real race between two real clients on two server processes (in-process
servers: the fault is in Redis, not in the server) on the session's 3-master/3-replica cluster
(conftest.py), injects the fault while both racers keep moving, and checks what the issue
demands: every request answered (``unavailable`` with retry advice during the window, never a
crash or another error), no acknowledged move lost, no move logged twice (each durable log is
exactly the list of acknowledged moves), every racer saw every race event (across processes,
through the hub's re-routing and gap repair), and the race finished with correct standings.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from harness import (
    Racer,
    RecordingClient,
    check_standings,
    choose_move,
    close_all,
    read_log,
    replica,
    running_server,
    ws_url,
)
from redis.crc import key_slot
from rediscluster import RedisClusterProcess
from solrace.client.library import ClientError
from solrace.server.store import Keys

BACKENDS = ("cluster",)
RECOVERY = 45.0  # seconds a racer keeps retrying 'unavailable' before the test fails


class FaultRacer(Racer):
    """A racer that retries a move answered ``unavailable`` (the same move, the same seq), as
    the error's advice says, and remembers every acknowledged move."""

    acked: list[str]
    refusals: list[str]

    async def step_retrying(self) -> dict[str, Any] | None:
        move = choose_move(self.game, self.seen, keep_playing=True)
        if move is None:
            return None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RECOVERY
        while True:
            try:
                ack = await self.client.move(self.race, move.text())
                break
            except (ClientError, TimeoutError) as exc:
                code = getattr(exc, "code", "timeout")
                assert code in ("unavailable", "timeout"), f"{code}: {exc}"
                self.refusals.append(str(exc))
                assert loop.time() < deadline, f"still refused after {RECOVERY}s: {exc}"
                await asyncio.sleep(0.1)
        self.game.push(move)
        self.seen.add(self.game.position_text())
        assert ack["seq"] == self.seq, ack
        self.board_matches()
        self.acked.append(move.text())
        self.acks.append({**ack, "status": self.game.status.value})
        return ack

    async def resign_retrying(self) -> None:
        deadline = asyncio.get_running_loop().time() + RECOVERY
        while not self.over:
            try:
                await self.client.resign(self.race)
                return
            except ClientError as exc:
                if exc.code in ("already_finished", "not_running"):
                    return
                assert exc.code == "unavailable", exc
                assert asyncio.get_running_loop().time() < deadline
                await asyncio.sleep(0.1)


async def two_racers(redis_url: str, one: Any, two: Any) -> tuple[list[FaultRacer], str]:
    """alice on process one creates a race, bob on process two joins; both ready, running."""
    alice = RecordingClient(ws_url(one), name="alice")
    bob = RecordingClient(ws_url(two), name="bob")
    await alice.connect()
    await bob.connect()
    summary = await alice.create_race("unlimited", None, seats=2, time_limit=600)
    rid = summary["race"]
    await bob.join(code=summary["code"])
    for c in (alice, bob):
        await c.ready(rid)
    for c in (alice, bob):
        await c.wait_running(rid)
    racers = []
    for c in (alice, bob):
        r = FaultRacer(c, rid, await replica(redis_url, rid))
        r.acked, r.refusals = [], []
        racers.append(r)
    return racers, rid


async def play(racers: list[FaultRacer], moves: int) -> None:
    """Both racers move in turn, concurrently with whatever else runs."""
    for _ in range(moves):
        for r in racers:
            if not r.over:
                await r.step_retrying()


async def play_during(racers: list[FaultRacer], fault: asyncio.Future[Any]) -> Any:
    """Both racers keep moving for as long as the fault (a thread) runs; its result."""
    started = sum(len(r.acked) for r in racers)
    while not fault.done():
        moved = [await r.step_retrying() for r in racers if not r.over]
        if not any(moved):  # both games over or stuck: just wait for the fault
            await asyncio.sleep(0.05)
        else:  # under the server's rate limit (50 messages/s per connection) however fast
            await asyncio.sleep(0.025)  # the acks come back and however long the fault lasts
    result = await fault
    assert sum(len(r.acked) for r in racers) > started, "no move was made during the fault"
    return result


async def finish_and_check(redis_url: str, racers: list[FaultRacer], rid: str) -> None:
    for r in racers:
        await r.resign_retrying()
    ends = [await r.client.next_event(timeout=RECOVERY, t="event", race=rid, k="end")
            for r in racers]
    end = ends[0]
    check_standings(end["standings"])
    rows = {row["name"]: row for row in end["standings"]}
    for r in racers:
        log = await read_log(redis_url, rid, r.client.player)
        assert log == r.acked, "the durable log is not exactly the acknowledged moves"
        assert rows[r.client.name]["moves"] == len(r.acked)
        assert rows[r.client.name]["home"] == r.game.cards_home
        covered = r.client.versions_covered(rid)
        assert covered == list(range(covered[0], end["v"] + 1)), "a race event was missed"


def slot_of(rid: str) -> int:
    return key_slot(Keys.race(rid).encode())


async def test_master_killed_mid_race_with_wait_replicas_loses_no_acked_move(
    redis_url: str, redis_cluster: RedisClusterProcess,
) -> None:
    """kill -9 of the race's master: its replica is promoted. With --wait-replicas 1 every
    acknowledged move was on the replica, so the promoted master has them all; meanwhile
    requests are refused 'unavailable' (also while the new master has no replica yet to WAIT
    for), and the service recovers by itself once the old node rejoins as a replica."""
    async with (running_server(redis_url, wait_replicas=1) as one,
                running_server(redis_url, wait_replicas=1) as two):
        racers, rid = await two_racers(redis_url, one, two)
        try:
            await play(racers, 4)

            def kill_and_rejoin() -> int:
                port = redis_cluster.kill_master(slot_of(rid))
                # until the old node is back as the new master's replica, WAIT 1 cannot
                # succeed: moves are refused 'unavailable' meanwhile, and go through after
                redis_cluster.node(port).restart()
                return port

            # moves go on during the kill, the election and the rejoin
            port = await play_during(racers, asyncio.ensure_future(
                asyncio.to_thread(kill_and_rejoin)))
            await play(racers, 4)
            assert redis_cluster.master_of(slot_of(rid)).port != port
            await finish_and_check(redis_url, racers, rid)
            # (refusals during the window, if any, were all 'unavailable': step_retrying
            # fails on any other error; the client's own retries often hide a short window)
        finally:
            await close_all(r.client for r in racers)
            with contextlib.suppress(Exception):
                await asyncio.to_thread(redis_cluster.wait_ok)


async def test_slot_migrated_mid_race(redis_url: str, redis_cluster: RedisClusterProcess
                                      ) -> None:
    """The race's slot moves to another master (MIGRATING/IMPORTING, MIGRATE, SETSLOT NODE)
    while both racers move: ASK/MOVED/TRYAGAIN are followed or retried, the hubs re-subscribe
    the race's channel on its new shard, and nothing is lost or repeated."""
    async with running_server(redis_url) as one, running_server(redis_url) as two:
        racers, rid = await two_racers(redis_url, one, two)
        try:
            await play(racers, 4)
            before = redis_cluster.master_of(slot_of(rid)).port
            after = await play_during(racers, asyncio.ensure_future(
                asyncio.to_thread(redis_cluster.migrate_slot, slot_of(rid))))
            assert after != before and redis_cluster.master_of(slot_of(rid)).port == after
            await play(racers, 6)  # events now published on the new shard
            await finish_and_check(redis_url, racers, rid)
        finally:
            await close_all(r.client for r in racers)


async def test_whole_cluster_restart_from_aof_mid_race(
    redis_url: str, redis_cluster: RedisClusterProcess,
) -> None:
    """Every node stops (SIGTERM flushes its AOF) and starts again: the race resumes where it
    was, from the AOF files, on the same servers, without a restart of theirs."""
    async with running_server(redis_url) as one, running_server(redis_url) as two:
        racers, rid = await two_racers(redis_url, one, two)
        try:
            await play(racers, 5)
            await play_during(racers, asyncio.ensure_future(
                asyncio.to_thread(redis_cluster.restart_all)))
            await play(racers, 5)
            await finish_and_check(redis_url, racers, rid)
        finally:
            await close_all(r.client for r in racers)


def migrate_slowly(cluster: RedisClusterProcess, slot: int, hold: float) -> int:
    """Move ``slot`` to another master as :meth:`RedisClusterProcess.migrate_slot` does, but
    slowly: one key first, then ``hold`` seconds with the race's keys split between the two
    nodes (a script over several of them is answered TRYAGAIN), then the rest, then ``hold``/2
    with every key moved and the slot not yet handed over (ASK), then SETSLOT NODE."""
    from rediscluster import BIND

    topo = cluster.topology()
    src = next(i for i in topo if i.master and not i.failed and i.owns(slot))
    dst = next(i for i in topo if i.master and not i.failed and i.id != src.id)
    with cluster.client(src.port) as s, cluster.client(dst.port) as d:
        d.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", src.id)
        s.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", dst.id)
        keys = s.execute_command("CLUSTER GETKEYSINSLOT", slot, 100)
        s.execute_command("MIGRATE", BIND, dst.port, "", 0, 5000, "KEYS", keys[0])
        time.sleep(hold)
        while rest := s.execute_command("CLUSTER GETKEYSINSLOT", slot, 100):
            s.execute_command("MIGRATE", BIND, dst.port, "", 0, 5000, "KEYS", *rest)
        time.sleep(hold / 2)
        for node in topo:
            if node.master and not node.failed:
                with cluster.client(node.port) as r:
                    r.execute_command("CLUSTER SETSLOT", slot, "NODE", dst.id)
    return dst.port


async def test_a_slot_migration_shorter_than_the_retry_window_is_not_an_outage(
    redis_url: str, redis_cluster: RedisClusterProcess,
) -> None:
    """docs/scaling.md: during a resharding redirections are followed and a call is retried
    for about 2 s before anyone hears ``unavailable``. A migration whose TRYAGAIN window
    lasts 0.8 s and ASK window 0.4 s: every move made meanwhile is acknowledged at once."""
    async with running_server(redis_url) as one, running_server(redis_url) as two:
        racers, rid = await two_racers(redis_url, one, two)
        try:
            await play(racers, 3)
            before = redis_cluster.master_of(slot_of(rid)).port
            after = await play_during(racers, asyncio.ensure_future(
                asyncio.to_thread(migrate_slowly, redis_cluster, slot_of(rid), 0.8)))
            assert after != before
            assert [r.refusals for r in racers] == [[], []]  # no 'unavailable' at all
            await play(racers, 3)
            await finish_and_check(redis_url, racers, rid)
        finally:
            await close_all(r.client for r in racers)
