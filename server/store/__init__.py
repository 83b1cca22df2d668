"""All Redis access: the key schema, the Lua scripts and the calls that use them.

Nothing else in solrace speaks Redis. Keys (``{…}`` is the Redis Cluster hash tag, so one
race's keys share one slot and every script touches a single slot):

key (type) — holds — TTL

* ``sr:session:{<sha256 token>}`` (hash) — player, name, kind, account, sid, created_at,
  last_seen, client, address — session TTL, refreshed on use
* ``sr:session:{<sha256 token>}:fails`` (zset) — failed password checks in the session
* ``sr:name:{account:<fold>}`` (string) — player id of the live guest holding the name — as
  its session
* ``sr:account:{account:<fold>}`` (hash) — an account (player, name, kdf, created_at), or its
  tombstone — no TTL; ``…:sessions`` (hash) session id -> token hash; ``…:fails`` (zset)
* ``sr:loginfail:{addr:<address>}`` (zset) — failed logins from one client address — 24 h
* ``sr:player:{<pid>}:history`` (zset) — every race the player joined — RETENTION
  (the name keys are described one by one in :mod:`.keys`)
* ``sr:player:{<pid>}:races`` (set) — race ids the player is in, not finished — session TTL
* ``sr:race:{<rid>}`` (hash) — race meta: variant, options, seats, time_limit, rated, state,
  code, host, seed, commitment, created_at, starts_at, started_at, ends_at, ended_at,
  unfinished, version; kind, min_racers, daily (daily attempts and their practice games), bots
  (practice races with bots: ``<bot id>=<strength>,…`` in seat order); procs (the server
  processes following the race's channel, see ``lua.FOLLOW``); and per racer
  ``p:<pid>:home``, ``:moves``, ``:last``, ``:progress_at``, ``:result``, ``:finished_at``
  (times in ms since the start; in this hash, not one of their own, so that a move writes one
  hash) — none while live, RETENTION after the end
* ``sr:race:{<rid>}:racers`` (hash) — player id -> display name — as the race
* ``sr:race:{<rid>}:order`` (list) — player ids in seat (join) order — as the race
* ``sr:race:{<rid>}:ready`` (set) — player ids that are ready — as the race
* ``sr:race:{<rid>}:log:<pid>`` (list) — the player's moves in notation: the game — as the race
* ``sr:race:{<rid>}:ev`` (stream) — race events, entry id ``<version>-0``, field ``e`` =
  msgpack event (each with ``at``, the Redis time in ms) — as the race
* ``sr:race:{<rid>}:result`` (string) — the msgpack ``end`` event — as the race
* ``sr:race:{<rid>}:watchers`` (zset) — spectator connections (``<process>:<conn>``) scored by
  the Redis time their registration expires (refreshed by their process) — as the race
* ``sr:race:{<rid>}:online`` (zset) — racers' attached connections (``<pid>|<process>:<conn>``)
  scored by expiry ms (presence; refreshed every 30 s by their connection) — 2 × its TTL
* ``sr:live`` (zset) — running race ids scored by start time — members removed at the end
* ``sr:deadlines`` (zset) — running race ids (every kind) scored by ``ends_at``: any process's
  sweeper ends races whose time is up even if no process holds a timer for them — as live
* ``sr:race:{<rid>}:barrier`` (string) — written before ``WAIT`` with ``--wait-replicas``: once
  replicas have it they have every earlier write of the race's master — 60 s
* ``sr:race:{<rid>}:botlease`` (string) — the process id driving the bots of a practice race
  with bots (one driver per race) — ``--bot-lease``, renewed by its holder; deleted at the end
* ``sr:bots`` (zset) — practice races whose bots are still playing, scored by when their lease
  runs out (Redis ms; 0: free now): any process's sweeper takes the lease of those due and
  drives their bots — members removed at the end, or once every bot's game is over
* ``sr:rematch:{<rid>}`` (string) — the race id of the rematch of finished race ``rid``, set
  once (NX) by the first ``race.rematch`` — RETENTION
* ``sr:code:{<CODE>}`` (string) — race id of an invite code — CODE_TTL, deleted at the end
* ``sr:quick:{<variant|options>}`` (list) — players waiting for quick pairing, as
  ``<pid>:<name>:<process>`` (the process holding the waiting connection) — QUICK_TTL
* ``sr:alive:{<process>}`` (string) — a server process's heartbeat: a waiting quick-pair entry
  whose process has no heartbeat is a ghost (that process died) and is skipped — three
  heartbeat periods, refreshed by its process

* ``sr:pool:{<variant|options>}`` (set) — certified seeds waiting for a winnable race, as
  ``<seed>:<par>:<nodes>`` — no TTL; ``…:lock`` (string) the process topping it up — 2 min
* ``sr:pools`` (zset) — configurations players asked winnable races of, scored by the last
  ask (ms): kept topped up in the background — entries older than a week dropped
* ``sr:verdicts`` (zset) — finished races whose solver verdict is still to come, scored by
  when their solver's lease runs out — removed once the verdict is stored
  (the pool and verdict calls are :mod:`.deals`; a race's verdict is in its hash: ``verdict``,
  ``verdict_par``, ``verdict_nodes``; a winnable race's hash has ``winnable=1`` and
  ``certified_par``, never sent while it runs)

* ``sr:daily:{<date>|<variant>}`` (hash) — the certified daily deal: seed, candidate,
  commitment, par, nodes, options, certified_at — DAILY_TTL
* ``sr:daily:{<date>|<variant>}:lock`` (string) — the process certifying that daily — 10 min
* ``sr:daily:{<date>|<variant>}:attempts`` (hash) — player id -> race id of the ranked attempt
  — DAILY_TTL
* ``sr:lb:{<date>|<variant>}`` (zset) — the daily leaderboard: every member scores 0 and the
  member text sorts in ranking order (see ``daily.rank_key``) — DAILY_TTL
* ``sr:lb:{<date>|<variant>}:entries`` (hash) — player id -> msgpack row (rank key, name,
  result, time, moves, home) — DAILY_TTL
* ``sr:stats:{<pid>}`` (hash) — all-time per variant: ``<variant>:races``, ``:wins``,
  ``:best_time``,
  ``:races_won``, ``:dailies``, ``:daily_wins``, ``:streak``, ``:best_streak``,
  ``:last_daily`` — no TTL
* ``sr:rating:{<pid>}`` (hash) — ``<variant>`` -> ``rating,rd,volatility,games`` — no TTL
* ``sr:profile:{<lower name>}`` (string) — the player id that last held a name — 1 year

The race, session and player keys are owned by this module alone.

Pub/sub channels: ``sr:race:{<rid>}`` carries ``<version>:<msgpack event>`` for every race
event; ``sr:player:{<pid>}`` carries msgpack notices for one player (quick-pair matches,
rematch offers). On a
Redis Cluster (a ``RedisCluster`` client) they are sharded channels (``SPUBLISH``), each on the
shard of its tag's slot. Cluster rule: every script, ``MULTI`` and multi-key command touches one
hash slot (docs/scaling.md; tests/server/test_slots.py checks every Store method).

All times are Redis ``TIME`` in milliseconds, read inside the scripts: one clock for every
server process, so a race's clock does not depend on which process serves it.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

import msgpack
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from solrace.server import metrics
from solrace.server.store import lua
from solrace.server.store.accounts import AccountStore
from solrace.server.store.batch import ScriptBatcher
from solrace.server.store.deals import DealStore
from solrace.server.store.keys import (
    CODE_TTL,
    DAILY_TTL,
    PROFILE_TTL,
    QUICK_TTL,
    RETENTION,
    Keys,
)
from solrace.server.store.records import RaceRecord, ScriptResult, _s, decode_map
from solrace.server.store.replication import Replication, ReplicationLag

log = logging.getLogger("solrace.store")

__all__ = [
    "CODE_TTL",
    "DAILY_TTL",
    "PROFILE_TTL",
    "QUICK_TTL",
    "RETENTION",
    "Keys",
    "RaceRecord",
    "ReplicationLag",
    "ScriptBatcher",
    "ScriptResult",
    "Store",
    "decode_map",
]


class Store:
    """The one door to Redis. ``redis`` must use ``decode_responses=False``."""

    def __init__(self, redis: Redis | RedisCluster, *, wait_replicas: int = 0,
                 wait_timeout_ms: int = 1000) -> None:
        self.redis = redis
        self.cluster = isinstance(redis, RedisCluster)
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = wait_timeout_ms
        self._join = self._script(lua.JOIN)
        self._leave = self._script(lua.LEAVE)
        self._ready = self._script(lua.READY)
        self._start = self._script(lua.START)
        self._move = self._script(lua.MOVE)
        self._batch = self._script(lua.BATCH)
        self._follow = self._script(lua.FOLLOW)
        self._resign = self._script(lua.RESIGN)
        self._finish = self._script(lua.FINISH)
        self._quick = self._script(lua.QUICK)
        self._spectate = self._script(lua.SPECTATE)
        self._presence = self._script(lua.PRESENCE)
        self._lb_record = self._script(lua.LB_RECORD)
        self._daily_stats = self._script(lua.DAILY_STATS)
        self._win_stats = self._script(lua.WIN_STATS)
        self._rating_cas = self._script(lua.RATING_CAS)
        self._unlock = self._script(lua.UNLOCK)
        self._renew = self._script(lua.RENEW)
        self._lease_take = self._script(lua.LEASE_TAKE)
        self._lease_renew = self._script(lua.LEASE_RENEW)
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

    # ------------------------------------------------------------------ sessions
    # Names, accounts and sessions: ``self.accounts`` (:mod:`.accounts`).

    # ------------------------------------------------------------------ races

    async def create_race(self, rid: str, code: str, meta: dict[str, Any]) -> bool:
        """Store a new race under an invite code; False when the code is taken."""
        self._count()
        if not await self.redis.set(Keys.code(code), rid, nx=True, ex=CODE_TTL):
            return False
        async with self.redis.pipeline(transaction=True) as p:
            p.hset(Keys.race(rid), mapping={**meta, "state": "lobby", "version": 0})
            p.expire(Keys.race(rid), CODE_TTL)  # a lobby nobody starts goes away; see retire
            await p.execute()
        self._count()
        return True

    async def race_by_code(self, code: str) -> str | None:
        self._count()
        raw = await self.redis.get(Keys.code(code))
        return _s(raw) if raw is not None else None

    async def join(
        self, rid: str, pid: str, name: str, *, auto_ready: bool = False, countdown_ms: int = 0
    ) -> ScriptResult:
        self._count()
        res = ScriptResult.of(
            await self.batcher.call(self._join,
                keys=[Keys.race(rid), Keys.racers(rid), Keys.order(rid), Keys.events(rid),
                      Keys.ready(rid)],
                args=[pid, name, Keys.race_channel(rid), "1" if auto_ready else "0", countdown_ms],
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

    async def append_move(
        self, rid: str, pid: str, seq: int, move: str, home: int, progressed: bool, result: str,
        event: bytes, event_map: dict[str, Any] | None = None,
    ) -> ScriptResult:
        """The conditional append: only when the log holds exactly ``seq`` moves. ``event`` is
        the msgpack progress event (a map of at most 14 entries); the script adds ``elapsed``
        and ``at``. ``event_map``: the same event unpacked (local delivery copies it instead of
        unpacking ``event`` again)."""
        self._count()
        res = ScriptResult.of(await self.batcher.call(self._move,
            keys=[Keys.race(rid), Keys.log(rid, pid), Keys.events(rid)],
            args=[pid, seq, move, home, "1" if progressed else "0", result,
                  Keys.race_channel(rid), event, self.process],
            on_done=self._deliver_after(rid, [event], [event_map]),
        ))
        await self.durable(rid, res)
        return res

    async def durable(self, rid: str, res: ScriptResult) -> None:
        """With ``--wait-replicas N``: return only once N replicas hold the race's writes so
        far (a move just logged, or — for a duplicate — the earlier one); else raise
        :class:`ReplicationLag` (the caller answers ``unavailable``; a retry is idempotent)."""
        if self.replication is not None and res.status in ("ok", "dup"):
            self._count()
            await self.replication.wait(Keys.barrier(rid))

    async def append_batch(
        self, rid: str, pid: str, seq: int, moves: Sequence[tuple[str, int, bool, bytes]],
        result: str,
    ) -> ScriptResult:
        """The conditional append of several moves at once (one sequence check): each item is
        (move, home after it, whether it put a card home, its msgpack progress event — at most
        14 entries; the script adds ``elapsed`` and ``at``). ``result`` ends the game after the
        last move ('' when it goes on). ``dup`` when these moves already follow ``seq``."""
        self._count()
        args: list[Any] = [pid, seq, len(moves), result, Keys.race_channel(rid), self.process]
        for text, home, progressed, event in moves:
            args += [text, home, "1" if progressed else "0", event]
        res = ScriptResult.of(await self.batcher.call(self._batch,
            keys=[Keys.race(rid), Keys.log(rid, pid), Keys.events(rid)],
            args=args, on_done=self._deliver_after(rid, [m[3] for m in moves]),
        ))
        await self.durable(rid, res)
        return res

    def _deliver_after(self, rid: str, events: list[bytes],
                       maps: list[dict[str, Any] | None] | None = None
                       ) -> Callable[[Any], None] | None:
        """The callback that, once the move script has run — whether or not its caller is still
        waiting (a closed connection) — hands its events to this process's own connections
        (``local``), as pub/sub would have: each with ``v``, ``elapsed`` and ``at`` as in the
        stream."""
        local = self.local
        if local is None:
            return None

        def done(raw: Any) -> None:
            if _s(raw[0]) != "ok":
                return
            last, elapsed, now = int(raw[1]), int(raw[2]), int(raw[4])
            first = last - len(events) + 1
            for i, body in enumerate(events):
                known = maps[i] if maps is not None else None
                ev = dict(known) if known is not None else msgpack.unpackb(body, raw=False)
                ev["elapsed"], ev["at"], ev["v"] = elapsed, now, first + i
                try:
                    local(rid, first + i, ev)
                except Exception:
                    log.exception("local delivery of race %s v%d failed", rid, first + i)

        return done

    async def follow(self, rid: str, on: bool) -> None:
        """This process's hub is (or is no longer) subscribed to the race's channel: list it in
        the race's ``procs`` (see lua.FOLLOW), so that moves of other processes publish."""
        self._count()
        await self.batcher.call(self._follow, keys=[Keys.race(rid)],
                                args=[self.process, "1" if on else "0"])

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

    async def read_log(self, rid: str, pid: str) -> list[str]:
        self._count()
        return [_s(x) for x in await self.redis.lrange(Keys.log(rid, pid), 0, -1)]

    async def events_since(self, rid: str, since: int, limit: int = 10_000) -> list[dict[str, Any]]:
        """Race events with version > ``since``, oldest first, each with ``v`` set."""
        self._count()
        raw = await self.redis.xrange(Keys.events(rid), min=f"{since + 1}-0", max="+", count=limit)
        out = []
        for entry_id, fields in raw:
            ev = msgpack.unpackb(fields[b"e"], raw=False)
            ev["v"] = int(_s(entry_id).split("-")[0])
            out.append(ev)
        return out

    async def end_event(self, rid: str) -> dict[str, Any] | None:
        self._count()
        raw = await self.redis.get(Keys.result(rid))
        return msgpack.unpackb(raw, raw=False) if raw else None

    async def player_races(self, pid: str) -> list[str]:
        self._count()
        return sorted(_s(x) for x in await self.redis.smembers(Keys.player_races(pid)))

    # ------------------------------------------------------------------ spectators

    async def spectate(self, rid: str, member: str, add: bool, ttl_ms: int) -> int:
        """Register (or drop) one spectator connection; returns the spectator count."""
        self._count()
        return int(await self.batcher.call(self._spectate,
            keys=[Keys.race(rid), Keys.watchers(rid)],
            args=[member, "1" if add else "0", ttl_ms, Keys.race_channel(rid)],
        ))

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
            if meta and _s(meta.get(b"state", b"")) == "running":
                out.append((rid, decode_map(meta), int(racers), int(watchers)))
        return out

    # ------------------------------------------------------------------ practice bots

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

    # ------------------------------------------------------------------ dailies

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
        self, day: str, variant: str, pid: str, rank_key: str, row: dict[str, Any]
    ) -> bool:
        """Put a finished attempt on the leaderboard; False when it already is (idempotent)."""
        self._count()
        return bool(await self.batcher.call(
            self._lb_record,
            keys=[Keys.leaderboard(day, variant), Keys.leaderboard_entries(day, variant)],
            args=[pid, rank_key, msgpack.packb({**row, "key": rank_key}), DAILY_TTL],
        ))

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

    async def daily_stats(self, pid: str, variant: str, day: str, yesterday: str,
                          won: bool) -> int:
        """Count a daily attempt; returns the player's streak after it."""
        self._count()
        return int(await self.batcher.call(self._daily_stats, keys=[Keys.stats(pid)],
                                           args=[variant, day, yesterday, "1" if won else "0"]))

    async def win_stats(self, pid: str, variant: str, won: bool, race_won: bool,
                        time_ms: int) -> None:
        self._count()
        await self.batcher.call(self._win_stats, keys=[Keys.stats(pid)],
                                args=[variant, "1" if won else "0", "1" if race_won else "0",
                                      time_ms])

    async def race_played(self, pid: str, variant: str) -> None:
        """Count a finished race (any result) in the player's all-time ``<variant>:races``."""
        self._count()
        await self.redis.hincrby(Keys.stats(pid), f"{variant}:races", 1)

    async def stats(self, pid: str) -> dict[str, str]:
        self._count()
        return decode_map(await self.redis.hgetall(Keys.stats(pid)))

    async def ratings(self, pids: Sequence[str], variant: str) -> list[str | None]:
        async with self.redis.pipeline(transaction=False) as p:
            for pid in pids:
                p.hget(Keys.rating(pid), variant)
            raw = await p.execute()
        self._count()
        return [_s(x) if x is not None else None for x in raw]

    async def set_rating(self, pid: str, variant: str, expected: str | None, text: str
                         ) -> bool:
        """Store ``pid``'s new rating only if the stored one is still ``expected`` (None: no
        rating yet); False when another race's update landed first."""
        self._count()
        return bool(await self._rating_cas(keys=[Keys.rating(pid)],
                                           args=[variant, expected or "", text]))

    async def all_ratings(self, pid: str) -> dict[str, str]:
        self._count()
        return decode_map(await self.redis.hgetall(Keys.rating(pid)))

    async def remember_profile(self, name: str, pid: str) -> None:
        self._count()
        await self.redis.set(Keys.profile(name), pid, ex=PROFILE_TTL)

    async def profile_of(self, name: str) -> str | None:
        self._count()
        raw = await self.redis.get(Keys.profile(name))
        return _s(raw) if raw is not None else None

    # ------------------------------------------------------------------ quick pairing

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

    async def server_time_ms(self) -> int:
        self._count()
        sec, usec = await self.redis.time()
        return int(sec) * 1000 + int(usec) // 1000
