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

LOOPS = ("asyncio", "uvloop")  # every async test runs on both event loops (conftest.py)
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


# ---------------------------------------------------------------------- lean reading


def masked(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    """A client's frame as websockets writes it (masked)."""
    from websockets.frames import Frame, Opcode

    return Frame(Opcode(opcode), payload, fin=fin).serialize(mask=True)


def forged(first: int, payload: bytes, mask: bool = True) -> bytes:
    """A frame websockets would not write: ``first`` is its first byte as given (opcode, fin,
    reserved bits); masked with a fixed key unless ``mask`` is False."""
    from websockets.frames import apply_mask

    n = len(payload)
    length = bytes([n | (0x80 if mask else 0)]) if n < 126 else (
        bytes([126 | (0x80 if mask else 0)]) + n.to_bytes(2, "big"))
    if not mask:
        return bytes([first]) + length + payload
    key = b"\x01\x02\x03\x04"
    return bytes([first]) + length + key + apply_mask(payload, key)


def stream() -> tuple[bytes, list[bytes | str]]:
    """Frames of every kind a client may send, and the messages they make."""
    frames = [
        masked(2, b""), masked(2, b"a"), masked(1, "é".encode()), masked(2, b"b" * 125),
        masked(2, b"c" * 126), masked(9, b"ping!"),  # a ping between data frames
        masked(2, b"d" * 1000),
        masked(1, b"fr", fin=False), masked(0, b"ag", fin=False), masked(0, b"ment"),
        masked(2, b"e" * 300), masked(10, b"unsolicited pong"),
        masked(2, b"x", fin=False), masked(0, b"y" * 600, fin=False),  # binary, fragmented
        masked(0, b"z"),
        masked(2, b"last"),
    ]
    want: list[bytes | str] = [b"", b"a", "é", b"b" * 125, b"c" * 126, b"d" * 1000,
                               "fragment", b"e" * 300, b"x" + b"y" * 600 + b"z", b"last"]
    return b"".join(frames), want


@pytest.mark.parametrize("chunk", [0, 1, 2, 3, 7, 64, 1000])
async def test_lean_reading_hands_over_what_websockets_would(
        server: tuple[list[Handler], Server], chunk: int) -> None:
    """One stream of frames, written at once (chunk 0) or in chunks of every awkward size:
    the same messages in the same order, the ping answered, and the lean path in use."""
    handlers, srv = server
    got: list[bytes | str] = []
    ended = asyncio.Event()
    seen: list[FrameConnection] = []

    async def run(ws: FrameConnection) -> None:
        seen.append(ws)
        await collect(ws, got, ended)

    handlers.append(run)
    raw, want = stream()
    async with connect(url(srv), compression=None) as client:
        await asyncio.sleep(0.05)
        step = chunk or len(raw)
        for at in range(0, len(raw), step):
            client.transport.write(raw[at:at + step])
            if chunk:
                await asyncio.sleep(0)
        await asyncio.wait_for(await client.ping(), 5)  # after all of it: answered
        for _ in range(50):
            if len(got) >= len(want):
                break
            await asyncio.sleep(0.02)
        assert seen[0]._inbox.lean == 1024  # split here, not by websockets
    await asyncio.wait_for(ended.wait(), 5)
    assert got == want


@pytest.mark.parametrize(("frame", "code"), [
    (forged(0xC2, b"rsv"), 1002),  # a reserved bit with no extension
    (forged(0x82, b"unmasked", mask=False), 1002),  # a client's frame must be masked
    (masked(2, b"x" * 2000), 1009),  # over max_size (1024), refused on its header
    (b"\x82\xff" + (70000).to_bytes(8, "big") + b"mask", 1009),  # a 64-bit length
    (forged(0x83, b""), 1002),  # a reserved opcode
    (masked(0, b"lonely continuation"), 1002),
    (forged(0x89, b"p" * 126), 1002),  # a control frame longer than 125
    (forged(0x09, b"p"), 1002),  # a fragmented control frame
    (masked(1, b"open", fin=False) + masked(2, b"not a continuation"), 1002),
])
async def test_lean_reading_fails_as_websockets_does(
        server: tuple[list[Handler], Server], frame: bytes, code: int) -> None:
    handlers, srv = server
    got: list[bytes | str] = []
    ended = asyncio.Event()
    handlers.append(lambda ws: collect(ws, got, ended))
    async with connect(url(srv), compression=None) as client:
        client.transport.write(masked(2, b"before"))
        await asyncio.sleep(0.05)
        client.transport.write(frame + masked(2, b"never handed over"))
        await asyncio.wait_for(client.wait_closed(), 5)
        assert client.close_code == code
    await asyncio.wait_for(ended.wait(), 5)
    assert got == [b"before"]


async def test_lean_reading_stops_at_the_close(server: tuple[list[Handler], Server]) -> None:
    """A close frame in the middle of a chunk: what follows it is not handed over (RFC 6455
    1.4), and the closing handshake completes."""
    handlers, srv = server
    got: list[bytes | str] = []
    ended = asyncio.Event()
    handlers.append(lambda ws: collect(ws, got, ended))
    client = await connect(url(srv), compression=None)
    client.transport.write(masked(2, b"one") + masked(8, (1000).to_bytes(2, "big") + b"bye")
                           + masked(2, b"after the close"))
    await asyncio.wait_for(client.wait_closed(), 5)
    assert client.close_code == 1000
    await asyncio.wait_for(ended.wait(), 5)
    assert got == [b"one"]


async def test_a_frame_cut_by_the_end_of_the_stream(server: tuple[list[Handler], Server]
                                                    ) -> None:
    handlers, srv = server
    got: list[bytes | str] = []
    ended = asyncio.Event()
    handlers.append(lambda ws: collect(ws, got, ended))
    client = await connect(url(srv), compression=None)
    whole = masked(2, b"z" * 200)
    client.transport.write(masked(2, b"whole") + whole[:50])
    await asyncio.sleep(0.05)
    client.transport.write_eof()
    await asyncio.wait_for(ended.wait(), 5)
    assert got == [b"whole"]
    client.transport.abort()


def test_at_frame_start_reads_websockets_parser() -> None:
    """The shape of websockets' parser that lean reading relies on (a websockets upgrade
    that changes it makes this fail, and lean reading switch itself off)."""
    from solrace.server.wsconn import at_frame_start
    from websockets.protocol import OPEN
    from websockets.server import ServerProtocol

    p = ServerProtocol(max_size=1024)
    p.state = OPEN
    p.parser = p.parse()
    next(p.parser)
    assert at_frame_start(p)
    frame = masked(2, b"hello")
    p.receive_data(frame[:6])  # header and mask read, the payload not: inside a frame
    assert p.reader.buffer == b"" and not at_frame_start(p)
    p.receive_data(frame[6:])
    assert at_frame_start(p)
    p.receive_data(frame[:1])  # one byte of the next
    assert not at_frame_start(p)
    p.receive_data(frame[1:])
    p.receive_data(masked(1, b"fr", fin=False))  # a fragmented message open
    assert not at_frame_start(p)
