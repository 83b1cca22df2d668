"""Session requests: ``hello`` (new name, resumed token, or anonymous) and ``ping``."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from solrace.server.handlers.base import handles
from solrace.server.races import Player
from solrace.shared import protocol as P
from solrace.shared.protocol import ProtocolError

if TYPE_CHECKING:
    from solrace.server.connection import Connection


@handles(P.Hello)
async def on_hello(conn: Connection, req: P.Hello) -> dict[str, Any]:
    if conn.greeted:
        raise ProtocolError("already_authenticated", "this connection already said hello")
    ctx = conn.ctx
    store, ttl = ctx.store, int(ctx.config.session_ttl)
    conn.out.gather = req.batch  # from the welcome on: batch frames, see server/outbox.py
    token: str | None = None
    if req.token is None and req.name is None:
        conn.greeted = True
        return P.reply(req.id, "welcome", v=P.PROTOCOL_VERSION, player=None, name=None,
                       races=[], server_time=await store.server_time_ms(),
                       **({"batch": True} if req.batch else {}))
    if req.token is not None:
        found = await store.load_session(req.token, ttl)
        if found is None:
            raise ProtocolError("bad_token", "unknown or expired session; hello with a name")
        conn.player = Player(*found)
    else:
        assert req.name is not None
        pid = secrets.token_hex(8)
        if not await store.claim_name(req.name, pid, ttl):
            raise ProtocolError("name_taken", f"the name {req.name} is in use")
        token = secrets.token_urlsafe(24)
        await store.create_session(token, pid, req.name, ttl)
        await store.remember_profile(req.name, pid)
        conn.player = Player(pid, req.name)
    conn.greeted = True
    await ctx.hub.watch_player(conn.player.pid, conn)
    races = []
    for rid in await store.player_races(conn.player.pid):
        rec = await store.read_race(rid)
        if rec is None:
            continue
        await ctx.races.record(rid)
        races.append(ctx.races.summary(rec))
        ctx.races.arm(rec)
    out = P.reply(req.id, "welcome", v=P.PROTOCOL_VERSION, player=conn.player.pid,
                  name=conn.player.name, races=races, server_time=await store.server_time_ms())
    if token is not None:
        out["token"] = token
    if req.batch:
        out["batch"] = True
    return out


@handles(P.Ping)
async def on_ping(conn: Connection, req: P.Ping) -> dict[str, Any]:
    return P.reply(req.id, "pong", server_time=await conn.ctx.store.server_time_ms())
