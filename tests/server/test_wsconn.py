"""FrameConnection (server/wsconn.py): every data message reaches the sink once, whole and in
order — fragmented or not, text or binary, before or after the sink is set — control frames
still work, and a broken or lost stream ends ``wait_lost``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import pytest
from solrace.server.wsconn import FrameConnection
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import Server, serve
from websockets.exceptions import ConnectionClosedOK

pytestmark = pytest.mark.timeout(30)

Handler = Callable[[FrameConnection], Coroutine[Any, Any, None]]


@pytest.fixture
async def server() -> AsyncIterator[tuple[list[Handler], Server]]:
    handlers: list[Handler] = []

    async def handle(ws: Any) -> None:
        assert isinstance(ws, FrameConnection)
        await handlers.pop(0)(ws)

    srv = await serve(handle, "127.0.0.1", 0, create_connection=FrameConnection,
                      compression=None, max_size=1024)
    try:
        yield handlers, srv
    finally:
        srv.close()
        await srv.wait_closed()


def url(srv: Server) -> str:
    host, port = next(iter(srv.sockets)).getsockname()[:2]
    return f"ws://{host}:{port}"


async def collect(ws: FrameConnection, got: list[bytes | str], ended: asyncio.Event,
                  delay: float = 0.0) -> None:
    if delay:
        await asyncio.sleep(delay)  # messages arrive before the sink is set
    ws.set_sink(got.append)
    await ws.wait_lost()
    ended.set()


async def test_messages_whole_and_in_order(server: tuple[list[Handler], Server]) -> None:
    handlers, srv = server
    got: list[bytes | str] = []
    ended = asyncio.Event()
    handlers.append(lambda ws: collect(ws, got, ended, delay=0.2))
    async with connect(url(srv), compression=None) as client:
        await client.send(b"one")
        await client.send(iter([b"tw", b"o", b""]))  # a fragmented binary message
        await client.send("three")
        await client.send(iter(["fo", "ur ", "é"]))  # fragmented text, a multi-byte char
        await client.send(b"five")
        await asyncio.sleep(0.4)
        await client.send("six")
        latency = await asyncio.wait_for(await client.ping(), 5)  # control frames still work
        assert latency >= 0
        await asyncio.sleep(0.1)
    await asyncio.wait_for(ended.wait(), 5)
    assert got == [b"one", b"two", "three", "four é", b"five", "six"]


async def test_server_pings_are_answered(server: tuple[list[Handler], Server]) -> None:
    handlers, srv = server
    pinged = asyncio.Event()

    async def ping(ws: FrameConnection) -> None:
        ws.set_sink(lambda data: None)
        await asyncio.wait_for(await ws.ping(), 5)  # the client's pong reached the server
        pinged.set()
        await ws.wait_lost()

    handlers.append(ping)
    async with connect(url(srv), compression=None) as client:
        task = asyncio.ensure_future(client.recv())  # the client reads: it answers pings
        await asyncio.wait_for(pinged.wait(), 5)
        task.cancel()


async def test_invalid_utf8_ends_the_stream(server: tuple[list[Handler], Server]) -> None:
    handlers, srv = server
    got: list[bytes | str] = []
    ended = asyncio.Event()
    handlers.append(lambda ws: collect(ws, got, ended))
    async with connect(url(srv), compression=None) as client:
        await client.send("fine")
        await client.send(b"\xff\xfe bad", text=True)
        await client.send("never handed over")
        await asyncio.wait_for(ended.wait(), 5)
        await asyncio.wait_for(client.wait_closed(), 5)  # the handler ended: closed
    assert got == ["fine"]


async def test_a_lost_connection_ends_wait_lost(server: tuple[list[Handler], Server]) -> None:
    handlers, srv = server
    got: list[bytes | str] = []
    ended = asyncio.Event()
    handlers.append(lambda ws: collect(ws, got, ended))
    client: ClientConnection = await connect(url(srv), compression=None)
    await client.send(b"x")
    await asyncio.sleep(0.1)
    client.transport.abort()  # no closing handshake
    await asyncio.wait_for(ended.wait(), 5)
    assert got == [b"x"]


async def test_the_size_limit_still_spans_fragments(server: tuple[list[Handler], Server]
                                                    ) -> None:
    handlers, srv = server
    got: list[bytes | str] = []
    ended = asyncio.Event()
    handlers.append(lambda ws: collect(ws, got, ended))
    async with connect(url(srv), compression=None) as client:
        await client.send(iter([b"a" * 600, b"b" * 600]))  # 1200 bytes > max_size 1024
        await asyncio.wait_for(client.wait_closed(), 5)
        assert client.close_code == 1009
    await asyncio.wait_for(ended.wait(), 5)
    assert got == []


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 70000])
@pytest.mark.parametrize("text", [False, True])
def test_frame_head_is_what_websockets_writes(length: int, text: bool) -> None:
    from solrace.server.wsconn import frame_head
    from websockets.frames import BINARY, TEXT, Frame

    payload = b"x" * length
    assert frame_head(length, text) + payload == Frame(TEXT if text else BINARY,
                                                       payload).serialize(mask=False)


async def test_messages_written_directly_arrive_whole_and_in_order(
        server: tuple[list[Handler], Server]) -> None:
    handlers, srv = server
    sent = [b"", b"a", b"b" * 125, b"c" * 126, b"d" * 65535, b"e" * 65536, "text é", "t" * 300]
    wrote: list[bool] = []

    async def write(ws: FrameConnection) -> None:
        ws.set_sink(lambda data: None)
        for message in sent:
            wrote.append(ws.write_message(message))
        ws.protocol.send_text(b"through websockets")  # its own path still works after them
        assert not ws.write_message(b"pending")  # never before a write websockets holds ...
        ws.send_data()
        assert ws.write_message(b"after")  # ... and again once it went
        await ws.wait_lost()

    handlers.append(write)
    async with connect(url(srv), compression=None, max_size=None) as client:
        got = [await asyncio.wait_for(client.recv(), 5) for _ in range(len(sent) + 2)]
    assert wrote == [True] * len(sent)
    assert got == [*sent, "through websockets", b"after"]


async def test_an_extension_or_a_closing_state_goes_through_websockets(
        server: tuple[list[Handler], Server]) -> None:
    handlers, srv = server
    answers: list[bool] = []

    async def write(ws: FrameConnection) -> None:
        ws.set_sink(lambda data: None)
        ws.protocol.extensions = [object()]  # type: ignore[list-item]
        answers.append(ws.write_message(b"x"))
        ws.protocol.extensions = []
        ws.protocol.send_close(1000)  # closing: a data frame may no longer be written
        answers.append(ws.write_message(b"y"))
        ws.send_data()
        await ws.wait_lost()

    handlers.append(write)
    async with connect(url(srv), compression=None) as client:
        with pytest.raises(ConnectionClosedOK):  # the close, and no data frame before it
            await asyncio.wait_for(client.recv(), 5)
    assert answers == [False, False]
