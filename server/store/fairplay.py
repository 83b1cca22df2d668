"""Fair-play records: each ranked result's case, the review queue, players' recent totals
and the moderators' append-only audit log.

Why apart: a case is written once per ranked result after the race has ended (never on the
move path) and read by moderators; its key carries the race's tag, the queue and the audit log
are single keys, a player's totals carry the player's tag, so every call touches one slot.
"""

from __future__ import annotations

from typing import Any

import msgpack
from solrace.server.store.core import StoreCore
from solrace.server.store.keys import DAILY_TTL, FP_RECENT, Keys
from solrace.server.store.records import _s


class FairPlayMixin(StoreCore):
    """Cases, the review queue, recent totals, the audit log."""

    async def save_case(self, rid: str, pid: str, case: dict[str, Any]) -> None:
        self._count()
        await self.redis.set(Keys.fp_case(rid, pid), msgpack.packb(case), ex=DAILY_TTL)

    async def read_case(self, rid: str, pid: str) -> dict[str, Any] | None:
        self._count()
        raw = await self.redis.get(Keys.fp_case(rid, pid))
        return msgpack.unpackb(raw, raw=False) if raw else None

    async def enqueue_case(self, case_id: str, total: float) -> None:
        self._count()
        await self.redis.zadd(Keys.FP_QUEUE, {case_id: total})

    async def dequeue_case(self, case_id: str) -> None:
        self._count()
        await self.redis.zrem(Keys.FP_QUEUE, case_id)

    async def held_cases(self, limit: int) -> list[tuple[str, float]]:
        """The review queue, highest total first."""
        self._count()
        rows = await self.redis.zrevrange(Keys.FP_QUEUE, 0, max(0, limit - 1), withscores=True)
        return [(_s(m), float(s)) for m, s in rows]

    async def analysis_due(self, case_id: str, lease_until_ms: int) -> None:
        """List a case for the worker pool's analysis, leased until ``lease_until_ms``."""
        self._count()
        await self.redis.zadd(Keys.FP_DUE, {case_id: lease_until_ms})

    async def analysis_done(self, case_id: str) -> None:
        self._count()
        await self.redis.zrem(Keys.FP_DUE, case_id)

    async def analyses_due(self, now_ms: int, lease_ms: int, take: int) -> list[str]:
        """Cases whose lease has ended, leased again to the caller (another process taking
        the same one in between only repeats an idempotent analysis)."""
        self._count()
        due = [_s(m) for m in await self.redis.zrangebyscore(Keys.FP_DUE, "-inf", now_ms,
                                                             start=0, num=take)]
        if due:
            self._count()
            await self.redis.zadd(Keys.FP_DUE, {cid: now_ms + lease_ms for cid in due}, xx=True)
        return due

    async def pending_analyses(self, limit: int) -> list[str]:
        self._count()
        return [_s(m) for m in await self.redis.zrange(Keys.FP_DUE, 0, max(0, limit - 1))]

    async def push_rated_race(self, pid: str, entry: dict[str, Any]) -> None:
        key = Keys.fp_races(pid)
        self._count()
        async with self.redis.pipeline(transaction=True) as p:  # one slot: {<pid>}
            p.rpush(key, msgpack.packb(entry))
            p.ltrim(key, -FP_RECENT, -1)
            await p.execute()

    async def rated_races(self, pid: str) -> list[dict[str, Any]]:
        self._count()
        return [msgpack.unpackb(x, raw=False)
                for x in await self.redis.lrange(Keys.fp_races(pid), 0, -1)]

    async def push_score(self, pid: str, total: float) -> None:
        key = Keys.fp_scores(pid)
        self._count()
        async with self.redis.pipeline(transaction=True) as p:  # one slot: {<pid>}
            p.rpush(key, f"{total:.4f}")
            p.ltrim(key, -FP_RECENT, -1)
            await p.execute()

    async def recent_scores(self, pid: str) -> list[float]:
        self._count()
        return [float(_s(x)) for x in await self.redis.lrange(Keys.fp_scores(pid), 0, -1)]

    async def add_report(self, target: str, reporter: str, report: dict[str, Any],
                         now_ms: int, window_ms: int, limit: int) -> str:
        """File a report: ``ok``; ``duplicate`` when this reporter has an open one on the
        target; ``limit`` when the reporter sent ``limit`` within ``window_ms``."""
        rate = Keys.fp_report_rate(reporter)
        self._count()
        async with self.redis.pipeline(transaction=True) as p:  # one slot: {<reporter>}
            p.zremrangebyscore(rate, 0, now_ms - window_ms)
            p.zcard(rate)
            _, sent = await p.execute()
        if int(sent) >= limit:
            return "limit"
        self._count()
        if not await self.redis.hsetnx(Keys.fp_reports(target), reporter,
                                       msgpack.packb(report)):
            return "duplicate"
        self._count()
        async with self.redis.pipeline(transaction=True) as p:
            p.zadd(rate, {f"{now_ms}:{target}": now_ms})
            p.pexpire(rate, window_ms)
            await p.execute()
        self._count()
        await self.redis.zincrby(Keys.FP_REPORTED, 1, target)
        return "ok"

    async def open_reports(self, pid: str) -> list[dict[str, Any]]:
        """The open reports on a player, oldest first (each with ``reporter``)."""
        self._count()
        raw = await self.redis.hgetall(Keys.fp_reports(pid))
        rows = [{"reporter": _s(k), **msgpack.unpackb(v, raw=False)} for k, v in raw.items()]
        return sorted(rows, key=lambda r: r.get("at", 0))

    async def close_reports(self, pid: str) -> int:
        """Close every open report on a player; how many there were."""
        self._count()
        n = int(await self.redis.hlen(Keys.fp_reports(pid)))
        self._count()
        await self.redis.delete(Keys.fp_reports(pid))
        self._count()
        await self.redis.zrem(Keys.FP_REPORTED, pid)
        return n

    async def reported_players(self, limit: int) -> list[tuple[str, int]]:
        """Players with open reports, most reported first."""
        self._count()
        rows = await self.redis.zrevrange(Keys.FP_REPORTED, 0, max(0, limit - 1),
                                          withscores=True)
        return [(_s(m), int(s)) for m, s in rows]

    async def log_rating(self, pid: str, entry: dict[str, Any]) -> None:
        self._count()
        await self.redis.rpush(Keys.rating_log(pid), msgpack.packb(entry))

    async def rating_log(self, pid: str) -> list[dict[str, Any]]:
        self._count()
        return [msgpack.unpackb(x, raw=False)
                for x in await self.redis.lrange(Keys.rating_log(pid), 0, -1)]

    async def hold_ratings(self, rid: str, updates: list[dict[str, Any]]) -> None:
        self._count()
        await self.redis.set(Keys.held_ratings(rid), msgpack.packb(updates), ex=DAILY_TTL)

    async def take_held_ratings(self, rid: str) -> list[dict[str, Any]] | None:
        """The race's held rating changes, removed (only one caller gets them)."""
        self._count()
        raw = await self.redis.getdel(Keys.held_ratings(rid))
        return msgpack.unpackb(raw, raw=False) if raw else None

    async def set_banned(self, pid: str, banned: bool) -> None:
        self._count()
        if banned:
            await self.redis.sadd(Keys.FP_BANNED, pid)
        else:
            await self.redis.srem(Keys.FP_BANNED, pid)

    async def annul_race(self, rid: str) -> bool:
        """Mark a race annulled; False when it already was."""
        self._count()
        return bool(await self.redis.sadd(Keys.FP_ANNULLED, rid))

    async def annulled_races(self) -> set[str]:
        self._count()
        return {_s(x) for x in await self.redis.smembers(Keys.FP_ANNULLED)}

    async def add_warning(self, pid: str, warning: dict[str, Any]) -> int:
        """Store a moderator's warning; how many the player has had."""
        self._count()
        return int(await self.redis.rpush(Keys.fp_warnings(pid), msgpack.packb(warning)))

    async def banned_players(self) -> set[str]:
        self._count()
        return {_s(x) for x in await self.redis.smembers(Keys.FP_BANNED)}

    async def audit(self, entry: dict[str, str]) -> str:
        """Append one moderator action to the audit log; returns its entry id."""
        self._count()
        return _s(await self.redis.xadd(Keys.FP_AUDIT, entry))

    async def audit_log(self, limit: int, before: str | None = None
                        ) -> list[dict[str, str]]:
        """The newest ``limit`` entries (older than entry id ``before`` when given)."""
        self._count()
        top = f"({before}" if before else "+"
        rows = await self.redis.xrevrange(Keys.FP_AUDIT, max=top, min="-", count=limit)
        return [{"id": _s(i), **{_s(k): _s(v) for k, v in f.items()}} for i, f in rows]
