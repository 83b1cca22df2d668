"""The Redis side of trophies (docs/tournaments.md, "Trophies"): the podium places a player
won in public tournaments, their best arena score, and the tournaments still waiting to be
made final.

Keys:

* ``sr:tfinal`` (zset, its own slot) — public tournaments not yet final, scored by
  ``ends_at``: the trophy sweep looks at those whose end has passed;
* ``sr:player:{<pid>}:trophies`` (zset) — ``<tid>|<place>|<format>|<name>`` scored by the
  tournament's end, kept for good (a profile's record outlives the tournament's own keys);
* ``sr:player:{<pid>}:best`` (hash) — ``points``, ``tournament``, ``name``, ``at``: the best
  arena score, raised only (one script, so two processes never lower it).

Every write is idempotent (a member or a maximum), so a sweep that dies half-way and runs
again awards nothing twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from solrace.server.store.records import _s

PENDING_KEY = "sr:tfinal"

#: BEST: KEYS best; ARGV points, tournament, name, at. Raises the best arena score; 1 when
#: it changed.
BEST = """
local was = tonumber(redis.call('HGET', KEYS[1], 'points') or '-1')
if tonumber(ARGV[1]) <= was then return 0 end
redis.call('HSET', KEYS[1], 'points', ARGV[1], 'tournament', ARGV[2], 'name', ARGV[3],
           'at', ARGV[4])
return 1
"""


def trophies_key(pid: str) -> str:
    return f"sr:player:{{{pid}}}:trophies"


def best_key(pid: str) -> str:
    return f"sr:player:{{{pid}}}:best"


class Trophy(NamedTuple):
    tournament: str
    place: int
    format: str
    name: str
    ended_at: int


class TrophyStore:
    """Pending tournaments, awarded places and best arena scores in Redis."""

    def __init__(self, redis: Redis | RedisCluster, script: Callable[[str], Any],
                 count: Callable[[], None]) -> None:
        self.redis = redis
        self._count = count
        self._best = script(BEST)

    async def add_pending(self, tid: str, ends_at: int) -> None:
        self._count()
        await self.redis.zadd(PENDING_KEY, {tid: ends_at})

    async def pending(self, until: int, limit: int) -> list[str]:
        """Tournaments waiting to be made final whose end is at or before ``until``."""
        self._count()
        raw = await self.redis.zrangebyscore(PENDING_KEY, 0, until, start=0, num=limit)
        return [_s(r) for r in raw]

    async def done(self, tid: str) -> None:
        self._count()
        await self.redis.zrem(PENDING_KEY, tid)

    async def award(self, pid: str, trophy: Trophy) -> None:
        t = trophy
        self._count()
        await self.redis.zadd(trophies_key(pid),
                              {f"{t.tournament}|{t.place}|{t.format}|{t.name}": t.ended_at})

    async def revoke(self, pid: str, tid: str) -> int:
        """Take back every place ``pid`` holds in ``tid``; how many."""
        key = trophies_key(pid)
        self._count()
        gone = [m for m in await self.redis.zrange(key, 0, -1)
                if _s(m).startswith(f"{tid}|")]  # a player holds few: no index needed
        if not gone:
            return 0
        self._count()
        return int(await self.redis.zrem(key, *gone))

    async def raise_best(self, pid: str, points: int, tid: str, name: str, at: int) -> bool:
        self._count()
        return bool(await self._best(keys=[best_key(pid)], args=[points, tid, name, at]))

    async def forget_best(self, pid: str) -> None:
        self._count()
        await self.redis.delete(best_key(pid))

    async def of(self, pid: str) -> tuple[list[Trophy], dict[str, str]]:
        """Every trophy of ``pid``, latest first, and their best arena score (may be empty)."""
        self._count()
        raw = await self.redis.zrevrange(trophies_key(pid), 0, -1, withscores=True)
        out = []
        for member, score in raw:
            tid, place, fmt, name = _s(member).split("|", 3)
            out.append(Trophy(tid, int(place), fmt, name, int(score)))
        self._count()
        best = await self.redis.hgetall(best_key(pid))
        return out, {_s(k): _s(v) for k, v in best.items()}
