"""The store against a real Redis: every Lua script's state checks, the conditional append,
event versions, retention and the one-slot-per-race key schema.

These tests talk to :class:`Store` directly (no websockets), so each state check of each script
is exercised on purpose rather than only along the happy path of a race.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest
from redis.asyncio import Redis
from solrace.server.store import RETENTION, Keys, Store
from solrace.shared.prng import commitment

pytestmark = pytest.mark.timeout(60)

COUNTDOWN_MS = 150


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[Store]:
    redis = Redis.from_url(redis_url, decode_responses=False)
    try:
        yield Store(redis)
    finally:
        await redis.aclose()


def _s(x: Any) -> str:
    return x.decode() if isinstance(x, bytes) else str(x)


async def new_race(store: Store, *, seats: int = 2, time_limit: int = 600,
                   seed: int = 12345) -> tuple[str, str]:
    rid, code = secrets.token_hex(8), secrets.token_hex(3).upper()
    meta = {
        "variant": "unlimited", "options": "draw=1,foundation_takeback=yes", "seed": seed,
        "seats": seats, "time_limit": time_limit, "rated": "0", "host": "p1",
        "commitment": commitment(seed), "created_at": 0, "code": code,
    }  # fmt: skip
    assert await store.create_race(rid, code, meta)
    return rid, code


async def meta(store: Store, rid: str) -> dict[str, str]:
    return {_s(k): _s(v) for k, v in (await store.redis.hgetall(Keys.race(rid))).items()}


async def running_race(store: Store, players: tuple[str, ...] = ("p1", "p2"), *,
                       time_limit: int = 600, home: int = 0) -> str:
    """A race with ``players`` joined, ready and started (countdown of 0 ms)."""
    rid, _ = await new_race(store, seats=len(players), time_limit=time_limit)
    for pid in players:
        assert (await store.join(rid, pid, pid.upper())).status == "ok"
    for pid in players:
        assert (await store.ready(rid, pid, 0)).status == "ok"
    res = await store.start(rid, msgpack.packb({"k": "start"}), list(players), home)
    assert res.status == "ok", res
    return rid


def progress(pid: str) -> bytes:
    return msgpack.packb({"k": "progress", "player": pid})


async def move(store: Store, rid: str, pid: str, seq: int, text: str, *, home: int = 0,
               progressed: bool = False, result: str = "") -> Any:
    return await store.append_move(rid, pid, seq, text, home, progressed, result, progress(pid))


# ----------------------------------------------------------------------------- lobby scripts


async def test_join_checks(store: Store) -> None:
    res = await store.join("0123456789abcdef", "p1", "P1")
    assert (res.status, res.values) == ("err", ("race_not_found",))
    rid, code = await new_race(store, seats=3)
    assert await store.race_by_code(code) == rid
    first = await store.join(rid, "p1", "P1")
    assert first.status == "ok" and first.values[0] == 1
    again = await store.join(rid, "p1", "P1")
    assert (again.status, again.values) == ("ok", (0,)), "a rejoin must emit nothing"
    assert (await meta(store, rid))["version"] == "1"
    assert (await store.join(rid, "p2", "P2")).status == "ok"
    assert rid in await store.player_races("p2")
    for pid in ("p1", "p2"):
        await store.ready(rid, pid, COUNTDOWN_MS)
    assert (await meta(store, rid))["state"] == "countdown"
    late = await store.join(rid, "p3", "P3")
    assert (late.status, late.values) == ("err", ("race_started",))

    full, _ = await new_race(store, seats=2)
    for pid in ("a", "b"):
        await store.join(full, pid, pid)
    res = await store.join(full, "c", "c")
    assert (res.status, res.values) == ("err", ("race_full",))
    record = await store.read_race(full)
    assert record is not None and record.order == ["a", "b"]


async def test_leave_checks(store: Store) -> None:
    rid, _ = await new_race(store, seats=3)
    res = await store.leave(rid, "p1", COUNTDOWN_MS)
    assert (res.status, res.values) == ("err", ("not_in_race",))
    for pid in ("p1", "p2", "p3"):
        await store.join(rid, pid, pid)
    await store.ready(rid, "p1", COUNTDOWN_MS)
    await store.ready(rid, "p2", COUNTDOWN_MS)
    assert (await meta(store, rid))["state"] == "lobby"
    # The one racer not ready leaves: everyone left is ready, the countdown starts.
    assert (await store.leave(rid, "p3", COUNTDOWN_MS)).status == "ok"
    assert "p3" not in await store.player_races("p3") and rid not in await store.player_races(
        "p3")
    assert (await meta(store, rid))["state"] == "countdown"
    res = await store.leave(rid, "p1", COUNTDOWN_MS)
    assert (res.status, res.values) == ("err", ("race_started",))

    lone, _ = await new_race(store)
    await store.join(lone, "p1", "P1")
    await store.leave(lone, "p1", COUNTDOWN_MS)
    assert (await meta(store, lone))["state"] == "closed"
    kinds = [e["k"] for e in await store.events_since(lone, 0)]
    assert kinds == ["join", "leave", "closed"]
    record = await store.read_race(lone)
    assert record is not None and record.order == [] and record.names == {}


async def test_ready_checks(store: Store) -> None:
    res = await store.ready("0123456789abcdef", "p1", COUNTDOWN_MS)
    assert (res.status, res.values) == ("err", ("race_not_found",))
    rid, _ = await new_race(store, seats=3)
    await store.join(rid, "p1", "P1")
    res = await store.ready(rid, "p9", COUNTDOWN_MS)
    assert (res.status, res.values) == ("err", ("not_in_race",))
    await store.ready(rid, "p1", COUNTDOWN_MS)
    assert (await meta(store, rid))["state"] == "lobby", "one racer alone must not start"
    v = (await store.ready(rid, "p1", COUNTDOWN_MS)).values[0]
    assert v == int((await meta(store, rid))["version"]) == 2, "a repeated ready emits nothing"
    await store.join(rid, "p2", "P2")
    before = await store.server_time_ms()
    await store.ready(rid, "p2", COUNTDOWN_MS)
    m = await meta(store, rid)
    assert m["state"] == "countdown"
    countdown = (await store.events_since(rid, 0))[-1]
    assert countdown["k"] == "countdown"
    assert countdown["commitment"] == m["commitment"] == commitment(12345)
    assert countdown["starts_at"] == int(m["starts_at"])
    assert 0 <= int(m["starts_at"]) - before - COUNTDOWN_MS < 1000
    res = await store.ready(rid, "p2", COUNTDOWN_MS)
    assert (res.status, res.values) == ("err", ("race_started",))


async def test_start_checks(store: Store) -> None:
    rid, _ = await new_race(store, time_limit=45)
    res = await store.start(rid, msgpack.packb({"k": "start"}), [], 0)
    assert (res.status, res.values) == ("state", ("lobby",))
    for pid in ("p1", "p2"):
        await store.join(rid, pid, pid, auto_ready=True, countdown_ms=5000)
    res = await store.start(rid, msgpack.packb({"k": "start"}), ["p1", "p2"], 16)
    assert res.status == "wait" and 0 < res.values[0] <= 5000
    assert (await meta(store, rid))["state"] == "countdown"
    await store.redis.hset(Keys.race(rid), "starts_at", await store.server_time_ms() - 1)
    res = await store.start(rid, msgpack.packb({"k": "start"}), ["p1", "p2"], 16)
    assert res.status == "ok"
    m = await meta(store, rid)
    assert m["state"] == "running" and m["unfinished"] == "2"
    assert m["started_at"] == m["starts_at"], "the start time is the announced one"
    assert int(m["ends_at"]) == int(m["started_at"]) + 45_000
    record = await store.read_race(rid)
    assert record is not None
    assert {pid: p["home"] for pid, p in record.players.items()} == {"p1": "16", "p2": "16"}
    again = await store.start(rid, msgpack.packb({"k": "start"}), ["p1", "p2"], 16)
    assert (again.status, again.values) == ("state", ("running",))
    assert [e["k"] for e in await store.events_since(rid, 0)].count("start") == 1


# ----------------------------------------------------------------------------- moves


async def test_conditional_append(store: Store) -> None:
    lobby, _ = await new_race(store)
    await store.join(lobby, "p1", "P1")
    res = await move(store, lobby, "p1", 0, "sw")
    assert (res.status, res.values) == ("err", ("not_running",))

    rid = await running_race(store)
    ok = await move(store, rid, "p1", 0, "t1f1", home=1, progressed=True)
    assert ok.status == "ok"
    version, elapsed, unfinished, now = ok.values
    assert elapsed >= 0 and unfinished == -1 and now >= elapsed
    dup = await move(store, rid, "p1", 0, "t1f1", home=1)
    assert (dup.status, dup.values) == ("dup", (1,)), "a retried move must not apply twice"
    for seq, text in ((0, "sw"), (1 + 4, "sw"), (7, "t1f1")):
        stale = await move(store, rid, "p1", seq, text)
        assert (stale.status, stale.values) == ("stale", (1,)), (seq, text, stale)
    assert await store.read_log(rid, "p1") == ["t1f1"]
    assert (await move(store, rid, "p1", 1, "sw")).status == "ok"
    assert (await move(store, rid, "p1", 0, "t1f1")).status == "dup"
    assert await store.read_log(rid, "p1") == ["t1f1", "sw"]
    record = await store.read_race(rid)
    assert record is not None
    p1 = record.players["p1"]
    assert (p1["moves"], p1["home"]) == ("2", "0")
    assert int(p1["progress_at"]) == elapsed, "progress time is the last move that went home"
    assert await store.read_log(rid, "p2") == []
    events = await store.events_since(rid, version - 1)
    assert events[0]["k"] == "progress" and events[0]["v"] == version
    assert events[0]["elapsed"] == elapsed and events[0]["player"] == "p1"


async def test_concurrent_appends_with_one_seq_apply_once(store: Store) -> None:
    rid = await running_race(store)
    for seq in range(3):
        texts = [f"t{i}t{j}" for i in range(1, 5) for j in range(5, 9)]
        results = await asyncio.gather(*(move(store, rid, "p1", seq, t) for t in texts))
        winners = [t for t, r in zip(texts, results) if r.status == "ok"]
        assert len(winners) == 1, results
        assert all(r.status == "stale" and r.values == (seq + 1,)
                   for r in results if r.status != "ok")
        log = await store.read_log(rid, "p1")
        assert len(log) == seq + 1 and log[-1] == winners[0]


async def test_result_finishes_a_game_once(store: Store) -> None:
    rid = await running_race(store, ("p1", "p2", "p3"))
    res = await move(store, rid, "p1", 0, "t1f1", home=52, result="won")
    assert res.status == "ok" and res.values[2] == 2
    res = await move(store, rid, "p1", 1, "sw")
    assert (res.status, res.values) == ("err", ("already_finished",))
    res = await store.resign(rid, "p1")
    assert (res.status, res.values) == ("err", ("already_finished",))
    record = await store.read_race(rid)
    assert record is not None and record.players["p1"]["result"] == "won"
    assert int(record.players["p1"]["finished_at"]) >= 0


async def test_resign_checks(store: Store) -> None:
    lobby, _ = await new_race(store)
    await store.join(lobby, "p1", "P1")
    res = await store.resign(lobby, "p1")
    assert (res.status, res.values) == ("err", ("not_running",))
    res = await store.resign("0123456789abcdef", "p1")
    assert (res.status, res.values) == ("err", ("race_not_found",))

    rid = await running_race(store, ("p1", "p2", "p3"), home=16)
    res = await store.resign(rid, "p9", 16)
    assert (res.status, res.values) == ("err", ("not_in_race",))
    res = await store.resign(rid, "p1", 16)
    assert res.status == "ok" and res.values[2] == 2
    event = (await store.events_since(rid, res.values[0] - 1))[0]
    assert (event["result"], event["home"], event["moves"]) == ("resigned", 16, 0)
    res = await store.resign(rid, "p1", 16)
    assert (res.status, res.values) == ("err", ("already_finished",))
    assert (await move(store, rid, "p1", 0, "sw")).values == ("already_finished",)


async def test_time_up_refuses_moves_and_resigns(store: Store) -> None:
    rid = await running_race(store)
    assert (await move(store, rid, "p1", 0, "sw")).status == "ok"
    await store.redis.hset(Keys.race(rid), "ends_at", await store.server_time_ms() - 1)
    res = await move(store, rid, "p1", 1, "sw")
    assert (res.status, res.values) == ("err", ("time_up",))
    res = await store.resign(rid, "p2")
    assert (res.status, res.values) == ("err", ("time_up",))
    assert await store.read_log(rid, "p1") == ["sw"]


# ----------------------------------------------------------------------------- finish


async def test_finish_checks_and_happens_once(store: Store) -> None:
    rid = await running_race(store)
    version = int((await meta(store, rid))["version"])
    res = await store.finish(rid, msgpack.packb({"k": "end"}), version)
    assert res.status == "early", "finished while racers play and time remains"
    await store.resign(rid, "p1")
    await store.resign(rid, "p2")
    res = await store.finish(rid, msgpack.packb({"k": "end"}), version)
    assert (res.status, res.values) == ("retry", (0,)), "the version read is stale"
    version = int((await meta(store, rid))["version"])
    results = await asyncio.gather(*(
        store.finish(rid, msgpack.packb({"k": "end", "n": i}), version) for i in range(6)))
    assert [r.status for r in results].count("ok") == 1, results
    assert all(r.values == ("finished",) for r in results if r.status != "ok")
    m = await meta(store, rid)
    assert m["state"] == "finished" and int(m["ended_at"]) > 0
    ends = [e for e in await store.events_since(rid, 0) if e["k"] == "end"]
    assert len(ends) == 1
    stored = await store.end_event(rid)
    assert stored is not None and stored["n"] == ends[0]["n"]
    res = await move(store, rid, "p1", 0, "sw")
    assert (res.status, res.values) == ("err", ("not_running",))


async def test_finish_on_time_with_racers_unfinished(store: Store) -> None:
    rid = await running_race(store)
    await store.redis.hset(Keys.race(rid), "ends_at", await store.server_time_ms() - 1)
    version = int((await meta(store, rid))["version"])
    res = await store.finish(rid, msgpack.packb({"k": "end", "reason": "time"}), version)
    assert res.status == "ok"
    assert (await meta(store, rid))["unfinished"] == "2"


# ----------------------------------------------------------------------------- versions


async def test_versions_are_consecutive_in_stream_and_pubsub(store: Store, redis_url: str
                                                             ) -> None:
    rid, _ = await new_race(store, seats=3)
    listener = Redis.from_url(redis_url, decode_responses=False)
    pubsub = listener.pubsub()
    await pubsub.subscribe(Keys.race_channel(rid))
    store.process = "listener"  # another process follows the race: moves are published too
    await store.follow(rid, True)
    store.process = "mover"
    try:
        for pid in ("p1", "p2", "p3"):
            await store.join(rid, pid, pid)
        await store.leave(rid, "p3", 0)
        for pid in ("p1", "p2"):
            await store.ready(rid, pid, 0)
        await store.start(rid, msgpack.packb({"k": "start"}), ["p1", "p2"], 0)
        await asyncio.gather(*(move(store, rid, pid, seq, "sw") for seq in range(5)
                               for pid in ("p1", "p2")))
        await store.resign(rid, "p1")
        await store.resign(rid, "p2")
        m = await meta(store, rid)
        await store.finish(rid, msgpack.packb({"k": "end"}), int(m["version"]))

        events = await store.events_since(rid, 0)
        total = int((await meta(store, rid))["version"])
        assert [e["v"] for e in events] == list(range(1, total + 1))
        stamps = [e["at"] for e in events]
        assert stamps == sorted(stamps), "event times go backwards"
        assert [e["v"] for e in await store.events_since(rid, 7)] == list(range(8, total + 1))
        published: list[tuple[int, dict[str, Any]]] = []
        async with asyncio.timeout(5):
            while len(published) < total:
                msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                if msg is not None:
                    head, _, payload = msg["data"].partition(b":")
                    published.append((int(head), msgpack.unpackb(payload, raw=False)))
        assert [v for v, _ in published] == list(range(1, total + 1))
        assert [{**ev, "v": v} for v, ev in published] == events
    finally:
        await pubsub.aclose()
        await listener.aclose()


async def test_moves_publish_only_when_another_process_follows(store: Store, redis_url: str
                                                                ) -> None:
    """The mover's own process delivers its moves itself (Store.local); pub/sub carries them
    only to other followers. Every event is in the stream either way."""
    rid = await running_race(store)
    store.process = "me"
    local: list[tuple[str, int, dict[str, Any]]] = []
    store.local = lambda r, v, ev: local.append((r, v, ev))
    listener = Redis.from_url(redis_url, decode_responses=False)
    pubsub = listener.pubsub()
    await pubsub.subscribe(Keys.race_channel(rid))

    async def published() -> list[int]:
        out = []
        while (msg := await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.3)):
            out.append(int(msg["data"].partition(b":")[0]))
        return out

    try:
        await store.follow(rid, True)  # only this process follows: nothing to publish
        assert (await move(store, rid, "p1", 0, "sw")).status == "ok"
        assert await published() == []
        store.process = "other"
        await store.follow(rid, True)
        store.process = "me"  # now another process follows too
        v2 = (await move(store, rid, "p1", 1, "sw")).values[0]
        assert await published() == [v2]
        store.process = "other"
        await store.follow(rid, False)
        store.process = "me"
        await move(store, rid, "p1", 2, "sw")
        assert await published() == []
        events = [e for e in await store.events_since(rid, 0) if e.get("k") == "progress"]
        assert len(events) == 3
        assert [(v, ev) for _, v, ev in local] == [(e["v"], e) for e in events]
        assert {r for r, _, _ in local} == {rid}
    finally:
        await pubsub.aclose()
        await listener.aclose()


# ----------------------------------------------------------------------------- retention


async def race_keys(store: Store, rid: str) -> list[str]:
    return sorted([_s(k) async for k in store.redis.scan_iter(match=f"*{{{rid}}}*")])


async def test_retire_gives_every_race_key_its_ttl(store: Store) -> None:
    rid = await running_race(store)
    code = (await meta(store, rid))["code"]
    await move(store, rid, "p1", 0, "sw")
    await move(store, rid, "p2", 0, "sw")
    await store.resign(rid, "p1")
    await store.resign(rid, "p2")
    await store.finish(rid, msgpack.packb({"k": "end"}), int((await meta(store, rid))["version"]))
    keys = await race_keys(store, rid)
    expected = {Keys.race(rid), Keys.racers(rid), Keys.order(rid), Keys.ready(rid),
                Keys.events(rid), Keys.result(rid), Keys.log(rid, "p1"), Keys.log(rid, "p2")}
    assert expected <= set(keys), set(expected) - set(keys)
    for key in keys:  # a live race's keys outlive its time limit (or have no TTL yet)
        ttl = await store.redis.ttl(key)
        assert ttl == -1 or ttl > int((await meta(store, rid))["time_limit"]), (key, ttl)

    await store.retire(rid, ["p1", "p2"], code)
    for key in keys:
        ttl = await store.redis.ttl(key)
        assert RETENTION - 60 < ttl <= RETENTION, (key, ttl)
    assert await store.race_by_code(code) is None, "the invite code outlived the race"
    for pid in ("p1", "p2"):
        assert rid not in await store.player_races(pid)
    assert await store.read_log(rid, "p1") == ["sw"], "the replay is kept"


# ----------------------------------------------------------------------------- key slots


def crc16(data: bytes) -> int:
    """CRC-16/XMODEM, the Redis Cluster key hash."""
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def keyslot(key: str | bytes) -> int:
    """The cluster slot of ``key``, hash tags included (the Redis Cluster spec)."""
    raw = key.encode() if isinstance(key, str) else key
    start = raw.find(b"{")
    if start != -1:
        end = raw.find(b"}", start + 1)
        if end > start + 1:
            raw = raw[start + 1 : end]
    return crc16(raw) % 16384


def test_keyslot_matches_redis_documentation() -> None:
    assert crc16(b"123456789") == 0x31C3
    assert keyslot("somekey") == 11058
    assert keyslot("foo{hash_tag}") == keyslot("bar{hash_tag}") == 2515
    assert keyslot("foo{}{bar}") == keyslot(b"foo{}{bar}")  # empty tag: whole key


async def test_every_script_call_stays_in_one_race_slot(store: Store) -> None:
    calls: list[tuple[str, list[Any]]] = []
    original = store.batcher.call

    def spy(script: Any, keys: list[Any], args: list[Any], **kwargs: Any) -> Any:
        calls.append((script.script.split("\n")[-3][:40], list(keys)))
        return original(script, keys, args, **kwargs)

    store.batcher.call = spy  # type: ignore[method-assign]
    rid, code = await new_race(store, seats=3)
    for pid in ("p1", "p2", "p3"):
        await store.join(rid, pid, pid)
    await store.leave(rid, "p3", 0)
    for pid in ("p1", "p2"):
        await store.ready(rid, pid, 0)
    await store.start(rid, msgpack.packb({"k": "start"}), ["p1", "p2"], 0)
    await move(store, rid, "p1", 0, "sw")
    await store.resign(rid, "p1")
    await store.resign(rid, "p2")
    await store.finish(rid, msgpack.packb({"k": "end"}), int((await meta(store, rid))["version"]))
    await store.retire(rid, ["p1", "p2"], code)

    slot = keyslot(Keys.race(rid))
    assert len(calls) >= 9
    for where, keys in calls:
        assert {keyslot(k) for k in keys} == {slot}, f"a script spans slots: {where} {keys}"
    for key in await race_keys(store, rid):
        assert keyslot(key) == slot, key
    assert keyslot(Keys.race_channel(rid)) == slot
    assert keyslot(Keys.log(rid, "p1")) == keyslot(Keys.log(rid, "p2")) == slot


# ----------------------------------------------------------------------------- sessions, quick


async def test_sessions_store_only_a_hash_of_the_token(store: Store) -> None:
    token = secrets.token_urlsafe(24)
    db = store.accounts
    assert await db.claim_guest_name("Alice", "pid1", 60)
    assert not await db.claim_guest_name("alice", "pid2", 60), "names are case-insensitive"
    assert not await db.claim_guest_name("A1ice", "pid2", 60), "and look-alikes are one name"
    assert await db.claim_guest_name("Alice", "pid1", 60), "the holder may claim it again"
    await db.create_session(token, 60, {"player": "pid1", "name": "Alice", "kind": "guest",
                                        "sid": "0123456789ab"})
    await store.redis.expire(Keys.session(token), 5)
    rec = await db.load_session(token)
    assert rec is not None and (rec.player, rec.name, rec.kind) == ("pid1", "Alice", "guest")
    await db.refresh_session(rec, 60)
    assert 55 < await store.redis.ttl(Keys.session(token)) <= 60, "use refreshes the TTL"
    assert await db.touch(rec.digest, 60)
    assert await db.load_session(secrets.token_urlsafe(24)) is None
    await db.delete_session(rec.digest)
    assert not await db.touch(rec.digest, 60), "a deleted session is dead at once"
    async for key in store.redis.scan_iter():
        assert token.encode() not in key
        if await store.redis.type(key) == b"hash":
            for field, value in (await store.redis.hgetall(key)).items():
                assert token.encode() not in field + value


async def test_quick_queue(store: Store) -> None:
    queue = "unlimited|draw=3,foundation_takeback=yes"
    assert (await store.quick_enqueue(queue, "p1:Al")).status == "wait"
    assert (await store.quick_enqueue(queue, "p1:Al", "", ["p1:Al"])).status == "already"
    # the same player through another process: still one entry per player
    assert (await store.quick_enqueue(queue, "p1:Al:other-process")).status == "already"
    # the caller chose from a queue that has changed since: nothing happens
    assert (await store.quick_enqueue(queue, "p2:Bo")).status == "changed"
    assert (await store.quick_enqueue(queue, "p2:Bo", "", ["p0:Zed"])).status == "changed"
    assert await store.quick_waiting(queue) == ["p1:Al"]
    matched = await store.quick_enqueue(queue, "p2:Bo", "p1:Al", ["p1:Al"])
    assert (matched.status, matched.values) == ("match", ("p1:Al",))
    assert (await store.quick_enqueue(queue, "p3:Cy:x:")).status == "wait"
    # with someone waiting, a caller that takes nobody waits too (no rival in its window)
    assert (await store.quick_enqueue(queue, "p5:Ed:", "", ["p3:Cy:x:"])).status == "wait"
    assert await store.quick_cancel(queue, "p3:Cy:") == 1
    assert await store.quick_cancel(queue, "p3:Cy:") == 0
    assert await store.quick_waiting(queue) == ["p5:Ed:"]
    assert (await store.quick_enqueue(queue, "p4:Di", "", ["p5:Ed:"])).status == "wait"
    assert 0 < await store.redis.ttl(Keys.quick(queue)) <= 300


async def test_a_retried_finish_is_still_its_callers_success(store: Store) -> None:
    """A finish whose reply was lost and that redis-py retries (same arguments, same finisher
    token) answers ok again, so its caller still retires the race and runs the finish hooks;
    any other caller sees the race finished."""
    from solrace.server.store import ScriptResult

    rid = await running_race(store)
    await store.resign(rid, "p1")
    await store.resign(rid, "p2")
    version = int((await meta(store, rid))["version"])
    keys = [Keys.race(rid), Keys.events(rid), Keys.result(rid)]
    args = [Keys.race_channel(rid), msgpack.packb({"k": "end"}), version, "token-a"]
    first = ScriptResult.of(await store.batcher.call(store._finish, keys=keys, args=args))
    again = ScriptResult.of(await store.batcher.call(store._finish, keys=keys, args=args))
    other = ScriptResult.of(await store.batcher.call(
        store._finish, keys=keys, args=[*args[:3], "token-b"]))
    assert first.status == again.status == "ok"
    assert (other.status, other.values) == ("state", ("finished",))
    assert len([e for e in await store.events_since(rid, 0) if e["k"] == "end"]) == 1


async def test_the_analysis_quota_is_a_sliding_window(store: Store) -> None:
    """``take_analysis``: at most ``limit`` counted in any window; a refusal counts nothing
    and says how long until the oldest counted one leaves the window; callers are apart."""
    window = 2000
    assert await store.take_analysis("p1", "r:a", 2, window) == 0
    await asyncio.sleep(0.5)
    assert await store.take_analysis("p1", "r:b", 2, window) == 0
    wait = await store.take_analysis("p1", "r:c", 2, window)
    assert 1000 <= wait <= 1500  # the first leaves the window ~1.5 s from now
    assert await store.take_analysis("p1", "r:c", 2, window) > 0  # refused: not counted
    assert await store.take_analysis("p2", "r:c", 2, window) == 0  # another caller
    await asyncio.sleep(wait / 1000 + 0.02)
    assert await store.take_analysis("p1", "r:c", 2, window) == 0  # the first one left
    wait = await store.take_analysis("p1", "r:d", 2, window)
    assert 0 < wait <= 500  # the second (at 0.5 s) is next to leave
    assert await store.redis.zcard(Keys.analysis_quota("p1")) == 2
    assert 0 < await store.redis.pttl(Keys.analysis_quota("p1")) <= window
