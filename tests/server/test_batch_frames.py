"""Batch frames (opt-in, docs/protocol.md section 2.1): the outbox's gathering, the frame form,
and end to end — every message still arrives, in order, each with its version."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack
import pytest
from harness import Racer, RawConnection, RecordingClient, race_info, running_server, ws_url
from solrace.server.session import outbox
from solrace.server.session.outbox import Outbox
from solrace.shared import protocol as P

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("n", [2, 15, 16, 64, 300])
def test_batch_frame_is_the_documented_map(n: int) -> None:
    msgs = [{"t": "event", "race": "r" * 16, "v": i, "k": "progress", "home": i % 53}
            for i in range(n)]
    frame = P.batch_frame([P.encode(m) for m in msgs])
    assert msgpack.unpackb(frame, raw=False) == {"t": "batch", "msgs": msgs}
    assert P.unbatch(P.decode(frame) if n <= 1024 else msgpack.unpackb(frame)) == msgs


def test_unbatch_leaves_plain_messages_alone() -> None:
    assert P.unbatch({"t": "ack", "re": 1}) == [{"t": "ack", "re": 1}]


def _frames(box: Outbox) -> list[dict[str, Any]]:
    out = []
    while not box.queue.empty():
        out.append(msgpack.unpackb(box.queue.get_nowait(), raw=False))
    return out


def _event(v: int) -> dict[str, Any]:
    return {"t": "event", "race": "abcdef0123456789", "v": v, "k": "progress"}


async def test_without_gathering_every_message_is_its_own_frame() -> None:
    box = Outbox(100, lambda: None)
    for v in (1, 2):
        box.put(_event(v))
    box.put({"t": "ack", "re": 3})
    assert _frames(box) == [_event(1), _event(2), {"t": "ack", "re": 3}]


async def test_a_reply_leaves_this_tick_with_the_waiting_events_in_order() -> None:
    box = Outbox(100, lambda: None)
    box.gather = True
    box.put(_event(1))
    box.put(_event(2))
    await asyncio.sleep(0)
    assert _frames(box) == []  # events wait for company
    box.put({"t": "ack", "re": 7})
    box.put(_event(3))  # produced in the same tick, after the ack: follows it
    await asyncio.sleep(0)
    assert _frames(box) == [{"t": "batch", "msgs": [_event(1), _event(2), {"t": "ack", "re": 7},
                                                    _event(3)]}]
    box.put({"t": "pong", "re": 8})  # a lone reply keeps its own form
    await asyncio.sleep(0)
    assert _frames(box) == [{"t": "pong", "re": 8}]


async def test_replies_of_one_tick_leave_together_at_its_end_each_with_its_events() -> None:
    """Several outboxes with a reply in one tick (one Redis batch acks many moves): one
    end-of-tick callback flushes them all, each as its own frame, nothing crossing over."""
    boxes = [Outbox(100, lambda: None) for _ in range(3)]
    for box in boxes:
        box.gather = True
    boxes[0].put(_event(1))
    await asyncio.sleep(0)
    loop = asyncio.get_running_loop()
    scheduled = len(loop._ready)  # type: ignore[attr-defined]
    for i, box in enumerate(boxes):
        box.put({"t": "ack", "re": i})
    assert len(loop._ready) == scheduled + 1  # type: ignore[attr-defined]  # one callback
    boxes[2].put(_event(9))  # later in the same tick: rides with that box's ack
    assert [_frames(b) for b in boxes] == [[], [], []]
    await asyncio.sleep(0)
    assert _frames(boxes[0]) == [{"t": "batch", "msgs": [_event(1), {"t": "ack", "re": 0}]}]
    assert _frames(boxes[1]) == [{"t": "ack", "re": 1}]
    assert _frames(boxes[2]) == [{"t": "batch", "msgs": [{"t": "ack", "re": 2}, _event(9)]}]
    boxes[1].put({"t": "pong", "re": 5})  # the next tick schedules its own callback
    await asyncio.sleep(0)
    assert _frames(boxes[1]) == [{"t": "pong", "re": 5}]


async def test_events_alone_leave_after_the_window() -> None:
    box = Outbox(100, lambda: None)
    box.gather = True
    box.put(_event(1))
    await asyncio.sleep(outbox.EVENT_WINDOW * 2)
    assert _frames(box) == [_event(1)]
    box.put(_event(2))
    box.put(_event(3))
    await asyncio.sleep(outbox.EVENT_WINDOW * 2)
    assert _frames(box) == [{"t": "batch", "msgs": [_event(2), _event(3)]}]


async def test_a_long_run_is_split_and_nothing_is_lost() -> None:
    box = Outbox(100, lambda: None)
    box.gather = True
    for v in range(1, outbox.MAX_GATHER * 2 + 6):
        box.put(_event(v))
    await asyncio.sleep(outbox.EVENT_WINDOW * 2)
    got = [m for f in _frames(box) for m in P.unbatch(f)]
    assert [m["v"] for m in got] == list(range(1, outbox.MAX_GATHER * 2 + 6))


async def test_a_full_queue_calls_on_full() -> None:
    full: list[int] = []
    box = Outbox(2, lambda: full.append(1))
    for v in range(3):
        box.put(_event(v))
    assert full == [1]


class Raw:
    """A bare websocket that keeps every frame it reads (batch frames unpacked on demand)."""

    def __init__(self, conn: RawConnection) -> None:
        self.conn = conn
        self.frames: list[dict[str, Any]] = []
        self.ids = 0

    def msgs(self) -> list[dict[str, Any]]:
        return [m for f in self.frames for m in P.unbatch(f)]

    async def read_until(self, pred: Any) -> dict[str, Any]:
        async with asyncio.timeout(10):
            while True:
                for m in self.msgs():
                    if pred(m):
                        return m
                self.frames.append(await self.conn.recv())

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.ids += 1
        rid = self.ids
        await self.conn.send(P.encode({"t": kind, "id": rid, **fields}))
        return await self.read_until(lambda m: m.get("re") == rid)


async def _raw_racer(url: str, name: str, *, batch: bool) -> Raw:
    raw = Raw(await RawConnection.open(url))
    fields: dict[str, Any] = {"v": P.PROTOCOL_VERSION, "name": name}
    if batch:
        fields["batch"] = True
    welcome = await raw.request("hello", **fields)
    assert welcome["t"] == "welcome"
    assert welcome.get("batch") is (True if batch else None)
    return raw


@pytest.mark.parametrize("batch", [True, False])
async def test_raw_racer_gets_rival_events_with_its_ack(
    redis_url: str, batch: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A raw racer that asked for batches gets the rival's progress events in the frame of its
    next ack, before it, versions consecutive; one that did not never sees a batch frame. (The
    window is widened so that no timing decides the outcome.)"""
    monkeypatch.setattr(outbox, "EVENT_WINDOW", 30.0)
    async with running_server(redis_url) as server:
        url = ws_url(server)
        raw = await _raw_racer(url, "rawbatch", batch=batch)
        rival = RecordingClient(url, name="rivalb")
        await rival.connect()
        try:
            made = await raw.request("race.create", variant="unlimited", seats=2)
            rid = made["race"]["race"]
            await rival.join(code=made["race"]["code"])
            await raw.request("race.ready", race=rid)
            await rival.ready(rid)
            await rival.wait_running(rid)
            game = (await race_info(redis_url, rid)).game()
            rival_racer = Racer(rival, rid, (await race_info(redis_url, rid)).game())
            for _ in range(3):
                assert await rival_racer.step() is not None
            move = game.legal_moves()[0]
            ack = await raw.request("move", race=rid, seq=0, move=move.text())
            frames = raw.frames
            if not batch:
                assert all(f.get("t") != "batch" for f in frames)
            msgs = raw.msgs()
            versions = [m["v"] for m in msgs if m.get("t") == "event"]
            assert msgs[-1] is ack and ack["t"] == "ack" and ack["seq"] == 1
            assert versions == list(range(versions[0], versions[-1] + 1))
            assert ack["v"] == versions[-1] + 1
            progress = [m for m in msgs if m.get("k") == "progress"]
            assert [p["moves"] for p in progress] == [1, 2, 3]
            if batch:  # the rival's three moves were waiting: they rode with the ack
                assert frames[-1]["t"] == "batch"
                assert [m.get("k") for m in frames[-1]["msgs"][-4:]] == [
                    "progress", "progress", "progress", None]
        finally:
            await rival.close()
            await raw.conn.close()


async def test_batching_clients_see_every_version_once_in_order(redis_url: str) -> None:
    """Two library clients with batch frames on, moving in turn: events and acks cover every
    version exactly once, in order (as with single frames)."""
    async with running_server(redis_url) as server:
        url = ws_url(server)
        cs = [RecordingClient(url, name=n, batch=True) for n in ("alicebf", "bobbf")]
        for c in cs:
            await c.connect()
        try:
            summary = await cs[0].create_race("unlimited", seats=2)
            rid = summary["race"]
            await cs[1].join(code=summary["code"])
            for c in cs:
                await c.ready(rid)
            for c in cs:
                await c.wait_running(rid)
            secrets = await race_info(redis_url, rid)
            racers = [Racer(c, rid, secrets.game()) for c in cs]
            for _ in range(15):
                for r in racers:
                    if not r.over:
                        await r.step()
            for c in cs:
                await c.resign(rid)
            for c in cs:
                await c.next_event(t="event", race=rid, k="end")
            for c in cs:
                seen = c.versions_seen(rid)
                assert seen == sorted(set(seen)), seen
                covered = c.versions_covered(rid)
                assert covered == list(range(covered[0], covered[0] + len(covered)))
                theirs = [e for e in c.raw_events if e.get("k") == "progress"
                          and e.get("player") != c.player]
                assert len(theirs) >= 15  # every rival move, as an event
        finally:
            for c in cs:
                await c.close()


async def test_a_gathering_connection_gets_its_logout_reply_before_the_close(
    redis_url: str,
) -> None:
    """close_after_reply (logout, revocation) sends what the outbox gathered before closing."""
    async with running_server(redis_url) as server:
        c = RecordingClient(ws_url(server), name="byebf", batch=True)
        await c.connect()
        try:
            reply = await c.logout()
            assert reply["t"] == "logged_out" and reply["session"] == c.welcome["session"]
        finally:
            await c.close()
