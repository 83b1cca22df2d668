"""Who is watching and who is online: spectator and racer-connection registrations, and the
list of running races shown to spectators.

Why apart: these are presence records with expiry scores (Redis ms), refreshed by the
connections holding them; they never decide a race, so they are kept away from the lifecycle
and move scripts that do.
"""

from __future__ import annotations

from collections.abc import Sequence

from solrace.server.game.lifecycle import RaceState
from solrace.server.store import lua
from solrace.server.store.core import StoreCore
from solrace.server.store.keys import Keys
from solrace.server.store.records import _s, decode_map


class LiveMixin(StoreCore):
    """Spectators, racer presence and the live race list."""

    def _register_scripts(self) -> None:
        super()._register_scripts()
        self._spectate = self._script(lua.SPECTATE)
        self._presence = self._script(lua.PRESENCE)

    async def spectate(self, rid: str, member: str, add: bool, ttl_ms: int) -> int:
        """Register (or drop) one spectator connection; returns the spectator count."""
        self._count()
        return int(await self.batcher.call(self._spectate,
            keys=[Keys.race(rid), Keys.watchers(rid)],
            args=[member, "1" if add else "0", ttl_ms, Keys.race_channel(rid)],
        ))

    async def spectator_count(self, rid: str) -> int:
        """Spectator registrations of the race not yet expired."""
        now = await self.server_time_ms()
        self._count()
        return int(await self.redis.zcount(Keys.watchers(rid), f"({now}", "+inf"))

    async def presence(self, rid: str, member: str, add: bool, ttl_ms: int) -> list[str]:
        """Register (or drop) one racer connection ``<pid>|<conn>`` of race ``rid``; returns
        every registration still live (expired ones are dropped first)."""
        self._count()
        raw = await self._presence(keys=[Keys.online(rid)],
                                   args=[member, "1" if add else "0", ttl_ms])
        return [_s(m) for m in raw]

    async def refresh_spectators(self, rid: str, members: Sequence[str], ttl_ms: int) -> None:
        now = await self.server_time_ms()
        self._count()
        await self.redis.zadd(Keys.watchers(rid), {m: now + ttl_ms for m in members}, xx=True)

    async def mark_live(self, rid: str, started_at: int) -> None:
        self._count()
        await self.redis.zadd(Keys.LIVE, {rid: started_at})

    async def live_races(
        self, limit: int, before: int | None
    ) -> list[tuple[str, dict[str, str], int, int]]:
        """(race id, meta, racers, spectators) of running races started before ``before``,
        newest first."""
        self._count()
        top = f"({before}" if before is not None else "+inf"
        ids = await self.redis.zrevrangebyscore(Keys.LIVE, top, "-inf", start=0, num=limit)
        if not ids:
            return []
        now = await self.server_time_ms()
        rids = [_s(x) for x in ids]
        async with self.redis.pipeline(transaction=False) as p:
            for rid in rids:
                p.hgetall(Keys.race(rid))
                p.hlen(Keys.racers(rid))
                p.zcount(Keys.watchers(rid), now, "+inf")
            raw = await p.execute()
        self._count()
        out = []
        for i, rid in enumerate(rids):
            meta, racers, watchers = raw[3 * i : 3 * i + 3]
            if meta and _s(meta.get(b"state", b"")) == RaceState.RUNNING:
                out.append((rid, decode_map(meta), int(racers), int(watchers)))
        return out
