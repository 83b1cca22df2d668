"""The websocket transport (server/transport/): every data message reaches the sink once,
whole and in order — fragmented or not, text or binary, before or after the sink is set, split
here or by websockets — control frames still work, protocol errors fail as websockets fails
them, and a broken or lost stream ends ``wait_lost``. On public websockets APIs only."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solrace.server.transport import WsConnection, WsServer, serve
from solrace.server.transport.frames import FrameSplitter, frame_head, unmask
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosedOK
from websockets.frames import Frame, Opcode

LOOPS = ("asyncio", "uvloop")  # every async test runs on both event loops (conftest.py)
pytestmark = pytest.mark.timeout(30)

Handler = Callable[[WsConnection], Coroutine[Any, Any, None]]


@pytest.fixture
async def server() -> AsyncIterator[tuple[list[Handler], WsServer]]:
    handlers: list[Handler] = []

    async def handle(ws: Any) -> None:
        assert isinstance(ws, WsConnection)
        await handlers.pop(0)(ws)

    srv = await serve(handle, "127.0.0.1", 0, max_size=1024, close_timeout=2)
    try:
        yield handlers, srv
    finally:
        srv.close()
        await srv.wait_closed()


def url(srv: WsServer) -> str:
    host, port = next(iter(srv.sockets)).getsockname()[:2]
    return f"ws://{host}:{port}"


async def collect(ws: WsConnection, got: list[bytes | str], ended: asyncio.Event,
                  delay: float = 0.0) -> None:
    if delay:
        await asyncio.sleep(delay)  # messages arrive before the sink is set
    ws.set_sink(got.append)
    await ws.wait_lost()
    ended.set()


async def test_messages_whole_and_in_order(server: tuple[list[Handler], WsServer]) -> None:
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


async def test_server_pings_are_answered(server: tuple[list[Handler], WsServer]) -> None:
    handlers, srv = server
    pinged = asyncio.Event()

    async def ping(ws: WsConnection) -> None:
        ws.set_sink(lambda data: None)
        await asyncio.wait_for(await ws.ping(), 5)  # the client's pong reached the server
        pinged.set()
        await ws.wait_lost()

    handlers.append(ping)
    async with connect(url(srv), compression=None) as client:
        task = asyncio.ensure_future(client.recv())  # the client reads: it answers pings
        await asyncio.wait_for(pinged.wait(), 5)
        task.cancel()


async def test_invalid_utf8_ends_the_stream(server: tuple[list[Handler], WsServer]) -> None:
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


async def test_a_lost_connection_ends_wait_lost(server: tuple[list[Handler], WsServer]) -> None:
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


async def test_the_size_limit_still_spans_fragments(server: tuple[list[Handler], WsServer]
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
    payload = b"x" * length
    assert frame_head(length, text) + payload == Frame(
        Opcode.TEXT if text else Opcode.BINARY, payload).serialize(mask=False)


async def test_messages_written_directly_arrive_whole_and_in_order(
        server: tuple[list[Handler], WsServer]) -> None:
    handlers, srv = server
    sent = [b"", b"a", b"b" * 125, b"c" * 126, b"d" * 65535, b"e" * 65536, "text é", "t" * 300]
    wrote: list[bool] = []

    async def write(ws: WsConnection) -> None:
        ws.set_sink(lambda data: None)
        for message in sent:
            wrote.append(ws.write_message(message))
        await ws.send(b"sent")  # the waiting send, after them
        await ws.wait_lost()

    handlers.append(write)
    async with connect(url(srv), compression=None, max_size=None) as client:
        got = [await asyncio.wait_for(client.recv(), 5) for _ in range(len(sent) + 1)]
    assert wrote == [True] * len(sent)
    assert got == [*sent, b"sent"]


async def test_nothing_is_written_once_closing(server: tuple[list[Handler], WsServer]) -> None:
    handlers, srv = server
    answers: list[bool] = []

    async def write(ws: WsConnection) -> None:
        ws.set_sink(lambda data: None)
        closing = asyncio.ensure_future(ws.close(1000, "bye"))
        await asyncio.sleep(0)
        answers.append(ws.write_message(b"y"))  # closing: a data frame may not follow
        await closing

    handlers.append(write)
    async with connect(url(srv), compression=None) as client:
        with pytest.raises(ConnectionClosedOK):  # the close, and no data frame before it
            await asyncio.wait_for(client.recv(), 5)
        assert client.close_code == 1000 and client.close_reason == "bye"
    assert answers == [False]


# ---------------------------------------------------------------------- lean reading


def masked(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    """A client's frame as websockets writes it (masked)."""
    return Frame(Opcode(opcode), payload, fin=fin).serialize(mask=True)


def forged(first: int, payload: bytes, mask: bool = True) -> bytes:
    """A frame websockets would not write: ``first`` is its first byte as given (opcode, fin,
    reserved bits); masked with a fixed key unless ``mask`` is False."""
    n = len(payload)
    length = bytes([n | (0x80 if mask else 0)]) if n < 126 else (
        bytes([126 | (0x80 if mask else 0)]) + n.to_bytes(2, "big"))
    if not mask:
        return bytes([first]) + length + payload
    key = b"\x01\x02\x03\x04"
    return bytes([first]) + length + key + unmask(payload, key)


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
        server: tuple[list[Handler], WsServer], chunk: int) -> None:
    """One stream of frames, written at once (chunk 0) or in chunks of every awkward size:
    the same messages in the same order, the ping answered, and the lean path in use."""
    handlers, srv = server
    got: list[bytes | str] = []
    ended = asyncio.Event()
    seen: list[WsConnection] = []

    async def run(ws: WsConnection) -> None:
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
        splitter = seen[0]._splitter
        assert splitter is not None and not splitter.given_up  # split here, not by websockets
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
        server: tuple[list[Handler], WsServer], frame: bytes, code: int) -> None:
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


async def test_lean_reading_stops_at_the_close(server: tuple[list[Handler], WsServer]) -> None:
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


async def test_a_frame_cut_by_the_end_of_the_stream(server: tuple[list[Handler], WsServer]
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


async def test_frames_sent_with_the_request_wait_for_the_open(
        server: tuple[list[Handler], WsServer]) -> None:
    """A client may write frames right behind its request, before the 101: they are kept
    (websockets never sees them inside the request) and handed over once open."""
    handlers, srv = server
    got: list[bytes | str] = []
    ended = asyncio.Event()
    handlers.append(lambda ws: collect(ws, got, ended))
    host, port = next(iter(srv.sockets)).getsockname()[:2]
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                 b"Sec-WebSocket-Version: 13\r\n\r\n" + masked(2, b"early") + masked(1, b"bird"))
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert head.startswith(b"HTTP/1.1 101")
    for _ in range(50):
        if len(got) == 2:
            break
        await asyncio.sleep(0.02)
    assert got == [b"early", "bird"]
    writer.close()
    await asyncio.wait_for(ended.wait(), 5)


async def test_a_silent_client_is_dropped_after_the_open_timeout() -> None:
    async def never(ws: WsConnection) -> None:
        raise AssertionError("no handshake, no handler")

    srv = await serve(never, "127.0.0.1", 0, open_timeout=0.2)
    try:
        host, port = next(iter(srv.sockets)).getsockname()[:2]
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(b"GET / HTTP/1.1\r\n")  # and nothing more
        assert await asyncio.wait_for(reader.read(), 5) == b""  # dropped
        writer.close()
    finally:
        srv.close()
        await srv.wait_closed()


async def test_a_client_that_never_answers_pings_is_closed_1011() -> None:
    ended = asyncio.Event()

    async def wait(ws: WsConnection) -> None:
        ws.set_sink(lambda data: None)
        await ws.wait_lost()
        ended.set()

    srv = await serve(wait, "127.0.0.1", 0, ping_interval=0.1, ping_timeout=0.1,
                      close_timeout=0.2)
    try:
        client = await connect(url(srv), compression=None, ping_interval=None)
        client.protocol.send_pong = lambda data=b"": None  # type: ignore[method-assign]
        # a client that reads nothing answers nothing: its transport stops reading
        client.transport.pause_reading()
        await asyncio.wait_for(ended.wait(), 5)
        client.transport.abort()
    finally:
        srv.close()
        await srv.wait_closed()


async def test_plain_http_gets_the_response_of_process_request() -> None:
    async def http(ws: WsConnection, request: Any) -> Any:
        return ws.respond(404, f"no {request.path}\n")

    srv = await serve(lambda ws: asyncio.sleep(0), "127.0.0.1", 0, process_request=http)
    try:
        host, port = next(iter(srv.sockets)).getsockname()[:2]
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
        body = await asyncio.wait_for(reader.read(), 5)  # the response, then the end
        assert body.startswith(b"HTTP/1.1 404") and body.endswith(b"no /nowhere\n")
        writer.close()
    finally:
        srv.close()
        await srv.wait_closed()


async def test_closing_the_server_closes_connections_1001(
        server: tuple[list[Handler], WsServer]) -> None:
    handlers, srv = server
    handlers.append(lambda ws: collect(ws, [], asyncio.Event()))
    client = await connect(url(srv), compression=None)
    srv.close()
    await asyncio.wait_for(srv.wait_closed(), 5)
    await asyncio.wait_for(client.wait_closed(), 5)
    assert client.close_code == 1001


# ---------------------------------------------------------------------- the splitter, pure

def _messages(pieces: list[Any]) -> list[bytes | str]:
    return [m.decode() if text else m for m, text, _ in pieces if m is not None]


def test_one_takes_exactly_one_simple_frame() -> None:
    splitter = FrameSplitter(1024)
    frame = masked(2, b"move")
    assert splitter.one(frame) == b"move"
    assert splitter.one(frame + frame) is None  # two frames: feed's
    assert splitter.one(frame[:-1]) is None  # not whole
    assert splitter.one(masked(9, b"ping")) is None  # a control frame: websockets'
    assert splitter.one(masked(2, b"x" * 126)) is None  # a 16-bit length: feed's
    assert FrameSplitter(3).one(frame) is None  # over the limit: websockets fails it
    splitter.feed(masked(1, b"fr", fin=False))
    assert splitter.open_fragment and splitter.one(frame) is None


def test_unmask_is_the_xor_of_the_repeated_key() -> None:
    key = b"\x01\x02\x03\x04"
    for n in (0, 1, 3, 4, 5, 130):
        payload = bytes(range(n % 256)) * 1 if n < 256 else b"x" * n
        payload = (payload * 2)[:n]
        assert unmask(payload, key) == bytes(b ^ key[i % 4] for i, b in enumerate(payload))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1, 2]), st.binary(max_size=300)), max_size=8),
       st.lists(st.integers(1, 64), min_size=1, max_size=20))
def test_any_chunking_gives_the_same_messages(frames: list[tuple[int, bytes]],
                                              cuts: list[int]) -> None:
    """Whole final frames are messages, however the stream is cut into chunks."""
    stream = b"".join(masked(op, data) for op, data in frames)
    want = [data if op == 2 else data.decode("latin-1") for op, data in frames]
    splitter, pieces, at, i = FrameSplitter(1024), [], 0, 0
    while at < len(stream):
        step = cuts[i % len(cuts)]
        pieces += splitter.feed(stream[at:at + step])
        at, i = at + step, i + 1
    got = [m.decode("latin-1") if text else m for m, text, _ in pieces]
    assert got == want and splitter.tail == b""


def test_fragments_and_control_frames_go_to_websockets_whole() -> None:
    splitter = FrameSplitter(1024)
    # the ping, the fragment's frames and the data frame inside it: websockets' to judge
    theirs = [masked(9, b"ping"), masked(1, b"fr", fin=False), masked(2, b"inside"),
              masked(0, b"ag")]
    pieces = splitter.feed(b"".join(theirs) + masked(2, b"after"))
    assert [raw for _, _, raw in pieces if raw is not None] == theirs
    assert _messages(pieces) == [b"after"]


def test_a_frame_over_the_limit_gives_the_rest_to_websockets() -> None:
    splitter = FrameSplitter(10)
    big, later = masked(2, b"x" * 11), masked(2, b"later")
    pieces = splitter.feed(masked(2, b"ok") + big + later)
    assert _messages(pieces) == [b"ok"] and splitter.given_up
    assert pieces[-1][2] == big + later
    assert splitter.feed(b"more") == [(None, False, b"more")]
