"""Ordered event delivery for one connection: every version of every attached race exactly once.

Race events reach a connection from the process's hub (pub/sub, which may drop or reorder) and
from catch-up reads of the durable event stream; :meth:`Feed.advance` merges both so that the
client sees every version exactly once, in order. Spectated races may run behind through a
:class:`~solrace.server.fanout.spectate.DelayLine`.

The feed owns only delivery state; what a connection may attach to is decided by the request
handlers (:mod:`solrace.server.session.handlers`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError
from solrace.server.fanout.spectate import DelayLine, RaceMask
from solrace.shared import protocol as P

if TYPE_CHECKING:
    from solrace.server.session.connection import Connection

CATCH_UP_PAGE = 200  # events read from the stream per catch-up step
SYNC_PAGE = 1000  # events per sync reply; ``more`` says another sync is needed
OWN_RANGES = 16  # recent own-move ranges remembered per race
OWN_DROPPED = 64  # recent own progress events not sent (their ack stands for them), per race
SPECTATOR_TTL_MS = 90_000  # a spectator registration lives this long unless refreshed
COUNT_EVERY = 1.0  # seconds: at most one ``spectators`` frame per race and connection

log = logging.getLogger("solrace.feed")


class Feed:
    """Which races a connection follows, how far each was delivered, and the delivery itself."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.races: dict[str, int | None] = {}  # attached race -> last version delivered
        self._attached_at: dict[str, int] = {}  # attached race -> version it was attached after
        self.watching: set[str] = set()  # attached races this connection spectates
        self.delays: dict[str, DelayLine] = {}
        # race -> [(lo, hi), ...]: this connection's recent requests append moves lo+1 .. hi
        self.masks: dict[str, RaceMask] = {}  # watched race -> the process's masked forms
        self.own: dict[str, list[tuple[int, int]]] = {}
        # race -> {moves after it: version}: own progress events skipped for their ack; and
        # the versions of those whose request then failed (no ack carried them): a sync
        # still gives those, so the connection's version sequence stays complete
        self._dropped: dict[str, dict[int, int]] = {}
        self._unacked: dict[str, set[int]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._counts: dict[str, int] = {}  # race -> latest spectator count announced
        self._count_sent: dict[str, float] = {}  # race -> loop time of the last count frame
        self._count_due: dict[str, asyncio.TimerHandle] = {}

    # ------------------------------------------------------------------ attach / detach

    async def attach(self, rid: str, last: int) -> None:
        """Start delivering race ``rid``'s events after version ``last`` (catching up from the
        durable stream first)."""
        if rid not in self.races:
            self._attached_at[rid] = last
        self.races[rid] = max(last, self.races.get(rid) or 0)  # never resend what was sent
        await self.conn.ctx.hub.watch_race(rid, self.conn)
        if rid not in self.watching:  # a racer: rivals learn it is connected
            await self.conn.presence.arrive(rid)
        await self.advance(rid, None)

    async def detach(self, rid: str) -> None:
        ctx = self.conn.ctx
        self.races.pop(rid, None)
        self._attached_at.pop(rid, None)
        self._counts.pop(rid, None)
        self._count_sent.pop(rid, None)
        due = self._count_due.pop(rid, None)
        if due is not None:
            due.cancel()
        await ctx.hub.unwatch_race(rid, self.conn)
        if rid in self.watching:
            self.watching.discard(rid)
            line = self.delays.pop(rid, None)
            if line is not None:
                line.close()
            if self.masks.pop(rid, None) is not None:
                ctx.masks.release(rid)
            ctx.spectators.get(rid, set()).discard(self.conn.member)
            await ctx.store.spectate(rid, self.conn.member, False, SPECTATOR_TTL_MS)

    async def detach_all(self) -> None:
        for rid in list(self.races):
            await self.detach(rid)

    # ------------------------------------------------------------------ sync pages

    async def sync_page(self, rid: str, since: int) -> tuple[list[dict[str, Any]], bool]:
        """One ``synced`` page: the events after ``since`` that this connection has not been
        sent yet. On an attached connection the versions between its attach point and the last
        one delivered went out as live frames (or, for its own moves, as acks): a repeated
        ``sync`` skips them, yet still gives the history before the attach point."""
        store = self.conn.ctx.store
        sent, start = self.races.get(rid), self._attached_at.get(rid)
        if sent is None or start is None or since >= sent:
            events = await store.events_since(rid, since, limit=SYNC_PAGE)
            return events, len(events) == SYNC_PAGE
        middle = []  # own moves logged but never acknowledged: not delivered either
        for v in sorted(self._unacked.get(rid, ())):
            if max(since, start) < v <= sent:
                middle += await store.events_since(rid, v - 1, limit=1)
        if since >= start:
            events = middle + await store.events_since(rid, sent, limit=SYNC_PAGE)
            return events, len(events) >= SYNC_PAGE
        head = [e for e in await store.events_since(rid, since, limit=SYNC_PAGE)
                if e["v"] <= start]
        if len(head) == SYNC_PAGE:
            return head, True
        tail = await store.events_since(rid, sent, limit=SYNC_PAGE - len(head))
        return head + middle + tail, len(head) + len(tail) == SYNC_PAGE

    def unsent(self, rid: str, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``events`` less those the live stream (or an ack) already delivered since the
        attach point."""
        sent, start = self.races.get(rid), self._attached_at.get(rid)
        if sent is None or start is None:
            return events
        unacked = self._unacked.get(rid, ())
        return [e for e in events if not start < e["v"] <= sent or e["v"] in unacked]

    # ------------------------------------------------------------------ own moves

    def claim(self, rid: str, lo: int, hi: int) -> None:
        """Moves ``lo+1 .. hi`` are being appended by this connection: their progress events
        are not sent back to it (its ack carries the same facts). Several ranges are kept, as
        the events of one request may arrive after the next request was sent."""
        ranges = self.own.get(rid)
        if ranges is None:
            ranges = self.own[rid] = []
        ranges.append((lo, hi))
        if len(ranges) > OWN_RANGES:
            del ranges[0]

    def unclaim(self, rid: str, lo: int, hi: int) -> None:
        """The append of ``lo+1 .. hi`` was refused or failed: those moves are someone else's
        — or ours, logged although the store's reply was lost (``unavailable``): then their
        events, skipped already, were acknowledged to nobody and a ``sync`` must give them."""
        ranges = self.own.get(rid, [])
        if (lo, hi) in ranges:
            ranges.remove((lo, hi))
        dropped = self._dropped.get(rid)
        if dropped:
            for moves in range(lo + 1, hi + 1):
                v = dropped.pop(moves, None)
                if v is not None:
                    self._unacked.setdefault(rid, set()).add(v)

    def is_own(self, rid: str, moves: int) -> bool:
        ranges = self.own.get(rid)
        if not ranges:
            return False
        # the newest first: usually the one asked about (a loop: a generator for any() costs
        # more than the test itself, and this runs for every event of a racer's own race)
        for lo, hi in reversed(ranges):  # noqa: SIM110
            if lo < moves <= hi:
                return True
        return False
    # ------------------------------------------------------------------ spectator counts

    def on_spectators(self, rid: str, count: int) -> None:
        """A spectator count of an attached race: sent as a ``spectators`` frame, at most one
        per :data:`COUNT_EVERY` per race (a later one carries the latest count), so that
        visitors coming and going cannot flood the racers."""
        if rid not in self.races:
            return
        self._counts[rid] = count
        if rid in self._count_due:
            return  # a frame is due already; it will carry this count
        loop = asyncio.get_running_loop()
        wait = self._count_sent.get(rid, -COUNT_EVERY) + COUNT_EVERY - loop.time()
        if wait <= 0:
            self._send_count(rid)
        else:
            self._count_due[rid] = loop.call_later(wait, self._send_count, rid)

    def _send_count(self, rid: str) -> None:
        self._count_due.pop(rid, None)
        if rid in self.races and rid in self._counts:
            self._count_sent[rid] = asyncio.get_running_loop().time()
            self.conn.send(P.push("spectators", race=rid, count=self._counts[rid]))

    # ------------------------------------------------------------------ delivery

    def on_race_event(self, rid: str, version: int, event: dict[str, Any]) -> None:
        last = self.races.get(rid)
        if last is None or version <= last:
            return
        lock = self._locks.get(rid)
        ready = version == last + 1 and (lock is None or not lock.locked())
        if ready and rid in self.watching:  # the masked form needs every version before it
            mask = self.masks.get(rid)
            ready = mask is not None and mask.head >= version - 1
        if ready:
            self._deliver(rid, event)
        else:
            self.conn.spawn(self.advance(rid, event))

    def _deliver(self, rid: str, event: dict[str, Any]) -> None:
        conn = self.conn
        if rid in self.watching:
            mask = self.masks.get(rid)
            form = mask.form(event) if mask is not None else None
            if form is None:  # never: the watch folded up to its attach point. Fail closed.
                log.error("race %s: no masked form of version %s", rid, event["v"])
                self.races.pop(rid, None)
                conn.spawn(conn.ws.close(1011, "spectator stream lost step; resume"))
                return
            event = form
        self.races[rid] = event["v"]
        line = self.delays.get(rid)
        if rid not in self.watching:
            if (event.get("k") == "progress" and conn.player is not None
                    and event.get("player") == conn.player.pid and "result" not in event
                    and self.is_own(rid, event.get("moves", 0))):
                dropped = self._dropped.setdefault(rid, {})
                dropped[event.get("moves", 0)] = event["v"]
                if len(dropped) > OWN_DROPPED:
                    del dropped[next(iter(dropped))]
                return  # this connection's own move(s): its ack carries the same facts
            if line is None and conn.out.encode is P.encode:  # a racer's msgpack frame
                conn.send_frame(P.event_frame(rid, event), True)  # from parts: same bytes
                if P.last_event(event):
                    conn.spawn(self.detach(rid))
                return
            event = P.racer_event(event)
        msg = {"t": "event", "race": rid, **event}
        if line is not None:
            line.push(msg)  # the line detaches once it has shown the end
            return
        conn.send(msg)
        if P.last_event(event):  # the end, or the verdict that follows a pending one
            conn.spawn(self.detach(rid))

    async def advance(self, rid: str, event: dict[str, Any] | None) -> None:
        """Deliver ``event`` in order; on a gap (or with no event) read the missing versions
        from the durable stream."""
        lock = self._locks.setdefault(rid, asyncio.Lock())
        async with lock:
            last = self.races.get(rid)
            if last is None:
                return
            if event is not None and event["v"] <= last:
                return
            mask = self.masks.get(rid) if rid in self.watching else None
            if mask is not None and mask.head < last:  # fold up to where this connection is
                await mask.ensure(self.conn.ctx.store, rid, last)
            if event is not None and event["v"] == last + 1:
                self._deliver(rid, event)
                return
            while True:  # page through the stream, waiting for room in the send queue
                page = await self._catch_up_page(rid)
                for ev in page:
                    if rid not in self.races:
                        return
                    while self.conn.out.full() and not self.conn.closing:
                        await asyncio.sleep(0.01)
                    self._deliver(rid, ev)
                if len(page) < CATCH_UP_PAGE:
                    return

    async def _catch_up_page(self, rid: str) -> list[dict[str, Any]]:
        """The next page of missed events. Retried: after Redis dropped this process's
        connections, the first command on each pooled one fails, and nobody retries the hub's
        reconnect catch-up — a failure there would leave the gap open until a later event."""
        for pause in (0.05, 0.25, None):
            try:
                return await self.conn.ctx.store.events_since(rid, self.races.get(rid) or 0,
                                                              limit=CATCH_UP_PAGE)
            except (RedisError, OSError):
                if pause is None:
                    raise
                await asyncio.sleep(pause)
        raise AssertionError("unreachable")
