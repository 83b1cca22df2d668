"""Playing one's game: ``move``, ``autoplay`` and ``finish`` (one handler, one move service),
``resign``, ``sync`` (resume), ``hint`` and ``winnable`` (practice only), ``analysis``."""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from solrace.server.game import moveservice
from solrace.server.game.lifecycle import DEALT, UNDERWAY
from solrace.server.ops import metrics
from solrace.server.session.fastmoves import ack_reply
from solrace.server.session.handlers.accounts import address
from solrace.server.session.handlers.base import handles
from solrace.shared import protocol as P
from solrace.shared.protocol import ProtocolError

if TYPE_CHECKING:
    from solrace.server.session.handlers.base import Services, Session

log = logging.getLogger("solrace.play")


@handles(P.MakeMove, P.Autoplay, P.Finish)
async def on_play(conn: Session, svc: Services,
                  req: P.MakeMove | P.Autoplay | P.Finish) -> dict[str, Any]:
    """Every move request through the one move service (server/game/moveservice.py); the ack
    leaves only after Redis has the move(s). The ack tells this connection everything its own
    progress events would: those events (same versions ``v``) are not sent back to it (the
    feed's claims; see Feed._deliver). An idle connection starts a full move without even this
    coroutine (server/session/fastmoves.py)."""
    feed, rid = conn.feed, req.race
    claimed: list[tuple[int, int]] = []

    def claim(lo: int, hi: int) -> None:
        feed.claim(rid, lo, hi)
        claimed.append((lo, hi))

    try:
        ack = await moveservice.play(svc.races, conn.me, req, claim)
    except BaseException:  # refused: another connection's moves are not ours to skip
        for lo, hi in claimed:
            feed.unclaim(rid, lo, hi)
        raise
    return ack_reply(req.id, rid, ack)


@handles(P.Resign)
async def on_resign(conn: Session, svc: Services, req: P.Resign) -> dict[str, Any]:
    out = await svc.races.resign(conn.me, req.race)
    return P.reply(req.id, "resigned", race=req.race, **out)


@handles(P.Sync)
async def on_sync(conn: Session, svc: Services, req: P.Sync) -> None:
    races, feed = svc.races, conn.feed
    rec = await races.record(req.race)
    if conn.me.pid not in rec.names:
        raise ProtocolError("not_in_race", "you are not a racer in this race")
    events, more = await feed.sync_page(req.race, req.since)
    last = events[-1]["v"] if events else min(req.since, rec.num("version"))
    board = None
    if rec.state in DEALT:
        board = await races.board(req.race, conn.me.pid)
    races.arm(rec)
    events = feed.unsent(req.race, events)  # the live stream may have moved meanwhile
    reply = P.reply(req.id, "synced", race=races.summary(rec),
                    events=[P.racer_event(e) for e in events], board=board, more=more)
    conn.send(reply)
    if not more:
        await feed.attach(req.race, last)  # after the reply: events follow it, in order
        if rec.state in UNDERWAY and rec.meta.get("kind", "race") == "race":
            # the count is sent only when it changes: a racer back from a reload learns it here
            feed.on_spectators(req.race, await svc.store.spectator_count(req.race))


async def _answer_later(conn: Session, req_id: Any, kind: str, work: Awaitable[dict[str, Any]],
                        busy: str, what: str) -> None:
    """Send the ``kind`` reply to request ``req_id`` once ``work`` (a search in a worker
    process) is done — a refusal as the client's error, any other failure as a server fault —
    then clear the connection's ``busy`` flag (one such request at a time) and let its close
    timer look again (its idle time counts from this answer)."""
    try:
        conn.send(P.reply(req_id, kind, **await work))
    except ProtocolError as exc:
        conn.send(P.error(req_id, exc.code, exc.reason, **exc.extra))
    except Exception:  # the worker died or the pool is shut down: a server fault
        metrics.ERRORS.labels("internal").inc()
        log.exception("%s failed", what)
        conn.send(P.error(req_id, "internal", f"the {what} could not be computed"))
    finally:
        setattr(conn, busy, False)
        conn.background_done()


@handles(P.Hint)
async def on_hint(conn: Session, svc: Services, req: P.Hint) -> None:
    """Checked here, searched in the background: the reply follows when the worker process is
    done, and this connection's moves are served meanwhile."""
    if conn.hinting:
        raise ProtocolError("rate_limited", "a hint is already being computed; wait for it")
    job = await svc.hints.prepare(conn.me, req.race)
    conn.hinting = True
    conn.spawn(_answer_later(conn, req.id, "hint", svc.hints.compute(job), "hinting",
                             f"hint for race {job.race}"))


@handles(P.Winnable)
async def on_winnable(conn: Session, svc: Services, req: P.Winnable) -> None:
    """As ``hint``: checked here (practice games only: ``not_practice`` elsewhere), searched
    in the background, one at a time per connection."""
    if conn.checking:
        raise ProtocolError("rate_limited", "a winnable check is already being computed; "
                            "wait for it")
    job = await svc.hints.prepare(conn.me, req.race,
                                  what='the "still winnable?" indicator is')
    conn.checking = True
    conn.spawn(_answer_later(conn, req.id, "winnable", svc.hints.winnable(job), "checking",
                             f"winnable check for race {job.race}"))


@handles(P.Analysis)
async def on_analysis(conn: Session, svc: Services, req: P.Analysis) -> None:
    """Checked and looked up here; a line not analysed yet is analysed in the background
    (seconds of CPU in a worker process) while this connection's other requests go on."""
    if conn.analysing:
        raise ProtocolError("rate_limited", "an analysis is already being computed; wait for it")
    conn.analysing = True
    me = conn.player.pid if conn.player is not None else ""
    who = me or f"addr:{address(conn, svc)}"  # an anonymous connection: by its address
    conn.spawn(_answer_later(conn, req.id, "analysis",
                             svc.analyses.analysis(me, req.race, req.player, counted_as=who),
                             "analysing", f"analysis of race {req.race}"))
