"""The Redis side of names, accounts and sessions (keys in :mod:`.keys`, scripts in
:mod:`.account_lua`).

Every call touches the keys of one hash tag, or is a plain pipeline without a transaction
(several slots are fine there): a name's keys share ``{account:<fold>}``, a session's keys
its token hash. Nothing is cached in the process: whether a session is live is asked of Redis
on every request (:meth:`AccountStore.touch`), so a revocation on any process holds on every
process at once.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgpack
from redis.asyncio import Redis
from solrace.server.store import account_lua as lua
from solrace.server.store.batch import ScriptBatcher
from solrace.server.store.keys import PROFILE_TTL, RETENTION, Keys
from solrace.server.store.records import _s, decode_map
from solrace.server.store.renames import RenameMixin

TOUCH_EVERY_MS = 60_000  # last_seen and the TTL are refreshed at most once a minute


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """One live session as stored (never the token)."""

    digest: str  # sha256 of the token: the key's tag
    player: str
    name: str
    kind: str  # "guest" | "account"
    account: str | None  # the account's name (display spelling) for account sessions
    sid: str
    created_at: int
    last_seen: int
    client: str
    address: str
    title: str = ""  # "BOT" for a BOT account's sessions

    @classmethod
    def of(cls, digest: str, data: dict[str, str]) -> SessionRecord:
        kind = data.get("kind", "guest")
        return cls(digest=digest, player=data["player"], name=data["name"], kind=kind,
                   account=data.get("account") or None, sid=data.get("sid", ""),
                   created_at=int(data.get("created_at") or 0),
                   last_seen=int(data.get("last_seen") or 0),
                   client=data.get("client", ""), address=data.get("address", ""),
                   title=data.get("title", ""))


class AccountStore(RenameMixin):
    """Names, accounts and sessions in Redis."""

    def __init__(self, redis: Redis, batcher: ScriptBatcher, count: Callable[[], None]) -> None:
        self.redis = redis
        self.batcher = batcher
        self._count = count
        self._claim = redis.register_script(lua.CLAIM_GUEST)
        self._register = redis.register_script(lua.REGISTER)
        self._fail = redis.register_script(lua.FAIL)
        self._failures = redis.register_script(lua.FAILURES)
        self._touch = redis.register_script(lua.TOUCH)
        self._alive = redis.register_script(lua.ALIVE)
        self._new_session = redis.register_script(lua.NEW_SESSION)

    # ------------------------------------------------------------------ names

    async def claim_guest_name(self, name: str, pid: str, ttl: int) -> bool:
        """A guest holds ``name`` (and its look-alikes) while its session lives; False when
        an account owns the name or another live guest holds it."""
        self._count()
        return bool(await self.batcher.call(
            self._claim, keys=[Keys.account(name), Keys.name(name)], args=[pid, ttl]))

    async def release_guest_name(self, name: str, pid: str) -> None:
        """Drop a guest's hold on ``name`` if ``pid`` still holds it."""
        self._count()
        key = Keys.name(name)
        if _s(await self.redis.get(key) or b"") == pid:
            self._count()
            await self.redis.delete(key)

    async def account(self, name: str) -> dict[str, str] | None:
        """The account owning ``name`` or a look-alike (its tombstone after deletion)."""
        self._count()
        raw = await self.redis.hgetall(Keys.account(name))
        return decode_map(raw) if raw else None

    async def register(self, name: str, pid: str, kdf: str, sid: str, digest: str,
                       caller: str | None) -> str:
        """``ok``; ``account`` when an account (or a deleted one) owns the name or a look-alike;
        ``guest`` when another live guest holds it. ``caller`` is the pid of the guest
        upgrading (its own guest name does not stand in the way)."""
        self._count()
        res = await self.batcher.call(
            self._register,
            keys=[Keys.account(name), Keys.name(name), Keys.account_sessions(name)],
            args=[pid, name, kdf, sid, digest, caller or ""])
        return _s(res)

    async def set_flag(self, name: str, field: str, value: str | None) -> bool:
        """Set (``value``) or drop (None) one field of a live account — its ``roles`` or
        ``banned`` flag; False when no live account owns the name."""
        key = Keys.account(name)
        self._count()
        player, deleted = await self.redis.hmget(key, ["player", "deleted"])
        if player is None or deleted is not None:
            return False
        self._count()
        if value is None:
            await self.redis.hdel(key, field)
        else:
            await self.redis.hset(key, field, value)
        return True

    async def set_session_title(self, digest: str, title: str) -> None:
        """Label a live session (a BOT account's): its connections show the title."""
        key = Keys.session_hashed(digest)
        self._count()
        if await self.redis.exists(key):
            self._count()
            await self.redis.hset(key, "title", title)

    async def set_kdf(self, name: str, kdf: str) -> None:
        self._count()
        await self.redis.hset(Keys.account(name), "kdf", kdf)

    # ------------------------------------------------------------------ sessions

    async def create_session(self, token: str, ttl: int, fields: dict[str, str],
                             account: str | None = None, sid: str | None = None) -> int:
        """Store a session (``fields``: player, name, kind, sid, client, address, account);
        returns its creation time (Redis ms). An account session is also listed under the
        account (``sid`` -> token hash) unless the register script did it already."""
        digest = token_hash(token)
        args: list[Any] = [ttl * 1000]
        for k, v in fields.items():
            args += [k, v]
        self._count()
        now = int(await self.batcher.call(self._new_session, keys=[Keys.session_hashed(digest)],
                                          args=args))
        if account is not None and sid is not None:
            self._count()
            await self.redis.hset(Keys.account_sessions(account), sid, digest)
        return now

    async def load_session(self, token: str) -> SessionRecord | None:
        self._count()
        digest = token_hash(token)
        raw = await self.redis.hgetall(Keys.session_hashed(digest))
        return SessionRecord.of(digest, decode_map(raw)) if raw else None

    async def refresh_session(self, rec: SessionRecord, ttl: int) -> None:
        """A resume: the session, the guest's name hold and the player's race set live on."""
        async with self.redis.pipeline(transaction=False) as p:
            p.expire(Keys.session_hashed(rec.digest), ttl)
            p.hset(Keys.session_hashed(rec.digest), "last_seen",
                   str(await self._now()))
            if rec.kind == "guest":
                p.set(Keys.name(rec.name), rec.player, ex=ttl)
            p.expire(Keys.player_races(rec.player), ttl)
            await p.execute()
        self._count()

    async def _now(self) -> int:
        self._count()
        sec, usec = await self.redis.time()
        return int(sec) * 1000 + int(usec) // 1000

    async def touch(self, digest: str, ttl: int, refresh: bool = True) -> bool:
        """Whether the session is still live (one script call, batched with the other calls
        of the tick). With ``refresh``, also date last_seen and restart the TTL if that was
        not done in the last minute; without, only ``EXISTS`` runs."""
        self._count()
        if not refresh:
            return bool(await self.batcher.call(self._alive,
                                                keys=[Keys.session_hashed(digest)], args=[]))
        return bool(await self.batcher.call(self._touch, keys=[Keys.session_hashed(digest)],
                                            args=[ttl * 1000, TOUCH_EVERY_MS]))

    async def delete_session(self, digest: str) -> bool:
        self._count()
        return bool(await self.redis.delete(Keys.session_hashed(digest),
                                            Keys.session_fails(digest)))

    async def account_sessions(self, name: str) -> list[SessionRecord]:
        """The account's live sessions, oldest first; dead entries are pruned."""
        key = Keys.account_sessions(name)
        self._count()
        listed = decode_map(await self.redis.hgetall(key))
        if not listed:
            return []
        async with self.redis.pipeline(transaction=False) as p:
            for digest in listed.values():
                p.hgetall(Keys.session_hashed(digest))
            raws = await p.execute()
        self._count()
        out, dead = [], []
        for (sid, digest), raw in zip(listed.items(), raws):
            if raw:
                out.append(SessionRecord.of(digest, decode_map(raw)))
            else:
                dead.append(sid)
        if dead:
            self._count()
            await self.redis.hdel(key, *dead)
        return sorted(out, key=lambda s: (s.created_at, s.sid))

    async def session_digest(self, name: str, sid: str) -> str | None:
        self._count()
        raw = await self.redis.hget(Keys.account_sessions(name), sid)
        return _s(raw) if raw is not None else None

    async def unlist_session(self, name: str, sid: str) -> None:
        self._count()
        await self.redis.hdel(Keys.account_sessions(name), sid)

    # ------------------------------------------------------------------ failures

    async def failures(self, key: str, horizon_ms: int) -> tuple[list[int], int]:
        """(failure stamps within the horizon, the Redis time now) of a failure key."""
        self._count()
        raw = await self.batcher.call(self._failures, keys=[key], args=[horizon_ms])
        values = [int(float(_s(x))) for x in raw]
        return values[:-1], values[-1]

    async def record_failure(self, key: str, horizon_ms: int, capacity: int) -> None:
        self._count()
        await self.batcher.call(self._fail, keys=[key],
                                args=[horizon_ms, capacity, secrets.token_hex(4)])

    # ------------------------------------------------------------------ deletion

    async def delete_account(self, name: str, pid: str) -> list[str]:
        """Tombstone the account (the name is never taken again), drop its sessions and
        failures; returns the token hashes of the sessions it had."""
        listed = decode_map(await self.redis.hgetall(Keys.account_sessions(name)))
        self._count()
        async with self.redis.pipeline(transaction=True) as p:  # one slot: {account:<fold>}
            p.delete(Keys.account(name), Keys.account_sessions(name), Keys.account_fails(name))
            p.hset(Keys.account(name), mapping={"deleted": "1", "player": _anon_key(pid)})
            await p.execute()
        self._count()
        for digest in listed.values():
            await self.delete_session(digest)
        return list(listed.values())

    async def anonymise(self, pid: str, anon: str, lb_keys: Sequence[tuple[str, str]]) -> int:
        """Replace the player's name by ``anon`` in the leaderboards of ``lb_keys`` (day,
        variant) and in the racers and results of every race in the player's history; drop
        their stats, ratings and history. Returns the rows rewritten."""
        changed = 0
        async with self.redis.pipeline(transaction=False) as p:
            for day, variant in lb_keys:
                p.hget(Keys.leaderboard_entries(day, variant), pid)
            rows = await p.execute()
        self._count()
        for (day, variant), raw in zip(lb_keys, rows):
            if raw is None:
                continue
            row = msgpack.unpackb(raw, raw=False)
            row["name"] = anon
            self._count()
            await self.redis.hset(Keys.leaderboard_entries(day, variant), pid,
                                  msgpack.packb(row))
            changed += 1
        self._count()
        rids = [_s(x) for x in await self.redis.zrange(Keys.player_history(pid), 0, -1)]
        for rid in rids:
            self._count()
            if await self.redis.hexists(Keys.racers(rid), pid):
                self._count()
                await self.redis.hset(Keys.racers(rid), pid, anon)
                changed += 1
            self._count()
            raw = await self.redis.get(Keys.result(rid))
            if raw is not None:
                end = msgpack.unpackb(raw, raw=False)
                for row in end.get("standings", []):
                    if row.get("player") == pid:
                        row["name"] = anon
                self._count()
                await self.redis.set(Keys.result(rid), msgpack.packb(end), keepttl=True)
        self._count()
        await self.redis.delete(Keys.stats(pid), Keys.rating(pid), Keys.player_history(pid))
        return changed

    async def note_history(self, pid: str, rid: str) -> None:
        """Index a race the player joined (what :meth:`anonymise` walks)."""
        async with self.redis.pipeline(transaction=False) as p:
            p.zadd(Keys.player_history(pid), {rid: await self._now()})
            p.expire(Keys.player_history(pid), RETENTION)
            await p.execute()
        self._count()

    async def remember_profile(self, name: str, pid: str) -> None:
        self._count()
        await self.redis.set(Keys.profile(name), pid, ex=PROFILE_TTL)

    async def forget_profile(self, name: str, pid: str) -> None:
        self._count()
        key = Keys.profile(name)
        if _s(await self.redis.get(key) or b"") == pid:
            self._count()
            await self.redis.delete(key)


def _anon_key(pid: str) -> str:
    """What the tombstone keeps instead of the player id: a hash, so that it proves nothing
    about who held the name but still lets an operator match a support request."""
    return hashlib.sha256(b"deleted:" + pid.encode()).hexdigest()[:16]


def anonymous_name(pid: str) -> str:
    """The name a deleted account's history shows: ``deleted-`` and 6 hex digits of a hash of
    the player id (stable, and the same for every row of that player)."""
    return "deleted-" + hashlib.sha256(b"anon:" + pid.encode()).hexdigest()[:6]


__all__ = ["AccountStore", "SessionRecord", "anonymous_name", "token_hash"]
