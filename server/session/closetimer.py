"""The close timer of a connection: the hello deadline and the idle timeout, one timer each.

A connection must say hello within ``HELLO_TIMEOUT`` of connecting (one deadline, not reset
by other frames), and one with nothing going on (no race, no watch, no quick-play queue,
nothing being handled) is closed after ``idle_timeout`` without a frame (or without the
answer to a request handled in the background). Both are one
:class:`asyncio.TimerHandle` per connection, never one per frame: the worker re-arms it after
each request (:meth:`CloseTimer._recheck`), so the limit always follows the state as handled
so far, and when it fires early (frames came meanwhile) it arms itself again.

A mixin of :class:`solrace.server.session.connection.Connection`, a job of its own there (kept apart
so that the connection module stays about its dispatch): it reads the connection's state
(``greeted``, ``closing``, ``feed``, ``quick_queue``, ``_busy()``, ``ctx.config``) and owns the
timer's attributes, which the connection's ``__init__`` sets (one place for them all: more
than 30 would cost every connection a dict of its own, docs/performance.md, "Lean
reading").
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from solrace.shared import protocol as P

if TYPE_CHECKING:
    from solrace.server.fanout.feed import Feed
    from solrace.server.ops.app import Context
    from solrace.server.transport import WsConnection


class CloseTimer:
    """The hello deadline and the idle close (see the module's docstring)."""

    if TYPE_CHECKING:  # the connection's, see Connection.__init__
        ws: WsConnection
        ctx: Context
        feed: Feed
        greeted: bool
        closing: bool
        quick_queue: str | None
        hinting: bool
        analysing: bool
        _timer: asyncio.TimerHandle | None  # hello deadline / idle timeout
        _closer: asyncio.Future[None] | None  # the idle (or no hello) close
        _hello_deadline: float
        _last_frame: float
        _due: float

        def _busy(self) -> bool: ...
        def send(self, message: dict[str, Any]) -> None: ...

    def _timeout(self) -> float | None:
        """Seconds until the connection is due to close, from the state as handled so far:
        the hello deadline before a hello succeeded; the idle timeout (counted from the last
        frame) when nothing is going on and nothing is being handled; otherwise no limit."""
        now = time.monotonic()
        if not self.greeted:
            return max(0.0, self._hello_deadline - now)
        if (self._busy() or self.feed.races or self.quick_queue is not None
                or self.hinting or self.analysing or self.ctx.standings.follows(self)):
            return None
        return max(0.0, self._last_frame + self.ctx.config.idle_timeout - now)

    def background_done(self) -> None:
        """A request answered in the background (a hint, an analysis) is done: the close
        timer looks at the connection again (it was left unarmed while the work ran). The idle
        time counts from this answer, as from a frame: an analysis can take longer than the
        idle timeout, and the caller must get the time to read it and ask again."""
        self._last_frame = max(self._last_frame, time.monotonic())
        self._recheck()

    def _recheck(self) -> None:
        """After each request (and each CONCURRENT one): arm the close timer for the state as
        it is now, unless it is armed for that time or earlier already (it looks again when it
        fires)."""
        if self._closer is not None or self.closing:
            return
        wait = self._timeout()
        if wait is None:
            return
        due = time.monotonic() + wait
        if self._timer is not None:
            if self._due <= due:
                return
            self._timer.cancel()
        self._set_timer(due)

    def _set_timer(self, due: float) -> None:
        self._due = due
        loop = asyncio.get_running_loop()
        self._timer = loop.call_at(loop.time() + max(0.0, due - time.monotonic()),
                                   self._on_timer)

    def _on_timer(self) -> None:
        """The close timer: one per connection, never per frame. Not yet due (frames came
        meanwhile): armed again; something going on: left unarmed until the next request is
        handled; due with a request running (a hello that arrived in time): looked at again
        after it; due: close (``_expire``), which ends the reader."""
        self._timer = None
        if self.closing or self._closer is not None:
            return
        wait = self._timeout()
        if wait is None:
            return
        if wait > 0:
            self._set_timer(time.monotonic() + wait)
        elif not self._busy():
            self._closer = asyncio.ensure_future(self._expire())

    async def _expire(self) -> None:
        ws = self.ws
        if not self.greeted:
            self.send(P.error(None, "not_authenticated", "no hello within 10 s"))
            await asyncio.sleep(0.05)
            await ws.close(1008, "no hello")
        else:
            await ws.close(1001, "idle")
