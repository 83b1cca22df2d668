"""What a moderator's decision does, and the audit-log entry every decision leaves.

Why one place: each action changes several things (an account flag, sessions, boards) and
must leave exactly one audit entry saying who did it and why; the request handlers and any
future operator tool call these, never the pieces.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from solrace.server.accounts.names import reserved_for_accounts
from solrace.server.fairplay.service import REMOVED, FairPlayService, case_id
from solrace.server.game.daily import daily_days
from solrace.server.game.dailylevels import every_board
from solrace.server.game.lifecycle import is_over
from solrace.server.game.results import Results
from solrace.server.store import Store
from solrace.shared.protocol import ProtocolError
from solrace.shared.variants import VARIANTS

#: Every daily board of every variant (each difficulty's): a ban takes a player off all.
BOARDS = [name for variant in VARIANTS for name in every_board(variant)]

log = logging.getLogger("solrace.moderation")

REPORT_LIMIT = 5  # reports one player may send per window
REPORT_WINDOW_MS = 3_600_000


class Moderation:
    """Moderators' decisions: clear, ban, unban — each audited."""

    def __init__(self, store: Store, fairplay: FairPlayService, results: Results) -> None:
        self.store = store
        self.fairplay = fairplay
        self.results = results
        # called with (player, banned) on a ban and an unban: tournaments take the player's
        # points away or give them back (server/game/arenaresults.py); each returns how many changed
        self.on_ban: list[Callable[[str, bool], Awaitable[int]]] = []

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

    async def report(self, reporter: str, reporter_name: str, target: str, category: str,
                     note: str, race: str | None) -> str:
        """File a player's report; the reported account's display name. The reporter learns
        nothing of what follows."""
        acct = await self._account(target)
        if acct["player"] == reporter:
            raise ProtocolError("bad_message", "you cannot report yourself")
        now = await self.store.server_time_ms()
        status = await self.store.add_report(
            acct["player"], reporter,
            {"name": reporter_name, "category": category, "note": note, "race": race,
             "at": now, "target": acct["name"]}, now, REPORT_WINDOW_MS, REPORT_LIMIT)
        if status == "limit":
            raise ProtocolError("rate_limited", f"at most {REPORT_LIMIT} reports an hour",
                                retry_after=REPORT_WINDOW_MS // 1000)
        if status == "duplicate":
            raise ProtocolError("already_reported", f"you have an open report on "
                                f"{acct['name']}; a moderator will look at it")
        return acct["name"]

    async def reported(self, limit: int) -> list[dict[str, Any]]:
        """Players with open reports, most reported first."""
        out = []
        for pid, count in await self.store.reported_players(limit):
            reports = await self.store.open_reports(pid)
            out.append({"player": pid, "name": reports[-1].get("target") if reports else None,
                        "reports": count,
                        "categories": sorted({r["category"] for r in reports}),
                        "last_at": max((r["at"] for r in reports), default=None)})
        return out

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
        await self.store.set_banned(pid, True)  # its games count in nobody's rating from now
        removed = await self.fairplay.remove_player(pid, daily_days(today), BOARDS)
        rebuilt = await self.results.rebuild_opponents(pid)
        closed = await self.store.close_reports(pid)
        tournaments = sum([await hook(pid, True) for hook in self.on_ban])
        await self._audit(by, "ban", acct["name"], reason,
                          f"sessions ended {ended}, results removed {removed}, ratings "
                          f"rebuilt {rebuilt}, reports closed {closed}, tournament "
                          f"standings changed {tournaments}")
        return {"player": pid, "name": acct["name"], "sessions": ended, "removed": removed,
                "ratings_rebuilt": rebuilt}

    async def unban(self, by: str, name: str, reason: str, today: str) -> dict[str, Any]:
        acct = await self._account(name)
        if not acct.get("banned"):
            raise ProtocolError("bad_message", f"{acct['name']} is not banned")
        pid = acct["player"]
        await self.store.accounts.set_flag(acct["name"], "banned", None)
        await self.store.set_banned(pid, False)
        restored = await self.fairplay.restore_player(pid, daily_days(today), BOARDS)
        rebuilt = await self.results.rebuild_opponents(pid)
        tournaments = sum([await hook(pid, False) for hook in self.on_ban])
        await self._audit(by, "unban", acct["name"], reason,
                          f"results restored {restored}, ratings rebuilt {rebuilt}, "
                          f"tournament standings changed {tournaments}")
        return {"player": pid, "name": acct["name"], "restored": restored,
                "ratings_rebuilt": rebuilt}

    async def warn(self, by: str, name: str, reason: str) -> dict[str, Any]:
        """A warning: on record, and shown at once on the player's open connections."""
        acct = await self._account(name)
        now = await self.store.server_time_ms()
        count = await self.store.add_warning(acct["player"],
                                             {"by": by, "reason": reason, "at": now})
        await self.store.notify_player(acct["player"], {"k": "warned", "reason": reason})
        await self._audit(by, "warn", acct["name"], reason, f"warning {count}")
        return {"player": acct["player"], "name": acct["name"], "warnings": count}

    async def annul(self, by: str, rid: str, reason: str) -> dict[str, Any]:
        """A finished ranked race undone: a daily attempt leaves its board (status removed),
        a rated race counts in nobody's rating. Its replay and standings stay."""
        rec = await self.store.read_race(rid)
        if rec is None:
            raise ProtocolError("race_not_found", f"no race {rid}")
        if not is_over(rec.state):
            raise ProtocolError("bad_message", "only a finished race can be annulled")
        variant = rec.meta["variant"]
        if rec.meta.get("kind") == "daily" and rec.order:
            pid = rec.order[0]
            board = rec.meta.get("daily_board") or variant
            await self.store.review_daily(rec.meta["daily"], board, pid, REMOVED)
            await self.store.dequeue_case(case_id(rid, pid))
            done = {"removed": 1}
        elif rec.meta.get("kind", "race") == "race" and rec.meta.get("rated") == "1":
            for pid in rec.order:
                await self.store.dequeue_case(case_id(rid, pid))
            done = {"ratings_rebuilt": await self.results.annul(rid, variant, rec.order)}
        else:
            raise ProtocolError("bad_message", "nothing ranked to annul: a casual race or "
                                "a practice game")
        await self._audit(by, "annul", rid, reason,
                          ", ".join(f"{k} {v}" for k, v in done.items()))
        return {"race": rid, **done}

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
