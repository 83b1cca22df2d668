"""Moving an account to another name: a moderator's forced rename, and the one-time move of
accounts whose keys were made with the legacy name fold.

Why a move and not a field change: every key of an account is built from the fold of its name
(:mod:`solrace.server.accounts.names`), so a name whose fold changes lives under other keys —
in a Redis Cluster, in another slot. The move claims the new name first (``HSETNX`` of its
``player``: two moves to one name cannot both win), copies the account and its session list,
points each live session at the new name, then drops the old keys (leaving a tombstone when
the old name must stay reserved). The player id — ratings, history, results — never changes.

Names that collide under the new fold (``Alice`` and ``a.lice`` both registered while
separators still made a different name): an account already under the new fold's key keeps
its name (accounts that have to move go oldest first); the other is moved to the first free
``<name>2``, ``<name>3``… and keeps ``renamed_from`` (docs/protocol.md section 20.1). Its
sessions go on; it logs in under the new name from then on. A deleted account's tombstone
stays under its legacy key (it reserves that spelling no more).
"""

from __future__ import annotations

import logging
from typing import Any

from solrace.server.accounts.names import fold
from solrace.server.store.keys import Keys
from solrace.server.store.records import _s, decode_map

log = logging.getLogger("solrace.store")


class RenameMixin:
    """:class:`~.accounts.AccountStore`'s renames (needs ``redis`` and ``_count``)."""

    redis: Any

    def _count(self) -> None:  # provided by AccountStore
        raise NotImplementedError

    async def _move(self, old_folded: str, acct: dict[str, str], new_name: str, *,
                    reserve_old: bool, extra: dict[str, str] | None = None) -> bool:
        """Move the account stored under ``old_folded`` to ``new_name``; False when the new
        name is taken (an account, a tombstone or a live guest holds it or a look-alike)."""
        new_folded = fold(new_name)
        fields = {**acct, "name": new_name, **(extra or {})}
        if new_folded == old_folded:  # only the spelling changes: the keys stay
            self._count()
            await self.redis.hset(Keys.account_at(old_folded), mapping=fields)
            await self._sessions_named(old_folded, new_name)
            return True
        self._count()
        if await self.redis.exists(Keys.name(new_name)):
            return False
        self._count()
        if not await self.redis.hsetnx(Keys.account_at(new_folded), "player", acct["player"]):
            return False
        self._count()
        await self.redis.hset(Keys.account_at(new_folded), mapping=fields)
        self._count()
        listed = await self.redis.hgetall(Keys.account_at(old_folded) + ":sessions")
        if listed:
            self._count()
            await self.redis.hset(Keys.account_at(new_folded) + ":sessions", mapping=listed)
        await self._sessions_named(new_folded, new_name)
        self._count()
        await self.redis.delete(Keys.account_at(old_folded),
                                Keys.account_at(old_folded) + ":sessions",
                                Keys.account_at(old_folded) + ":fails")
        if reserve_old:
            self._count()
            await self.redis.hset(Keys.account_at(old_folded), mapping={
                "deleted": "1", "player": acct["player"], "renamed_to": new_name})
        return True

    async def _sessions_named(self, folded: str, name: str) -> None:
        """Point every live session listed under ``folded`` at the display ``name``."""
        self._count()
        listed = decode_map(await self.redis.hgetall(Keys.account_at(folded) + ":sessions"))
        for digest in listed.values():
            key = Keys.session_hashed(digest)
            self._count()
            if await self.redis.exists(key):
                self._count()
                await self.redis.hset(key, mapping={"name": name, "account": name})

    async def rename(self, old_name: str, new_name: str) -> dict[str, str] | None:
        """A forced rename: the account owning ``old_name`` (or a look-alike) now owns
        ``new_name``; the old name stays reserved (a tombstone). The account as it is now,
        or None when ``new_name`` is taken. Raises LookupError when no live account owns
        ``old_name``."""
        self._count()
        acct = decode_map(await self.redis.hgetall(Keys.account(old_name)))
        if not acct or acct.get("deleted"):
            raise LookupError(old_name)
        if not await self._move(fold(old_name), acct, new_name, reserve_old=True,
                                extra={"renamed_from": acct["name"]}):
            return None
        return {**acct, "name": new_name, "renamed_from": acct["name"]}

    async def migrate_names(self) -> list[tuple[str, str]]:
        """Move every account stored under a legacy-fold key to its fold's key (idempotent;
        any process may run it, once is enough). Returns the (old, new) display names of the
        accounts that had to take another name because their fold was held."""
        renamed: list[tuple[str, str]] = []
        found: list[tuple[str, dict[str, str]]] = []
        self._count()
        async for raw in self.redis.scan_iter(match=Keys.ACCOUNT_PATTERN, count=500):
            key = _s(raw)
            if not key.endswith("}"):  # the :sessions and :fails keys move with their hash
                continue
            folded = key[len("sr:account:{account:"):-1]
            self._count()
            acct = decode_map(await self.redis.hgetall(key))
            if acct.get("name") and fold(acct["name"]) != folded:
                found.append((folded, acct))
        for folded, acct in sorted(found, key=lambda f: int(f[1].get("created_at") or 0)):
            name = acct["name"]
            if await self._move(folded, acct, name, reserve_old=False):
                continue
            for n in range(2, 1000):
                candidate = f"{name[:17]}{n}"
                if await self._move(folded, acct, candidate, reserve_old=False,
                                    extra={"renamed_from": name}):
                    renamed.append((name, candidate))
                    log.warning("account %s collides with an older name: renamed %s",
                                name, candidate)
                    break
        return renamed


__all__ = ["RenameMixin"]
