"""Spectating (issue 5) end to end: real server processes, a real Redis, real websockets.

Racers are library clients mirrored by engine replicas (the seed peeked in Redis, see
``harness``). Spectators are anonymous library clients (:class:`Spectator`) that rebuild every
racer's board the way any client must: the ``watching`` snapshot, then each ``progress`` event's
``delta`` applied with :func:`~solrace.shared.views.apply_delta`. Tests compare those boards with
the racers' own boards and with the replicas after every move, and check the version sequence
each spectator saw for gaps and duplicates, so a lost, doubled, reordered or wrong event fails a
test instead of passing against numbers written into it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
import statistics
import time
from pathlib import Path
from typing import Any

import pytest
import websockets
from harness import (
    Racer,
    RecordingClient,
    ServerProcess,
    accounts,
    channel_subscribers,
    clients,
    close_all,
    hub_drop_silently,
    hub_resubscribe,
    race_info,
    redis_client,
    running_server,
    start_race,
    ws_url,
)
from sightings import spectator_views
from solrace.client.library import Client, ClientError
from solrace.server.ops.app import Server
from solrace.server.ops.redisproc import RedisProcess
from solrace.server.store import Keys
from solrace.server.store.connect import is_cluster_url
from solrace.shared import protocol as P
from solrace.shared.cards import card_text
from solrace.shared.engine import Game
from solrace.shared.masking import MASKED
from solrace.shared.prng import commitment
from solrace.shared.rules import options_text
from solrace.shared.views import apply_delta, view_of
from websockets.asyncio.client import connect
from websockets.protocol import State

BACKENDS = ("single", "cluster")  # every test with redis_url runs on both (conftest.py)

pytestmark = pytest.mark.timeout(60)

TOLERANCE_MS = 5  # event ``at`` is whole Redis milliseconds; the local clock is finer


# ----------------------------------------------------------------------------- the spectator


class Spectator(Client):
    """An anonymous client (``hello`` with neither name nor token) that spectates.

    Its reader records every frame with its arrival time (local clock, ms) and folds
    ``watching`` replies and ``event`` frames into ``views`` (race -> player -> view) in wire
    order, before any other code runs. Problems — a version that is not the last one plus one,
    a board change without a ``delta`` — go to ``problems`` instead of being raised inside the
    reader task, and every test asserts that list is empty.
    """

    def __init__(self, url: str, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.frames: list[tuple[float, dict[str, Any]]] = []
        self.views: dict[str, dict[str, dict[str, Any]]] = {}
        self.racers: dict[str, list[str]] = {}
        self.last_v: dict[str, int] = {}
        self.applied: dict[str, list[int]] = {}  # versions folded from events, in order
        self.ends: dict[str, dict[str, Any]] = {}
        self.problems: list[str] = []
        self.close_code: int | None = None
        self._mode = "snapshot"
        self._changed = asyncio.Event()

    async def _read(self, ws: Any = None, pending: Any = None) -> None:
        assert self.ws is not None  # a spectator never moves home: one connection at a time
        try:
            async for frame in self.ws:
                assert isinstance(frame, bytes), frame
                msg = P.decode(frame)
                self.frames.append((time.time() * 1000, msg))
                if msg.get("t") == "watching":
                    self._take(msg)
                elif msg.get("t") == "event":
                    self._fold(msg["race"], msg)
                self._changed.set()
                fut = self._pending.pop(msg.get("re"), None)
                if fut is not None and not fut.done():
                    fut.set_result(msg)
                else:
                    self._events.put_nowait(msg)
        except websockets.ConnectionClosed as exc:
            self.close_code = exc.rcvd.code if exc.rcvd is not None else None
        finally:
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("connection closed"))
            self._pending.clear()
            self._events.put_nowait({"t": "closed"})

    async def watch(self, race: str | None = None, *, code: str | None = None, since: int = 0,
                    full: bool = False) -> dict[str, Any]:
        fields: dict[str, Any] = {"race": race} if race is not None else {"code": code}
        if since:
            fields["since"] = since
        if full:
            fields["full"] = True
        self._mode = "full" if full else "since" if since else "snapshot"
        return await self.request("watch", **fields)

    def _take(self, reply: dict[str, Any]) -> None:
        race = reply["race"]["race"]
        if self._mode == "snapshot":
            # racers now; any who join after ``v`` come again as join events (no duplicate)
            self.racers[race] = [r["player"] for r in reply["race"]["racers"]]
            self.views[race] = {pid: b["view"] for pid, b in reply["boards"].items()}
            self.last_v[race] = reply["v"]
            if "end" in reply:
                self.ends[race] = reply["end"]
            return
        if self._mode == "full":  # a replay: the race from nothing
            self.racers[race], self.views[race], self.last_v[race] = [], {}, 0
            self.applied[race] = []
        for ev in reply["events"]:
            self._fold(race, ev)
        if reply["v"] != self.last_v[race]:
            self.problems.append(f"watching.v {reply['v']} after events up to {self.last_v[race]}")

    def _fold(self, race: str, ev: dict[str, Any]) -> None:
        v, last = ev["v"], self.last_v.get(race)
        if last is None or v != last + 1:
            self.problems.append(f"race {race}: version {v} after {last}")
        self.last_v[race] = v
        self.applied.setdefault(race, []).append(v)
        kind = ev["k"]
        racers = self.racers.setdefault(race, [])
        views = self.views.setdefault(race, {})
        if kind == "join" and ev["player"] not in racers:
            racers.append(ev["player"])
        elif kind == "leave" and ev["player"] in racers:
            racers.remove(ev["player"])
        elif kind == "start":
            self.views[race] = {pid: ev["view"] for pid in racers}
        elif kind == "progress":
            if "delta" in ev and "move" in ev:
                views[ev["player"]] = apply_delta(views[ev["player"]], ev["delta"])
            elif ev.get("result") != "resigned":
                self.problems.append(f"a move without move/delta reached a spectator: {ev}")
            for pid, piles in ev.get("reveal", {}).items():  # cards every racer has now seen
                views[pid] = {**views[pid], "piles": {**views[pid]["piles"], **piles}}
        elif kind == "end":
            self.ends[race] = ev
            if "boards" not in ev and views:
                self.problems.append(f"an end without the final boards: {ev}")
            for pid, board in ev.get("boards", {}).items():
                views[pid] = board["view"]

    async def wait_version(self, race: str, v: int, timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while self.last_v.get(race, -1) < v:
                self._changed.clear()
                await self._changed.wait()

    async def wait_for_event(self, race: str, v: int) -> dict[str, Any]:
        """The event frame of version ``v`` (waiting for it)."""
        await self.wait_version(race, v)
        return next(m for _, m in self.event_frames(race) if m["v"] == v)

    def event_frames(self, race: str) -> list[tuple[float, dict[str, Any]]]:
        return [(t, m) for t, m in self.frames if m.get("t") == "event" and m["race"] == race]

    def replies(self, kind: str) -> list[tuple[float, dict[str, Any]]]:
        return [(t, m) for t, m in self.frames if m.get("t") == kind]


@contextlib.asynccontextmanager
async def spectators(*urls: str) -> Any:
    out: list[Spectator] = []
    try:
        for url in urls:
            s = Spectator(url)
            welcome = await s.connect()
            assert welcome["player"] is None and welcome["name"] is None, welcome
            out.append(s)
        yield out
    finally:
        await close_all(out)


# ----------------------------------------------------------------------------- helpers


def strings(obj: Any) -> Any:
    """Every string in a frame (keys included)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(obj, list):
        for x in obj:
            yield from strings(x)
    elif isinstance(obj, str):
        yield obj


def assert_boards(racers: list[Racer], watchers: list[Spectator]) -> None:
    """Every spectator's board of every racer is what it must be: while the race runs, the
    racer's board with exactly the cards every racer has had face up (the rest masked,
    ``sightings``); once the spectator has the end, the racer's own board, complete."""
    masked = spectator_views(
        racers[0].game.variant.name, racers[0].game.options, racers[0].game.seed,
        {r.client.player: [m.text() for m in r.game.moves] for r in racers})
    for r in racers:
        expected = view_of(r.game).wire()
        assert r.client.boards[r.race]["view"] == expected, "racer's board != replica"
        for s in watchers:
            want = expected if r.race in s.ends else masked[r.client.player]
            assert s.views[r.race][r.client.player] == want, (
                f"spectator's board of {r.client.name} != what a spectator may see after "
                f"{len(r.game.moves)} moves")
    for s in watchers:
        assert not s.problems, s.problems


def assert_consecutive(versions: list[int]) -> None:
    assert versions, "no events"
    assert versions == list(range(versions[0], versions[0] + len(versions))), versions


async def step_and_check(
    r: Racer, racers: list[Racer], watchers: list[Spectator]
) -> dict[str, Any]:
    """One move by ``r``; every spectator must show it (and nothing else changed)."""
    ack = await r.step()
    assert ack is not None, "the test racer ran out of new positions"
    for s in watchers:
        await s.wait_version(r.race, ack["v"])
    assert_boards(racers, watchers)
    return ack


async def end_race(racers: list[Racer]) -> dict[str, Any]:
    """Resign whoever is still playing; the end event as the first racer got it."""
    for r in racers:
        if not r.over:
            await r.client.resign(r.race)
    return await racers[0].client.next_event(t="event", race=racers[0].race, k="end")


async def numsub(redis_url: str, channel: str) -> int:
    return await channel_subscribers(redis_url, channel)


async def wait_numsub(redis_url: str, channel: str, n: int) -> None:
    async with asyncio.timeout(5):
        while await numsub(redis_url, channel) != n:
            await asyncio.sleep(0.02)


async def live_rows(c: Client, **fields: Any) -> list[dict[str, Any]]:
    return (await c.request("races.live", **fields))["races"]


async def race_version(redis_url: str, rid: str) -> int:
    """The race's current version, read from Redis."""
    r = redis_client(redis_url)
    try:
        return int(await r.hget(Keys.race(rid), "version"))
    finally:
        await r.aclose()


def start_time(c: RecordingClient, rid: str) -> int:
    """``started_at`` of the race's start event, as the client received it."""
    return next(e["started_at"] for e in c.raw_events if e.get("race") == rid
                and e.get("k") == "start")


# ----------------------------------------------------------------------------- across processes


async def test_three_processes_spectators_see_the_racers_boards(
    private_redis: RedisProcess, tmp_path: Path
) -> None:
    """Racers on two server processes, spectators on a third, one Redis: after every move each
    spectator's board of each racer equals that racer's board and the engine replica."""
    url = private_redis.url
    procs = [ServerProcess(url, tmp_path / n, name=n) for n in ("p1", "p2", "p3")]
    racing: list[Client] = []
    try:
        await asyncio.gather(*(asyncio.to_thread(p.start) for p in procs))
        p1, p2, p3 = procs
        alice = RecordingClient(p1.url, name="alice")
        bob = RecordingClient(p2.url, name="bob", follow_home=False)  # racers on two processes
        racing += [alice, bob]
        async with spectators(p3.url, p3.url) as (early, late):
            for c in (alice, bob):
                await c.connect()
            summary = await alice.create_race("unlimited")
            rid = summary["race"]
            await bob.join(code=summary["code"])
            lobby = await early.watch(rid)  # in the lobby: no boards yet, then every event
            assert lobby["boards"] == {} and lobby["delay"] == 0.0
            for c in (alice, bob):
                await c.ready(rid)
            for c in (alice, bob):
                await c.wait_running(rid)
            secrets = await race_info(url, rid)
            racers = [Racer(c, rid, secrets.game()) for c in (alice, bob)]
            await early.wait_version(rid, await race_version(url, rid))
            assert_boards(racers, [early])

            for _ in range(4):
                for r in racers:
                    await step_and_check(r, racers, [early])
            snap = await late.watch(rid)  # mid-race: a snapshot of both boards
            assert set(snap["boards"]) == {alice.player, bob.player}
            watchers = [early, late]
            await late.wait_version(rid, await race_version(url, rid))
            assert_boards(racers, watchers)
            for c in (alice, bob):  # racers hear the spectators arrive (not as events)
                await c.next_event(t="spectators", race=rid, count=2)
            # One Redis subscription per race per process, however many spectators it has.
            assert await numsub(url, Keys.race_channel(rid)) == 3

            rows = [row for row in await live_rows(late) if row["race"] == rid]
            assert len(rows) == 1, rows
            row = rows[0]
            assert (row["racers"], row["spectators"], row["state"]) == (2, 2, "running")
            assert row["variant"] == "unlimited" and row["rated"] is False
            assert row["started_at"] == start_time(alice, rid)
            assert 0 < row["elapsed"] < 60_000

            for _ in range(8):
                for r in racers:
                    if not r.over:
                        await step_and_check(r, racers, watchers)
            end = await end_race(racers)
            for s in watchers:
                await s.wait_version(rid, end["v"])
                assert s.ends[rid]["seed"] == secrets.seed
                assert {k: v for k, v in s.ends[rid].items() if k not in ("t", "race", "boards")
                        } == {k: v for k, v in end.items() if k not in ("t", "race")}
            assert_boards(racers, watchers)
            assert_consecutive(early.applied[rid])
            assert early.applied[rid][0] == lobby["v"] + 1
            assert_consecutive(late.applied[rid])
            # Racers never saw a rival's board, and counts are no events (not in the log).
            for c in (alice, bob):
                assert not any({"move", "delta", "reveal", "boards"} & set(e)
                               for e in c.raw_events)
                assert not any(e.get("k") == "spectators" for e in c.raw_events)
    finally:
        await close_all(racing)
        await asyncio.gather(*(asyncio.to_thread(p.terminate) for p in procs))


async def test_a_racer_watching_their_casual_race_cannot_read_the_stock(
    private_redis: RedisProcess, tmp_path: Path
) -> None:
    """The issue's case, across two server processes: alice races on one, and watches her
    casual race (no delay) from an anonymous session on the other while bob draws through the
    stock. Bob's waste stays masked to her until she has drawn those cards herself; then every
    board shows them, bob's included (a reveal in her move's event)."""
    url = private_redis.url
    procs = [ServerProcess(url, tmp_path / n, name=n) for n in ("p1", "p2")]
    racing: list[Client] = []
    try:
        await asyncio.gather(*(asyncio.to_thread(p.start) for p in procs))
        p1, p2 = procs
        alice, bob = Client(p1.url, name="alice"), Client(p1.url, name="bob")
        racing += [alice, bob]
        async with spectators(p2.url) as (peek,):
            for c in (alice, bob):
                await c.connect()
            summary = await alice.create_race("unlimited", {"draw": "1"})
            rid = summary["race"]
            await bob.join(code=summary["code"])
            for c in (alice, bob):
                await c.ready(rid)
            for c in (alice, bob):
                await c.wait_running(rid)
            secrets = await race_info(url, rid)
            racers = [Racer(c, rid, secrets.game()) for c in (alice, bob)]
            ra, rb = racers
            await peek.watch(rid)
            stock = [c for c in reversed(rb.game.pos.piles[rb.game.layout.stock])]
            for _ in range(5):
                ack = await rb.client.move(rid, "sw")
                rb.game.push("sw")
                await peek.wait_version(rid, ack["v"])
            waste = peek.views[rid][bob.player]["piles"]["w"]
            assert waste == [0, [MASKED] * 5], waste  # the next five cards of alice's stock
            assert_boards(racers, [peek])
            drawn = {card_text(c) for c in stock[:5]}  # one deck: nowhere else face up
            named = set(strings([m for _, m in peek.frames]))
            assert not drawn & named, f"a frame named a card alice has not seen: {drawn & named}"
            for n in range(1, 4):  # alice draws too: those cards become shown everywhere
                ack = await ra.client.move(rid, "sw")
                ra.game.push("sw")
                ev = await peek.wait_for_event(rid, ack["v"])
                assert ev["reveal"] == {bob.player: {"w": [0, [card_text(c) for c in stock[:n]]
                                                           + [MASKED] * (5 - n)]}}
                assert_boards(racers, [peek])
            end = await end_race(racers)
            await peek.wait_version(rid, end["v"])
            assert_boards(racers, [peek])  # complete after the end
            assert peek.views[rid][bob.player]["piles"]["w"][1] == [card_text(c)
                                                                   for c in stock[:5]]
    finally:
        await close_all(racing)
        await asyncio.gather(*(asyncio.to_thread(p.terminate) for p in procs))


# ----------------------------------------------------------------------------- resume and gaps


@contextlib.asynccontextmanager
async def two_servers(redis_url: str, **overrides: Any) -> Any:
    async with running_server(redis_url, process_id="one", **overrides) as a, running_server(
        redis_url, process_id="two", **overrides
    ) as b:
        yield a, b


async def race_on(server: Server, redis_url: str, variant: str = "unlimited"
                  ) -> tuple[list[Racer], str]:
    cs, summary = await start_race(ws_url(server), redis_url, variant, ["alice", "bob"])
    rid = summary["race"]
    secrets = await race_info(redis_url, rid)
    return [Racer(c, rid, secrets.game()) for c in cs], rid


async def test_reconnecting_spectator_catches_up_exactly(redis_url: str) -> None:
    """A spectator drops, misses moves, and resumes on the other process with ``since``: the
    missed events arrive once each, then the live stream continues without a gap."""
    async with two_servers(redis_url) as (one, two), spectators(ws_url(two)) as (spec,):
        racers, rid = await race_on(one, redis_url, "double-aces-and-kings")
        try:
            await spec.watch(rid)
            for _ in range(3):
                for r in racers:
                    await step_and_check(r, racers, [spec])
            seen = spec.last_v[rid]
            await spec.close()
            missed = [await r.step() for r in racers for _ in range(3)]
            assert all(missed)
            spec.url = ws_url(one)  # resume on the racers' process this time
            await spec.connect()
            reply = await spec.watch(rid, since=seen)
            versions = [e["v"] for e in reply["events"]]
            assert versions[0] == seen + 1 and reply["v"] == versions[-1]
            assert "boards" not in reply
            # every missed move is in the reply, with its delta, in order
            moved = [e for e in reply["events"] if e["k"] == "progress"]
            assert [e["v"] for e in moved] == [a["v"] for a in sorted(missed, key=v_of)]
            await spec.wait_version(rid, max(a["v"] for a in missed))
            assert_boards(racers, [spec])
            for _ in range(3):
                for r in racers:
                    await step_and_check(r, racers, [spec])
            assert_consecutive(spec.applied[rid])
        finally:
            await close_all(r.client for r in racers)


async def test_a_watch_from_beyond_the_race_gets_the_later_events_masked_alike(
        redis_url: str) -> None:
    """``since`` beyond the race's version (a client's claim, however odd): nothing until
    the race gets there, then the events after ``since`` in exactly the masked form every
    other spectator gets, on a process that had folded nothing of the race before."""
    async with two_servers(redis_url) as (one, two), spectators(
            ws_url(one), ws_url(two)) as (plain, ahead):
        racers, rid = await race_on(one, redis_url, "forty-and-eight")
        try:
            await plain.watch(rid)
            since = await race_version(redis_url, rid) + 3
            # what the test spectator's fold needs to take events after ``since`` on trust
            ahead.last_v[rid] = since
            ahead.views[rid] = {r.client.player: {"piles": {}} for r in racers}
            reply = await ahead.watch(rid, since=since)
            assert reply["events"] == [] and reply["v"] == since
            acks = [await r.step() for _ in range(4) for r in racers]
            assert all(acks)
            last = max(v_of(a) for a in acks if a)
            for s in (plain, ahead):
                await s.wait_version(rid, last)
            mine = {m["v"]: m for _, m in ahead.event_frames(rid)}
            theirs = {m["v"]: m for _, m in plain.event_frames(rid) if m["v"] > since}
            assert mine == theirs and sorted(mine) == list(range(since + 1, last + 1))
            assert ahead.close_code is None
        finally:
            await close_all(r.client for r in racers)


def v_of(ack: dict[str, Any]) -> int:
    return int(ack["v"])


async def unsubscribe_behind_its_back(server: Server, rid: str, redis_url: str) -> None:
    """Make the process's pub/sub miss the race's messages, as a dropped subscription would:
    the hub still thinks it is subscribed."""
    await hub_drop_silently(server.ctx.hub, Keys.race_channel(rid))
    await wait_numsub(redis_url, Keys.race_channel(rid), 1)


async def test_spectator_recovers_from_the_stream_after_missed_pubsub(redis_url: str) -> None:
    """Messages lost by pub/sub are read back from the durable stream when the next message
    reveals the gap (``Connection.advance``)."""
    async with two_servers(redis_url) as (one, two), spectators(ws_url(two)) as (spec,):
        racers, rid = await race_on(one, redis_url)
        try:
            await spec.watch(rid)
            for r in racers:
                await step_and_check(r, racers, [spec])
            await unsubscribe_behind_its_back(two, rid, redis_url)
            before = spec.last_v[rid]
            lost = [await r.step() for r in (*racers, racers[0])]
            assert all(lost)
            await asyncio.sleep(0.3)
            assert spec.last_v[rid] == before, "the messages were not lost after all"
            await hub_resubscribe(two.ctx.hub, Keys.race_channel(rid))
            await wait_numsub(redis_url, Keys.race_channel(rid), 2)
            await step_and_check(racers[1], racers, [spec])  # its message reveals the gap
            assert_consecutive(spec.applied[rid])
        finally:
            await close_all(r.client for r in racers)


async def test_out_of_order_and_duplicate_fanout_is_delivered_once_in_order(
    redis_url: str,
) -> None:
    """Events handed to a spectator's connection late, early and twice (as a pub/sub that
    reorders and repeats would) still reach the spectator once each, in version order."""
    async with two_servers(redis_url) as (one, two), spectators(ws_url(two)) as (spec,):
        racers, rid = await race_on(one, redis_url)
        try:
            await spec.watch(rid)
            await step_and_check(racers[0], racers, [spec])
            await unsubscribe_behind_its_back(two, rid, redis_url)
            before = spec.last_v[rid]
            for r in (*racers, racers[0]):
                assert await r.step()
            conn = next(iter(two.ctx.hub._races[rid]))  # the spectator's connection
            events = await two.ctx.store.events_since(rid, before)
            assert len(events) == 3
            conn.on_race_event(rid, events[2]["v"], dict(events[2]))  # a gap: read the stream
            await asyncio.sleep(0)  # the catch-up holds the connection's race lock now
            for i in (0, 1, 2, 0):  # late and repeated copies, during and after the catch-up
                conn.on_race_event(rid, events[i]["v"], dict(events[i]))
            await spec.wait_version(rid, events[-1]["v"])
            await asyncio.sleep(0.1)  # a duplicate would arrive now
            assert_boards(racers, [spec])
            assert spec.applied[rid][-3:] == [e["v"] for e in events]
            assert_consecutive(spec.applied[rid])
        finally:
            await close_all(r.client for r in racers)


class CuttableLink:
    """A TCP relay between one server process and Redis that the test can cut (dropping every
    connection and refusing new ones) and heal: a network partition between that process and
    Redis, during which whatever Redis publishes is lost to the process for good."""

    def __init__(self, redis_url: str) -> None:
        host, port = redis_url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
        self.target = (host, int(port))
        self.cut_off = False
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    async def __aenter__(self) -> CuttableLink:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        self.cut()
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut_off:
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self._writers |= {writer, up_writer}
        for src, dst in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pipe(src, dst))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pipe(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()
        dst.close()

    def cut(self) -> None:
        self.cut_off = True
        for w in list(self._writers):
            w.transport.abort()
        self._writers.clear()

    def heal(self) -> None:
        self.cut_off = False


async def test_spectator_catches_up_after_its_process_loses_redis_for_a_while(
    redis_url: str,
) -> None:
    """The spectator's process loses Redis (pub/sub included) while racers on another process
    keep moving, and no later move comes to reveal the gap: once Redis is back, the hub's
    reconnect catch-up must read the missed events from the stream."""
    if is_cluster_url(redis_url):
        pytest.skip("a TCP relay in front of one Redis; on a cluster the same catch-up is "
                    "tested by killing a shard's master (test_cluster_faults.py)")
    async with CuttableLink(redis_url) as link, running_server(
        redis_url, process_id="one"
    ) as one, running_server(link.url, process_id="two") as two, spectators(ws_url(two)) as (
        spec,
    ):
        racers, rid = await race_on(one, redis_url)
        try:
            await spec.watch(rid)
            await step_and_check(racers[0], racers, [spec])
            before = spec.last_v[rid]
            link.cut()
            await wait_numsub(redis_url, Keys.race_channel(rid), 1)  # only the racers' process
            acks = [await r.step() for r in racers]  # published while process two is cut off
            assert all(acks)
            await asyncio.sleep(0.3)
            assert spec.last_v[rid] == before
            link.heal()
            await spec.wait_version(rid, max(a["v"] for a in acks if a), timeout=10)
            assert_boards(racers, [spec])
            assert_consecutive(spec.applied[rid])
        finally:
            await close_all(r.client for r in racers)


# ----------------------------------------------------------------------------- delay


async def test_rated_race_spectators_run_the_configured_delay_behind(redis_url: str) -> None:
    """``spectator_delay`` = 1 s: no event reaches a spectator of a rated race before its ``at``
    + 1 s (neither in the ``watching`` reply nor live), and every event, ``end`` included,
    arrives. An unrated race on the same server has no delay."""
    delay = 1.0
    async with running_server(redis_url, spectator_delay=delay) as server, accounts(
        ws_url(server), "alice", "bob") as (alice, bob), spectators(
            ws_url(server), ws_url(server)) as (early, late):
        summary = await alice.create_race("unlimited", rated=True)
        rid = summary["race"]
        await bob.join(code=summary["code"])
        reply = await early.watch(rid)
        assert reply["delay"] == delay and reply["v"] == 0  # nothing is a second old yet
        for c in (alice, bob):
            await c.ready(rid)
        for c in (alice, bob):
            await c.wait_running(rid)
        secrets = await race_info(redis_url, rid)
        racers = [Racer(c, rid, secrets.game()) for c in (alice, bob)]
        for _ in range(4):
            for r in racers:
                assert await r.step()
            await asyncio.sleep(0.1)
        version_now = (await server.ctx.races.record(rid)).num("version")
        snap = await late.watch(rid)
        assert snap["delay"] == delay
        assert snap["v"] < version_now, "the snapshot is not behind live"
        for r in racers:
            assert await r.step()
        end = await end_race(racers)
        racers_saw_end = time.time() * 1000
        for s in (early, late):
            await s.wait_version(rid, end["v"], timeout=delay + 5)
        stream = {e["v"]: e for e in await server.ctx.store.events_since(rid, 0)}
        for s in (early, late):
            frames = s.event_frames(rid)
            assert frames, "no live events"
            for arrived, ev in frames:
                assert arrived >= ev["at"] + delay * 1000 - TOLERANCE_MS, (
                    f"{ev['k']} v{ev['v']} arrived {ev['at'] + delay * 1000 - arrived:.0f} ms "
                    "early")
            answered, watching = s.replies("watching")[0]
            for v in range(1, watching["v"] + 1):
                assert stream[v]["at"] <= answered - delay * 1000 + TOLERANCE_MS
            assert_consecutive(s.applied[rid])
            assert s.applied[rid][0] == watching["v"] + 1 and s.applied[rid][-1] == end["v"]
            assert frames[-1][1]["k"] == "end"
            assert frames[-1][0] >= racers_saw_end + delay * 1000 - 200  # racers aren't delayed
        assert_boards(racers, [early, late])

        casual = await alice.create_race("unlimited")
        assert (await late.watch(casual["race"]))["delay"] == 0.0


# ----------------------------------------------------------------------------- slow spectators


def connection_of(server: Server, sock: socket.socket) -> Any:
    """The server's side of a client socket (in-process server)."""
    assert server.ws is not None
    port = sock.getsockname()[1]
    return next(c for c in server.ws.connections if c.remote_address[1] == port)


async def timed_moves(racers: list[Racer], n: int, on_move: Any = None) -> list[float]:
    out = []
    for i in range(n):
        started = time.perf_counter()
        assert await racers[i % 2].step()
        out.append(time.perf_counter() - started)
        if on_move is not None:
            on_move()
    return out


async def test_slow_spectator_is_dropped_and_does_not_delay_racers(redis_url: str) -> None:
    """A spectator that stops reading fills its bounded send queue and is closed with 1013,
    while racers' acks stay as fast as without it and a healthy spectator keeps up.

    Loopback sockets buffer hundreds of kilobytes, so the slow spectator's link is made slow
    for real: a small receive buffer on its side, a small send buffer and write limit on the
    server's side of its socket (what a slow mobile link amounts to)."""
    async with running_server(redis_url, send_queue=8) as server, spectators(
        ws_url(server)
    ) as (healthy,):
        racers, rid = await race_on(server, redis_url)
        try:
            await healthy.watch(rid)
            baseline = await timed_moves(racers, 20)

            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            sock.connect(("127.0.0.1", server.port))
            slow = await connect(ws_url(server), sock=sock, max_queue=1, compression=None)
            await slow.send(P.encode({"t": "hello", "id": 1, "v": P.PROTOCOL_VERSION}))
            await slow.send(P.encode({"t": "watch", "id": 2, "race": rid}))
            await healthy.next_event(t="spectators", race=rid, count=2)
            link = connection_of(server, sock)
            link.transport.get_extra_info("socket").setsockopt(
                socket.SOL_SOCKET, socket.SO_SNDBUF, 2048)
            link.transport.set_write_buffer_limits(high=1024)

            drained: list[asyncio.Task[Any]] = []

            async def read_all() -> None:  # once dropped, read what is left and the close
                with contextlib.suppress(websockets.ConnectionClosed):
                    while True:
                        await slow.recv()

            def dropped_yet() -> None:
                if link.state is not State.OPEN and not drained:
                    drained.append(asyncio.create_task(read_all()))

            loaded = await timed_moves(racers, 120, dropped_yet)
            assert drained, "the slow spectator was never dropped"
            await asyncio.wait_for(drained[0], 5)
            assert slow.close_code == 1013, (slow.close_code, slow.close_reason)
            assert "send queue" in (slow.close_reason or "")

            base, load = statistics.median(baseline), statistics.median(loaded)
            assert load <= 3 * base + 0.05, (base, load)
            assert max(loaded) < 1.0, max(loaded)
            # the healthy spectator kept up with every move, and the race goes on
            await healthy.wait_version(rid, max(r.acks[-1]["v"] for r in racers))
            assert_boards(racers, [healthy])
            assert_consecutive(healthy.applied[rid])
            await healthy.next_event(t="spectators", race=rid, count=1)
        finally:
            await close_all(r.client for r in racers)


# ----------------------------------------------------------------------------- counts, listing


def count_frames(c: Spectator, rid: str) -> list[tuple[float, int]]:
    """(arrival ms, count) of every ``spectators`` frame the spectator received."""
    return [(t, m["count"]) for t, m in c.frames
            if m.get("t") == "spectators" and m.get("race") == rid]


async def test_spectator_counts_reach_racers_and_spectators(redis_url: str) -> None:
    async with running_server(redis_url) as server, spectators(
        ws_url(server), ws_url(server)
    ) as (s1, s2):
        cs, summary = await start_race(ws_url(server), redis_url, "forty-and-eight",
                                       ["alice", "bob"], cls=RecordingClient)
        rid = summary["race"]
        try:
            assert (await s1.watch(rid))["spectators"] == 1
            assert (await s2.watch(code=summary["code"]))["spectators"] == 2
            for c in cs:
                await c.next_event(t="spectators", race=rid, count=2)
            await s1.next_event(t="spectators", race=rid, count=2)  # s2 has it in its reply
            row = next(r for r in await live_rows(s1) if r["race"] == rid)
            assert (row["racers"], row["spectators"]) == (2, 2)

            assert (await s1.request("unwatch", race=rid))["t"] == "unwatched"
            for c in (*cs, s2):
                await c.next_event(t="spectators", race=rid, count=1)
            with pytest.raises(ClientError) as err:
                await s1.request("unwatch", race=rid)
            assert err.value.code == "not_watching"
            left_at = s1.last_v[rid]
            await s2.close()
            for c in cs:
                await c.next_event(t="spectators", race=rid, count=0)
            row = next(r for r in await live_rows(s1) if r["race"] == rid)
            assert row["spectators"] == 0
            assert s1.last_v[rid] == left_at, "an unwatched race kept sending events"
            assert not any(e.get("k") == "spectators" for c in cs for e in c.raw_events)
            assert [n for _, n in count_frames(s1, rid)][-1] == 2  # none after its unwatch
        finally:
            await close_all(cs)


async def test_visitors_coming_and_going_leave_the_event_log_alone(redis_url: str) -> None:
    """Issue 10 D: watch/unwatch add nothing to the race's durable log (its version stays),
    and what racers hear of it is coalesced to at most one count per second."""
    async with running_server(redis_url) as server, spectators(
        ws_url(server), ws_url(server)
    ) as (visitor, racer_view):
        cs, summary = await start_race(ws_url(server), redis_url, "unlimited",
                                       ["alice", "bob"], cls=RecordingClient)
        rid = summary["race"]
        try:
            await racer_view.watch(rid)  # stays: hears every count frame racers hear
            before = await race_version(redis_url, rid)
            for _ in range(30):
                await visitor.watch(rid)
                await visitor.request("unwatch", race=rid)
            assert await race_version(redis_url, rid) == before
            for c in cs:  # the latest count arrives: only the staying spectator
                await c.next_event(t="spectators", race=rid, count=1)
            synced = await cs[0].request("sync", race=rid, since=0)
            assert not any(e["k"] == "spectators" for e in synced["events"])
            await asyncio.sleep(1.2)  # let a pending coalesced frame go out
            frames = count_frames(racer_view, rid)
            assert frames[-1][1] == 1
            assert len(frames) < 10, frames  # 60 changes, coalesced
            gaps = [b - a for (a, _), (b, _) in itertools.pairwise(frames)]
            assert all(g >= 900 for g in gaps), gaps
        finally:
            await close_all(cs)


async def test_live_races_listing_pages_newest_first(redis_url: str) -> None:
    async with running_server(redis_url) as server, spectators(ws_url(server)) as (spec,):
        started: list[tuple[list[Any], dict[str, Any]]] = []
        for i in range(3):
            started.append(await start_race(ws_url(server), redis_url, "unlimited",
                                            [f"a{i}", f"b{i}"]))
        try:
            ids = [s["race"] for _, s in started]
            full = await live_rows(spec)
            async with asyncio.timeout(5):  # listed just after the start event: wait for it
                while len(full) < 3:
                    full = await live_rows(spec)
            assert [r["race"] for r in full] == ids[::-1]
            assert all(r["racers"] == 2 and r["state"] == "running" for r in full)
            assert [r["started_at"] for r in full] == sorted(
                (r["started_at"] for r in full), reverse=True)
            assert await pages(spec, 1) == [[ids[2]], [ids[1]], [ids[0]], []]
            assert await pages(spec, 2) == [[ids[2], ids[1]], [ids[0]]]
            # a finished race leaves the listing
            for c in started[1][0]:
                await c.resign(ids[1])
            await started[1][0][0].next_event(t="event", race=ids[1], k="end")
            assert [r["race"] for r in await live_rows(spec)] == [ids[2], ids[0]]
        finally:
            await close_all(c for cs, _ in started for c in cs)


async def pages(c: Client, limit: int) -> list[list[str]]:
    out, before = [], None
    for _ in range(10):
        reply = await c.request("races.live", limit=limit, before=before)
        out.append([r["race"] for r in reply["races"]])
        before = reply["next"]
        if before is None:
            return out
    raise AssertionError(f"paging did not end: {out}")


async def test_live_paging_keeps_races_that_started_in_the_same_millisecond(
    redis_url: str,
) -> None:
    """Two races whose countdowns ended in the same millisecond must not be split by a page
    boundary: the exclusive ``before`` cursor would skip the second one."""
    async with running_server(redis_url) as server, spectators(ws_url(server)) as (spec,):
        started = [await start_race(ws_url(server), redis_url, "unlimited", [f"a{i}", f"b{i}"])
                   for i in range(3)]
        try:
            ids = [s["race"] for _, s in started]
            r = redis_client(redis_url)
            try:  # the two newest races started at the same millisecond
                same = int(await r.zscore(Keys.LIVE, ids[2]))
                await r.zadd(Keys.LIVE, {ids[1]: same})
                await r.hset(Keys.race(ids[1]), "started_at", same)
            finally:
                await r.aclose()
            seen = [rid for page in await pages(spec, 1) for rid in page]
            assert sorted(seen) == sorted(ids), seen
            assert seen[-1] == ids[0]
        finally:
            await close_all(c for cs, _ in started for c in cs)


# ----------------------------------------------------------------------------- replays


async def test_finished_race_is_a_complete_replay(redis_url: str) -> None:
    """After the end, ``watch full`` returns every event from version 1: the deal's view, each
    move with its delta (replayed here on an engine built from the revealed seed) and the end
    with the seed; a plain ``watch`` returns the final boards and the end, and attaches to
    nothing."""
    async with two_servers(redis_url) as (one, two), spectators(ws_url(two)) as (spec,):
        racers, rid = await race_on(one, redis_url, "sixes-and-sevens")
        try:
            for _ in range(6):
                for r in racers:
                    await r.play(1)
            end = await end_race(racers)
            reply = await spec.watch(rid, full=True)
            events = reply["events"]
            assert [e["v"] for e in events] == list(range(1, end["v"] + 1))
            assert reply["v"] == end["v"] and reply["delay"] == 0.0 and reply["spectators"] == 0
            assert [e["k"] for e in events[:2]] == ["join", "join"]
            assert {k: v for k, v in events[-1].items() if k != "boards"} == {
                k: v for k, v in end.items() if k not in ("t", "race")}
            assert events[-1]["boards"] == {  # the spectator form of the end: final boards
                r.client.player: {"seq": len(r.game.moves), "view": view_of(r.game).wire()}
                for r in racers}
            assert not any("reveal" in e or MASKED in str(e) for e in events), "masked replay"
            seed = events[-1]["seed"]
            assert commitment(seed) == reply["race"]["commitment"]
            variant, options = reply["race"]["variant"], reply["race"]["options"]
            start = next(e for e in events if e["k"] == "start")
            assert start["view"] == view_of(Game(variant, options, seed)).wire()
            games = {r.client.player: Game(variant, options, seed) for r in racers}
            views = {pid: start["view"] for pid in games}
            for e in events:
                if e["k"] == "progress" and "move" in e:
                    games[e["player"]].push(e["move"])
                    views[e["player"]] = apply_delta(views[e["player"]], e["delta"])
                    assert views[e["player"]] == view_of(games[e["player"]]).wire()
            for r in racers:
                assert [m.text() for m in games[r.client.player].moves] == [
                    m.text() for m in r.game.moves]
            assert_boards(racers, [spec])

            snap = await spec.watch(rid)
            assert snap["end"] == events[-1] and snap["v"] == end["v"]
            assert {pid: b["view"] for pid, b in snap["boards"].items()} == {
                r.client.player: view_of(r.game).wire() for r in racers}
            assert {pid: b["seq"] for pid, b in snap["boards"].items()} == {
                r.client.player: len(r.game.moves) for r in racers}
            tail = await spec.watch(rid, since=end["v"] - 1)
            assert tail["events"] == [events[-1]]
            assert rid not in two.ctx.hub._races, "a finished race attached a spectator"
            # a racer may watch the replay of their own race once it is over
            own = await racers[0].client.request("watch", race=rid, full=True)
            assert own["events"] == events
        finally:
            await close_all(r.client for r in racers)


# ----------------------------------------------------------------------------- refusals


async def test_racers_watch_their_own_live_race_only_from_another_connection(
        redis_url: str) -> None:
    """A connection that races in a race cannot also watch it (``not_watchable``, and the
    refusal leaves it attached as a racer); another connection of the same player can, and
    sees what any spectator sees: masked boards."""
    async with running_server(redis_url) as server, clients(
        ws_url(server), "alice", "bob"
    ) as (alice, bob):
        summary = await alice.create_race("unlimited")
        rid = summary["race"]
        await bob.join(code=summary["code"])
        for when in ("lobby", "running"):
            for c in (alice, bob):
                with pytest.raises(ClientError) as err:
                    await c.request("watch", race=rid)
                assert err.value.code == "not_watchable", when
                with pytest.raises(ClientError) as err:
                    await c.request("watch", code=summary["code"], full=True)
                assert err.value.code == "not_watchable", when
            if when == "lobby":
                for c in (alice, bob):
                    await c.ready(rid)
                for c in (alice, bob):
                    await c.wait_running(rid)
        # the refusal left the racers attached as racers: no move or delta reaches them
        secrets = await race_info(redis_url, rid)
        racers = [Racer(c, rid, secrets.game()) for c in (alice, bob)]
        second = Spectator(ws_url(server), token=alice.token)
        try:
            assert (await second.connect())["player"] == alice.player
            snap = await second.watch(rid)
            assert set(snap["boards"]) == {alice.player, bob.player}
            for _ in range(6):
                for r in racers:
                    ack = await step_and_check(r, racers, [second])
            ev = await bob.next_event(t="event", race=rid, k="progress", v=ack["v"] - 1)
            assert "delta" not in ev and "move" not in ev
        finally:
            await second.close()


async def test_daily_and_practice_games_are_not_watchable(redis_url: str) -> None:
    async with running_server(redis_url) as server, accounts(ws_url(server), "alice") as (
        alice,), spectators(ws_url(server)) as (spec,):
        ctx = server.ctx
        assert ctx is not None
        name, opts = ctx.daily.variant_name("unlimited")
        seed = 0x5EED_0F_DA11
        await ctx.store.save_daily(await ctx.daily.today(), name, {
            "seed": str(seed), "candidate": "0", "commitment": commitment(seed), "par": "90",
            "nodes": "1", "options": options_text(opts), "certified_at": "0"})

        async def refused(rid: str) -> None:
            for c in (spec, alice):
                for fields in ({}, {"full": True}, {"since": 1}):
                    with pytest.raises(ClientError) as err:
                        await c.request("watch", race=rid, **fields)
                    assert err.value.code == "not_watchable", fields

        daily = (await alice.request("daily.start", variant="unlimited"))["race"]
        assert daily["kind"] == "daily"
        await refused(daily["race"])
        await alice.resign(daily["race"])
        await alice.next_event(t="event", race=daily["race"], k="end")
        await refused(daily["race"])  # finished, and still private
        practice = (await alice.request("daily.start", variant="unlimited", practice=True))["race"]
        assert practice["kind"] == "practice"
        await refused(practice["race"])
        assert (await live_rows(spec)) == []  # neither is listed as a live race


async def test_a_racers_sync_is_followed_by_the_spectator_count(redis_url: str) -> None:
    """The count is a frame sent when it changes; a racer attaching again (back from a
    reload: a new connection's sync) gets the count at once instead of reading 0 until the
    next change."""
    async with running_server(redis_url) as server:
        url = ws_url(server)
        racers, summary = await start_race(url, redis_url, "unlimited", ["amy", "bea"])
        rid = summary["race"]
        try:
            async with clients(url, "eve") as (eve,):
                await eve.request("watch", race=rid)
                for c in racers:
                    await c.next_event(t="spectators", race=rid, count=1)
                await racers[0].sync(rid)  # attaching again, as after a reload
                await racers[0].next_event(t="spectators", race=rid, count=1)
        finally:
            for c in racers:
                await c.close()
