"""The daily deal and its leaderboard: the certified deal, the certification lock, each
player's one ranked attempt, and the ranked rows.

Why apart: the dailies' keys are tagged by ``<date>|<variant>``, not by race or player, and
live 40 days (DAILY_TTL); the ranking order is the member text of a zset
(``daily.rank_key``), so every read here maps zset members back to their rows.
"""

from __future__ import annotations

from typing import Any

import msgpack
from solrace.server.store import coord_lua, stats_lua
from solrace.server.store.core import StoreCore
from solrace.server.store.keys import DAILY_TTL, Keys
from solrace.server.store.records import _s, decode_map


class DailiesMixin(StoreCore):
    """Daily deals, attempts and leaderboards."""

    def _register_scripts(self) -> None:
        super()._register_scripts()
        self._lb_record = self._script(stats_lua.LB_RECORD)
        self._lb_review = self._script(stats_lua.LB_REVIEW)
        self._renew = self._script(coord_lua.RENEW)

    async def daily(self, day: str, variant: str) -> dict[str, str] | None:
        self._count()
        raw = await self.redis.hgetall(Keys.daily(day, variant))
        return decode_map(raw) if raw else None

    async def save_daily(self, day: str, variant: str, record: dict[str, Any]) -> bool:
        """Store a certified daily unless one is already stored (first certifier wins)."""
        key = Keys.daily(day, variant)
        self._count()
        if not await self.redis.hsetnx(key, "seed", record["seed"]):
            return False
        async with self.redis.pipeline(transaction=False) as p:
            p.hset(key, mapping=record)
            p.expire(key, DAILY_TTL)
            await p.execute()
        self._count()
        return True

    async def rate_daily(self, day: str, variant: str, fields: dict[str, str]) -> None:
        """Add a stored daily's difficulty fields (a record certified before dailies were
        rated: docs/leaderboards.md); the same values from any process."""
        key = Keys.daily(day, variant)
        self._count()
        async with self.redis.pipeline(transaction=False) as p:
            p.hset(key, mapping=fields)
            p.expire(key, DAILY_TTL)
            await p.execute()

    async def lock_daily(self, day: str, variant: str, owner: str, ttl: int = 600) -> bool:
        self._count()
        return bool(await self.redis.set(Keys.daily_lock(day, variant), owner, nx=True, ex=ttl))

    async def unlock_daily(self, day: str, variant: str, owner: str) -> None:
        """Release the certification lock if ``owner`` holds it."""
        self._count()
        await self.batcher.call(self._unlock, keys=[Keys.daily_lock(day, variant)], args=[owner])

    async def renew_daily_lock(self, day: str, variant: str, owner: str, ttl: int = 600
                               ) -> bool:
        """Keep the certification lock while a long search goes on; False if it was lost."""
        self._count()
        return bool(await self.batcher.call(self._renew, keys=[Keys.daily_lock(day, variant)],
                                            args=[owner, ttl]))

    async def daily_locked(self, day: str, variant: str) -> bool:
        self._count()
        return bool(await self.redis.exists(Keys.daily_lock(day, variant)))

    async def claim_attempt(self, day: str, variant: str, pid: str, rid: str) -> str:
        """The race id of the player's ranked attempt: ``rid`` if this call claimed it."""
        key = Keys.daily_attempts(day, variant)
        self._count()
        if await self.redis.hsetnx(key, pid, rid):
            await self.redis.expire(key, DAILY_TTL)
            self._count()
            return rid
        self._count()
        return _s(await self.redis.hget(key, pid))

    async def attempt_of(self, day: str, variant: str, pid: str) -> str | None:
        self._count()
        raw = await self.redis.hget(Keys.daily_attempts(day, variant), pid)
        return _s(raw) if raw is not None else None

    async def record_daily(
        self, day: str, variant: str, pid: str, rank_key: str, row: dict[str, Any],
        listed: bool = True,
    ) -> bool:
        """Store a finished attempt; list it on the leaderboard when ``listed`` (a result
        under fair-play review is stored unlisted). False when it is already stored
        (idempotent)."""
        self._count()
        return bool(await self.batcher.call(
            self._lb_record,
            keys=[Keys.leaderboard(day, variant), Keys.leaderboard_entries(day, variant)],
            args=[pid, rank_key, msgpack.packb({**row, "key": rank_key}), DAILY_TTL,
                  "1" if listed else "0"],
        ))

    async def review_daily(self, day: str, variant: str, pid: str, review: str) -> bool:
        """Set the review status of the player's stored result; list it only when ``clear``.
        False when the player has no result on that board."""
        self._count()
        return bool(await self.batcher.call(
            self._lb_review,
            keys=[Keys.leaderboard(day, variant), Keys.leaderboard_entries(day, variant)],
            args=[pid, review]))

    async def daily_entry(self, day: str, variant: str, pid: str) -> dict[str, Any] | None:
        """The player's stored result on a board, listed or not (without its sort key)."""
        self._count()
        raw = await self.redis.hget(Keys.leaderboard_entries(day, variant), pid)
        if raw is None:
            return None
        row = msgpack.unpackb(raw, raw=False)
        row.pop("key", None)
        return {"player": pid, **row}

    async def leaderboard_range(
        self, day: str, variant: str, start: int, stop: int
    ) -> list[dict[str, Any]]:
        """Rows ranked ``start``..``stop`` (0-based, inclusive), each with its ``rank``."""
        self._count()
        keys = await self.redis.zrange(Keys.leaderboard(day, variant), start, stop)
        if not keys:
            return []
        pids = [_s(k).rsplit("|", 1)[1] for k in keys]
        self._count()
        rows = await self.redis.hmget(Keys.leaderboard_entries(day, variant), pids)
        out = []
        for i, (pid, raw) in enumerate(zip(pids, rows)):
            if raw is not None:
                row = msgpack.unpackb(raw, raw=False)
                row.pop("key", None)  # the internal sort key
                out.append({"rank": start + i + 1, "player": pid, **row})
        return out

    async def leaderboard_size(self, day: str, variant: str) -> int:
        self._count()
        return int(await self.redis.zcard(Keys.leaderboard(day, variant)))

    async def listed_before(self, day: str, variant: str, rank_key: str) -> int:
        """How many listed results rank before ``rank_key`` (where it would be listed)."""
        self._count()
        return int(await self.redis.zlexcount(Keys.leaderboard(day, variant), "-",
                                              f"({rank_key}"))

    async def leaderboard_rank(self, day: str, variant: str, pid: str) -> int | None:
        """0-based rank of the player's entry, or None."""
        self._count()
        raw = await self.redis.hget(Keys.leaderboard_entries(day, variant), pid)
        if raw is None:
            return None
        key = msgpack.unpackb(raw, raw=False)["key"]
        self._count()
        rank = await self.redis.zrank(Keys.leaderboard(day, variant), key)
        return int(rank) if rank is not None else None
