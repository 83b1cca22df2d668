"""Bringing players together: the quick-pair queues, process heartbeats, rematches and the
per-player notice channel.

Why together: a quick pairing pops a waiting entry whose process must still be alive (its
heartbeat), and tells the matched player through their player channel, as a rematch offer
does; none of it belongs to one race yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgpack
from solrace.server.store import coord_lua
from solrace.server.store.core import StoreCore
from solrace.server.store.keys import QUICK_TTL, Keys
from solrace.server.store.records import ScriptResult, _s


class PairingMixin(StoreCore):
    """Quick pairing, heartbeats, rematches and player notices."""

    def _register_scripts(self) -> None:
        super()._register_scripts()
        self._quick = self._script(coord_lua.QUICK)
        self._quick_cancel = self._script(coord_lua.QUICK_CANCEL)
        self._quick_pair = self._script(coord_lua.QUICK_PAIR)

    async def quick_waiting(self, queue: str) -> list[str]:
        """The entries waiting in ``queue``, oldest first."""
        self._count()
        return [_s(x) for x in await self.redis.lrange(Keys.quick(queue), 0, -1)]

    async def quick_enqueue(self, queue: str, entry: str, take: str = "",
                            seen: Sequence[str] = ()) -> ScriptResult:
        """Atomically: if ``queue`` still holds exactly ``seen``, pop ``take`` ('match') or,
        with no ``take``, wait in it with ``entry`` (``<pid>:...``); else 'changed'."""
        self._count()
        player = entry.partition(":")[0] + ":"  # one entry per player, whatever its process
        return ScriptResult.of(await self.batcher.call(
            self._quick, keys=[Keys.quick(queue)],
            args=[entry, QUICK_TTL, player, take, *seen]))

    async def quick_pair(self, queue: str, mine: str, rival: str) -> bool:
        """Atomically take two waiting entries of ``queue`` (paired with each other); False
        when either has gone meanwhile (nothing changed then)."""
        self._count()
        res = ScriptResult.of(await self.batcher.call(
            self._quick_pair, keys=[Keys.quick(queue)], args=[mine, rival]))
        return res.status == "match"

    async def heartbeat(self, process: str, ttl_ms: int) -> None:
        """This process is alive for ``ttl_ms`` more (see :meth:`is_alive`)."""
        self._count()
        await self.redis.set(Keys.alive(process), "1", px=ttl_ms)

    async def is_alive(self, process: str) -> bool:
        self._count()
        return bool(await self.redis.exists(Keys.alive(process)))

    async def quick_cancel(self, queue: str, prefix: str) -> int:
        """Remove the entries of ``queue`` that start with ``prefix``; returns how many."""
        self._count()
        return int(await self._quick_cancel(keys=[Keys.quick(queue)], args=[prefix]))

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
