"""The script batcher's own connection (server/store/wire.py ``ScriptWire``).

Two halves: the protocol alone, fed bytes by hand (replies split anywhere, error replies as
redis-py's exceptions, a ``LOADING`` reply, bytes outside a batch, the end of the stream, the
deadline); and the batcher on real, private Redis servers (the wire takes over after the
first batch and every later batch goes without a task; NOSCRIPT; a connection dropped in the
middle of a batch, retried by the pool's policy or reported as an outage; a stall reported
as redis-py's timeout at the socket timeout; AUTH with a user and password and SELECT of
another database, kept across a reconnect)."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis as sync_redis
from redis.asyncio import Redis
from redis.exceptions import (
    AuthenticationError,
    BusyLoadingError,
    ConnectionError,
    NoScriptError,
    OutOfMemoryError,
    ReadOnlyError,
    ResponseError,
)
from redis.exceptions import TimeoutError as RedisTimeoutError
from solrace.server.ops.faults import is_outage, is_store_error
from solrace.server.ops.redisproc import RedisProcess
from solrace.server.store import wire as wire_module
from solrace.server.store.batch import ScriptBatcher
from solrace.server.store.connect import open_client
from solrace.server.store.resp import pack
from solrace.server.store.wire import ScriptWire, reply_error, socket_poll

LOOPS = ("asyncio", "uvloop")  # every async test runs on both event loops (conftest.py)
pytestmark = pytest.mark.timeout(60)

ECHO = "return {KEYS[1], ARGV[1]}"
FAIL = "return redis.error_reply('ERR no ' .. ARGV[1])"
BIG = "return string.rep(ARGV[1], tonumber(ARGV[2]))"
SPIN = "local t = redis.call('TIME'); local e = t[1] * 1e6 + t[2] + ARGV[1] * 1000; " \
       "repeat t = redis.call('TIME') until t[1] * 1e6 + t[2] >= e; return 1"


# -- the protocol alone ----------------------------------------------------------------------

class _Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


def _wire(loop: asyncio.AbstractEventLoop, timeout: float | None = 5.0) -> ScriptWire:
    wire = ScriptWire(loop, timeout)
    wire.connection_made(_Transport())  # type: ignore[arg-type]
    return wire


def _send(wire: ScriptWire, packed: bytes, count: int, done: Any) -> None:
    assert wire.ready(wire.loop)  # as the batcher does: ready, then send
    wire.send(packed, count, done)


REPLIES = (b"*2\r\n$1\r\na\r\n:7\r\n" b"-NOSCRIPT No matching script\r\n"
           b"-ERR no 3\r\n" b"$-1\r\n" b"*0\r\n" b"+OK\r\n" b"$5\r\nhello\r\n")


def _check_replies(out: list[Any]) -> None:
    assert out[0] == [b"a", 7]
    assert isinstance(out[1], NoScriptError) and str(out[1]) == "No matching script"
    assert isinstance(out[2], ResponseError) and str(out[2]) == "no 3"
    assert out[3:] == [None, [], b"OK", b"hello"]


@pytest.mark.parametrize("step", [1, 2, 3, 5, 11, len(REPLIES)])
async def test_replies_split_anywhere_resolve_once_in_order(step: int) -> None:
    wire = _wire(asyncio.get_running_loop())
    got: list[Any] = []
    _send(wire, b"packed", 7, got.append)
    assert wire.transport.written == [b"packed"]
    for i in range(0, len(REPLIES), step):
        assert got == []
        wire.data_received(REPLIES[i:i + step])
    assert len(got) == 1
    _check_replies(got[0])
    assert wire.failure is None
    got.clear()  # the next batch on the same wire, every reply in one read
    _send(wire, b"again", 7, got.append)
    wire.data_received(REPLIES)
    _check_replies(got[0])


@pytest.mark.parametrize(("reply", "cls", "text", "outage"), [
    (b"-NOSCRIPT No matching script", NoScriptError, "No matching script", False),
    (b"-READONLY You can't write against a read only replica.", ReadOnlyError,
     "You can't write against a read only replica.", True),
    (b"-OOM command not allowed", OutOfMemoryError, "command not allowed", True),
    (b"-ERR value is not an integer", ResponseError, "value is not an integer", False),
    (b"-BUSY Redis is busy running a script", ResponseError,
     "BUSY Redis is busy running a script", True),
])
async def test_error_replies_are_redis_pys_classes_as_its_parser_names_them(
        reply: bytes, cls: type, text: str, outage: bool) -> None:
    wire = _wire(asyncio.get_running_loop())
    got: list[Any] = []
    _send(wire, b"x", 2, got.append)
    wire.data_received(reply + b"\r\n*2\r\n:1\r\n" + reply + b"\r\n")  # alone, in an array
    first, (one, inner) = got[0]
    assert type(first) is cls and str(first) == text and one == 1
    assert type(inner) is cls and str(inner) == text
    assert is_outage(first) == outage
    assert wire.failure is None


async def test_a_reply_past_the_batch_leaves_the_wire_unfit() -> None:
    wire = _wire(asyncio.get_running_loop())
    got: list[Any] = []
    _send(wire, b"x", 1, got.append)
    wire.data_received(b":1\r\n:2\r\n")
    assert len(got) == 1 and isinstance(got[0], Exception)  # the connection is out of step
    assert wire.failure is got[0] and wire.transport.closed
    other = _wire(asyncio.get_running_loop())
    other.data_received(b"+OK\r\n")  # nothing asked
    assert other.failure is not None and not other.ready(other.loop)


async def test_a_loading_reply_fails_the_batch_as_read_response_raises_it() -> None:
    wire = _wire(asyncio.get_running_loop())
    got: list[Any] = []
    _send(wire, b"x", 2, got.append)
    wire.data_received(b":1\r\n-LOADING Redis is loading the dataset in memory\r\n")
    assert len(got) == 1 and isinstance(got[0], BusyLoadingError)
    assert wire.failure is got[0] and is_outage(got[0])


async def test_a_protocol_error_fails_the_batch() -> None:
    wire = _wire(asyncio.get_running_loop())
    got: list[Any] = []
    _send(wire, b"x", 1, got.append)
    wire.data_received(b"?what\r\n")
    assert len(got) == 1 and isinstance(got[0], Exception) and wire.failure is got[0]


@pytest.mark.parametrize("how", ["eof", "lost", "reset"])
async def test_the_end_of_the_connection_fails_the_batch_with_a_connection_error(how: str
                                                                                ) -> None:
    wire = _wire(asyncio.get_running_loop())
    got: list[Any] = []
    _send(wire, b"x", 2, got.append)
    wire.data_received(b":1\r\n")
    if how == "eof":
        assert wire.eof_received() is False  # the transport closes itself
    wire.connection_lost(ConnectionResetError(104, "reset") if how == "reset" else None)
    assert len(got) == 1 and isinstance(got[0], ConnectionError)
    assert ("reset" in str(got[0])) == (how == "reset")
    assert not wire.ready(asyncio.get_running_loop())


async def test_a_stall_fails_the_batch_at_its_deadline_with_a_timeout() -> None:
    loop = asyncio.get_running_loop()
    wire = _wire(loop, timeout=0.2)
    got: list[Any] = []
    _send(wire, b"a", 1, got.append)
    await asyncio.sleep(0.1)
    wire.data_received(b":1\r\n")  # in time
    assert got == [[1]]
    got.clear()
    start = loop.time()
    _send(wire, b"b", 1, got.append)  # the first batch's timer fires first: re-armed for this one
    while not got:
        await asyncio.sleep(0.01)
    waited = loop.time() - start
    assert isinstance(got[0], RedisTimeoutError)
    assert 0.19 <= waited < 0.5, waited
    assert wire.failure is got[0]
    wire.data_received(b":1\r\n")  # too late: ignored, and the wire is unfit
    assert len(got) == 1 and not wire.ready(loop)


async def test_no_timeout_no_timer() -> None:
    wire = _wire(asyncio.get_running_loop(), timeout=None)
    got: list[Any] = []
    _send(wire, b"a", 1, got.append)
    assert wire._watch is None
    wire.data_received(b":1\r\n")
    assert got == [[1]]


def test_reply_error_names() -> None:
    assert type(reply_error("NOSCRIPT x y")) is NoScriptError
    assert str(reply_error("ERR plain")) == "plain"
    assert isinstance(reply_error("ERR max number of clients reached"), ConnectionError)
    assert str(reply_error("UNKNOWN thing")) == "UNKNOWN thing"
    assert type(reply_error("WRONGPASS invalid")) is AuthenticationError


class _Extra:
    """A transport that answers ``get_extra_info`` only."""

    def __init__(self, **extra: Any) -> None:
        self.extra = extra

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.extra.get(name, default)


def test_socket_poll_sees_unread_data_and_the_end_and_skips_tls() -> None:
    a, b = socket.socketpair()
    try:
        poll = socket_poll(_Extra(socket=a))
        assert poll is not None and not poll.poll(0)  # open, nothing unread
        b.send(b"+OK\r\n")
        assert poll.poll(0)  # unread data
        a.recv(16)
        assert not poll.poll(0)
        b.close()
        assert poll.poll(0)  # the end of the stream
        assert socket_poll(_Extra(socket=a, sslcontext=object())) is None  # records, not replies
        assert socket_poll(_Extra()) is None and socket_poll(object()) is None  # no socket
    finally:
        a.close()
        b.close()


# -- the batcher on real Redis servers -------------------------------------------------------

@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url, decode_responses=False)
    try:
        yield client
    finally:
        await client.aclose()


async def _warm(batcher: ScriptBatcher, script: Any) -> ScriptWire:
    """One batch in a task (it opens the batcher's connection); the next goes on the wire."""
    assert await batcher.call(script, ["w"], [0]) == [b"w", b"0"]
    assert await batcher.call(script, ["w"], [1]) == [b"w", b"1"]
    assert batcher._wire is not None
    return batcher._wire


async def test_batches_after_the_first_go_on_the_wire_without_a_task(redis: Redis) -> None:
    batcher = ScriptBatcher(redis)
    echo, fail = redis.register_script(ECHO), redis.register_script(FAIL)
    await redis.script_load(ECHO)
    await redis.script_load(FAIL)
    wire = await _warm(batcher, echo)
    tasks: list[object] = []
    real = batcher._start
    batcher._start = lambda coro: (tasks.append(coro), real(coro))  # type: ignore[method-assign]
    for round_ in range(3):
        done: list[object] = []
        futs = [batcher.call(fail if i % 7 == 3 else echo, [f"k{i}"], [i], on_done=done.append)
                for i in range(300)]
        results = await asyncio.gather(*futs, return_exceptions=True)
        for i, res in enumerate(results):
            if i % 7 == 3:
                assert isinstance(res, ResponseError) and str(res) == f"no {i}"
            else:
                assert res == [f"k{i}".encode(), str(i).encode()]
        assert done == [r for r in results if not isinstance(r, Exception)]  # in order
        assert batcher._wire is wire, round_
    assert tasks == []  # no batch went through a task
    big = redis.register_script(BIG)
    await redis.script_load(BIG)
    sizes = [1, 70_000, 3, 200_000, 65_536]  # replies longer than one socket read
    out = await asyncio.gather(*(batcher.call(big, ["x"], [b"ab", n]) for n in sizes))
    assert [len(r) for r in out] == [2 * n for n in sizes] and batcher._wire is wire


class _Recording:
    """A transport that records what is written to it, then writes it on."""

    def __init__(self, transport: Any, sent: list[bytes]) -> None:
        self._transport, self._sent = transport, sent

    def write(self, data: bytes) -> None:
        self._sent.append(data)
        self._transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


async def test_the_wire_writes_what_redis_py_would_send(redis: Redis) -> None:
    batcher = ScriptBatcher(redis)
    echo = redis.register_script(ECHO)
    await redis.script_load(ECHO)
    wire = await _warm(batcher, echo)
    sent: list[bytes] = []
    wire.transport = _Recording(wire.transport, sent)  # (uvloop's transport: no attribute set)
    futs = [batcher.call(echo, ["a", b"b"], [n, "é"]) for n in range(3)]
    await asyncio.gather(*futs)
    assert sent == [b"".join(pack(echo.sha.encode(), ["a", b"b"], [n, "é"])
                             for n in range(3))]  # one write for the batch


async def test_noscript_on_the_wire_is_loaded_and_retried(redis: Redis) -> None:
    batcher = ScriptBatcher(redis)
    echo = redis.register_script(ECHO)
    await redis.script_load(ECHO)
    wire = await _warm(batcher, echo)
    await redis.script_flush()
    done: list[object] = []
    assert await asyncio.gather(*(batcher.call(echo, ["a"], [n], on_done=done.append)
                                  for n in range(5))) == [[b"a", str(n).encode()]
                                                          for n in range(5)]
    assert done == [[b"a", str(n).encode()] for n in range(5)]
    assert batcher._wire is wire  # a NOSCRIPT reply is no failure of the connection
    assert await batcher.call(echo, ["a"], [9]) == [b"a", b"9"]


async def test_a_connection_dropped_mid_batch_is_retried_by_the_pools_policy(
        redis_url: str) -> None:
    redis = open_client(redis_url)  # the store's client: its pool, its retry policy
    try:
        await _dropped_mid_batch(redis)
    finally:
        await redis.aclose()


async def _dropped_mid_batch(redis: Any) -> None:
    batcher = ScriptBatcher(redis)
    echo, spin = redis.register_script(ECHO), redis.register_script(SPIN)
    await redis.script_load(ECHO)
    await redis.script_load(SPIN)
    wire = await _warm(batcher, echo)
    futs = [batcher.call(spin, ["s"], [150]), batcher.call(echo, ["a"], [1])]
    await asyncio.sleep(0.05)  # the batch is out, Redis spins in the first script
    assert batcher._out is not None
    wire.transport.abort()  # the connection drops before any reply
    assert await asyncio.gather(*futs) == [1, [b"a", b"1"]]  # sent again on a new connection
    assert wire.failure is not None and isinstance(wire.failure, ConnectionError)
    assert await batcher.call(echo, ["a"], [2]) == [b"a", b"2"]
    assert batcher._wire is not None and batcher._wire is not wire  # on the new connection
    await redis.client_kill_filter(_type="normal", skipme=True)  # dropped between batches
    assert await batcher.call(echo, ["a"], [3]) == [b"a", b"3"]


async def test_redis_gone_mid_batch_is_an_outage_then_served_again(
        private_redis: RedisProcess) -> None:
    client = Redis.from_url(private_redis.url, socket_timeout=2, socket_connect_timeout=1)
    try:
        batcher = ScriptBatcher(client)
        echo, spin = client.register_script(ECHO), client.register_script(SPIN)
        await client.script_load(ECHO)
        await client.script_load(SPIN)
        await _warm(batcher, echo)
        futs = [batcher.call(spin, ["s"], [400]), batcher.call(echo, ["a"], [1])]
        await asyncio.sleep(0.1)
        private_redis.kill()
        results = await asyncio.gather(*futs, return_exceptions=True)
        assert all(isinstance(r, Exception) and is_store_error(r) and is_outage(r)
                   for r in results), results
        private_redis.restart()
        await client.script_load(ECHO)
        assert await batcher.call(echo, ["a"], [9]) == [b"a", b"9"]
        assert await batcher.call(echo, ["a"], [10]) == [b"a", b"10"]
        assert batcher._wire is not None and batcher._wire.failure is None
    finally:
        await client.aclose()


async def test_a_stall_on_the_wire_is_a_timeout_outage_at_the_socket_timeout(
        redis_url: str) -> None:
    client = Redis.from_url(redis_url, socket_timeout=0.3, retry=None)
    other = Redis.from_url(redis_url)
    try:
        batcher = ScriptBatcher(client)
        echo = client.register_script(ECHO)
        await client.script_load(ECHO)
        await _warm(batcher, echo)
        await other.execute_command("CLIENT", "PAUSE", "1500", "ALL")
        start = time.monotonic()
        with pytest.raises(RedisTimeoutError) as caught:
            await batcher.call(echo, ["a"], [1])
        assert 0.25 < time.monotonic() - start < 1.2
        assert is_store_error(caught.value) and is_outage(caught.value)
        assert batcher._wire is None  # closed, and forgotten
        await asyncio.sleep(1.3)
        assert await batcher.call(echo, ["a"], [2]) == [b"a", b"2"]  # a fresh connection
        assert await batcher.call(echo, ["a"], [3]) == [b"a", b"3"]
        assert batcher._wire is not None and batcher._wire.failure is None
    finally:
        await client.aclose()
        await other.aclose()


async def test_auth_and_select_are_the_pools_and_kept_across_a_reconnect(
        private_redis: RedisProcess) -> None:
    admin = Redis.from_url(private_redis.url)
    # racer may touch the k* keys only; the default user needs a password from now on
    await admin.execute_command("ACL", "SETUSER", "racer", "on", ">s3cret", "~k*", "+@all")
    await admin.config_set("requirepass", "adminpw")
    await admin.aclose()
    url = f"redis://racer:s3cret@127.0.0.1:{private_redis.port}/3"
    client = Redis.from_url(url)
    try:
        batcher = ScriptBatcher(client)
        put = client.register_script("return redis.call('SET', KEYS[1], ARGV[1])")
        await client.script_load(put.script)
        assert await batcher.call(put, ["k0"], ["v0"]) == b"OK"  # opens the connection
        assert batcher._wire is not None
        assert await batcher.call(put, ["k1"], ["v1"]) == b"OK"  # on the wire
        with pytest.raises(ResponseError) as refused:  # racer's ACL: the wire is racer's
            await batcher.call(put, ["x1"], ["v"])
        assert not is_outage(refused.value) and batcher._wire.failure is None
        await client.client_kill_filter(_type="normal", skipme=True)
        assert await batcher.call(put, ["k2"], ["v2"]) == b"OK"  # reconnected: AUTH, SELECT
        assert await batcher.call(put, ["k3"], ["v3"]) == b"OK"
        with pytest.raises(ResponseError):
            await batcher.call(put, ["x2"], ["v"])
        assert batcher._wire is not None and batcher._wire.failure is None
        check = Redis.from_url(f"redis://default:adminpw@127.0.0.1:{private_redis.port}/3")
        assert await check.mget("k0", "k1", "k2", "k3") == [b"v0", b"v1", b"v2", b"v3"]
        assert await check.dbsize() == 4
        await check.aclose()
        check = Redis.from_url(f"redis://default:adminpw@127.0.0.1:{private_redis.port}/0")
        assert await check.dbsize() == 0
        await check.aclose()
        nobody = Redis.from_url(f"redis://127.0.0.1:{private_redis.port}/3", retry=None)
        with pytest.raises(Exception):  # noqa: B017 — whichever auth error: not let in
            await ScriptBatcher(nobody).call(put, ["k"], ["v"])
        await nobody.aclose()
    finally:
        await client.aclose()


@pytest.mark.parametrize("quiet", [True, False])
async def test_a_connection_closed_between_batches_is_replaced_polled_or_retried(
        redis_url: str, monkeypatch: pytest.MonkeyPatch, quiet: bool) -> None:
    """A wire quiet for QUIET seconds polls its socket first: a connection Redis closed
    meanwhile is replaced before the batch goes (no failed attempt); a wire in steady use
    does not poll, and the batch's failed first attempt is retried by the pool's policy.
    The poll is asked directly too: on uvloop the loop's I/O step runs between two rounds of
    callbacks, so the end is read before the flush and the batch never meets it."""
    monkeypatch.setattr(wire_module, "QUIET", 0.0 if quiet else 60.0)
    redis = open_client(redis_url)
    try:
        batcher = ScriptBatcher(redis)
        echo = redis.register_script(ECHO)
        await redis.script_load(ECHO)
        await _warm(batcher, echo)
        firsts: list[object] = []
        send = batcher._send

        def spy(batch: Any, packed: Any = None, first: Any = None) -> Any:
            firsts.append(first)
            return send(batch, packed, first)

        batcher._send = spy  # type: ignore[method-assign]
        # killed while the event loop is blocked: its end is in the socket, not yet read
        # when the batch is flushed (the flush runs before that iteration's read callbacks)
        with sync_redis.Redis.from_url(redis_url) as killer:
            killer.client_kill_filter(_type="normal", skipme=True)
        time.sleep(0.05)
        loop = asyncio.get_running_loop()
        wire = batcher._wire
        assert wire is not None and wire._poll is not None  # either loop's socket is polled
        assert wire.ready(loop) is not quiet  # polled: the end is seen in the socket
        assert await batcher.call(echo, ["a"], [1]) == [b"a", b"1"]
        assert len(firsts) == 1
        if quiet:
            assert firsts[0] is None  # polled: no failed attempt
        elif type(loop).__module__.startswith("asyncio"):
            assert firsts[0] is not None  # the flush went before the read: retried
        assert await batcher.call(echo, ["a"], [2]) == [b"a", b"2"]
        assert batcher._wire is not None and batcher._wire.failure is None
    finally:
        await redis.aclose()


async def test_a_unix_socket_url_is_served_on_the_wire(tmp_path: Any) -> None:
    sock = tmp_path / "redis.sock"
    proc = RedisProcess(data_dir=tmp_path / "data", extra_args=(
        "--unixsocket", str(sock), "--unixsocketperm", "700"))
    proc.start()
    client = Redis.from_url(f"unix://{sock}?db=2")
    try:
        batcher = ScriptBatcher(client)
        put = client.register_script("return redis.call('SET', KEYS[1], ARGV[1])")
        await client.script_load(put.script)
        assert await batcher.call(put, ["k"], ["v"]) == b"OK"
        assert await batcher.call(put, ["k2"], ["v2"]) == b"OK"  # on the wire
        wire = batcher._wire
        assert wire is not None and wire.transport.get_extra_info("peername") in (str(sock), "")
        check = Redis.from_url(f"unix://{sock}?db=2")
        assert await check.mget("k", "k2") == [b"v", b"v2"]  # SELECT 2 on the wire
        await check.aclose()
        batcher.close()
    finally:
        await client.aclose()
        proc.stop()
