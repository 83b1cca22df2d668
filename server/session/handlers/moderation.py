"""Players' ``report``, and the moderators' requests: ``mod.reports``, ``mod.queue``,
``mod.case``, ``mod.clear``, ``mod.ban``, ``mod.unban``, ``mod.warn``, ``mod.annul``,
``mod.rename`` and (admins)
``mod.audit``.

Each checks the caller's role on its account as stored now (a revoke takes effect at once);
no request can grant a role — only the operator's ``solrace-server admin``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from solrace.server.moderation.roles import require
from solrace.server.session.handlers.accounts import require_account
from solrace.server.session.handlers.base import handles
from solrace.shared import protocol as P
from solrace.shared.protocol import ProtocolError

if TYPE_CHECKING:
    from solrace.server.session.handlers.base import Services, Session


async def _moderator(conn: Session, svc: Services, role: str = "moderator") -> str:
    """The caller's account name once its ``role`` is checked; ``forbidden`` otherwise."""
    rec = conn.session
    account = None
    if rec is not None and rec.kind == "account" and rec.account:
        account = await svc.store.accounts.account(rec.account)
    require(account, role)
    assert account is not None
    return account["name"]


@handles(P.Report)
async def on_report(conn: Session, svc: Services, req: P.Report) -> dict[str, Any]:
    require_account(conn, "reporting a player")
    name = await svc.moderation.report(conn.me.pid, conn.me.name, req.player,
                                            req.category, req.note, req.race)
    return P.reply(req.id, "reported", player=name)


@handles(P.ModReports)
async def on_reports(conn: Session, svc: Services, req: P.ModReports) -> dict[str, Any]:
    await _moderator(conn, svc)
    if req.player is None:
        return P.reply(req.id, "mod.reports", players=await svc.moderation.reported(
            req.limit))
    acct = await svc.store.accounts.account(req.player)
    if acct is None or acct.get("deleted"):
        raise ProtocolError("player_not_found", f"no account called {req.player}")
    reports = await svc.store.open_reports(acct["player"])
    return P.reply(req.id, "mod.reports", player=acct["player"], name=acct["name"],
                   reports=reports[: req.limit])


@handles(P.ModQueue)
async def on_queue(conn: Session, svc: Services, req: P.ModQueue) -> dict[str, Any]:
    await _moderator(conn, svc)
    return P.reply(req.id, "mod.queue", cases=await svc.fairplay.queue(req.limit))


@handles(P.ModCase)
async def on_case(conn: Session, svc: Services, req: P.ModCase) -> dict[str, Any]:
    await _moderator(conn, svc)
    return P.reply(req.id, "mod.case", case=await svc.fairplay.case_with_reports(req.case))


@handles(P.ModClear)
async def on_clear(conn: Session, svc: Services, req: P.ModClear) -> dict[str, Any]:
    by = await _moderator(conn, svc)
    case = await svc.moderation.clear(by, req.case, req.reason)
    return P.reply(req.id, "mod.cleared", case=req.case, status=case["status"])


@handles(P.ModBan, P.ModUnban)
async def on_ban_or_unban(conn: Session, svc: Services,
                          req: P.ModBan | P.ModUnban) -> dict[str, Any]:
    by = await _moderator(conn, svc)
    ban = isinstance(req, P.ModBan)
    decide = svc.moderation.ban if ban else svc.moderation.unban
    out = await decide(by, req.player, req.reason, await svc.daily.today())
    return P.reply(req.id, "mod.banned" if ban else "mod.unbanned", **out)


@handles(P.ModWarn)
async def on_warn(conn: Session, svc: Services, req: P.ModWarn) -> dict[str, Any]:
    by = await _moderator(conn, svc)
    out = await svc.moderation.warn(by, req.player, req.reason)
    return P.reply(req.id, "mod.warned", **out)


@handles(P.ModAnnul)
async def on_annul(conn: Session, svc: Services, req: P.ModAnnul) -> dict[str, Any]:
    by = await _moderator(conn, svc)
    out = await svc.moderation.annul(by, req.race, req.reason)
    return P.reply(req.id, "mod.annulled", **out)


@handles(P.ModRename)
async def on_rename(conn: Session, svc: Services, req: P.ModRename) -> dict[str, Any]:
    by = await _moderator(conn, svc)
    out = await svc.moderation.rename(by, req.player, req.name, req.reason)
    return P.reply(req.id, "mod.renamed", **out)


@handles(P.ModAudit)
async def on_audit(conn: Session, svc: Services, req: P.ModAudit) -> dict[str, Any]:
    await _moderator(conn, svc, "admin")
    entries = await svc.store.audit_log(req.limit, req.before)
    return P.reply(req.id, "mod.audit", entries=entries)
