"""The Redis side of tournaments (arenas): the tournament's record, its entrants, their deal
results and the standings, each tournament in one hash slot (``{t:<id>}``), so that any
process serves any entrant and a process that dies loses nothing.

Keys (``sr:t:{t:<id>}`` and its suffixes; RETENTION after the end):

* ``sr:t:{t:<id>}`` (hash) — format, name, variant, options, starts_at, ends_at, cutoff,
  deal_ms, commitment, master (the master seed: never sent before ``ends_at``), code,
  created_by, private, entrants (a counter), v (the standings' version);
* ``…:entrants`` (hash) pid -> ``<joined>|<name>``; ``…:rank`` (zset) the standings;
  ``…:stat`` (hash) pid -> ``points|won|played|fire|tiebreak|extra|rev``; ``…:cur`` (hash)
  pid -> ``rid|k|started_at|berserk``; ``…:d:<pid>`` (list) the entrant's results, msgpack;
  ``…:watchers`` (set) the players who watched its deals while it ran (they may not enter);
* a knockout's ``…:ko`` (string) — its bracket, JSON (shared/tournaments/bracket.py), with
  its version ``ko_v`` and state ``ko_state`` in the hash; ``…:lock`` (string, 10 s) — held
  by the process creating a round's races;
* ``sr:knockouts`` (zset, its own slot) — running knockouts scored by when they next need a
  look (a start, a start window closing): the upkeep sweep of any process takes them;
* ``sr:player:{<pid>}:tournaments`` (set) — the tournaments a player entered (a ban reaches
  them all);
* ``sr:tournaments`` (zset, its own slot) — tournament ids scored by ``starts_at``, public
  ones only; ``sr:tcode:{<CODE>}`` (string) — a private tournament's id by its invite code;
* ``sr:schedules`` (hash) — the recurring tournaments an operator added with
  ``solrace-server admin schedule add`` (line -> the time it was added), kept until removed.

The scripts are :mod:`.tournament_lua`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple

import msgpack
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from solrace.server.store import tournament_lua as tl
from solrace.server.store.batch import ScriptBatcher
from solrace.server.store.keys import RETENTION
from solrace.server.store.records import _s
from solrace.server.store.trophies import PENDING_KEY

LIST_KEY = "sr:tournaments"
KNOCKOUTS_KEY = "sr:knockouts"
LOCK_MS = 10_000
SCHEDULES_KEY = "sr:schedules"


class Totals(NamedTuple):
    """An entrant's standing as stored: what the rows show (points, won, played, fire,
    extra: an event's total time) and where it ranks (score, then tiebreak, both from the
    format's rules; lower first)."""

    points: int
    won: int
    played: int
    fire: bool
    tiebreak: int
    extra: int
    score: float


def _base(tid: str) -> str:
    return f"sr:t:{{t:{tid}}}"


def keys(tid: str, pid: str | None = None) -> list[str]:
    """The script keys of tournament ``tid`` (with the entrant's results list when ``pid``)."""
    b = _base(tid)
    out = [b, f"{b}:entrants", f"{b}:rank", f"{b}:stat", f"{b}:cur"]
    if pid is not None:
        out.append(f"{b}:d:{pid}")
    return out


def watchers_key(tid: str) -> str:
    """(set) the players who watched a deal of the tournament while it ran: never entrants."""
    return f"{_base(tid)}:watchers"


def player_key(pid: str) -> str:
    """(set) the tournaments a player entered — RETENTION, refreshed on entry."""
    return f"sr:player:{{{pid}}}:tournaments"


def code_key(code: str) -> str:
    return f"sr:tcode:{{{code}}}"


class TournamentStore:
    """Tournaments in Redis: create, enter, the current deal, results, standings."""

    def __init__(self, redis: Redis | RedisCluster, batcher: ScriptBatcher,
                 script: Callable[[str], Any], count: Callable[[], None]) -> None:
        self.redis = redis
        self.batcher = batcher
        self._count = count
        self._enter = script(tl.ENTER)
        self._deal = script(tl.DEAL)
        self._result = script(tl.RESULT)
        self._standings = script(tl.STANDINGS)
        self._ko_save = script(tl.KO_SAVE)
        self._ko_unlock = script(tl.KO_UNLOCK)
        self._watch = script(tl.WATCH)

    async def create(self, tid: str, meta: dict[str, Any], public: bool) -> bool:
        """Store a new tournament (False: the id exists). A public one is listed."""
        self._count()
        key = _base(tid)
        if not await self.redis.hsetnx(key, "format", str(meta["format"])):
            return False
        self._count()
        await self.redis.hset(key, mapping={k: str(v) for k, v in meta.items()})
        ttl = max(60, (int(meta["ends_at"]) - int(meta["created_at"])) // 1000) + RETENTION
        self._count()
        await self.redis.expire(key, ttl)
        if public:  # listed, and waiting to be made final (its trophies awarded)
            self._count()
            await self.redis.zadd(LIST_KEY, {tid: int(meta["starts_at"])})
            self._count()
            await self.redis.zadd(PENDING_KEY, {tid: int(meta["ends_at"])})
        if meta.get("code"):
            self._count()
            await self.redis.set(code_key(str(meta["code"])), tid, ex=ttl)
        return True

    async def meta(self, tid: str) -> dict[str, str] | None:
        self._count()
        raw = await self.redis.hgetall(_base(tid))
        return {_s(k): _s(v) for k, v in raw.items()} if raw else None

    async def by_code(self, code: str) -> str | None:
        self._count()
        raw = await self.redis.get(code_key(code))
        return _s(raw) if raw is not None else None

    async def listed(self, lo: int, hi: int, limit: int) -> list[str]:
        """Public tournaments starting between ``lo`` and ``hi`` (ms), earliest first."""
        self._count()
        raw = await self.redis.zrangebyscore(LIST_KEY, lo, hi, start=0, num=limit)
        return [_s(r) for r in raw]

    async def prune_list(self, before: int) -> None:
        self._count()
        await self.redis.zremrangebyscore(LIST_KEY, 0, before)

    async def mark_final(self, tid: str, podium: list[str]) -> None:
        """The tournament's results are final; ``podium`` the players awarded a place."""
        self._count()
        await self.redis.hset(_base(tid), mapping={"final": "1", "podium": ",".join(podium)})

    async def reopen(self, tid: str) -> None:
        """Final no more (a ban changed its standings): the trophy sweep looks again."""
        self._count()
        await self.redis.hdel(_base(tid), "final", "podium")

    async def all_results(self, tid: str, pids: list[str]) -> dict[str, list[dict[str, Any]]]:
        """Every named entrant's results, in one round trip (one tournament, one slot)."""
        b = _base(tid)
        self._count()
        async with self.redis.pipeline(transaction=False) as pipe:
            for pid in pids:
                pipe.lrange(f"{b}:d:{pid}", 0, -1)
            raw = await pipe.execute()
        return {pid: [msgpack.unpackb(r, raw=False) for r in rows]
                for pid, rows in zip(pids, raw)}

    async def schedules(self) -> list[str]:
        """The operators' stored recurring tournaments, as written, in the order added."""
        self._count()
        raw = await self.redis.hgetall(SCHEDULES_KEY)
        return [_s(k) for k, _ in sorted(raw.items(), key=lambda kv: (int(kv[1]), kv[0]))]

    async def add_schedule(self, line: str, now: int) -> bool:
        """Store a recurring tournament (False: that line is stored already)."""
        self._count()
        return bool(await self.redis.hsetnx(SCHEDULES_KEY, line, now))

    async def remove_schedule(self, line: str) -> bool:
        self._count()
        return bool(await self.redis.hdel(SCHEDULES_KEY, line))

    async def enter(self, tid: str, pid: str, name: str, now: int, start: Totals
                    ) -> int | str:
        """Enter ``pid`` with ``start``: the totals of an entrant with no result yet."""
        self._count()
        res = await self.batcher.call(self._enter, keys=[*keys(tid)[:4], watchers_key(tid)],
                                      args=[pid, name, now, start.score, start.tiebreak])
        return int(res) if isinstance(res, int) else _s(res)

    async def watch(self, tid: str, pid: str) -> str:
        """Remember ``pid`` as a watcher of the running tournament unless they entered it:
        ``ok``, ``entrant`` or ``missing``."""
        self._count()
        res = await self.batcher.call(self._watch,
                                      keys=[*keys(tid)[:2], watchers_key(tid)], args=[pid])
        return _s(res)

    async def set_deal(self, tid: str, pid: str, k: int, rid: str, started: int,
                       berserk: bool, top: int = 10) -> tuple[str, str | None]:
        """Deal ``k`` (race ``rid``) is the entrant's current one; an entrant in the ``top``
        places makes it news for the standings' followers."""
        self._count()
        res = await self.batcher.call(self._deal, keys=keys(tid, pid),
                                      args=[pid, k, rid, started, "1" if berserk else "0", top])
        status = _s(res[0])
        return status, (_s(res[1]) if len(res) > 1 else None)

    async def currents(self, tid: str, pids: list[str]
                       ) -> dict[str, tuple[str, int, int, bool]]:
        """The current deal of each of ``pids`` that has one (see :meth:`current`)."""
        if not pids:
            return {}
        self._count()
        raw = await self.redis.hmget(keys(tid)[4], pids)
        out = {}
        for pid, cur in zip(pids, raw):
            if cur is not None:
                rid, k, started, berserk = _s(cur).split("|")
                out[pid] = (rid, int(k), int(started), berserk == "1")
        return out

    async def current(self, tid: str, pid: str) -> tuple[str, int, int, bool] | None:
        """The entrant's current deal: (race id, k, started_at, berserk), or None."""
        self._count()
        raw = await self.redis.hget(keys(tid)[4], pid)
        if raw is None:
            return None
        rid, k, started, berserk = _s(raw).split("|")
        return rid, int(k), int(started), berserk == "1"

    async def results(self, tid: str, pid: str) -> tuple[list[dict[str, Any]], int]:
        """The entrant's recorded results in order, and the revision they were read at."""
        ks = keys(tid, pid)
        self._count()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.lrange(ks[5], 0, -1)
            pipe.hget(ks[3], pid)
            raw, stat = await pipe.execute()
        rev = int(_s(stat).rsplit("|", 1)[1]) if stat is not None else 0
        return [msgpack.unpackb(r, raw=False) for r in raw], rev

    async def record(self, tid: str, pid: str, k: int, result: dict[str, Any],
                     totals: Totals, rev: int, mode: str,
                     every: list[dict[str, Any]] | None = None) -> str:
        """Append (``mode`` append) or replace (``set``) deal ``k``'s result — or replace all
        ``k`` results with ``every`` (``all``) — with the entrant's new :class:`Totals`."""
        t = totals
        self._count()
        res = await self.batcher.call(
            self._result, keys=keys(tid, pid),
            args=[pid, k, msgpack.packb(result), t.points, t.won, t.played,
                  1 if t.fire else 0, t.tiebreak, t.extra, rev, mode, t.score,
                  *(msgpack.packb(r) for r in every or ())])
        return _s(res)

    async def add_entered(self, pid: str, tid: str, ttl: int) -> None:
        """Remember that the player entered ``tid`` (a ban reaches every tournament of it)."""
        key = player_key(pid)
        self._count()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.sadd(key, tid)
            pipe.expire(key, ttl)
            await pipe.execute()

    async def entered(self, pid: str) -> list[str]:
        self._count()
        return sorted(_s(t) for t in await self.redis.smembers(player_key(pid)))

    async def standings(self, tid: str, pid: str | None, top: int, around: int
                        ) -> tuple[int, int, int, list[tuple[int, str, str, str]]]:
        """(version, entrants, the entrant's rank or 0, rows (rank, pid, name, stat))."""
        self._count()
        res = await self.batcher.call(self._standings, keys=keys(tid)[:4],
                                      args=[pid or "", top, around])
        v, n, mine = int(res[0]), int(res[1]), int(res[2])
        rows = []
        seen = set()
        for i in range(3, len(res), 4):
            rank = int(res[i])
            if rank not in seen:
                seen.add(rank)
                rows.append((rank, _s(res[i + 1]), _s(res[i + 2]), _s(res[i + 3])))
        rows.sort()
        return v, n, mine, rows

    async def version(self, tid: str) -> int:
        self._count()
        raw = await self.redis.hget(_base(tid), "v")
        return int(raw or 0)

    async def entrants(self, tid: str) -> list[tuple[str, int, str]]:
        """Every entrant: (pid, joined number, name), in entry order."""
        self._count()
        raw = await self.redis.hgetall(keys(tid)[1])
        out = []
        for pid, entry in raw.items():
            joined, name = _s(entry).split("|", 1)
            out.append((_s(pid), int(joined), name))
        return sorted(out, key=lambda e: e[1])

    # ------------------------------------------------------------------ knockouts

    async def bracket(self, tid: str) -> tuple[dict[str, Any] | None, int]:
        """A knockout's bracket (None: not started) and the version it was read at. The
        version is read first: a bracket newer than it only makes the save ``stale``."""
        self._count()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(_base(tid), "ko_v")
            pipe.get(f"{_base(tid)}:ko")
            v, raw = await pipe.execute()
        return (json.loads(raw) if raw else None), int(v or 0)

    async def save_bracket(self, tid: str, v: int, bracket: dict[str, Any], state: str,
                           ends_at: int | None) -> str:
        """Replace the bracket read at version ``v``: ``ok``, ``stale`` or ``missing``."""
        self._count()
        res = await self.batcher.call(
            self._ko_save, keys=[_base(tid), f"{_base(tid)}:ko"],
            args=[v, json.dumps(bracket, separators=(",", ":")), state,
                  "" if ends_at is None else ends_at])
        return _s(res)

    async def knockout_due(self, tid: str, at: int | None) -> None:
        """When knockout ``tid`` next needs a look (None: never again: it is over)."""
        self._count()
        if at is None:
            await self.redis.zrem(KNOCKOUTS_KEY, tid)
        else:
            await self.redis.zadd(KNOCKOUTS_KEY, {tid: at})

    async def knockouts_due(self, now: int, limit: int) -> list[str]:
        self._count()
        raw = await self.redis.zrangebyscore(KNOCKOUTS_KEY, 0, now, start=0, num=limit)
        return [_s(r) for r in raw]

    async def lock(self, tid: str, token: str) -> bool:
        """Take knockout ``tid``'s race-creation lock for :data:`LOCK_MS` (False: held)."""
        self._count()
        return bool(await self.redis.set(f"{_base(tid)}:lock", token, nx=True, px=LOCK_MS))

    async def unlock(self, tid: str, token: str) -> None:
        self._count()
        await self.batcher.call(self._ko_unlock, keys=[f"{_base(tid)}:lock"], args=[token])
