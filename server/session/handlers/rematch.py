"""``race.rematch``: a new race with the same settings, offered to the same racers.

The first racer to ask creates the new race (and is its host and first racer); the race id is
recorded on the old race once (``SET NX``), so racers who ask at the same moment all land in
the same new race instead of one each (a racer who loses that tie leaves behind an empty
lobby race, never joined, which expires like any lobby). Every other racer of the old race
gets an unsolicited ``rematch`` frame naming the new race, and joins it with an ordinary
``race.join``. A rematch of a winnable race is winnable too (a new seed from the pool).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from solrace.server.game.lifecycle import RaceState
from solrace.server.session.handlers.base import handles
from solrace.server.session.handlers.lobby import create_race, race_reply
from solrace.server.store import RETENTION
from solrace.shared import protocol as P
from solrace.shared.protocol import ProtocolError

if TYPE_CHECKING:
    from solrace.server.session.handlers.base import Services, Session


@handles(P.Rematch)
async def on_race_rematch(conn: Session, svc: Services, req: P.Rematch) -> dict[str, Any]:
    races, store = svc.races, svc.store
    rec = await races.record(req.race)
    info = races.infos[req.race]
    if conn.me.pid not in rec.order:
        raise ProtocolError("not_in_race", "only a racer of that race can ask for a rematch")
    if info.kind != "race":
        raise ProtocolError("no_rematch", f"a {info.kind} game has no rematch")
    if rec.state is not RaceState.FINISHED:
        raise ProtocolError("no_rematch", f"the race is {rec.state}: a rematch follows its end")
    rid = await store.rematch_of(req.race)
    created = False
    if rid is None:
        new_rid = await create_race(conn, svc, conn.me, info.variant, dict(info.options),
                                    info.seats, info.time_limit, info.rated,
                                    rec.meta.get("winnable") == "1",
                                    difficulty=rec.meta.get("difficulty") or None)
        rid = await store.claim_rematch(req.race, new_rid, RETENTION)
        created = rid == new_rid
    v = await races.join(conn.me, rid)
    if v == 0:  # already in it (asked twice, or the host)
        v = (await races.record(rid)).num("version")
    reply = await race_reply(conn, svc, req.id, rid, **{"from": req.race})
    await conn.feed.attach(rid, v)
    if created:
        for pid in rec.order:
            if pid != conn.me.pid and not pid.startswith("bot-"):
                await store.notify_player(pid, {"k": "rematch", "race": rid, "from": req.race,
                                                "by": conn.me.name})
    return reply


async def offered(conn: Session, svc: Services, notice: dict[str, Any]) -> None:
    """Another racer asked for a rematch of a race this player raced in: tell every
    connection of the player (not attached: joining is the player's choice)."""
    rec = await svc.races.record(str(notice["race"]))
    conn.send(P.push("rematch", race=svc.races.summary(rec), by=notice.get("by"),
                     **{"from": notice.get("from")}))
