"""What one connection sends: encoded frames through one bounded queue, optionally gathered.

Every message is encoded once, here, and leaves through :attr:`Outbox.queue` (the connection's
writer task drains it). A client that stops reading fills the queue; the connection is then
dropped (``on_full``) instead of buffering without limit.

Gathering (opt-in: ``hello`` with ``batch: true``). On a busy race every move costs its rival
one frame, and each frame is one ``send()`` system call — the most expensive single thing the
server does per move (docs/performance.md, "Batch frames and writing at once"). A gathering
connection's race events wait up to :data:`EVENT_WINDOW` for company; every other message
(a reply: an ``ack``, an ``error``, …)
goes out in the event-loop tick that produced it, taking the waiting events with it, in the
order they were produced, as one ``batch`` frame (:func:`solrace.shared.protocol.batch_frame`).
Nothing is dropped or reordered; events keep their versions; a lone message keeps its own form.

Writing at once (:attr:`Outbox.direct`). When the queue is empty the writer task holds nothing
unsent, so a frame may be written to the socket right away instead of waking that task (a
future, a task step and websockets' async send context per frame); the connection decides
whether the socket can take it now (:meth:`solrace.server.session.connection.Connection.write_now`),
else the frame queues as before and back-pressure works as before.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable
from typing import Any

from solrace.shared import protocol as P

log = logging.getLogger("solrace.outbox")

#: Seconds a race event may wait for other messages bound to the same connection (documented
#: in docs/protocol.md, "Batch frames").
EVENT_WINDOW = 0.05
#: Messages and bytes per batch frame at most: a longer run (a catch-up) goes in several frames.
MAX_GATHER = 64
MAX_GATHER_BYTES = 16 * 1024


class Window:
    """The event window of every gathering outbox of one event loop: one timer, ticking every
    half window while some outbox holds events, instead of a timer per held event. An outbox
    whose oldest held event has waited half a window at a tick is flushed, so an event waits
    at most :data:`EVENT_WINDOW` (a reply usually takes it along much sooner).

    It also flushes, at the end of the tick, every outbox that got a reply during it: one
    callback per tick for all of them (:meth:`soon`) instead of one per reply — on a busy
    loop one Redis batch resolves many moves at once, and their acks are put in one tick."""

    __slots__ = ("_due", "_timer", "waiting")

    def __init__(self) -> None:
        self._timer: asyncio.TimerHandle | None = None
        self.waiting: dict[Outbox, float] = {}  # outbox -> loop time its oldest event came
        self._due: list[Outbox] | None = None  # outboxes to flush at the end of this tick

    def soon(self, box: Outbox, loop: asyncio.AbstractEventLoop) -> None:
        """Flush ``box`` at the end of this tick (with every other one put here meanwhile),
        as a ``call_soon`` of its own would."""
        due = self._due
        if due is None:
            due = self._due = []
            loop.call_soon(self._flush_due)
        due.append(box)

    def _flush_due(self) -> None:
        due, self._due = self._due or [], None
        for box in due:
            try:
                box.flush()
            except Exception:  # one connection's failure is not the others'
                log.exception("flushing an outbox failed")

    def hold(self, box: Outbox, loop: asyncio.AbstractEventLoop) -> None:
        if box not in self.waiting:
            self.waiting[box] = loop.time()
            if self._timer is None:
                self._timer = loop.call_later(EVENT_WINDOW / 2, self._tick, loop)

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        edge = loop.time() - EVENT_WINDOW / 2
        try:
            for box in [b for b, since in self.waiting.items() if since <= edge]:
                box.flush()  # leaves self.waiting
        finally:  # whatever a flush raised, what still waits is looked at again
            if self.waiting:
                self._timer = loop.call_later(EVENT_WINDOW / 2, self._tick, loop)


#: One window per event loop (the loop is only the key: a closed loop's window goes with it).
_windows: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Window] = (
    weakref.WeakKeyDictionary())


def window_of(loop: asyncio.AbstractEventLoop) -> Window:
    w = _windows.get(loop)
    if w is None:
        w = _windows[loop] = Window()
    return w


class Outbox:
    """The send side of one connection (see the module docstring)."""

    __slots__ = ("_bytes", "_held", "_loop", "_now", "_win", "_window", "direct",
                 "encode", "gather", "on_full", "queue")

    def __init__(self, size: int, on_full: Callable[[], None],
                 encode: Callable[[dict[str, Any]], bytes | str] = P.encode) -> None:
        self.queue: asyncio.Queue[bytes | str | None] = asyncio.Queue(maxsize=size)
        self.on_full = on_full
        #: The connection's codec (msgpack, or JSON text for browsers); batch frames are built
        #: from msgpack frames, so only a msgpack connection may gather (handlers/session.py).
        self.encode = encode
        self.gather = False
        #: Writes a frame to the socket now when it can (True), see the module docstring.
        self.direct: Callable[[bytes | str], bool] | None = None
        self._held: list[bytes | str] = []
        self._bytes = 0
        self._window: Window | None = None  # holds this outbox while it has held events
        self._now = False  # a flush is scheduled for the end of this tick
        self._loop: asyncio.AbstractEventLoop | None = None
        self._win: Window | None = None  # the window of that loop (looked up once)

    def full(self) -> bool:
        return self.queue.full() or len(self._held) >= MAX_GATHER

    def put(self, message: dict[str, Any]) -> None:
        self.put_frame(self.encode(message), message.get("t") == "event")

    def put_frame(self, frame: bytes | str, event: bool) -> None:
        """:meth:`put` of a message encoded already, by this outbox's codec (the move path
        joins its msgpack frames from parts: ``P.ack_frame``, ``P.event_frame``); ``event``:
        it is a race event (``t`` is ``event``), which a gathering outbox may hold."""
        if not self.gather:
            self._enqueue(frame)
            return
        held = self._held
        held.append(frame)
        self._bytes += len(frame)
        if len(held) >= MAX_GATHER or self._bytes >= MAX_GATHER_BYTES:
            self.flush()
            return
        if self._now:
            return
        loop, win = self._loop, self._win
        if loop is None or win is None:
            loop = self._loop = asyncio.get_running_loop()
            win = self._win = window_of(loop)
        if not event:  # a reply: this tick, with whatever waits
            self._now = True
            win.soon(self, loop)
        elif self._window is None:
            self._window = win
            win.hold(self, loop)

    def flush(self) -> None:
        """Send what waits now: one frame (a lone message as itself, several as a batch)."""
        self._now = False
        if self._window is not None:
            self._window.waiting.pop(self, None)
            self._window = None
        held = self._held
        if not held:
            return
        self._held = []
        self._bytes = 0
        self._enqueue(held[0] if len(held) == 1 else P.batch_frame(held))  # type: ignore[arg-type]

    def close(self) -> None:
        """The connection is gone: held messages go with it, the window forgets it."""
        if self._window is not None:
            self._window.waiting.pop(self, None)
            self._window = None
        self._held = []

    def _enqueue(self, frame: bytes | str) -> None:
        direct = self.direct
        if direct is not None and self.queue.empty() and direct(frame):
            return
        try:
            self.queue.put_nowait(frame)
        except asyncio.QueueFull:
            self.on_full()
