"""Work any server process's sweeper can pick up: race deadlines and the bots of practice races.

Why apart: both are shared queues (``sr:deadlines``, ``sr:bots``) scored by the Redis clock, so
that a race whose time is up ends, and a practice race's bots go on playing, even when the
process that started them is gone. The bot lease makes one process the driver of a race's bots
at a time.
"""

from __future__ import annotations

from typing import Any

from solrace.server.store import coord_lua
from solrace.server.store.core import StoreCore
from solrace.server.store.keys import Keys
from solrace.server.store.records import _s


class SweepsMixin(StoreCore):
    """Deadlines and practice-bot leases."""

    def _register_scripts(self) -> None:
        super()._register_scripts()
        self._lease_take = self._script(coord_lua.LEASE_TAKE)
        self._lease_renew = self._script(coord_lua.LEASE_RENEW)

    async def set_deadline(self, rid: str, ends_at: int) -> None:
        self._count()
        await self.redis.zadd(Keys.DEADLINES, {rid: ends_at})

    async def overdue(self, now: int, limit: int = 100) -> list[str]:
        """Races whose deadline has passed (oldest first)."""
        self._count()
        raw = await self.redis.zrangebyscore(Keys.DEADLINES, "-inf", now, start=0, num=limit)
        return [_s(x) for x in raw]

    async def drop_deadline(self, rid: str) -> None:
        """Forget a race that is over (or never ran) in the deadline and live sets."""
        async with self.redis.pipeline(transaction=False) as p:
            p.zrem(Keys.DEADLINES, rid)
            p.zrem(Keys.LIVE, rid)
            await p.execute()
        self._count()

    async def add_bot_race(self, rid: str, due_ms: int) -> None:
        """List a practice race whose bots need a driver once ``due_ms`` (Redis clock) has
        passed without its lease being renewed."""
        self._count()
        await self.redis.zadd(Keys.BOT_RACES, {rid: due_ms})

    async def bot_races_due(self, now: int, limit: int = 100) -> list[str]:
        """Practice races whose bots' lease ran out (or was released) by ``now``."""
        self._count()
        raw = await self.redis.zrangebyscore(Keys.BOT_RACES, "-inf", now, start=0, num=limit)
        return [_s(x) for x in raw]

    async def drop_bot_race(self, rid: str) -> None:
        """Unlist a race whose bots need no driver any more (their games or the race ended)."""
        self._count()
        await self.redis.zrem(Keys.BOT_RACES, rid)

    async def take_bot_lease(self, rid: str, owner: str, ttl_ms: int) -> bool:
        """Become the one driver of the race's bots; False while another owner holds it."""
        return await self._hold_bot_lease(self._lease_take, rid, owner, ttl_ms)

    async def renew_bot_lease(self, rid: str, owner: str, ttl_ms: int) -> bool:
        """Extend the lease while ``owner`` holds it; False when it was lost (expired and taken
        by another process, or deleted because the race ended): the driver must stop."""
        return await self._hold_bot_lease(self._lease_renew, rid, owner, ttl_ms)

    async def _hold_bot_lease(self, script: Any, rid: str, owner: str, ttl_ms: int) -> bool:
        """Run a lease script (it answers the Redis time, or 0 when not held) and date the
        race's ``sr:bots`` entry to when the lease now runs out."""
        self._count()
        now = int(await self.batcher.call(script, keys=[Keys.bot_lease(rid)],
                                          args=[owner, ttl_ms]))
        if now:
            self._count()
            await self.redis.zadd(Keys.BOT_RACES, {rid: now + ttl_ms}, xx=True)
        return bool(now)

    async def release_bot_lease(self, rid: str, owner: str) -> None:
        """Give the lease up (a clean stop) and mark the race due at once, so that another
        process's next sweep drives its bots without waiting for the lease to run out."""
        self._count()
        await self.batcher.call(self._unlock, keys=[Keys.bot_lease(rid)], args=[owner])
        self._count()
        await self.redis.zadd(Keys.BOT_RACES, {rid: 0}, xx=True)
