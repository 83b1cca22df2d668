"""A race's life in Redis from its lobby to its retirement: creation under an invite code,
joining, leaving, ready, start, resignation, the end, and reading a race back.

Why apart from the moves (:mod:`.moves`): these transitions happen a handful of times per race
and may take several round trips (the player's own keys are in another slot, so they are
written after the race's script, not inside it); the per-move path is kept in a module of its
own. The atomic checks themselves are the Lua scripts of :mod:`.lua` (see
server/game/lifecycle.py for the state machine they enforce).
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Sequence
from typing import Any

from solrace.server.game.lifecycle import INITIAL
from solrace.server.store import lua, stats_lua
from solrace.server.store.core import StoreCore
from solrace.server.store.keys import CODE_TTL, RETENTION, Keys
from solrace.server.store.records import RaceRecord, ScriptResult, _s, decode_map


class RaceLifecycleMixin(StoreCore):
    """Lobby -> countdown -> running -> finished, and the race's record."""

    def _register_scripts(self) -> None:
        super()._register_scripts()
        self._join = self._script(lua.JOIN)
        self._leave = self._script(lua.LEAVE)
        self._ready = self._script(lua.READY)
        self._start = self._script(lua.START)
        self._resign = self._script(lua.RESIGN)
        self._finish = self._script(lua.FINISH)
        self._analysis_quota = self._script(stats_lua.ANALYSIS_QUOTA)

    async def create_race(self, rid: str, code: str, meta: dict[str, Any]) -> bool:
        """Store a new race under an invite code; False when the code is taken."""
        self._count()
        if not await self.redis.set(Keys.code(code), rid, nx=True, ex=CODE_TTL):
            return False
        async with self.redis.pipeline(transaction=True) as p:
            p.hset(Keys.race(rid), mapping={**meta, "state": INITIAL.value, "version": 0})
            p.expire(Keys.race(rid), CODE_TTL)  # a lobby nobody starts goes away; see retire
            await p.execute()
        self._count()
        return True

    async def race_by_code(self, code: str) -> str | None:
        self._count()
        raw = await self.redis.get(Keys.code(code))
        return _s(raw) if raw is not None else None

    async def join(
        self, rid: str, pid: str, name: str, *, title: str = "", auto_ready: bool = False,
        countdown_ms: int = 0,
    ) -> ScriptResult:
        self._count()
        res = ScriptResult.of(
            await self.batcher.call(self._join,
                keys=[Keys.race(rid), Keys.racers(rid), Keys.order(rid), Keys.events(rid),
                      Keys.ready(rid)],
                args=[pid, name, Keys.race_channel(rid), "1" if auto_ready else "0", countdown_ms,
                      title],
            )
        )
        if res.status == "ok":
            async with self.redis.pipeline(transaction=False) as p:
                p.sadd(Keys.player_races(pid), rid)
                p.expire(Keys.player_races(pid), RETENTION)
                p.zadd(Keys.player_history(pid), {rid: int(time.time() * 1000)})
                p.expire(Keys.player_history(pid), RETENTION)  # what deleting anonymises
                await p.execute()
            self._count()
        return res

    async def leave(self, rid: str, pid: str, countdown_ms: int) -> ScriptResult:
        self._count()
        res = ScriptResult.of(
            await self.batcher.call(self._leave,
                keys=[Keys.race(rid), Keys.racers(rid), Keys.order(rid), Keys.ready(rid),
                      Keys.events(rid)],
                args=[pid, Keys.race_channel(rid), countdown_ms, RETENTION],
            )
        )
        if res.status == "ok":
            self._count()
            await self.redis.srem(Keys.player_races(pid), rid)
        return res

    async def ready(self, rid: str, pid: str, countdown_ms: int) -> ScriptResult:
        self._count()
        return ScriptResult.of(
            await self.batcher.call(self._ready,
                keys=[Keys.race(rid), Keys.racers(rid), Keys.ready(rid), Keys.events(rid)],
                args=[pid, Keys.race_channel(rid), countdown_ms],
            )
        )

    async def start(
        self, rid: str, start_event: bytes, players: Sequence[str], home: int
    ) -> ScriptResult:
        """countdown -> running once ``starts_at`` is reached; every racer's progress starts
        at ``home`` (the cards the deal puts home, 16 in Sixes and Sevens). The race's keys
        expire a day after its time limit at the latest (``retire`` sets the retention)."""
        self._count()
        return ScriptResult.of(
            await self.batcher.call(self._start,
                keys=[Keys.race(rid), Keys.racers(rid), Keys.events(rid), Keys.order(rid),
                      Keys.ready(rid)],
                args=[Keys.race_channel(rid), start_event, home, CODE_TTL, *players],
            )
        )

    async def resign(self, rid: str, pid: str, dealt_home: int = 0) -> ScriptResult:
        self._count()
        return ScriptResult.of(
            await self.batcher.call(self._resign,
                keys=[Keys.race(rid), Keys.events(rid), Keys.racers(rid)],
                args=[pid, Keys.race_channel(rid), dealt_home],
            )
        )

    async def finish(self, rid: str, end_event: bytes, version_read: int) -> ScriptResult:
        """running -> finished, once; ``ok`` also for a retry of this very call whose first
        reply was lost (see the script)."""
        self._count()
        return ScriptResult.of(
            await self.batcher.call(self._finish,
                keys=[Keys.race(rid), Keys.events(rid), Keys.result(rid)],
                args=[Keys.race_channel(rid), end_event, version_read, secrets.token_hex(8)],
            )
        )

    async def retire(self, rid: str, players: Sequence[str], code: str | None) -> None:
        """After the end: give every key of the race its retention TTL, drop it from the
        players' active sets and free the invite code."""
        async with self.redis.pipeline(transaction=False) as p:
            for key in (Keys.race(rid), Keys.racers(rid), Keys.order(rid), Keys.ready(rid),
                        Keys.events(rid), Keys.result(rid)):
                p.expire(key, RETENTION)
            for pid in players:
                p.expire(Keys.log(rid, pid), RETENTION)
                p.srem(Keys.player_races(pid), rid)
            p.expire(Keys.watchers(rid), RETENTION)
            p.zrem(Keys.LIVE, rid)
            p.zrem(Keys.DEADLINES, rid)
            p.zrem(Keys.BOT_RACES, rid)
            p.delete(Keys.bot_lease(rid))  # a driver elsewhere finds its lease gone and stops
            if code:
                p.delete(Keys.code(code))
            await p.execute()
        self._count()

    async def read_race(self, rid: str) -> RaceRecord | None:
        """Everything about a race but the move logs, in one round trip."""
        async with self.redis.pipeline(transaction=False) as p:
            p.hgetall(Keys.race(rid))
            p.lrange(Keys.order(rid), 0, -1)
            p.hgetall(Keys.racers(rid))
            p.smembers(Keys.ready(rid))
            meta, order, racers, ready = await p.execute()
        self._count()
        if not meta:
            return None
        ids = [_s(x) for x in order]
        fields = decode_map(meta)
        players: dict[str, dict[str, str]] = {pid: {} for pid in ids}
        for name in [k for k in fields if k.startswith("p:")]:  # p:<pid>:<field>
            pid, _, key = name[2:].rpartition(":")
            players.setdefault(pid, {})[key] = fields.pop(name)
        return RaceRecord(
            rid=rid,
            meta=fields,
            order=ids,
            names=decode_map(racers),
            ready={_s(x) for x in ready},
            players=players,
        )

    async def analysis(self, rid: str, pid: str) -> dict[str, Any] | None:
        """The stored analysis of a racer's line (``Keys.analysis``), or None."""
        self._count()
        raw = await self.redis.hget(Keys.analysis(rid), pid)
        return json.loads(raw) if raw is not None else None

    async def save_analysis(self, rid: str, pid: str, data: dict[str, Any]) -> None:
        self._count()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(Keys.analysis(rid), pid, json.dumps(data))
            pipe.expire(Keys.analysis(rid), RETENTION)
            await pipe.execute()

    async def take_analysis(self, who: str, what: str, limit: int, window_ms: int) -> int:
        """Count one fresh analysis against caller ``who`` (``Keys.analysis_quota``): 0 when
        it was counted, else the ms until one of the ``limit`` in the window leaves it (and
        nothing was counted). One script: two processes cannot both take the last one."""
        self._count()
        out = await self._analysis_quota(keys=[Keys.analysis_quota(who)],
                                         args=[limit, window_ms, what])
        return int(out[0])

    async def read_log(self, rid: str, pid: str) -> list[str]:
        self._count()
        return [_s(x) for x in await self.redis.lrange(Keys.log(rid, pid), 0, -1)]

    async def player_races(self, pid: str) -> list[str]:
        self._count()
        return sorted(_s(x) for x in await self.redis.smembers(Keys.player_races(pid)))
