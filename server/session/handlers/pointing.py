"""``legal``: the legal moves of the racer's position, in full notation. (``autoplay``,
``finish`` and the batch form of ``move`` go through the move service with every other move:
:mod:`solrace.server.game.moveservice`; their rules are in :mod:`solrace.shared.pointing`.)"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from solrace.server.game import batches
from solrace.server.session.handlers.base import handles
from solrace.shared import protocol as P
from solrace.shared.pointing import legal_texts

if TYPE_CHECKING:
    from solrace.server.session.handlers.base import Services, Session


@handles(P.Legal)
async def on_legal(conn: Session, svc: Services, req: P.Legal) -> dict[str, Any]:
    races = svc.races
    e = await batches.checked_entry(races, conn.me, req.race)
    async with e.lock:  # reloaded from the log: another process may have moved this game
        e = await races.entry(req.race, conn.me.pid, reload=True)
        return P.reply(req.id, "legal", race=req.race, seq=len(e.game.moves),
                       legal=legal_texts(e.game))
