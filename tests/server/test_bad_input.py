"""Bad input over a real websocket: every bad frame gets an error code, the connection survives
when it can, and nothing a client sends crashes the server or touches another player's game."""

from __future__ import annotations

import asyncio
import time

import msgpack
import pytest
from harness import RawConnection, choose_move, clients, race_info, running_server, ws_url
from solrace.client.library import Client, ClientError
from solrace.server.session import connection
from solrace.shared import protocol as P
from solrace.shared.pointing import legal_texts
from solrace.shared.views import view_of
from websockets.exceptions import ConnectionClosed

pytestmark = pytest.mark.timeout(60)


async def assert_usable(conn: RawConnection) -> None:
    """The connection still answers requests."""
    pong = await conn.request("ping")
    assert pong["t"] == "pong", pong


def pack(obj: object) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


MALFORMED: list[tuple[str, bytes | str, str]] = [
    ("text frame", '{"t": "ping", "id": 1}', "bad_message"),
    ("garbage bytes", b"\xc1\xff\x00\x13garbage", "bad_message"),
    ("truncated msgpack", pack({"t": "ping", "id": 1})[:-3], "bad_message"),
    ("empty frame", b"", "bad_message"),
    ("a list, not a map", pack(["ping", 1]), "bad_message"),
    ("an integer", pack(42), "bad_message"),
    ("no type field", pack({"id": 5}), "bad_message"),
    ("non-string type", pack({"t": 7, "id": 5}), "bad_message"),
    ("unknown type", pack({"t": "teleport", "id": 5}), "unknown_type"),
    ("integer map keys", pack({1: "ping"}), "bad_message"),
    ("nesting bomb", b"\x91" * 60_000 + b"\xc0", "bad_message"),
    ("huge declared map", b"\xdf\xff\xff\xff\xff", "bad_message"),
    ("huge declared string", b"\x81\xa1t\xdb\xff\xff\xff\xff", "bad_message"),
    ("ext type", pack({"t": "ping", "x": msgpack.ExtType(5, b"abc")}), "bad_message"),
]

WRONG_FIELDS: list[tuple[str, dict[str, object], str]] = [
    ("seq as text", {"t": "move", "race": "0123456789abcdef", "seq": "3", "move": "sw"},
     "bad_message"),
    ("seq as bool", {"t": "move", "race": "0123456789abcdef", "seq": True, "move": "sw"},
     "bad_message"),
    ("negative seq", {"t": "move", "race": "0123456789abcdef", "seq": -1, "move": "sw"},
     "bad_message"),
    ("move as bytes", {"t": "move", "race": "0123456789abcdef", "seq": 0, "move": b"sw"},
     "bad_message"),
    ("missing field", {"t": "move", "race": "0123456789abcdef", "seq": 0}, "bad_message"),
    ("unknown field", {"t": "ping", "please": 1}, "bad_message"),
    ("id as list", {"t": "ping", "id": [1]}, "bad_message"),
    ("options not a map", {"t": "race.create", "variant": "unlimited", "options": "draw=3"},
     "bad_message"),
    ("seats as float", {"t": "race.create", "variant": "unlimited", "seats": 2.0},
     "bad_message"),
    ("race id of bad shape", {"t": "sync", "race": "../../etc"}, "race_not_found"),
    ("move text too long", {"t": "move", "race": "0123456789abcdef", "seq": 0,
                            "move": "t1t2" * 10}, "bad_notation"),
]  # fmt: skip


async def test_malformed_frames_get_errors_and_the_connection_survives(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        conn = await RawConnection.open(ws_url(server))
        try:
            await conn.hello("alice")
            for label, frame, code in MALFORMED:
                await conn.send(frame)
                reply = await conn.recv()
                assert reply["t"] == "error", (label, reply)
                assert reply["code"] == code, (label, reply)
                assert reply["reason"], label
                await assert_usable(conn)
            for label, fields, code in WRONG_FIELDS:
                await conn.send(pack({**fields, "id": f"r-{label}"}
                                     if "id" not in fields else fields))
                reply = await conn.recv()
                assert (reply["t"], reply["code"]) == ("error", code), (label, reply)
                if "id" not in fields:  # the id is echoed when it could be read
                    assert reply.get("re") == f"r-{label}", (label, reply)
                await assert_usable(conn)
        finally:
            await conn.close()


async def test_oversized_frame_closes_1009_and_others_carry_on(redis_url: str) -> None:
    """Frames above ``--max-frame`` are refused by the websocket layer with close code 1009;
    the server keeps serving everyone else, and the same player can come back."""
    async with running_server(redis_url, max_frame=16 * 1024) as server:
        url = ws_url(server)
        async with clients(url, "bob") as (bob,):
            conn = await RawConnection.open(url, max_size=None)
            welcome = await conn.hello("alice")
            big = pack({"t": "ping", "id": 1, "pad": "x" * 4000, "more": b"y" * 30_000})
            assert len(big) > 16 * 1024
            await conn.send(big)
            with pytest.raises(ConnectionClosed) as closed:
                await conn.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
            assert (await bob.request("ping"))["t"] == "pong"
            again = Client(url, token=None, name="carol")
            await again.connect()
            await again.close()
            assert welcome["player"]


async def test_frame_over_the_protocol_limit_gets_too_large(redis_url: str) -> None:
    """With a websocket limit above the protocol's own (``protocol.MAX_FRAME``), a frame in
    between gets a ``too_large`` error and the connection stays usable."""
    async with running_server(redis_url, max_frame=4 * P.MAX_FRAME) as server:
        conn = await RawConnection.open(ws_url(server), max_size=None)
        try:
            await conn.hello("alice")
            await conn.send(pack({"t": "ping", "id": 9, "pad": b"z" * (P.MAX_FRAME + 10)}))
            reply = await conn.recv()
            assert (reply["t"], reply["code"]) == ("error", "too_large"), reply
            await assert_usable(conn)
        finally:
            await conn.close()


async def test_requests_before_hello_are_not_authenticated(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        conn = await RawConnection.open(ws_url(server))
        try:
            for kind, fields in (
                ("ping", {}),
                ("race.create", {"variant": "unlimited"}),
                ("race.join", {"code": "ABCDEF"}),
                ("move", {"race": "0123456789abcdef", "seq": 0, "move": "sw"}),
                ("sync", {"race": "0123456789abcdef"}),
                ("quick", {"variant": "unlimited"}),
            ):
                reply = await conn.request(kind, **fields)
                assert (reply["t"], reply["code"]) == ("error", "not_authenticated"), (kind, reply)
            welcome = await conn.hello("alice")  # the same connection may still say hello
            assert welcome["name"] == "alice"
            again = await conn.request("hello", v=P.PROTOCOL_VERSION, name="alice2")
            assert again["code"] == "already_authenticated"
        finally:
            await conn.close()


async def test_anonymous_connection_may_not_race(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        conn = await RawConnection.open(ws_url(server))
        try:
            welcome = await conn.request("hello", v=P.PROTOCOL_VERSION)
            if welcome["t"] == "error":  # anonymous hello not offered: nothing more to check
                assert welcome["code"] == "bad_message", welcome
                return
            assert welcome["player"] is None
            for kind, fields in (
                ("race.create", {"variant": "unlimited"}),
                ("quick", {"variant": "unlimited"}),
                ("move", {"race": "0123456789abcdef", "seq": 0, "move": "sw"}),
            ):
                reply = await conn.request(kind, **fields)
                assert reply.get("code") == "not_authenticated", (kind, reply)
            await assert_usable(conn)
        finally:
            await conn.close()


async def test_hello_validation(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        url = ws_url(server)
        conn = await RawConnection.open(url)
        try:
            for name in ("a", "x" * 21, "has space", "_lead", "-lead", "émile", "semi;colon",
                         "tab\tname", ""):
                reply = await conn.request("hello", v=P.PROTOCOL_VERSION, name=name)
                assert reply.get("code") == "bad_name", (name, reply)
            reply = await conn.request("hello", v=2, name="alice")
            assert reply.get("code") == "unsupported_version", reply
            assert P.PROTOCOL_VERSION in reply["supported"]
            reply = await conn.request("hello", v=P.PROTOCOL_VERSION, token="short")
            assert reply.get("code") == "bad_token", reply
            reply = await conn.request("hello", v=P.PROTOCOL_VERSION, token="x" * 32)
            assert reply.get("code") == "bad_token", reply
            ok = await conn.hello("Alice_1.x-y")  # the allowed characters
            token = ok["token"]
            assert len(token) >= 22, "a token must carry at least 128 bits"
        finally:
            await conn.close()

        taken = Client(url, name="alice_1.X-Y")  # names are unique case-insensitively
        with pytest.raises(ClientError) as err:
            await taken.connect()
        assert err.value.code == "name_taken"
        await taken.close()

        resumed = Client(url, token=token)
        welcome = await resumed.connect()
        assert (welcome["player"], welcome["name"]) == (ok["player"], "Alice_1.x-y")
        assert "token" not in welcome
        await resumed.close()


async def test_rate_limit(redis_url: str) -> None:
    async with running_server(redis_url, rate=5.0, burst=5) as server:
        conn = await RawConnection.open(ws_url(server))
        try:
            await conn.hello("alice")  # one token of the burst
            started = time.monotonic()
            for i in range(12):
                await conn.send(P.encode({"t": "ping", "id": i}))
            replies = [await conn.recv() for _ in range(12)]
            spent = time.monotonic() - started
            limited = [r for r in replies if r.get("code") == "rate_limited"]
            pongs = [r for r in replies if r["t"] == "pong"]
            assert limited, replies
            assert len(pongs) + len(limited) == 12
            assert len(pongs) <= 4 + int(spent * 5) + 1, (len(pongs), spent)
            assert {r["re"] for r in replies} == set(range(12))
            await asyncio.sleep(0.5)  # tokens refill at 5 per second
            await assert_usable(conn)
        finally:
            await conn.close()
        # Through the library: a refused request fails at once with its code, no time-out.
        async with clients(ws_url(server), "bob") as (bob,):
            bob.timeout = 3.0
            results = await asyncio.gather(*(bob.request("ping") for _ in range(12)),
                                           return_exceptions=True)
            codes = {r.code if isinstance(r, ClientError) else type(r).__name__
                     for r in results if not isinstance(r, dict)}
            assert codes == {"rate_limited"}, results


async def test_bad_race_settings_are_refused(redis_url: str) -> None:
    async with running_server(redis_url) as server, clients(ws_url(server), "alice") as (alice,):
        for variant, options, extra in (
            ("no-such-variant", {}, {}),
            ("unlimited", {"draw": "7"}, {}),
            ("unlimited", {"no_such_option": "1"}, {}),
            ("unlimited", {}, {"seats": 1}),
            ("unlimited", {}, {"seats": 9}),
            ("unlimited", {}, {"time_limit": 5}),
        ):
            with pytest.raises(ClientError) as err:
                await alice.create_race(variant, options, **extra)
            assert err.value.code == "bad_option", (variant, options, extra)
        with pytest.raises(ClientError) as err:
            await alice.quick("no-such-variant")
        assert err.value.code == "bad_option"


async def test_garbage_in_a_race_changes_no_game(redis_url: str) -> None:
    """A racer's connection throws every kind of bad frame mid-race; the game is unchanged
    and the next legal move is accepted with the same seq."""
    async with running_server(redis_url) as server, clients(
        ws_url(server), "alice", "bob"
    ) as (alice, bob):
        lobby = await alice.create_race("unlimited")
        rid = lobby["race"]
        await bob.join(code=lobby["code"])
        await alice.ready(rid)
        await bob.ready(rid)
        await alice.wait_running(rid)
        for _, frame, _ in MALFORMED:
            await alice.send_raw(frame)
        for bad in ({"seq": "0", "move": "sw"}, {"seq": 0, "move": 5}, {"seq": 0}):
            await alice.send_raw(pack({"t": "move", "race": rid, **bad}))
        errors = [await alice.next_event(t="error") for _ in range(len(MALFORMED) + 3)]
        assert all(e["code"] in ("bad_message", "unknown_type") for e in errors), errors
        game = (await race_info(redis_url, rid)).game()
        synced = await alice.sync(rid)
        assert synced["board"] == {"seq": 0, "view": view_of(game).wire(),
                                   "legal": legal_texts(game)}
        move = choose_move(game)
        assert move is not None
        ack = await alice.move(rid, move.text())
        assert ack["seq"] == 1


async def test_silent_connection_without_hello_is_closed(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection, "HELLO_TIMEOUT", 0.3)
    async with running_server(redis_url) as server:
        conn = await RawConnection.open(ws_url(server))
        reply = await conn.recv(timeout=3)
        assert (reply["t"], reply["code"]) == ("error", "not_authenticated")
        with pytest.raises(ConnectionClosed) as closed:
            await conn.recv(timeout=3)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008


async def test_idle_timeout_closes_a_silent_connection_but_not_a_racer(redis_url: str
                                                                        ) -> None:
    """``--idle-timeout`` closes a connection that has said nothing for that long and has
    nothing going on; a racer waiting in a race is not idle."""
    async with running_server(redis_url, idle_timeout=0.5) as server:
        idle = await RawConnection.open(ws_url(server))
        await idle.hello("alice")
        racer = await RawConnection.open(ws_url(server))
        await racer.hello("bob")
        created = await racer.request("race.create", variant="unlimited")
        assert created["t"] == "race", created
        started = time.monotonic()
        try:
            async with asyncio.timeout(2.5):
                while True:
                    await idle.ws.recv()
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1001, closed
        except TimeoutError:
            pytest.fail("the connection is still open 2.5 s into a 0.5 s idle timeout")
        assert time.monotonic() - started >= 0.4
        await asyncio.sleep(0.3)
        await assert_usable(racer)  # silent for well over 0.5 s, but in a race
        await racer.close()
