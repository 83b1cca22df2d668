"""What every part of the :class:`~solrace.server.store.Store` shares: the client, the script
registration, the round-trip count and the Redis clock.

Why a base of its own: the Store's jobs (race lifecycle, moves, dailies, ...) live in one mixin
module each (see the package docstring); each needs the same connection, the same way to
register a script (sharded pub/sub on a cluster) and the same command counter, and none of them
should own those. A mixin registers its own scripts in :meth:`StoreCore._register_scripts`
(each override calls ``super()`` first), so a script is declared next to the methods that run
it and tests/server/test_slots.py still sees every one of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from solrace.server.ops import metrics
from solrace.server.store import coord_lua, lua
from solrace.server.store.accounts import AccountStore
from solrace.server.store.batch import ScriptBatcher
from solrace.server.store.deals import DealStore
from solrace.server.store.replication import Replication
from solrace.server.store.tournaments import TournamentStore
from solrace.server.store.trophies import TrophyStore


class StoreCore:
    """The connection and the state every job of the Store shares. ``redis`` must use
    ``decode_responses=False``."""

    def __init__(self, redis: Redis | RedisCluster, *, wait_replicas: int = 0,
                 wait_timeout_ms: int = 1000) -> None:
        self.redis = redis
        self.cluster = isinstance(redis, RedisCluster)
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = wait_timeout_ms
        # the owner-checked unlock, shared by the daily lock and the bot lease
        self._unlock = self._script(coord_lua.UNLOCK)
        self._register_scripts()
        self.batcher = ScriptBatcher(redis)
        self.replication = Replication(self) if wait_replicas > 0 else None
        self.commands = 0  # Redis round trips issued, for metrics and benchmarks
        # This process's id (its entry in a race's ``procs``) and its local delivery: the
        # events of this process's moves go to its own connections from here, at once, and
        # through pub/sub only to other processes that follow the race (see lua.MOVE).
        self.process = ""
        self.local: Callable[[str, int, dict[str, Any]], None] | None = None
        self.accounts = AccountStore(redis, self.batcher, self._count)
        self.deals = DealStore(redis, self.batcher, self._script, self._count)
        self.tournaments = TournamentStore(redis, self.batcher, self._script, self._count)
        self.trophies = TrophyStore(redis, self._script, self._count)

    def _register_scripts(self) -> None:
        """Register the scripts of each job; every mixin overrides it and calls ``super()``."""

    def _script(self, source: str) -> Any:
        """Register a Lua script; on a cluster its pub/sub goes sharded (SPUBLISH), so a race's
        channel lives on its race's shard. Every script must touch one hash slot (see
        docs/scaling.md; tests/server/test_slots.py checks every registered script)."""
        return self.redis.register_script(lua.sharded(source) if self.cluster else source)

    def _count(self) -> None:
        self.commands += 1
        metrics.REDIS_COMMANDS.inc()

    async def ping(self) -> bool:
        self._count()
        return bool(await self.redis.ping())

    async def server_time_ms(self) -> int:
        self._count()
        sec, usec = await self.redis.time()
        return int(sec) * 1000 + int(usec) // 1000
