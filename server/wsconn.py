"""The websocket connection type the server runs on: data frames straight to their handler.

``websockets``' own :class:`~websockets.asyncio.server.ServerConnection` queues every data
frame in an assembler, and a reader task takes it out with ``await ws.recv()``: per message a
queue put, a future, a task wake-up and the assembler's bookkeeping, before the frame even
reaches our in-order queue (:class:`solrace.server.connection.Connection`), which wakes another
task. This subclass hands each complete message to a callback (:meth:`FrameConnection.set_sink`)
from the protocol's own ``data_received``, in arrival order, so the reader task and its hop go
(docs/performance.md, "Lean reading").

What does not change: websockets still parses and checks every frame (masking, ``max_size``
across the fragments of one message — close 1009 — control frames, pings/pongs, the closing
handshake); fragmented messages are put together here as its assembler does (at most
:data:`MAX_FRAGMENTS` fragments), and text messages are UTF-8 decoded as ``recv()`` does. The
assembler's read pausing is not needed: the sink never blocks, and the connection bounds what
waits for handling itself (``PIPELINE_DEPTH``: one more frame is refused, not buffered).

Reading (:meth:`FrameConnection.data_received`): once the connection is open and websockets'
parser waits at the start of a frame, the bytes are split into frames here. A whole, final,
masked text or binary frame within the size limit — what a client's request is — is unmasked
and handed to the sink directly, without websockets' stream reader, parser generators and
frame object; every other whole frame (control frames, fragments, reserved bits, an unmasked
frame, anything while a fragmented message is open) goes to websockets' own ``data_received``
alone, so it answers, checks and fails exactly as before and its parser is at the start of a
frame again afterwards. A frame not yet whole waits here (at most the size limit plus its
header); a header that announces more than the limit, or a 64-bit length, gives the rest of
the stream to websockets for good (it closes with 1009 as it would). Nothing else changes:
websockets still writes, pings, times out and closes (docs/performance.md, "Lean reading").

Messages that arrive before a sink is set (between the handshake and the handler's start) wait
in a list and are handed over, in order, when it is set. :meth:`FrameConnection.wait_lost`
ends when the connection is lost or the stream of messages broke (bad UTF-8, too many
fragments: the handler then ends and the connection closes, as when ``recv()`` raised).

Sending: :meth:`FrameConnection.write_message` frames one whole data message here and writes it
to the transport — the bytes ``websockets`` would write for it (a server's frames are not
masked; no extension is negotiated: the server turns compression off), without its frame
object, serializer and write list per message. Whenever anything else could be involved
(an extension, a fragmented message or other writes pending in the protocol, a state other than
open, debug logging) it goes through ``websockets`` as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.frames import BINARY, CONT, TEXT, Frame, apply_mask
from websockets.protocol import OPEN, Event
from websockets.streams import StreamReader

#: Fragments of one message at most (the figure ``websockets``' own assembler allows).
MAX_FRAGMENTS = 4096


def frame_head(length: int, text: bool) -> bytes:
    """The header of an unmasked, final data frame of ``length`` payload bytes (RFC 6455 5.2):
    what ``websockets.frames.Frame.serialize(mask=False)`` writes before the payload."""
    first = 0x81 if text else 0x82
    if length < 126:
        return bytes((first, length))
    if length < 65536:
        return bytes((first, 126)) + length.to_bytes(2, "big")
    return bytes((first, 127)) + length.to_bytes(8, "big")


class _Inbox:
    """The message state of one :class:`FrameConnection`, in one attribute: a websockets
    connection already has 27, and past 30 CPython stops sharing the instance dict's keys
    between instances (about 3.5 KiB more per connection, measured)."""

    __slots__ = ("broken", "lean", "parts", "sink", "tail", "waiting")

    def __init__(self, broken: asyncio.Future[None]) -> None:
        self.sink: Callable[[bytes | str], None] | None = None
        self.waiting: list[bytes | str] = []  # messages that came before a sink was set
        self.parts: list[Frame] = []  # fragments of the message being received
        #: Done when the connection is lost or its message stream broke (``wait_lost``).
        self.broken = broken
        #: Frames are split here (then the payload size limit, an int), by websockets for good
        #: (False), or not yet known (None: until its parser waits at the start of a frame).
        self.lean: int | bool | None = None
        self.tail = bytearray()  # the start of a frame not yet whole (lean reading)


def at_frame_start(proto: Any) -> bool:
    """Whether websockets' parser holds no byte of the stream and waits for the next frame —
    the only point where frames may be split outside it. Read from its generators: between
    frames, with nothing buffered, ``Protocol.parse`` waits in the stream reader's
    ``at_eof()`` (inside a frame it waits in ``Frame.parse``). Any other shape (another
    websockets version) says False: then websockets parses everything, as before
    (tests/server/test_wsconn.py pins the shape)."""
    if proto.reader.buffer or proto.current_size is not None:
        return False
    gen, inner = proto.parser, None
    while gen is not None:
        inner, gen = gen, getattr(gen, "gi_yieldfrom", None)
    return inner is not None and getattr(inner, "gi_code", None) is _AT_EOF


_AT_EOF = StreamReader.at_eof.__code__


class FrameConnection(ServerConnection):
    """A server connection whose data messages go to a sink (:meth:`set_sink`; see the
    module docstring). Without a sink set nothing is lost: messages wait for one."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._inbox = _Inbox(self.loop.create_future())
        super().connection_made(transport)  # starts the handler task

    def set_sink(self, sink: Callable[[bytes | str], None]) -> None:
        """From now on, every complete data message goes to ``sink`` — first those received
        already, in order. ``sink`` must not block and should not raise."""
        inbox = self._inbox
        inbox.sink = sink
        waiting, inbox.waiting = inbox.waiting, []
        for data in waiting:
            sink(data)

    async def wait_lost(self) -> None:
        """Until the connection is lost, or its message stream broke."""
        await asyncio.shield(self._inbox.broken)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if not self._inbox.broken.done():
            self._inbox.broken.set_result(None)

    def process_event(self, event: Event) -> None:
        if self.request is None or not isinstance(event, Frame):
            super().process_event(event)  # the handshake request
            return
        opcode = event.opcode
        if opcode is not TEXT and opcode is not BINARY and opcode is not CONT:
            super().process_event(event)  # control frames: pongs acknowledge pings
            return
        inbox = self._inbox
        if inbox.broken.done():
            return
        parts = inbox.parts
        if not event.fin or parts:
            if (opcode is CONT) != bool(parts):  # the protocol layer never lets this through
                self._break()
                return
            if len(parts) >= MAX_FRAGMENTS:
                self._break()
                return
            parts.append(event)
            if not event.fin:
                return
            inbox.parts = []
            first = parts[0]
            payload = b"".join(f.data for f in parts)
            text = first.opcode is TEXT
        else:
            payload = event.data if type(event.data) is bytes else bytes(event.data)
            text = opcode is TEXT
        self._deliver(payload, text)

    def _deliver(self, payload: bytes, text: bool) -> None:
        """A whole data message to the sink (text UTF-8 decoded, as ``recv()`` does)."""
        inbox = self._inbox
        data: bytes | str = payload
        if text:
            try:
                data = payload.decode()
            except UnicodeDecodeError:
                self._break()
                return
        sink = inbox.sink
        if sink is None:
            inbox.waiting.append(data)
        else:
            sink(data)

    # ------------------------------------------------------------------ lean reading

    def data_received(self, data: bytes) -> None:
        """Bytes from the socket: split into frames here when that is safe (see the module
        docstring), else websockets' own ``data_received``."""
        inbox = self._inbox
        limit = inbox.lean
        if limit is None or limit is False:
            if limit is False or not self._lean_start():
                super().data_received(data)
                return
            limit = inbox.lean
        tail = inbox.tail
        if tail:
            tail += data
            buf: bytes = bytes(tail)
            tail.clear()
        else:
            buf = data
        proto = self.protocol
        end = len(buf)
        pos = 0
        while end - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            size = b1 & 0x7F
            head = pos + 2
            if size >= 126:
                if size == 127:  # never a request of ours: websockets decides
                    self._give_up(buf, pos)
                    return
                if end - pos < 4:
                    break
                size = (buf[pos + 2] << 8) | buf[pos + 3]
                head = pos + 4
            if size > limit:  # websockets fails it (1009)
                self._give_up(buf, pos)
                return
            if b1 & 0x80:
                head += 4
            stop = head + size
            if stop > end:
                break
            if ((b0 == 0x82 or b0 == 0x81) and b1 & 0x80 and proto.current_size is None
                    and proto.state is OPEN and not inbox.broken.done()):
                self._deliver(apply_mask(buf[head:stop], buf[head - 4:head]), b0 == 0x81)
            else:  # a whole frame of another kind: websockets' own, at a frame's start
                super().data_received(buf[pos:stop])
                if proto.state is not OPEN:  # closing: websockets takes the rest
                    self._give_up(buf, stop)
                    return
            pos = stop
        if pos < end:
            tail += buf[pos:]

    def _lean_start(self) -> bool:
        """Whether frames may be split here from now on (then ``_inbox.lean`` holds the size
        limit a frame's payload may have): the handshake done, the connection open, no
        extension, no debug logging, a size limit, and websockets' parser between frames."""
        proto = self.protocol
        if (self.request is None or proto.state is not OPEN or proto.extensions
                or proto.debug or not at_frame_start(proto)):
            return False
        limit = proto.max_message_size
        if proto.max_fragment_size is not None:
            limit = (proto.max_fragment_size if limit is None
                     else min(limit, proto.max_fragment_size))
        if limit is None:  # no limit: websockets' own reading, which has none either
            self._inbox.lean = False
            return False
        self._inbox.lean = limit
        return True

    def _give_up(self, buf: bytes, pos: int) -> None:
        """websockets parses the stream from ``pos`` on, for good."""
        self._inbox.lean = False
        if pos < len(buf):
            super().data_received(buf[pos:])

    def eof_received(self) -> None:
        inbox = self._inbox
        if inbox.tail:  # the start of a frame websockets has not seen: its, then the end
            rest = bytes(inbox.tail)
            inbox.tail.clear()
            inbox.lean = False
            super().data_received(rest)
        super().eof_received()

    def write_message(self, data: bytes | str) -> bool:
        """Write one whole data message (text for ``str``) to the transport now, framed here
        (see the module docstring); False when ``websockets`` must frame it: then nothing was
        written. The caller checked flow control and that no send is in progress."""
        proto = self.protocol
        if (proto.extensions or proto.writes or proto.expect_continuation_frame
                or proto.state is not OPEN or proto.debug):
            return False
        if type(data) is str:
            payload = data.encode()
            self.transport.write(frame_head(len(payload), True) + payload)
        else:
            self.transport.write(frame_head(len(data), False) + data)
        return True

    def _break(self) -> None:
        """The message stream cannot go on: stop handing messages over; :meth:`wait_lost`
        returns, so the handler ends and websockets closes the connection (as when ``recv()``
        raised)."""
        inbox = self._inbox
        if not inbox.broken.done():
            inbox.broken.set_result(None)
        inbox.sink = None
        inbox.waiting = []
