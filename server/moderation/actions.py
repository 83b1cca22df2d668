"""What a moderator's decision does, and the audit-log entry every decision leaves.

Why one place: each action changes several things (an account flag, sessions, boards) and
must leave exactly one audit entry saying who did it and why; the request handlers and any
future operator tool call these, never the pieces.
"""

from __future__ import annotations

import logging
from typing import Any

from solrace.server.accounts.names import reserved_for_accounts
from solrace.server.daily import daily_days
from solrace.server.fairplay.service import FairPlayService
from solrace.server.store import Store
from solrace.shared.protocol import ProtocolError
from solrace.shared.variants import VARIANTS

log = logging.getLogger("solrace.moderation")


class Moderation:
    """Moderators' decisions: clear, ban, unban — each audited."""

    def __init__(self, store: Store, fairplay: FairPlayService) -> None:
        self.store = store
        self.fairplay = fairplay

    async def _audit(self, by: str, action: str, target: str, reason: str,
                     details: str = "") -> str:
        entry = {"by": by, "action": action, "target": target, "reason": reason}
        if details:
            entry["details"] = details
        log.info("moderation: %s %s %s (%s)", by, action, target, reason)
        return await self.store.audit(entry)

    async def _account(self, name: str) -> dict[str, str]:
        acct = await self.store.accounts.account(name)
        if acct is None or acct.get("deleted"):
            raise ProtocolError("player_not_found", f"no account called {name}")
        return acct

    async def clear(self, by: str, case: str, reason: str) -> dict[str, Any]:
        decided = await self.fairplay.clear(case, by)
        await self._audit(by, "clear", case, reason, f"player {decided['name']}")
        return decided

    async def ban(self, by: str, name: str, reason: str, today: str) -> dict[str, Any]:
        acct = await self._account(name)
        if acct.get("banned"):
            raise ProtocolError("bad_message", f"{acct['name']} is already banned")
        pid = acct["player"]
        await self.store.accounts.set_flag(acct["name"], "banned", "1")
        ended = 0
        for rec in await self.store.accounts.account_sessions(acct["name"]):
            await self.store.accounts.delete_session(rec.digest)
            await self.store.accounts.unlist_session(acct["name"], rec.sid)
            ended += 1
        await self.store.notify_player(pid, {"k": "revoked", "sid": "*"})
        removed = await self.fairplay.remove_player(pid, daily_days(today), list(VARIANTS), by)
        await self._audit(by, "ban", acct["name"], reason,
                          f"sessions ended {ended}, results removed {removed}")
        return {"player": pid, "name": acct["name"], "sessions": ended, "removed": removed}

    async def unban(self, by: str, name: str, reason: str, today: str) -> dict[str, Any]:
        acct = await self._account(name)
        if not acct.get("banned"):
            raise ProtocolError("bad_message", f"{acct['name']} is not banned")
        pid = acct["player"]
        await self.store.accounts.set_flag(acct["name"], "banned", None)
        restored = await self.fairplay.restore_player(pid, daily_days(today), list(VARIANTS))
        await self._audit(by, "unban", acct["name"], reason, f"results restored {restored}")
        return {"player": pid, "name": acct["name"], "restored": restored}

    async def rename(self, by: str, name: str, new_name: str, reason: str) -> dict[str, Any]:
        """Force a rename; the old name stays reserved (nobody else can take it)."""
        if reserved_for_accounts(new_name):
            raise ProtocolError("bad_name", f"{new_name} is reserved")
        try:
            acct = await self.store.accounts.rename(name, new_name)
        except LookupError:
            raise ProtocolError("player_not_found", f"no account called {name}") from None
        if acct is None:
            raise ProtocolError("name_taken", f"{new_name} or a look-alike is taken")
        await self.store.remember_profile(new_name, acct["player"])
        await self.store.notify_player(acct["player"], {"k": "renamed", "name": new_name})
        await self._audit(by, "rename", acct["renamed_from"], reason, f"now {new_name}")
        return {"player": acct["player"], "name": new_name, "was": acct["renamed_from"]}


__all__ = ["Moderation"]
