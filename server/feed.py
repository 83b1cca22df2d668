"""Ordered event delivery for one connection: every version of every attached race exactly once.

Race events reach a connection from the process's hub (pub/sub, which may drop or reorder) and
from catch-up reads of the durable event stream; :meth:`Feed.advance` merges both so that the
client sees every version exactly once, in order. Spectated races may run behind through a
:class:`~solrace.server.spectate.DelayLine`.

The feed owns only delivery state; what a connection may attach to is decided by the request
handlers (:mod:`solrace.server.handlers`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError
from solrace.server.spectate import DelayLine
from solrace.shared import protocol as P

if TYPE_CHECKING:
    from solrace.server.connection import Connection

CATCH_UP_PAGE = 200  # events read from the stream per catch-up step
SYNC_PAGE = 1000  # events per sync reply; ``more`` says another sync is needed
OWN_RANGES = 16  # recent own-move ranges remembered per race
SPECTATOR_TTL_MS = 90_000  # a spectator registration lives this long unless refreshed


class Feed:
    """Which races a connection follows, how far each was delivered, and the delivery itself."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.races: dict[str, int | None] = {}  # attached race -> last version delivered
        self._attached_at: dict[str, int] = {}  # attached race -> version it was attached after
        self.watching: set[str] = set()  # attached races this connection spectates
        self.delays: dict[str, DelayLine] = {}
        # race -> [(lo, hi), ...]: this connection's recent requests append moves lo+1 .. hi
        self.own: dict[str, list[tuple[int, int]]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    # ------------------------------------------------------------------ attach / detach

    async def attach(self, rid: str, last: int) -> None:
        """Start delivering race ``rid``'s events after version ``last`` (catching up from the
        durable stream first)."""
        if rid not in self.races:
            self._attached_at[rid] = last
        self.races[rid] = max(last, self.races.get(rid) or 0)  # never resend what was sent
        await self.conn.ctx.hub.watch_race(rid, self.conn)
        await self.advance(rid, None)

    async def detach(self, rid: str) -> None:
        ctx = self.conn.ctx
        self.races.pop(rid, None)
        self._attached_at.pop(rid, None)
        await ctx.hub.unwatch_race(rid, self.conn)
        if rid in self.watching:
            self.watching.discard(rid)
            line = self.delays.pop(rid, None)
            if line is not None:
                line.close()
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
        if since >= start:
            events = await store.events_since(rid, sent, limit=SYNC_PAGE)
            return events, len(events) == SYNC_PAGE
        head = [e for e in await store.events_since(rid, since, limit=SYNC_PAGE)
                if e["v"] <= start]
        if len(head) == SYNC_PAGE:
            return head, True
        tail = await store.events_since(rid, sent, limit=SYNC_PAGE - len(head))
        return head + tail, len(head) + len(tail) == SYNC_PAGE

    def unsent(self, rid: str, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``events`` less those the live stream already delivered since the attach point."""
        sent, start = self.races.get(rid), self._attached_at.get(rid)
        if sent is None or start is None:
            return events
        return [e for e in events if not start < e["v"] <= sent]

    # ------------------------------------------------------------------ own moves

    def claim(self, rid: str, lo: int, hi: int) -> None:
        """Moves ``lo+1 .. hi`` are being appended by this connection: their progress events
        are not sent back to it (its ack carries the same facts). Several ranges are kept, as
        the events of one request may arrive after the next request was sent."""
        ranges = self.own.setdefault(rid, [])
        ranges.append((lo, hi))
        del ranges[:-OWN_RANGES]

    def unclaim(self, rid: str, lo: int, hi: int) -> None:
        """The append of ``lo+1 .. hi`` was refused: those moves are someone else's."""
        ranges = self.own.get(rid, [])
        if (lo, hi) in ranges:
            ranges.remove((lo, hi))

    def is_own(self, rid: str, moves: int) -> bool:
        return any(lo < moves <= hi for lo, hi in self.own.get(rid, ()))

    # ------------------------------------------------------------------ delivery

    def on_race_event(self, rid: str, version: int, event: dict[str, Any]) -> None:
        last = self.races.get(rid)
        if last is None:
            return
        lock = self._locks.get(rid)
        if version == last + 1 and (lock is None or not lock.locked()):
            self._deliver(rid, event)
        elif version > last + 1 or (lock is not None and lock.locked()):
            self.conn.spawn(self.advance(rid, event))

    def _deliver(self, rid: str, event: dict[str, Any]) -> None:
        conn = self.conn
        self.races[rid] = event["v"]
        if rid not in self.watching:
            if (event.get("k") == "progress" and conn.player is not None
                    and event.get("player") == conn.player.pid and "result" not in event
                    and self.is_own(rid, event.get("moves", 0))):
                return  # this connection's own move(s): its ack carried the same facts
            event = P.racer_event(event)
        msg = {"t": "event", "race": rid, **event}
        line = self.delays.get(rid)
        if line is not None:
            line.push(msg)  # the line detaches once it has shown the end
            return
        conn.send(msg)
        if event.get("k") == "end":
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
            if event is not None and event["v"] == last + 1:
                self._deliver(rid, event)
                return
            while True:  # page through the stream, waiting for room in the send queue
                page = await self._catch_up_page(rid)
                for ev in page:
                    if rid not in self.races:
                        return
                    while self.conn.outbox.full() and not self.conn.closing:
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
