"""Playing by pointing: ``autoplay``, ``finish``, ``legal``, and the batch form of ``move``
(a source only, or ``auto``). The rules are in :mod:`solrace.shared.pointing`; the durable batch
in :mod:`solrace.server.game.batches`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from solrace.server.game import batches
from solrace.server.game.racemoves import with_version
from solrace.server.session.handlers.base import handles
from solrace.shared import protocol as P
from solrace.shared.pointing import legal_texts

if TYPE_CHECKING:
    from solrace.server.session.handlers.base import Services, Session


async def batch(conn: Session, svc: Services, req: P.SeqRequest, kind: str, text: str | None = None,
                auto: bool = False) -> dict[str, Any]:
    """One batch request. The connection's own progress events (one per move of the batch)
    are skipped by its feed, as for a single move: the ack carries the same facts."""
    feed = conn.feed
    claimed: list[tuple[int, int]] = []

    def claim(lo: int, hi: int) -> None:
        feed.claim(req.race, lo, hi)
        claimed.append((lo, hi))

    try:
        ack = await batches.play(svc.races, conn.me, req.race, req.seq, kind, text, auto,
                                 claim)
    except BaseException:  # refused: another connection's moves are not ours to skip
        for lo, hi in claimed:
            feed.unclaim(req.race, lo, hi)
        raise
    if ack.get("duplicate"):
        ack = await with_version(svc.races.store, req.race, conn.me.pid, req.seq, ack)
    return P.reply(req.id, "ack", race=req.race, **ack)


@handles(P.Autoplay)
async def on_autoplay(conn: Session, svc: Services, req: P.Autoplay) -> dict[str, Any]:
    return await batch(conn, svc, req, "autoplay")


@handles(P.Finish)
async def on_finish(conn: Session, svc: Services, req: P.Finish) -> dict[str, Any]:
    return await batch(conn, svc, req, "finish")


@handles(P.Legal)
async def on_legal(conn: Session, svc: Services, req: P.Legal) -> dict[str, Any]:
    races = svc.races
    e = await batches.checked_entry(races, conn.me, req.race)
    async with e.lock:  # reloaded from the log: another process may have moved this game
        e = await races.entry(req.race, conn.me.pid, reload=True)
        return P.reply(req.id, "legal", race=req.race, seq=len(e.game.moves),
                       legal=legal_texts(e.game))
