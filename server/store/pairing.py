"""Bringing players together: the quick-pair queues, process heartbeats, rematches and the
per-player notice channel.

Why together: a quick pairing pops a waiting entry whose process must still be alive (its
heartbeat), and tells the matched player through their player channel, as a rematch offer
does; none of it belongs to one race yet.
"""

from __future__ import annotations

from typing import Any

import msgpack
from solrace.server.store import lua
from solrace.server.store.core import StoreCore
from solrace.server.store.keys import QUICK_TTL, Keys
from solrace.server.store.records import ScriptResult, _s


class PairingMixin(StoreCore):
    """Quick pairing, heartbeats, rematches and player notices."""

    def _register_scripts(self) -> None:
        super()._register_scripts()
        self._quick = self._script(lua.QUICK)

    async def quick_enqueue(self, queue: str, entry: str) -> ScriptResult:
        """Wait in ``queue`` with ``entry`` (``<pid>:...``), or pop the player waiting first."""
        self._count()
        player = entry.partition(":")[0] + ":"  # one entry per player, whatever its process
        return ScriptResult.of(await self.batcher.call(
            self._quick, keys=[Keys.quick(queue)], args=[entry, QUICK_TTL, player]))

    async def heartbeat(self, process: str, ttl_ms: int) -> None:
        """This process is alive for ``ttl_ms`` more (see :meth:`is_alive`)."""
        self._count()
        await self.redis.set(Keys.alive(process), "1", px=ttl_ms)

    async def is_alive(self, process: str) -> bool:
        self._count()
        return bool(await self.redis.exists(Keys.alive(process)))

    async def quick_cancel(self, queue: str, pid: str) -> int:
        self._count()
        return int(await self.redis.lrem(Keys.quick(queue), 0, pid))

    async def claim_rematch(self, rid: str, new_rid: str, ttl_s: int) -> str:
        """Record ``new_rid`` as the rematch of ``rid`` unless one is recorded already;
        returns the rematch that holds (ours or the earlier one)."""
        self._count()
        if await self.redis.set(Keys.rematch(rid), new_rid, nx=True, ex=ttl_s):
            return new_rid
        held = await self.redis.get(Keys.rematch(rid))
        return _s(held) if held is not None else new_rid

    async def rematch_of(self, rid: str) -> str | None:
        self._count()
        held = await self.redis.get(Keys.rematch(rid))
        return _s(held) if held is not None else None

    async def notify_player(self, pid: str, notice: dict[str, Any]) -> None:
        self._count()
        if self.cluster:  # sharded: the channel lives on the player's slot's shard
            await self.redis.spublish(Keys.player_channel(pid), msgpack.packb(notice))
        else:
            await self.redis.publish(Keys.player_channel(pid), msgpack.packb(notice))
