"""The sending side of a connection: the writer task, writing a frame at once, the close
after the last reply, and the drop of a client too slow to read.

Every message leaves through the connection's :class:`~solrace.server.session.outbox.Outbox`
(encoded once there, one bounded queue). Its frames go to the socket either from the writer task
(:meth:`Sending._writer`, which awaits ``ws.send``) or, when the queue is empty, straight from
the outbox (:meth:`Sending.write_now`: no task wake-up, no async send context per frame). A
client that fills the queue is closed (``_too_slow``), never buffered without limit.

A mixin of :class:`solrace.server.session.connection.Connection`, a job of its own there (kept apart
so that the connection module stays about its dispatch); its attributes are the
connection's, set in its ``__init__`` (one place for them all: more than 30 would cost every
connection a dict of its own, docs/performance.md, "Lean reading").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from solrace.server.session.outbox import Outbox
    from solrace.server.transport import WsConnection

log = logging.getLogger("solrace.connection")

CLOSE = b""  # in the outbox: close the websocket once everything before it is sent


class Sending:
    """The writer task, :meth:`write_now`, :meth:`send` and the closes that follow the queue
    (see the module's docstring)."""

    if TYPE_CHECKING:  # the connection's, see Connection.__init__
        ws: WsConnection
        out: Outbox
        closing: bool
        _close_reason: str

        def spawn(self, coro: Any) -> None: ...

    async def _writer(self) -> None:
        while True:
            frame = await self.out.queue.get()
            if frame is None:
                return
            try:
                if not frame:  # CLOSE
                    await self.ws.close(1000, self._close_reason)
                    return
                await self.ws.send(frame)
            except Exception:
                return

    def write_now(self, frame: bytes | str) -> bool:
        """Write ``frame`` to the socket now, as ``ws.send`` would without waiting, when that
        cannot reorder or overrun anything: the outbox is empty (checked by the caller: the
        writer holds no unsent frame), the websocket is open and not paused by flow control.
        False: queue it for the writer task (which also reports a closed connection)."""
        ws = self.ws
        if ws.paused:
            return False
        try:
            return ws.write_message(frame)
        except Exception:  # the socket failed: the connection ends
            log.info("writing to a connection failed", exc_info=True)
            if ws.transport is not None:
                ws.transport.abort()
            return True

    def send(self, message: dict[str, Any]) -> None:
        if not self.closing:
            self.out.put(message)

    def send_frame(self, frame: bytes | str, event: bool) -> None:
        """:meth:`send` of a message encoded already by this connection's codec
        (:meth:`Outbox.put_frame`)."""
        if not self.closing:
            self.out.put_frame(frame, event)

    def _too_slow(self) -> None:
        log.info("closing a connection whose send queue is full")
        self.closing = True
        self.spawn(self.ws.close(1013, "too slow: send queue full; resume and sync"))

    async def close_after_reply(self, reason: str) -> None:
        """Close the connection once every frame queued so far has been sent (logout, a
        revoked session): later frames are dropped."""
        if self.closing:
            return
        self._close_reason = reason
        self.closing = True
        self.out.flush()  # gathered messages are queued before the close
        with contextlib.suppress(asyncio.QueueFull):
            self.out.queue.put_nowait(CLOSE)
