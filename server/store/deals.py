"""The Redis side of certified deals: the winnable pool and the solver's verdict of a race.

* Pool: per configuration (``<variant>|<options>``) a set of solver-won seeds. A seed is
  taken with ``SPOP`` — atomic, so no two processes (or racers) are ever dealt the same
  pooled seed — and added by a script that refuses past the pool's size, so two processes
  topping up one pool cannot overfill it. A lock per pool keeps to one certifier at a time.
* Verdict: written once into the finished race's hash by a script that also emits it as the
  race's next event (:data:`.deal_lua.VERDICT`); races still waiting for one are listed in
  ``sr:verdicts`` with a lease, so a process that dies mid-solve leaves the work to another.

Every call touches one hash slot (tests/server/test_slots.py exercises each method).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from solrace.server.store import coord_lua, deal_lua
from solrace.server.store.batch import ScriptBatcher
from solrace.server.store.keys import Keys
from solrace.server.store.records import ScriptResult, _s

POOL_LOCK_TTL = 120  # seconds; a certifier renews it after every candidate


class DealStore:
    """Pools of certified seeds and race verdicts in Redis."""

    def __init__(self, redis: Redis | RedisCluster, batcher: ScriptBatcher,
                 script: Callable[[str], Any], count: Callable[[], None]) -> None:
        self.redis = redis
        self.batcher = batcher
        self._count = count
        self._add = script(deal_lua.POOL_ADD)
        self._verdict = script(deal_lua.VERDICT)
        self._take = script(deal_lua.VERDICT_TAKE)
        self._unlock = script(coord_lua.UNLOCK)
        self._renew = script(coord_lua.RENEW)

    # ------------------------------------------------------------------ pool

    async def pool_take(self, config: str) -> tuple[int, int] | None:
        """A random certified seed of ``config`` and its par, removed from the pool; None
        when the pool is empty."""
        self._count()
        raw = await self.redis.spop(Keys.pool(config))
        if raw is None:
            return None
        seed, par, _ = _s(raw).split(":")
        return int(seed), int(par)

    async def pool_add(self, config: str, seed: int, par: int, nodes: int, cap: int) -> bool:
        """Add a certified seed unless the pool holds ``cap`` seeds already."""
        self._count()
        return bool(await self.batcher.call(self._add, keys=[Keys.pool(config)],
                                            args=[f"{seed}:{par}:{nodes}", cap]))

    async def pool_size(self, config: str) -> int:
        self._count()
        return int(await self.redis.scard(Keys.pool(config)))

    async def pool_lock(self, config: str, owner: str, ttl: int = POOL_LOCK_TTL) -> bool:
        """Become the one certifier of ``config``'s pool; False when another process is."""
        self._count()
        return bool(await self.redis.set(Keys.pool_lock(config), owner, nx=True, ex=ttl))

    async def pool_renew(self, config: str, owner: str, ttl: int = POOL_LOCK_TTL) -> bool:
        self._count()
        return bool(await self.batcher.call(self._renew, keys=[Keys.pool_lock(config)],
                                            args=[owner, ttl]))

    async def pool_unlock(self, config: str, owner: str) -> None:
        self._count()
        await self.batcher.call(self._unlock, keys=[Keys.pool_lock(config)], args=[owner])

    async def pool_demand(self, config: str, now_ms: int) -> None:
        """Note that a player asked for a winnable race of ``config`` (kept topped up)."""
        self._count()
        await self.redis.zadd(Keys.POOLS, {config: now_ms})

    async def pool_configs(self, since_ms: int) -> list[str]:
        """Configurations asked for since ``since_ms``; older ones are forgotten."""
        self._count()
        await self.redis.zremrangebyscore(Keys.POOLS, "-inf", f"({since_ms}")
        self._count()
        return [_s(c) for c in await self.redis.zrange(Keys.POOLS, 0, -1)]

    # ------------------------------------------------------------------ verdicts

    async def save_verdict(self, rid: str, outcome: str, par: int | None, nodes: int,
                           event: bytes) -> ScriptResult:
        """Record a finished race's verdict once and emit ``event`` (msgpack) after its end."""
        self._count()
        return ScriptResult.of(await self.batcher.call(
            self._verdict, keys=[Keys.race(rid), Keys.events(rid)],
            args=[Keys.race_channel(rid), outcome, "" if par is None else par, nodes, event]))

    async def verdict_pending(self, rid: str, due_ms: int) -> None:
        """List a finished race whose verdict is to be solved; another process takes it once
        ``due_ms`` (Redis clock) has passed without :meth:`verdict_done`."""
        self._count()
        await self.redis.zadd(Keys.VERDICTS_DUE, {rid: due_ms})

    async def verdicts_due(self, now_ms: int, lease_ms: int, limit: int = 10) -> list[str]:
        """Take (lease) up to ``limit`` pending verdicts whose solver has gone."""
        self._count()
        raw = await self.batcher.call(self._take, keys=[Keys.VERDICTS_DUE],
                                      args=[now_ms, lease_ms, limit])
        return [_s(r) for r in raw or []]

    async def verdict_done(self, rid: str) -> None:
        self._count()
        await self.redis.zrem(Keys.VERDICTS_DUE, rid)
