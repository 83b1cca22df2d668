"""One websocket connection: our own :class:`asyncio.Protocol` driving ``websockets``' public
sans-I/O :class:`~websockets.server.ServerProtocol` (the pattern of ``websockets``' own asyncio
layer: bytes in with ``receive_data``, events out with ``events_received``, bytes to write
from ``data_to_send``).

What it does itself, on public APIs only:

- **Reading.** The HTTP request is handed to ``websockets`` exactly up to its blank line, so
  that its parser holds nothing of what follows; after the handshake the stream is split into
  frames by :class:`~.frames.FrameSplitter` — a client's request frame is unmasked and handed
  to the sink (:meth:`WsConnection.set_sink`) from ``data_received``, no task, no queue; every
  other frame goes to ``websockets`` whole (pings are answered, closes handled, protocol
  errors failed by it), and its data frames are assembled here (at most
  :data:`MAX_FRAGMENTS` fragments, text UTF-8 decoded).
- **Writing.** A data message is framed here (:meth:`WsConnection.write_message`: no
  extension is ever negotiated, a server's frames are not masked) and written at once;
  control frames and the close go through ``websockets``. Flow control is the transport's:
  :attr:`WsConnection.paused`, and :meth:`WsConnection.send` waits for it.
- **Keepalive.** A ping every ``ping_interval``; no pong within ``ping_timeout`` fails the
  connection with 1011.
- **Closing.** :meth:`WsConnection.close` sends the close frame and waits up to
  ``close_timeout`` for the client to end the connection, then aborts it.

Messages that arrive before a sink is set wait in a list and are handed over, in order, when
it is set. :meth:`WsConnection.wait_lost` ends when the connection is lost or the stream of
messages broke (bad UTF-8, too many fragments).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from solrace.server.transport.frames import TEXT_FIN, FrameSplitter, frame_head
from websockets.exceptions import ConnectionClosed, InvalidState
from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import CLOSED, CONNECTING, OPEN
from websockets.server import ServerProtocol

if TYPE_CHECKING:
    from solrace.server.transport.server import WsServer

log = logging.getLogger("solrace.transport")

OP_CONT, OP_TEXT, OP_BINARY, OP_PONG = Opcode.CONT, Opcode.TEXT, Opcode.BINARY, Opcode.PONG

#: Fragments of one message at most (the figure ``websockets``' own assembler allows).
MAX_FRAGMENTS = 4096
#: Bytes of an HTTP request head at most before ``websockets`` is given what came (it then
#: refuses the request as too long, as it would on its own).
MAX_HEAD = 65536


class WsConnection(asyncio.Protocol):
    """A server-side websocket connection (see the module docstring)."""

    def __init__(self, server: WsServer, proto: ServerProtocol) -> None:
        self.server = server
        self.protocol = proto
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.request: Request | None = None
        self.response: Response | None = None
        #: the subprotocol the handshake agreed on, or None
        self.subprotocol: str | None = None
        #: the transport asked us to stop writing (flow control)
        self.paused = False
        self._drained: list[asyncio.Future[None]] = []
        self._head = b""  # the HTTP request head, until its blank line
        self._early = b""  # bytes after the request head, before the connection is open
        self._splitter: FrameSplitter | None = None
        self._parts: list[Frame] = []
        self._sink: Callable[[bytes | str], None] | None = None
        self._waiting: list[bytes | str] = []
        self._broken: asyncio.Future[None] = self.loop.create_future()
        self.lost: asyncio.Future[None] = self.loop.create_future()
        self._pings: dict[bytes, asyncio.Future[None]] = {}
        self._keepalive: asyncio.Task[None] | None = None
        self._closer: asyncio.Task[None] | None = None
        self._open_timer: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------------ public, for handlers

    @property
    def remote_address(self) -> Any:
        return self.transport.get_extra_info("peername") if self.transport else None

    @property
    def state(self) -> Any:
        return self.protocol.state

    def respond(self, status: int, text: str) -> Response:
        """A plain-text HTTP response to the request (``websockets``' ``reject``)."""
        return self.protocol.reject(status, text)

    def set_sink(self, sink: Callable[[bytes | str], None]) -> None:
        """From now on, every complete data message goes to ``sink`` — first those received
        already, in order. ``sink`` must not block and should not raise."""
        self._sink = sink
        waiting, self._waiting = self._waiting, []
        for data in waiting:
            sink(data)

    async def wait_lost(self) -> None:
        """Until the connection is lost, or its message stream broke."""
        await asyncio.shield(self._broken)

    def write_message(self, data: bytes | str) -> bool:
        """Write one whole data message (text for ``str``) now; False when the connection is
        not open (nothing written). The caller checked :attr:`paused` when it matters."""
        if self.protocol.state is not OPEN or self.transport is None:
            return False
        if type(data) is str:
            payload = data.encode()
            self.transport.write(frame_head(len(payload), True) + payload)
        else:
            self.transport.write(frame_head(len(data), False) + data)
        return True

    async def send(self, data: bytes | str) -> None:
        """Write one data message, then wait while the transport's buffer is full; raises
        :class:`~websockets.exceptions.ConnectionClosed` when the connection is not open."""
        if not self.write_message(data):
            raise ConnectionClosed(None, None)
        if self.paused:
            waiter = self.loop.create_future()
            self._drained.append(waiter)
            try:
                await waiter
            finally:
                self._drained.remove(waiter)

    async def ping(self, data: bytes | None = None) -> asyncio.Future[None]:
        """Send a ping; the returned future is done when its pong comes back."""
        if self.protocol.state is not OPEN:
            raise ConnectionClosed(None, None)
        payload = data if data is not None else self.loop.time().hex().encode()
        waiter = self._pings[payload] = self.loop.create_future()
        self.protocol.send_ping(payload)
        self._flush()
        return waiter

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """The closing handshake: the close frame now, then at most ``close_timeout`` for the
        client to answer and end the connection; then it is aborted."""
        if self.protocol.state is OPEN:
            with contextlib.suppress(InvalidState):
                self.protocol.send_close(code, reason)
            self._flush()
        await self._ended_within(self.server.close_timeout)

    # ------------------------------------------------------------------ asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # (uvloop's is not a subclass)
        self.server.opened(self)
        self._open_timer = self.loop.call_later(self.server.open_timeout, self._open_expired)

    def _open_expired(self) -> None:
        """No handshake within ``open_timeout``: the connection is aborted."""
        self._open_timer = None
        if self.protocol.state is CONNECTING and self.transport is not None:
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        splitter = self._splitter
        if splitter is not None:
            message = splitter.one(data)
            if message is not None:
                self._deliver(message, data[0] == TEXT_FIN)
                return
            proto = self.protocol
            for message, text, raw in splitter.feed(data):
                if message is not None:
                    self._deliver(message, text)
                elif raw is not None:
                    self._feed(raw)
                    if proto.state is not OPEN:  # closing: websockets takes the rest
                        self._splitter = None
                        rest = splitter.rest()
                        if rest:
                            self._feed(rest)
                        return
            return
        if self.request is None and self.protocol.state is CONNECTING:
            self._read_head(data)
        elif self.protocol.state is CONNECTING:  # the request is in: the handshake runs
            self._early += data
        else:
            self._feed(data)

    def eof_received(self) -> bool | None:
        if self._splitter is not None:  # the start of a frame websockets has not seen
            rest = self._splitter.rest()
            self._splitter = None
            if rest:
                self._feed(rest)
        self.protocol.receive_eof()
        self._events()
        self._flush()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.protocol.receive_eof()  # idempotent: the protocol's state becomes CLOSED
        if not self.lost.done():
            self.lost.set_result(None)
        if not self._broken.done():
            self._broken.set_result(None)
        for waiter in self._pings.values():
            if not waiter.done():
                waiter.set_exception(ConnectionClosed(None, None))
                waiter.exception()  # retrieved: nobody may await it
        self._pings.clear()
        if self._open_timer is not None:
            self._open_timer.cancel()
            self._open_timer = None
        if self._keepalive is not None:
            self._keepalive.cancel()
            self._keepalive = None
        self.paused = False
        for waiter in self._drained:
            if not waiter.done():
                waiter.set_result(None)
        self.server.closed(self)

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        for waiter in self._drained:
            if not waiter.done():
                waiter.set_result(None)

    # ------------------------------------------------------------------ the handshake

    def _read_head(self, data: bytes) -> None:
        """Bytes of the HTTP request: ``websockets`` gets them up to the blank line that ends
        the head (a GET has no body), the rest waits for the connection to open."""
        head = self._head + data
        end = head.find(b"\r\n\r\n")
        if end < 0 and len(head) <= MAX_HEAD:
            self._head = head
            return
        cut = end + 4 if end >= 0 else len(head)
        self._head, self._early = b"", head[cut:]
        self.protocol.receive_data(head[:cut])
        for event in self.protocol.events_received():
            if isinstance(event, Request):
                self.request = event
                self.server.start_handler(self)
        self._flush()  # a request websockets refused at once: its response

    async def handshake(self, process_request: Callable[[WsConnection, Request],
                                                        Awaitable[Response | None]] | None,
                        ) -> bool:
        """Answer the request: ``process_request``'s HTTP response, or the websocket's
        acceptance. True when the connection is open."""
        request = self.request
        assert request is not None
        response = None
        if process_request is not None:
            try:
                response = await process_request(self, request)
            except Exception:
                log.exception("process_request failed")
                response = self.protocol.reject(500, "Failed to open a WebSocket connection.\n")
        if response is None:
            response = self.protocol.accept(request)
            if response.status_code == 101 and not self.server.is_serving():
                response = self.protocol.reject(503, "Server is shutting down.\n")
        self.response = response
        if self.protocol.state is not CONNECTING:
            return False
        self.protocol.send_response(response)
        self._flush()
        if self._open_timer is not None:
            self._open_timer.cancel()
            self._open_timer = None
        if self.protocol.state is not OPEN:
            return False
        self.subprotocol = response.headers.get("Sec-WebSocket-Protocol")
        self._splitter = FrameSplitter(self.server.max_size)
        early, self._early = self._early, b""
        if early:
            self.data_received(early)
        if self.server.ping_interval is not None:
            self._keepalive = self.loop.create_task(self._keep_alive())
        return True

    # ------------------------------------------------------------------ websockets' part

    def _feed(self, data: bytes) -> None:
        self.protocol.receive_data(data)
        self._events()
        self._flush()

    def _events(self) -> None:
        for event in self.protocol.events_received():
            if isinstance(event, Frame):
                self._frame(event)

    def _flush(self) -> None:
        """Write what ``websockets`` has to send; its empty chunk asks to end the stream."""
        transport = self.transport
        if transport is None:
            return
        for data in self.protocol.data_to_send():
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                with contextlib.suppress(Exception):
                    transport.write_eof()
            else:
                transport.close()
        if self.protocol.close_expected() and self._closer is None and not self.lost.done():
            # the client ends the connection next; if it does not, it is aborted
            self._closer = self.loop.create_task(self._ended_within(self.server.close_timeout))

    def _frame(self, frame: Frame) -> None:
        opcode = frame.opcode
        if opcode is OP_PONG:
            waiter = self._pings.pop(bytes(frame.data), None)
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
            return
        if opcode is not OP_TEXT and opcode is not OP_BINARY and opcode is not OP_CONT:
            return  # ping (answered by websockets), close (handled by websockets)
        if self._broken.done():
            return
        parts = self._parts
        if not frame.fin or parts:
            if (opcode is OP_CONT) != bool(parts) or len(parts) >= MAX_FRAGMENTS:
                self._break()
                return
            parts.append(frame)
            if not frame.fin:
                return
            self._parts = []
            payload = b"".join(bytes(f.data) for f in parts)
            self._deliver(payload, parts[0].opcode is OP_TEXT)
        else:
            self._deliver(bytes(frame.data), opcode is OP_TEXT)

    def _deliver(self, payload: bytes, text: bool) -> None:
        """A whole data message to the sink (text UTF-8 decoded)."""
        if self._broken.done():
            return
        data: bytes | str = payload
        if text:
            try:
                data = payload.decode()
            except UnicodeDecodeError:
                self._break()
                return
        sink = self._sink
        if sink is None:
            self._waiting.append(data)
        else:
            sink(data)

    def _break(self) -> None:
        """The message stream cannot go on: nothing more is handed over and
        :meth:`wait_lost` returns, so the handler ends and the connection closes."""
        if not self._broken.done():
            self._broken.set_result(None)
        self._sink = None
        self._waiting = []

    # ------------------------------------------------------------------ timers

    async def _ended_within(self, timeout: float) -> None:
        """Wait up to ``timeout`` for the connection to end; then abort it."""
        try:
            async with asyncio.timeout(timeout):
                await asyncio.shield(self.lost)
        except TimeoutError:
            if self.transport is not None:
                self.transport.abort()
            await asyncio.shield(self.lost)

    async def _keep_alive(self) -> None:
        interval, timeout = self.server.ping_interval, self.server.ping_timeout
        assert interval is not None
        with contextlib.suppress(ConnectionClosed):
            while self.protocol.state is OPEN:
                await asyncio.sleep(interval)
                if self.protocol.state is not OPEN:
                    return
                pong = await self.ping()
                if timeout is None:
                    continue
                try:
                    async with asyncio.timeout(timeout):
                        await pong
                except TimeoutError:
                    log.info("closing a connection whose pong did not come in %g s", timeout)
                    if self.protocol.state is OPEN:
                        self.protocol.fail(1011, "keepalive ping timeout")
                        self._flush()
                    await self._ended_within(self.server.close_timeout)
                    return

    @property
    def closed(self) -> bool:
        return self.protocol.state is CLOSED
