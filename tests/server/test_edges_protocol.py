"""Issue 10, items A, B and E: what an independent client written from docs/protocol.md found.

* A — every out-of-range integer (and an impossible date) in a request is ``bad_message``,
  never ``unavailable``: client input is not an outage to retry forever.
* B — a slow request (a daily being certified) blocks neither pings nor other requests nor the
  connection's keepalive, with more frames pipelined behind it than the websocket layer
  buffers.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from harness import RawConnection, running_server, ws_url
from redis import exceptions as rx
from solrace.server.ops.faults import is_outage
from solrace.server.session import connection
from solrace.shared import protocol as P

pytestmark = pytest.mark.timeout(120)

HUGE = 2**64 - 1


async def _code(conn: RawConnection, kind: str, **fields: Any) -> str:
    reply = await conn.request(kind, **fields)
    return str(reply.get("code", reply["t"]))


async def test_out_of_range_integers_are_bad_message_not_unavailable(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        conn = await RawConnection.open(ws_url(server))
        await conn.hello("alice")
        race = (await conn.request("race.create", variant="unlimited"))["race"]["race"]
        for since in (HUGE, 2**63, 2**53):
            assert await _code(conn, "sync", race=race, since=since) == "bad_message", since
            assert await _code(conn, "watch", race=race, since=since) == "bad_message", since
            assert await _code(conn, "move", race=race, seq=since, move="sw") == "bad_message"
        assert await _code(conn, "sync", race=race, since=2**53 - 1) == "synced"
        for offset in (2**63, HUGE, 2**53):
            assert await _code(conn, "leaderboard", variant="unlimited",
                               offset=offset) == "bad_message", offset
        assert await _code(conn, "races.live", before=HUGE) == "bad_message"
        assert await _code(conn, "races.live", before=-1) == "bad_message"
        assert await _code(conn, "races.live", before=2**53 - 1) == "live"
        for date in ("2026-13-45", "2026-02-30", "2026-00-10"):
            assert await _code(conn, "leaderboard", variant="unlimited",
                               date=date) == "bad_message", date
        assert await _code(conn, "leaderboard", variant="unlimited", date="2024-02-29"
                           ) == "leaderboard"
        # a move's length counts after the surrounding spaces are removed (section 9.2)
        padded = "   sw" + " " * 20
        assert await _code(conn, "move", race=race, seq=0, move=padded) != "bad_notation"
        await conn.close()


def test_command_errors_are_bugs_not_outages() -> None:
    """A command Redis refused is a malformed command (a bug: ``internal``); only a store
    that cannot serve is an outage (``unavailable``)."""
    assert not is_outage(rx.ResponseError("Invalid stream ID specified as stream command"))
    assert not is_outage(rx.ResponseError("value is not an integer or out of range"))
    assert not is_outage(rx.DataError("Invalid input of type: 'NoneType'"))
    for exc in (rx.ConnectionError("refused"), rx.TimeoutError("slow"), OSError("reset"),
                rx.ReadOnlyError("You can't write against a read only replica."),
                rx.BusyLoadingError("Redis is loading"),
                rx.ResponseError("BUSY Redis is busy running a script"),
                rx.ClusterDownError("The cluster is down")):
        assert is_outage(exc), exc


async def test_a_slow_daily_blocks_neither_pings_nor_keepalive(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first ``daily`` of a day waits while its deal is certified. A test double makes
    that wait last until the test releases it; meanwhile 60 pipelined pings (more than the
    websocket layer buffers, 16) are all answered and the connection survives several
    keepalive intervals (0.2 s)."""
    async with running_server(redis_url, ping_interval=0.2) as server:
        daily = server.ctx.daily
        release = asyncio.Event()
        original = daily.get

        async def slow_get(*args: Any, **kwargs: Any) -> Any:
            await release.wait()
            return await original(*args, **kwargs)

        monkeypatch.setattr(daily, "get", slow_get)
        conn = await RawConnection.open(ws_url(server))
        await conn.hello("alice")
        await conn.send(P.encode({"t": "daily", "id": "slow", "variant": "sixes-and-sevens"}))
        pings = 60
        for i in range(pings):
            await conn.send(P.encode({"t": "ping", "id": i}))
        pongs = set()
        while len(pongs) < pings:
            msg = await conn.recv(timeout=5)
            assert msg.get("re") != "slow", "the slow request answered before the test let it"
            assert msg["t"] == "pong", msg
            pongs.add(msg["re"])
        await asyncio.sleep(1.0)  # five keepalive intervals with the slow request still open
        assert (await conn.request("ping"))["t"] == "pong"
        created = await conn.request("race.create", variant="unlimited")
        assert created["t"] == "race", created
        release.set()
        async with asyncio.timeout(60):
            while True:
                msg = await conn.recv(timeout=60)
                if msg.get("re") == "slow":
                    break
        assert msg["t"] == "daily", msg
        await conn.close()


async def test_pipelining_beyond_the_depth_is_refused_not_stalled(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Frames beyond PIPELINE_DEPTH waiting for the in-order worker get ``rate_limited`` at
    once (the reader never stops reading); the ones within it are all answered, in order."""
    monkeypatch.setattr(connection, "PIPELINE_DEPTH", 5)
    async with running_server(redis_url) as server:
        races = server.ctx.races
        release = asyncio.Event()
        original = races.record

        async def slow_record(*args: Any, **kwargs: Any) -> Any:
            await release.wait()
            return await original(*args, **kwargs)

        conn = await RawConnection.open(ws_url(server))
        await conn.hello("alice")
        monkeypatch.setattr(races, "record", slow_record)
        # the first sync holds the worker; 5 pings wait; the rest overflow
        await conn.send(P.encode({"t": "sync", "id": "held", "race": "0123456789abcdef"}))
        await asyncio.sleep(0.2)
        for i in range(8):
            await conn.send(P.encode({"t": "ping", "id": i}))
        refused = [await conn.recv() for _ in range(3)]
        assert [(m["t"], m["code"], m["re"]) for m in refused] == [
            ("error", "rate_limited", i) for i in (5, 6, 7)], refused
        release.set()
        first = await conn.recv()
        assert first["re"] == "held", first
        assert [(await conn.recv())["re"] for _ in range(5)] == [0, 1, 2, 3, 4]
        await conn.close()


async def test_two_hundred_pipelined_pings_serve_every_frame_that_found_room(
        redis_url: str) -> None:
    """200 pings sent at once on a fresh connection (a full bucket of 100): the frame that
    finds the worker idle and the 64 that find room in the queue paid their token when they
    arrived, so all 65 are answered ``pong`` — the 135 refused for a full queue (or an empty
    bucket) do not drain the bucket under them."""
    async with running_server(redis_url, rate=50.0, burst=100) as server:
        conn = await RawConnection.open(ws_url(server))
        await conn.hello("alice")
        await asyncio.sleep(2.5)  # the bucket refills after hello: 100 tokens
        await conn.send_many([P.encode({"t": "ping", "id": i}) for i in range(200)])
        replies = [await conn.recv(timeout=10) for _ in range(200)]
        pongs = sorted(m["re"] for m in replies if m["t"] == "pong")
        refused = [m for m in replies if m["t"] == "error"]
        assert all(m["code"] == "rate_limited" for m in refused), refused[:3]
        assert len(pongs) >= connection.PIPELINE_DEPTH, (len(pongs), len(refused))
        assert pongs[:connection.PIPELINE_DEPTH] == list(range(connection.PIPELINE_DEPTH))
        assert len(pongs) + len(refused) == 200
        await conn.close()
