"""Race homes (docs/protocol.md section 8.1): a race names the process that created it, a racer
served elsewhere is told so, and the reference client moves there — with nothing about the
game depending on whether it does.

Two in-process servers share one real Redis (``one`` and ``two``, as in the spectating tests).
What "delivered locally" means is read from Redis itself: the race's ``procs`` field (the
processes following its channel) and the ``PUBLISH`` count of ``INFO commandstats`` (commands
inside scripts count), which a move skips when no other process follows the race.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from harness import (
    Racer,
    RecordingClient,
    close_all,
    race_info,
    read_log,
    redis_client,
    running_server,
    ws_url,
)
from solrace.client.library import Client
from solrace.server.ops.app import Server
from solrace.server.store import Keys


@contextlib.asynccontextmanager
async def two_servers(redis_url: str, **one_overrides: Any) -> Any:
    async with running_server(redis_url, process_id="one", **one_overrides) as a, \
            running_server(redis_url, process_id="two") as b:
        yield a, b


async def publishes(redis_url: str) -> int:
    r = redis_client(redis_url)
    try:
        stats = await r.info("commandstats")
    finally:
        await r.aclose()
    return int(stats.get("cmdstat_publish", {}).get("calls", 0))


async def procs(redis_url: str, rid: str) -> set[str]:
    r = redis_client(redis_url, decode=True)
    try:
        raw = await r.hget(Keys.race(rid), "procs")
    finally:
        await r.aclose()
    return set(raw.split(",")) if raw else set()


async def racers(redis_url: str, rid: str, *cs: Client) -> list[Racer]:
    secrets = await race_info(redis_url, rid)
    return [Racer(c, rid, secrets.game()) for c in cs]


async def play_alternately(rs: list[Racer], rounds: int) -> None:
    for _ in range(rounds):
        for r in rs:
            if not r.over:
                await r.step()


async def settle(*cs: Client) -> None:
    """Let every event in flight arrive (events are not replies: nothing to await)."""
    for c in cs:
        await c.request("ping")
    await asyncio.sleep(0.1)


def test_advertised_url_is_configured_or_the_listeners_own() -> None:
    """Checked on the config alone: see test_config.py for the parsing."""
    from harness import make_config

    server = Server(make_config("redis://127.0.0.1:1/0", advertise_url="wss://lb.example/a"))
    assert server.advertised == "wss://lb.example/a"
    assert Server(make_config("redis://127.0.0.1:1/0", advertise_url="")).advertised == ""


async def test_listener_url_is_the_default_home(redis_url: str) -> None:
    async with running_server(redis_url) as server:  # 127.0.0.1, port 0: bound, then known
        assert server.advertised == ws_url(server)
        async with Client(ws_url(server), name="alice") as alice:
            summary = await alice.create_race("unlimited")
            assert "home" not in summary  # the creator is home
        meta = await race_info(redis_url, summary["race"])
        assert meta.variant == "unlimited"
        r = redis_client(redis_url, decode=True)
        try:
            assert await r.hget(Keys.race(summary["race"]), "home_url") == ws_url(server)
        finally:
            await r.aclose()


async def test_joiner_on_another_process_moves_home_and_events_stay_local(
        redis_url: str) -> None:
    async with two_servers(redis_url) as (one, two):
        alice = RecordingClient(ws_url(one), name="alice")
        bob = RecordingClient(ws_url(two), name="bob")
        stay = Client(ws_url(two), name="carol", follow_home=False)
        try:
            for c in (alice, bob, stay):
                await c.connect()
            created = await alice.create_race("unlimited", seats=3)
            rid = created["race"]
            seen = await stay.join(code=created["code"])
            assert seen["home"] == ws_url(one)  # told, and stays: it asked not to move
            assert stay.connected_url == ws_url(two)
            await stay.leave(rid)
            joined = await bob.join(code=created["code"])
            assert joined["home"] == ws_url(one)
            assert bob.connected_url == ws_url(one) and bob.url == ws_url(two)
            for c in (alice, bob):
                await c.ready(rid)
            for c in (alice, bob):
                await c.wait_running(rid)
            assert await procs(redis_url, rid) == {one.ctx.store.process}
            assert two.ctx.hub.race_watchers(rid) == 0
            before = await publishes(redis_url)
            rs = await racers(redis_url, rid, alice, bob)
            await play_alternately(rs, 6)
            await settle(alice, bob)
            assert await publishes(redis_url) == before  # no pub/sub: one process serves both
            for me, rival in ((alice, rs[1]), (bob, rs[0])):
                covered = set(me.versions_covered(rid))
                rival_vs = {a["v"] for a in rival.acks}
                assert rival_vs <= covered, "a rival's move did not reach this racer"
            # the move did not fork bob's game: the log holds exactly the moves acked
            assert await read_log(redis_url, rid, bob.player or "") == \
                [m.text() for m in rs[1].game.moves]
        finally:
            await close_all([alice, bob, stay])


async def test_a_racer_who_stays_plays_across_processes_as_before(redis_url: str) -> None:
    async with two_servers(redis_url) as (one, two):
        alice = RecordingClient(ws_url(one), name="alice")
        bob = RecordingClient(ws_url(two), name="bob", follow_home=False)
        try:
            for c in (alice, bob):
                await c.connect()
            created = await alice.create_race("unlimited")
            rid = created["race"]
            assert (await bob.join(code=created["code"]))["home"] == ws_url(one)
            for c in (alice, bob):
                await c.ready(rid)
            for c in (alice, bob):
                await c.wait_running(rid)
            assert await procs(redis_url, rid) == {one.ctx.store.process,
                                                   two.ctx.store.process}
            before = await publishes(redis_url)
            rs = await racers(redis_url, rid, alice, bob)
            await play_alternately(rs, 5)
            await settle(alice, bob)
            assert await publishes(redis_url) > before  # cross-process delivery
            assert {a["v"] for a in rs[0].acks} <= set(bob.versions_covered(rid))
            assert {a["v"] for a in rs[1].acks} <= set(alice.versions_covered(rid))
            assert bob.connected_url == ws_url(two)
        finally:
            await close_all([alice, bob])


async def test_a_move_in_flight_survives_the_move_home(redis_url: str) -> None:
    """Bob races dave on process two (its home) and waits for a quick pairing too. With a
    move of his race in flight, carol's ``quick`` on one pairs with him: the ``matched`` frame
    names one, and he moves there with both races. The move's ack arrives on the old
    connection, his board stays the replica's, the next moves go through one (across
    processes now, for that race), and his log holds every move once."""
    async with two_servers(redis_url) as (one, two):
        dave = Client(ws_url(two), name="dave")
        bob = RecordingClient(ws_url(two), name="bob")
        carol = Client(ws_url(one), name="carol")
        game_lock: asyncio.Lock | None = None
        try:
            for c in (dave, bob, carol):
                await c.connect()
            created = await dave.create_race("unlimited")
            rid = created["race"]
            assert "home" not in await bob.join(code=created["code"])
            for c in (dave, bob):
                await c.ready(rid)
            for c in (dave, bob):
                await c.wait_running(rid)
            rs = await racers(redis_url, rid, dave, bob)
            await play_alternately(rs, 2)
            assert (await bob.quick("unlimited"))["t"] == "queued"
            # Hold bob's game on two (the lock every move of it takes): the move is surely
            # still in flight when the client has switched to one.
            game_lock = two.ctx.races.games[(rid, bob.player or "")].lock
            await game_lock.acquire()
            in_flight = asyncio.create_task(rs[1].step())
            await asyncio.sleep(0.05)
            paired = await carol.quick("unlimited")
            assert paired["t"] == "race"
            async with asyncio.timeout(10):
                while bob.connected_url != ws_url(one):
                    await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)
            assert not in_flight.done()  # switched, and waiting for the ack on two
            game_lock.release()
            game_lock = None
            assert await asyncio.wait_for(in_flight, 10) is not None
            await bob.request("ping")  # once the move home is over
            rs[1].board_matches()
            await play_alternately(rs, 4)
            await settle(dave, bob)
            assert await procs(redis_url, rid) == {one.ctx.store.process,
                                                   two.ctx.store.process}
            assert await procs(redis_url, paired["race"]["race"]) == {one.ctx.store.process}
            assert await read_log(redis_url, rid, bob.player or "") == \
                [m.text() for m in rs[1].game.moves]
            assert {a["v"] for a in rs[0].acks} <= set(bob.versions_covered(rid))
            seen = bob.versions_seen(rid)
            assert len(seen) == len(set(seen)), "an event was delivered twice across the move"
        finally:
            if game_lock is not None:
                game_lock.release()
            await close_all([dave, bob, carol])


async def test_quick_pairing_home_is_the_pairing_process(redis_url: str) -> None:
    """The player who waits on one gets ``matched`` naming two (where the pairing created the
    race) and moves there before its next request."""
    async with two_servers(redis_url) as (one, two):
        waiting = Client(ws_url(one), name="alice")
        arriving = Client(ws_url(two), name="bob")
        try:
            for c in (waiting, arriving):
                await c.connect()
            assert (await waiting.quick("unlimited"))["t"] == "queued"
            reply = await arriving.quick("unlimited")
            assert "home" not in reply["race"]
            rid = reply["race"]["race"]
            matched = await waiting.next_event(t="matched")
            assert matched["race"]["home"] == ws_url(two)
            await waiting.wait_running(rid)
            await waiting.request("ping")  # waits for the move home
            assert waiting.connected_url == ws_url(two)
            rs = await racers(redis_url, rid, waiting, arriving)
            await play_alternately(rs, 3)
            assert await procs(redis_url, rid) == {two.ctx.store.process}
        finally:
            await close_all([waiting, arriving])


async def test_a_rematch_is_at_home_where_it_was_asked_for(redis_url: str) -> None:
    """Alice (on one) and bob (on two, staying) finish a race; bob asks for the rematch on
    two, so two is its home: alice's offer names it, and joining moves her there."""
    async with two_servers(redis_url) as (one, two):
        alice = Client(ws_url(one), name="alice")
        bob = Client(ws_url(two), name="bob", follow_home=False)
        try:
            for c in (alice, bob):
                await c.connect()
            created = await alice.create_race("unlimited")
            rid = created["race"]
            await bob.join(code=created["code"])
            for c in (alice, bob):
                await c.ready(rid)
            for c in (alice, bob):
                await c.wait_running(rid)
            for c in (alice, bob):
                await c.resign(rid)
            for c in (alice, bob):
                await c.next_event(t="event", race=rid, k="end")
            again = await bob.rematch(rid)
            assert "home" not in again  # bob's process created it
            offer = await alice.next_event(t="rematch")
            assert offer["race"]["race"] == again["race"]
            assert offer["race"]["home"] == ws_url(two)
            assert alice.connected_url == ws_url(one)  # an offer moves nobody
            await alice.join(race=again["race"])
            assert alice.connected_url == ws_url(two)
            for c in (alice, bob):
                await c.ready(again["race"])
            for c in (alice, bob):
                await c.wait_running(again["race"])
            assert await procs(redis_url, again["race"]) == {two.ctx.store.process}
        finally:
            await close_all([alice, bob])


async def test_an_unreachable_home_leaves_the_client_where_it_is(redis_url: str) -> None:
    """Process one advertises a URL nobody listens on (a configured value, never derived from
    a client): bob is told, cannot get there, and races from two as before."""
    async with two_servers(redis_url, advertise_url="ws://127.0.0.1:9/") as (one, two):
        alice = Client(ws_url(one), name="alice")
        bob = Client(ws_url(two), name="bob")
        try:
            for c in (alice, bob):
                await c.connect()
            created = await alice.create_race("unlimited")
            assert "home" not in created  # one is home, whatever URL it gives for that
            rid = created["race"]
            assert (await bob.join(code=created["code"]))["home"] == "ws://127.0.0.1:9/"
            assert bob.connected_url == ws_url(two)
            for c in (alice, bob):
                await c.ready(rid)
            for c in (alice, bob):
                await c.wait_running(rid)
            rs = await racers(redis_url, rid, alice, bob)
            await play_alternately(rs, 3)
            assert all(len(r.acks) == 3 for r in rs)
        finally:
            await close_all([alice, bob])


async def test_a_home_that_refuses_the_session_leaves_the_client_where_it_is(
        redis_url: str, private_redis: Any) -> None:
    """The advertised URL reaches a server of another deployment (its own Redis): the
    ``hello`` there is refused (``bad_token``), and bob races on from two, on the connection
    he had, without a stray ``closed``."""
    async with running_server(private_redis.url, process_id="elsewhere") as elsewhere, \
            two_servers(redis_url, advertise_url=ws_url(elsewhere)) as (one, two):
        alice = Client(ws_url(one), name="alice")
        bob = Client(ws_url(two), name="bob")
        try:
            for c in (alice, bob):
                await c.connect()
            created = await alice.create_race("unlimited")
            rid = created["race"]
            before = bob.ws
            assert (await bob.join(code=created["code"]))["home"] == ws_url(elsewhere)
            assert bob.connected_url == ws_url(two) and bob.ws is before
            for c in (alice, bob):
                await c.ready(rid)
            for c in (alice, bob):
                await c.wait_running(rid)
            rs = await racers(redis_url, rid, alice, bob)
            await play_alternately(rs, 3)
            assert all(len(r.acks) == 3 for r in rs)
            assert not any(m.get("t") == "closed" for m in list(bob._events._queue))
        finally:
            await close_all([alice, bob])


@pytest.mark.parametrize("kind", ["off", "practice"])
async def test_no_home_without_an_address_nor_for_solo_games(redis_url: str, kind: str
                                                             ) -> None:
    """``--advertise-url off``: races created there have no home, so nobody is told one; a
    practice race (one person and bots) never has one."""
    extra = {"advertise_url": ""} if kind == "off" else {}
    async with two_servers(redis_url, **extra) as (one, two):
        alice = Client(ws_url(one), name="alice")
        bob = Client(ws_url(two), name="bob")
        try:
            for c in (alice, bob):
                await c.connect()
            if kind == "off":
                created = await alice.create_race("unlimited")
                joined = await bob.join(code=created["code"])
                assert "home" not in joined and bob.connected_url == ws_url(two)
                return
            started = await alice.practice_start("unlimited", bots=["weak"])
            await alice.close()
            resumed = Client(ws_url(two), token=alice.token)
            async with resumed:
                synced = await resumed.sync(started["race"])
                assert "home" not in synced["race"]
                assert resumed.connected_url == ws_url(two)
        finally:
            await close_all([alice, bob])


def test_the_home_field_is_documented_wherever_it_can_appear() -> None:
    """docs/protocol.md is the contract: the summary's ``home`` field, section 8.1, and every
    message that carries a summary (so may carry ``home``) named there."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    assert "| `home` | str |" in doc.split("### 6.1 Race summary")[1].split("### 6.2")[0]
    section = doc.split("### 8.1 Race homes (optional)")[1].split("## 9.")[0]
    for carrier in ("`race.join`", "`quick`", "`race.rematch`", "`races`", "`welcome.races`",
                    "`synced`", "`watching`", "`matched`", "`rematch`"):
        assert carrier in section, f"section 8.1 does not name {carrier}"
    for flag in ("--advertise-url", "SOLRACE_ADVERTISE_URL", "follow_home",
                 "--no-follow-home", "SOLRACE_FOLLOW_HOME"):
        assert flag in section, flag
    for heading in ("### 5.4 `race.join`", "### 7.2 `matched`", "### 7.5 `rematch`"):
        part = doc.split(heading)[1].split("\n### ")[0]
        assert "`home`" in part and "8.1" in part, heading
