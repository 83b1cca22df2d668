"""Account operations: guests, registration, login, sessions, password change, deletion.

Handlers call these with what they know of the connection (its current session, its client
address); everything durable goes through :class:`~solrace.server.store.accounts.AccountStore`.
Password hashing runs in a thread, at most :data:`KDF_SLOTS` at a time per process (each scrypt
call holds 32 MiB), so a burst of logins neither blocks the event loop nor takes the memory.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from solrace.server.accounts import kdf, policy
from solrace.server.accounts.names import fold, reserved_for_accounts, reserved_for_guests
from solrace.server.store import Keys, Store
from solrace.server.store.accounts import SessionRecord, anonymous_name, token_hash
from solrace.shared.protocol import ProtocolError

log = logging.getLogger("solrace.accounts")

KDF_SLOTS = 2
CLIENT_DEFAULT = "unknown"
BOT = "BOT"  # the title of a BOT account, beside its name in every frame


def new_token() -> str:
    return secrets.token_urlsafe(24)


def new_sid() -> str:
    return secrets.token_hex(6)


@dataclass(frozen=True, slots=True)
class Issued:
    """A session just created: its token (sent once, to its owner) and its record."""

    token: str
    session: SessionRecord


class AccountService:
    def __init__(self, store: Store, session_ttl: int) -> None:
        self.store = store
        self.db = store.accounts
        self.ttl = session_ttl
        self._kdf = asyncio.Semaphore(KDF_SLOTS)
        self._dummy: str | None = None

    # ------------------------------------------------------------------ KDF

    async def _hash(self, password: str) -> str:
        async with self._kdf:
            return await asyncio.to_thread(kdf.hash_password, password)

    async def _verify(self, password: str, stored: str | None) -> bool:
        """Checks against a dummy hash when there is no account, so both cost the same."""
        async with self._kdf:
            if stored is None:
                if self._dummy is None:
                    self._dummy = await asyncio.to_thread(kdf.dummy_hash)
                await asyncio.to_thread(kdf.verify_password, password, self._dummy)
                return False
            try:
                return await asyncio.to_thread(kdf.verify_password, password, stored)
            except ValueError:
                log.error("an account's stored hash is corrupt; refusing its logins")
                return False

    # ------------------------------------------------------------------ sessions

    async def _issue(self, pid: str, name: str, kind: str, client: str | None, address: str,
                     account: str | None = None, listed: bool = False, title: str = ""
                     ) -> Issued:
        token, sid = new_token(), new_sid()
        fields = {"player": pid, "name": name, "kind": kind, "sid": sid,
                  "client": client or CLIENT_DEFAULT, "address": address}
        if account is not None:
            fields["account"] = account
        if title:
            fields["title"] = title
        return await self._store_session(token, sid, fields, account if not listed else None)

    async def _store_session(self, token: str, sid: str, fields: dict[str, str],
                             list_under: str | None) -> Issued:
        now = await self.db.create_session(token, self.ttl, fields, list_under, sid)
        rec = SessionRecord.of(token_hash(token), {**fields, "created_at": str(now),
                                                   "last_seen": str(now)})
        return Issued(token, rec)

    async def guest(self, name: str, client: str | None, address: str) -> Issued:
        """A new guest: a fresh player id holding ``name`` while the session lives."""
        if reserved_for_guests(name):
            raise ProtocolError("bad_name", "names starting with 'deleted-' are reserved")
        pid = secrets.token_hex(8)
        if not await self.db.claim_guest_name(name, pid, self.ttl):
            raise ProtocolError("name_taken", f"the name {name} (or one that looks like it) is "
                                "taken; pick another, or log in if it is your account")
        issued = await self._issue(pid, name, "guest", client, address)
        await self.db.remember_profile(name, pid)
        return issued

    async def resume(self, token: str) -> SessionRecord | None:
        rec = await self.db.load_session(token)
        if rec is not None:
            await self.db.refresh_session(rec, self.ttl)
        return rec

    async def alive(self, rec: SessionRecord, refresh: bool = True) -> bool:
        return await self.db.touch(rec.digest, self.ttl, refresh)

    # ------------------------------------------------------------------ register / login

    async def register(self, current: SessionRecord | None, name: str | None, password: str,
                       client: str | None, address: str, bot: bool = False) -> Issued:
        """An account for a new player, or for the guest of ``current`` (same player id, so
        ratings, stats and races stay theirs); the guest's token stops working."""
        if current is not None and current.kind == "account":
            raise ProtocolError("already_registered", "this session is already an account's")
        if name is None:
            if current is None:
                raise ProtocolError("bad_message", "register needs a name on a connection "
                                    "that is not a guest's")
            name = current.name
        if reserved_for_accounts(name):
            raise ProtocolError("bad_name", "account names may not start with 'guest-' or "
                                "'deleted-' (or look like it)")
        problem = kdf.password_problem(password, name)
        if problem is not None:
            raise ProtocolError("bad_password", problem)
        pid = current.player if current is not None else secrets.token_hex(8)
        stored = await self._hash(password)
        token, sid = new_token(), new_sid()
        verdict = await self.db.register(name, pid, stored, sid, token_hash(token),
                                         current.player if current is not None else None)
        if verdict != "ok":
            raise ProtocolError("name_taken", f"the name {name} (or one that looks like it) "
                                "belongs to " + ("an account" if verdict == "account"
                                                 else "another player right now"))
        fields = {"player": pid, "name": name, "kind": "account", "sid": sid,
                  "client": client or CLIENT_DEFAULT, "address": address, "account": name}
        if bot:  # before the session exists: no moment in which it is not labelled
            await self.db.set_flag(name, "bot", "1")
            fields["title"] = BOT
        issued = await self._store_session(token, sid, fields, None)
        if current is not None:  # rotate: the guest token is spent
            await self.db.delete_session(current.digest)
            if fold(current.name) != fold(name):
                await self.db.release_guest_name(current.name, pid)
        await self.db.remember_profile(name, pid)
        log.info("account registered (player %s)", pid)
        return issued

    async def _limit(self, keys: Sequence[tuple[str, Sequence[policy.Rule]]]) -> None:
        wait = 0
        for key, rules in keys:
            stamps, now = await self.db.failures(key, policy.horizon(rules))
            wait = max(wait, policy.retry_after(stamps, now, rules))
        if wait:
            secs = policy.seconds(wait)
            raise ProtocolError("rate_limited", f"too many wrong passwords; retry in {secs} s",
                                retry_after=secs)

    async def _fail(self, keys: Sequence[tuple[str, Sequence[policy.Rule]]]) -> None:
        for key, rules in keys:
            await self.db.record_failure(key, policy.horizon(rules), policy.capacity(rules))

    async def check_password(self, rec: SessionRecord, password: str) -> dict[str, str]:
        """The account of session ``rec`` when ``password`` is its password (limited per
        session only: a lockout elsewhere never blocks a logged-in owner)."""
        assert rec.account is not None
        limits = [(Keys.session_fails(rec.digest), policy.SESSION_RULES)]
        await self._limit(limits)
        acct = await self.db.account(rec.account)
        if acct is None or acct.get("deleted") or acct.get("player") != rec.player:
            raise ProtocolError("bad_token", "this session's account no longer exists")
        if not await self._verify(password, acct.get("kdf")):
            await self._fail(limits)
            raise ProtocolError("bad_credentials", "wrong password")
        return acct

    async def login(self, current: SessionRecord | None, name: str, password: str,
                    client: str | None, address: str) -> Issued:
        """A new session of the account named ``name`` (or a look-alike of it)."""
        same = (current is not None and current.account is not None
                and fold(current.account) == fold(name))
        if current is not None and not same:
            raise ProtocolError("already_authenticated", "this connection already has a "
                                "player; log in on a new connection (hello with no name)")
        if same:
            assert current is not None
            acct = await self.check_password(current, password)
        else:
            limits = [(Keys.account_fails(name), policy.ACCOUNT_RULES),
                      (Keys.address_fails(address), policy.ADDRESS_RULES)]
            await self._limit(limits)
            acct = await self.db.account(name)
            live = acct is not None and not acct.get("deleted")
            ok = await self._verify(password, acct.get("kdf") if live and acct else None)
            if not ok or acct is None:
                await self._fail(limits if live else limits[1:])
                raise ProtocolError("bad_credentials", "wrong name or password")
        if acct.get("banned"):  # told only to whoever knows the password
            raise ProtocolError("banned", "this account is banned")
        stored = acct["kdf"]
        if kdf.needs_rehash(stored):
            await self.db.set_kdf(acct["name"], await self._hash(password))
        return await self._issue(acct["player"], acct["name"], "account", client, address,
                                 account=acct["name"], title=BOT if acct.get("bot") else "")

    async def become_bot(self, rec: SessionRecord) -> None:
        """Make the account a BOT account, for good: refused once it has played a rated race
        or a ranked daily (its human results would stay on boards and in ratings). Every live
        session of it is labelled at once."""
        assert rec.account is not None
        acct = await self.db.account(rec.account)
        if acct is None or acct.get("deleted"):
            raise ProtocolError("bad_token", "this account no longer exists")
        if not acct.get("bot"):
            stats = await self.store.stats(rec.player)
            if await self.store.all_ratings(rec.player) or any(
                    k.endswith(":dailies") for k in stats):
                raise ProtocolError("bots_not_allowed", "an account that has played ranked "
                                    "games cannot become a BOT account; register a new one")
            await self.db.set_flag(acct["name"], "bot", "1")
        for other in await self.db.account_sessions(acct["name"]):
            await self.db.set_session_title(other.digest, BOT)
        await self.store.notify_player(rec.player, {"k": "title", "title": BOT})

    # ------------------------------------------------------------------ sessions

    async def sessions(self, rec: SessionRecord) -> list[SessionRecord]:
        assert rec.account is not None
        return await self.db.account_sessions(rec.account)

    async def end(self, rec: SessionRecord) -> None:
        """Log out: the session's token stops working everywhere."""
        await self.db.delete_session(rec.digest)
        if rec.account is not None:
            await self.db.unlist_session(rec.account, rec.sid)
        else:
            await self.db.release_guest_name(rec.name, rec.player)
        await self.store.notify_player(rec.player, {"k": "revoked", "sid": rec.sid})

    async def announce_end(self, rec: SessionRecord) -> None:
        """Tell every process that session ``rec`` ended (its open connections are refused
        and closed; docs/protocol.md 20.6)."""
        await self.store.notify_player(rec.player, {"k": "revoked", "sid": rec.sid})

    async def revoke(self, rec: SessionRecord, sid: str) -> None:
        assert rec.account is not None
        digest = await self.db.session_digest(rec.account, sid)
        if digest is None:
            raise ProtocolError("session_not_found", f"no session {sid} of this account")
        await self.db.delete_session(digest)
        await self.db.unlist_session(rec.account, sid)
        await self.store.notify_player(rec.player, {"k": "revoked", "sid": sid})

    async def change_password(self, rec: SessionRecord, old: str, new: str) -> int:
        """New password; every other session of the account is revoked (returns how many)."""
        acct = await self.check_password(rec, old)
        problem = kdf.password_problem(new, acct["name"])
        if problem is not None:
            raise ProtocolError("bad_password", problem)
        await self.db.set_kdf(acct["name"], await self._hash(new))
        revoked = 0
        for other in await self.db.account_sessions(acct["name"]):
            if other.sid != rec.sid:
                await self.revoke(rec, other.sid)
                revoked += 1
        return revoked

    async def delete(self, rec: SessionRecord, password: str, lb_keys: Sequence[tuple[str, str]]
                     ) -> str:
        """Delete the account: password hash, sessions, stats and ratings go; leaderboard rows
        and race results stay under an anonymised name (returned); the name stays reserved."""
        acct = await self.check_password(rec, password)
        pid, anon = acct["player"], anonymous_name(acct["player"])
        await self.db.delete_account(acct["name"], pid)
        await self.db.anonymise(pid, anon, lb_keys)
        await self.db.forget_profile(acct["name"], pid)
        await self.store.notify_player(pid, {"k": "revoked", "sid": "*"})
        log.info("account deleted (player %s)", pid)
        return anon


__all__ = ["AccountService", "Issued"]
