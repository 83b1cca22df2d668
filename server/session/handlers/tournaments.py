"""Tournaments: ``tournaments``, ``tournament.create``, ``tournament.join``,
``tournament.play``, ``tournament.standings``, ``tournament.bracket`` (docs/protocol.md
section 22). A knockout's creation, matches and bracket are the knockout service's; the rest
is the arenas'."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from solrace.server.game import knockout_view
from solrace.server.session.handlers.accounts import require_account, require_human
from solrace.server.session.handlers.base import handles
from solrace.server.session.handlers.dailies import _start
from solrace.shared import protocol as P

if TYPE_CHECKING:
    from solrace.server.session.handlers.base import Services, Session


@handles(P.TournamentList)
async def on_list(conn: Session, svc: Services, req: P.TournamentList) -> dict[str, Any]:
    return P.reply(req.id, "tournaments", **await svc.arenas.listing(req.limit))


@handles(P.TournamentCreate)
async def on_create(conn: Session, svc: Services, req: P.TournamentCreate) -> dict[str, Any]:
    require_account(conn, "creating a tournament")
    now = await svc.store.server_time_ms()
    if req.format == "knockout":
        tid = await svc.knockouts.create(
            conn.me.pid, name=req.name, variant=req.variant,
            options={k: str(v) for k, v in req.options.items()},
            starts_at=now + 1000 * req.starts_in, deal_seconds=req.deal_seconds,
            max_entrants=req.max_entrants)
        return P.reply(req.id, "tournament", tournament=await svc.arenas.summary(tid))
    tid = await svc.arenas.create(
        conn.me.pid, name=req.name, variant=req.variant,
        options={k: str(v) for k, v in req.options.items()},
        starts_at=now + 1000 * req.starts_in, minutes=req.minutes,
        deal_seconds=req.deal_seconds, private=True, fmt=req.format, deals=req.deals)
    return P.reply(req.id, "tournament", tournament=await svc.arenas.summary(tid))


@handles(P.TournamentInfo)
async def on_info(conn: Session, svc: Services, req: P.TournamentInfo) -> dict[str, Any]:
    tid = await svc.arenas.resolve_id(req.tournament)
    return P.reply(req.id, "tournament", tournament=await svc.arenas.summary(tid))


@handles(P.TournamentJoin)
async def on_join(conn: Session, svc: Services, req: P.TournamentJoin) -> dict[str, Any]:
    require_account(conn, "a tournament")
    require_human(conn, "a tournament")
    tid = await svc.arenas.resolve_id(req.tournament)
    return P.reply(req.id, "tournament", tournament=await svc.arenas.enter(conn.me, tid))


@handles(P.TournamentPlay)
async def on_play(conn: Session, svc: Services, req: P.TournamentPlay) -> None:
    require_account(conn, "a tournament")
    require_human(conn, "a tournament")
    tid = await svc.arenas.resolve_id(req.tournament)
    if await _is_knockout(svc, tid):
        rid, k = await svc.knockouts.play(conn.me, tid)
    else:
        rid, k = await svc.arenas.play(conn.me, tid, req.berserk)
    if rid in conn.feed.races:  # resumed on this connection: the reply is enough
        rec = await svc.races.record(rid)
        conn.send(P.reply(req.id, "race", race=svc.races.summary(rec), tournament=tid,
                          deal=k))
        return
    await _start(conn, svc, req.id, rid, tournament=tid, deal=k)


@handles(P.TournamentStandings)
async def on_standings(conn: Session, svc: Services, req: P.TournamentStandings
                       ) -> dict[str, Any]:
    tid = await svc.arenas.resolve_id(req.tournament)
    me = conn.player.pid if conn.player is not None else None
    if me is not None:  # the caller's deal that just ended counts, though its hook may lag
        await svc.arenas.settle(tid, me)
    out = await svc.arenas.standings(tid, me)
    if req.follow:
        svc.standings.follow(tid, conn, out["v"], me)
    else:
        svc.standings.unfollow(conn, tid)
    return P.reply(req.id, "standings", **out)


async def _is_knockout(svc: Services, tid: str) -> bool:
    meta = await svc.store.tournaments.meta(tid)
    return meta is not None and meta.get("format") == "knockout"


@handles(P.TournamentBracket)
async def on_bracket(conn: Session, svc: Services, req: P.TournamentBracket
                     ) -> dict[str, Any]:
    tid = await svc.arenas.resolve_id(req.tournament)
    me = conn.player.pid if conn.player is not None else None
    await svc.knockouts.advance(tid)  # a bracket asked for is up to date
    out = await knockout_view.view(svc.store, tid, me)
    if req.follow:
        svc.standings.follow(tid, conn, out["v"], me)
    else:
        svc.standings.unfollow(conn, tid)
    return P.reply(req.id, "bracket", **out)
