"""Whether each racer is connected: rivals are told when one drops out or comes back.

Presence is *not* part of a race's event log (a disconnect says nothing about the game, and
anyone could otherwise inflate the log by reconnecting): a racer's connection registers in
``sr:race:{<rid>}:online`` while it is attached to the race, renews that registration every
:data:`REFRESH` seconds (it lapses after :data:`TTL_MS`, so a crashed server process's racers
drop out by themselves), and removes it when it closes. When a player's first connection to a
race registers, or their last one leaves, every other human racer's connections get an
unsolicited ``presence`` frame (through the player notice channel, never stored). A connection
that attaches as a racer first gets one ``presence`` frame per rival with their state then.
Bots are always there and get no frames. A registration that lapses (a crash) is not announced;
the next change or attach shows it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from solrace.shared import protocol as P

if TYPE_CHECKING:
    from solrace.server.session.connection import Connection

log = logging.getLogger("solrace.presence")

TTL_MS = 90_000
REFRESH = 30.0


def frame(rid: str, pid: str, online: bool) -> dict[str, Any]:
    return P.push("presence", race=rid, player=pid, online=online)


class Presence:
    """One connection's presence in the races it is attached to as a racer."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.races: set[str] = set()
        self._refresher: asyncio.Task[None] | None = None

    @property
    def member(self) -> str:
        return f"{self.conn.me.pid}|{self.conn.member}"

    async def arrive(self, rid: str) -> None:
        """This connection now follows race ``rid`` as one of its racers."""
        if rid in self.races or self.conn.player is None:
            return
        self.races.add(rid)
        try:
            await self._arrive(rid)
        except Exception as exc:  # best effort: following the race matters more
            log.info("presence of %s in %s not registered: %s", self.conn.me.pid, rid, exc)

    async def _arrive(self, rid: str) -> None:
        me = self.conn.me.pid
        live = await self.conn.ctx.store.presence(rid, self.member, True, TTL_MS)
        online = {m.split("|", 1)[0] for m in live}
        mine = [m for m in live if m.split("|", 1)[0] == me]
        rivals = await self._rivals(rid)
        for pid in rivals:
            self.conn.send(frame(rid, pid, pid in online))
        if mine == [self.member]:  # the player's first connection to this race
            await self._tell(rid, rivals, True)
        if self._refresher is None:
            self._refresher = asyncio.ensure_future(self._refresh())
            self.conn.spawn(self._refresher)

    async def leave_all(self) -> None:
        """The connection closed: unregister everywhere, telling rivals of a player gone."""
        if self._refresher is not None:
            self._refresher.cancel()
        me = self.conn.me.pid if self.conn.player is not None else None
        for rid in list(self.races):
            self.races.discard(rid)
            try:
                live = await self.conn.ctx.store.presence(rid, self.member, False, TTL_MS)
                if me is not None and not any(m.split("|", 1)[0] == me for m in live):
                    await self._tell(rid, await self._rivals(rid), False)
            except Exception as exc:  # the registration lapses by itself
                log.info("presence of %s in %s not removed: %s", me, rid, exc)

    async def _rivals(self, rid: str) -> list[str]:
        rec = await self.conn.ctx.races.record(rid)
        me = self.conn.me.pid
        return [p for p in rec.order if p != me and not p.startswith("bot-")]

    async def _tell(self, rid: str, rivals: list[str], online: bool) -> None:
        notice = {"k": "presence", "race": rid, "player": self.conn.me.pid, "online": online}
        for pid in rivals:
            await self.conn.ctx.store.notify_player(pid, notice)

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(REFRESH)
            for rid in list(self.races):
                with contextlib.suppress(Exception):  # the store may be down: retry later
                    await self.conn.ctx.store.presence(rid, self.member, True, TTL_MS)
