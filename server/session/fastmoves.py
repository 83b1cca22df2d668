"""A connection's moves without the worker: the synchronous start of a frame that finds the
worker idle (docs/performance.md, "The synchronous move start").

A mixin of :class:`~solrace.server.session.connection.Connection`, kept apart so that the connection
module stays about its lifecycle, limits and dispatch. :meth:`MoveStart._now` runs a frame's
checks in the websocket's frame callback and, for a full move with a held session, starts it
synchronously (:meth:`~solrace.server.game.racemoves.MovePath.move_now`); the store's reply then
acks it from the future's done callback (:meth:`MoveStart._moved`): no wake-up future, no task
step. Frames that arrive meanwhile wait in the connection's queue; the move's end
(:meth:`MoveStart._settle`) wakes the worker for them, so the connection's order holds. A
move the worker handles goes through its handler
(:func:`~solrace.server.session.handlers.play.on_play`, through the move service), which
starts it the same way.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from solrace.server.game.moveservice import full_move
from solrace.server.game.racemoves import with_version
from solrace.server.ops import metrics
from solrace.shared import protocol as P

#: Re-exported for the handlers: the ack's message lives with the protocol (compiled there).
ack_reply = P.ack_reply


class MoveStart:
    """The move path of a connection (its state: ``ctx``, ``feed``, ``_queue``, ``_moving``,
    ``_working``; its helpers: ``_begin``, ``_push``, ``_report``, ``_recheck``, ``send``)."""

    # provided by Connection
    ctx: Any
    feed: Any
    _queue: Any
    _moving: Any
    _working: bool
    out: Any

    def _now(self, data: bytes | str) -> None:
        """A frame for an idle worker (nothing queued, nothing running), handled in the
        frame callback as far as it goes without waiting: checks and parsing
        (:meth:`_begin`: an error is answered here), and a move's synchronous start
        (:meth:`~solrace.server.game.racemoves.MovePath.move_now`), whose store reply then
        finishes it (:meth:`_moved`) — no wake-up of the worker, no task step. Frames that
        come meanwhile queue and wait for it; anything else goes to the worker, already
        read, so the connection's order holds."""
        begun = self._begin(data)
        if begun is None:  # answered
            self._recheck()
            return
        req_id, _, req, held = begun
        if (held and type(req) is P.MakeMove and not req.auto
                and (move := full_move(req.move)) is not None):
            started = time.perf_counter()
            races, feed, rid, seq = self.ctx.races, self.feed, req.race, req.seq
            feed.claim(rid, seq, seq + 1)
            try:
                pending = races.move_now(self.me, rid, seq, move)
            except Exception as exc:
                feed.unclaim(rid, seq, seq + 1)
                self._report(req_id, "move", exc)
                self._recheck()
                return
            if pending is None or type(pending) is dict:  # not the common case (a duplicate
                # needs its version read): the worker's _move claims it again
                feed.unclaim(rid, seq, seq + 1)
            else:
                self._working = True
                fut = pending.reply
                self._moving = (fut, req_id, req, pending, started)
                fut.add_done_callback(self._moved)
                return
        self._push(begun)  # the rest may wait: the worker's

    def _moved(self, fut: asyncio.Future[Any]) -> None:
        """The store's reply to a move :meth:`_now` started: the ack; a refusal is finished
        by a task (its answer may need reads), during which later frames still wait."""
        assert self._moving is not None
        _, req_id, req, pending, started = self._moving
        races = self.ctx.races
        try:
            if fut.cancelled():
                races.move_failed(pending)
                raise asyncio.CancelledError
            exc = fut.exception()
            if exc is not None:
                races.move_failed(pending)
                raise exc
            raw = fut.result()
            ack = races.move_done(pending, raw)
            if ack is None:
                task = asyncio.ensure_future(self._refused(req_id, req, pending, raw, started))
                self._moving = (task, req_id, req, pending, started)
                return
            self._acked(req, ack, started, pending.applied.delta_packed)
        except BaseException as exc:  # refused: another connection's move n+1 is not ours
            self.feed.unclaim(req.race, req.seq, req.seq + 1)
            if isinstance(exc, Exception):
                self._report(req_id, "move", exc)
        self._settle()

    async def _refused(self, req_id: Any, req: P.MakeMove, pending: Any, raw: Any,
                       started: float) -> None:
        try:
            ack = await self.ctx.races.move_refused(pending, raw)
            if ack.get("duplicate"):
                ack = await with_version(self.ctx.races.store, req.race, self.me.pid, req.seq,
                                         ack)
            self._acked(req, ack, started)
        except BaseException as exc:
            self.feed.unclaim(req.race, req.seq, req.seq + 1)
            if isinstance(exc, Exception):
                self._report(req_id, "move", exc)
        finally:
            self._settle()

    def _settle(self) -> None:
        """A move started by :meth:`_now` is over: the worker takes the frames that came
        meanwhile."""
        self._moving = None
        self._working = False
        if self._queue:
            self._wake_worker()
        self._recheck()

    def _acked(self, req: P.MakeMove, ack: dict[str, Any], started: float,
               delta: bytes | None = None) -> None:
        """Send the ack; ``delta``: the move's delta packed already (:func:`P.progress_body`),
        which a msgpack connection's ack frame embeds (:func:`P.ack_frame`, the same bytes as
        encoding the ack's dict)."""
        metrics.MOVE_ACK_SECONDS.observe(time.perf_counter() - started)
        if delta is not None and self.out.encode is P.encode:
            self.send_frame(P.ack_frame(req.id, req.race, ack, delta), False)
        else:
            self.send(P.ack_reply(req.id, req.race, ack))
