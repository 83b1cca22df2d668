"""Session requests: ``hello`` (new guest, resumed token, or anonymous) and ``ping``.

A ``hello`` with a name makes a guest (as before accounts existed: a client that only knows
this still plays); a token resumes a guest's or an account's session; neither makes an
anonymous connection, which may watch, list races, ``register`` and ``login``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from solrace.server.game.races import Player
from solrace.server.session.handlers.accounts import (
    address,
    become,
    hold_session,
    identity,
    my_races,
)
from solrace.server.session.handlers.base import handles
from solrace.shared import protocol as P
from solrace.shared.protocol import ProtocolError

if TYPE_CHECKING:
    from solrace.server.session.handlers.base import Services, Session


@handles(P.Hello)
async def on_hello(conn: Session, svc: Services, req: P.Hello) -> dict[str, Any]:
    if conn.greeted:
        raise ProtocolError("already_authenticated", "this connection already said hello")
    now = await svc.store.server_time_ms()
    # From the welcome on: batch frames (server/session/outbox.py), msgpack connections only —
    # a batch frame is built from msgpack frames; a JSON connection's welcome says
    # ``batch: false``.
    gather = req.batch and conn.codec.name == P.MSGPACK_SUBPROTOCOL
    conn.out.gather = gather
    batch: dict[str, Any] = {"batch": gather} if req.batch else {}
    if req.token is None and req.name is None:
        conn.greeted = True
        return P.reply(req.id, "welcome", v=P.PROTOCOL_VERSION, player=None, name=None,
                       races=[], server_time=now, account=False, **batch)
    if req.token is not None:
        rec = await svc.accounts.resume(req.token)
        if rec is None:
            raise ProtocolError("bad_token", "unknown, expired or revoked session; hello with "
                                "a name (a guest) or log in")
        hold_session(conn, rec)  # resume() refreshed it
        conn.player, conn.greeted = Player(rec.player, rec.name, rec.title), True
        await svc.hub.watch_player(rec.player, conn)
        return P.reply(req.id, "welcome", v=P.PROTOCOL_VERSION, player=rec.player,
                       name=rec.name, races=await my_races(conn, svc), server_time=now,
                       account=rec.kind == "account", session=rec.sid,
                       **await identity(conn, svc, rec), **batch)
    assert req.name is not None
    issued = await svc.accounts.guest(req.name, req.client, address(conn, svc))
    out = await become(conn, svc, issued)
    return P.reply(req.id, "welcome", v=P.PROTOCOL_VERSION, server_time=now, **out, **batch)


@handles(P.Ping)
async def on_ping(conn: Session, svc: Services, req: P.Ping) -> dict[str, Any]:
    return P.reply(req.id, "pong", server_time=await svc.store.server_time_ms())
