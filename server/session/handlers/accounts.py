"""Account requests: ``register``, ``login``, ``logout``, ``sessions``, ``session.revoke``,
``password.change``, ``account.delete``; and the checks other handlers use:
:func:`require_account` (ranked play) and :func:`check_session` (every request of a session).

The operations are in :class:`solrace.server.accounts.service.AccountService`; this module
turns their results into replies and into the connection's identity.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from solrace.server.game.daily import daily_days
from solrace.server.game.races import Player
from solrace.server.moderation.roles import parse_roles
from solrace.server.session.handlers.base import handles
from solrace.shared import protocol as P
from solrace.shared.protocol import ProtocolError
from solrace.shared.variants import VARIANTS

if TYPE_CHECKING:
    from solrace.server.accounts.service import Issued
    from solrace.server.session.handlers.base import Services, Session
    from solrace.server.store import Store
    from solrace.server.store.accounts import SessionRecord


class SessionGone(ProtocolError):
    """The connection's session was revoked or expired: refuse, then close."""

    def __init__(self) -> None:
        super().__init__("bad_token", "this session was revoked or has expired; log in again")


def address(conn: Session, svc: Services) -> str:
    """The client's address as the login limits count it: the TCP peer, or, when the peer is
    one of ``--trusted-proxies``, the last entry of its ``X-Forwarded-For`` header (the one
    that proxy added; earlier entries are the client's to forge)."""
    peer = getattr(conn.ws, "remote_address", None)
    ip = str(peer[0]) if peer else "unknown"
    if ip in svc.config.trusted_proxies:
        request = getattr(conn.ws, "request", None)
        forwarded = request.headers.get("X-Forwarded-For", "") if request is not None else ""
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last[:64]
    return ip


def require_account(conn: Session, what: str) -> None:
    """Ranked play is for accounts: a guest (or an anonymous connection) gets
    ``account_required``."""
    rec = conn.session
    if rec is None or rec.kind != "account":
        raise ProtocolError("account_required", f"{what} needs an account: register (your "
                            "guest history is kept) or log in")


REFRESH_EVERY = 60.0  # seconds between a connection's last_seen/TTL refreshes


def hold_session(conn: Session, rec: SessionRecord) -> None:
    """``rec`` is now the connection's session, just written or refreshed in Redis: it is
    verified again at the next request (the hub's notices may not cover it yet)."""
    conn.session = rec
    conn.session_refreshed = time.monotonic()
    conn.session_held = None
    conn.session_revoked = False


def session_held(conn: Session, svc: Services) -> bool:
    """The part of :func:`check_session` that needs no Redis, without a coroutine: True when
    the request may go on at once (no session, or one held under the hub's current notice
    token and not due for its refresh); raises :class:`SessionGone` for a session a notice
    revoked; False: :func:`check_session` must ask Redis."""
    rec = conn.session
    if rec is None:
        return True
    if conn.session_revoked:
        raise SessionGone()
    now = time.monotonic()
    token = svc.hub.notices_live(rec.player)
    return (token is not None and token == conn.session_held
            and now - conn.session_refreshed < REFRESH_EVERY
            and now < conn.session_refreshed + svc.accounts.ttl - REFRESH_EVERY)


async def check_session(conn: Session, svc: Services) -> None:
    """Whether the connection's session still lives, before each request (docs/protocol.md
    20.6). Redis is asked, unless the session was verified under the hub's current notice
    token: then a revocation anywhere reaches this process as a notice (which marks the
    connection revoked, see :func:`on_revoked_notice`) and Redis need not be asked again.
    The token is taken *before* asking, so a revocation written after the check was answered
    is one the notices cover. Without a token (pub/sub down, reconnecting, its PINGs late, or
    the player's channel not yet subscribed in Redis) every request asks Redis: fail closed.
    Once a minute per connection the call also dates ``last_seen`` and restarts the session's
    lifetime; a held session is asked about again before that lifetime could have run out."""
    if session_held(conn, svc):
        return
    rec = conn.session
    assert rec is not None
    now = time.monotonic()
    refresh = now - conn.session_refreshed >= REFRESH_EVERY
    token = svc.hub.notices_live(rec.player)
    if not await svc.accounts.alive(rec, refresh):
        raise SessionGone()
    if conn.session is rec and not conn.session_revoked:
        conn.session_held = token
    if refresh:
        conn.session_refreshed = now


def session_view(rec: SessionRecord, current: str | None = None) -> dict[str, Any]:
    return {"session": rec.sid, "created_at": rec.created_at, "last_seen": rec.last_seen,
            "client": rec.client, "address": rec.address, "current": rec.sid == current}


async def become(conn: Session, svc: Services, issued: Issued) -> dict[str, Any]:
    """The connection is now the session's player: follow its notices, arm its races; the
    fields of a welcome (player, name, token, session, account, races)."""
    rec = issued.session
    old = conn.player
    hold_session(conn, rec)  # the session was just written
    conn.player = Player(rec.player, rec.name, rec.title)
    conn.greeted = True
    if old is None or old.pid != rec.player:
        if old is not None:
            await svc.hub.unwatch_player(old.pid, conn)
        await svc.hub.watch_player(rec.player, conn)
    return {"player": rec.player, "name": rec.name, "token": issued.token, "session": rec.sid,
            "account": rec.kind == "account", "races": await my_races(conn, svc),
            **await identity(conn, svc, rec)}


async def account_title(store: Store, pid: str, name: str) -> str:
    """The title of the player ``pid`` known by ``name`` when only that is at hand (a
    quick-pair rival waiting on another process): "BOT" for a BOT account's, else ""."""
    acct = await store.accounts.account(name)
    return "BOT" if acct and acct.get("player") == pid and acct.get("bot") else ""


async def identity(conn: Session, svc: Services, rec: SessionRecord) -> dict[str, Any]:
    """A welcome's ``title`` (a BOT account's) and ``roles`` (moderator, admin: what the
    client may offer; the server checks them again on every moderator request)."""
    roles: list[str] = []
    if rec.kind == "account" and rec.account:
        acct = await svc.store.accounts.account(rec.account)
        roles = sorted(parse_roles(acct.get("roles") if acct else None))
    return {"title": rec.title or None, "roles": roles}


async def my_races(conn: Session, svc: Services) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for rid in await svc.store.player_races(conn.me.pid):
        rec = await svc.store.read_race(rid)
        if rec is None:
            continue
        await svc.races.record(rid)
        out.append(svc.races.summary(rec))
        svc.races.arm(rec)
    return out


def require_human(conn: Session, what: str) -> None:
    """Ranked play is for people: a BOT account gets ``bots_not_allowed`` (it may race
    casually and practise)."""
    if conn.session is not None and conn.session.title == "BOT":
        raise ProtocolError("bots_not_allowed", f"{what} is for people; BOT accounts play "
                            "casual races and practice (docs/bots.md)")


@handles(P.BecomeBot)
async def on_become_bot(conn: Session, svc: Services, req: P.BecomeBot) -> dict[str, Any]:
    rec = _account_session(conn)
    await svc.accounts.become_bot(rec)
    return P.reply(req.id, "account.bot", title="BOT")


def _account_session(conn: Session) -> SessionRecord:
    require_account(conn, "this request")
    assert conn.session is not None
    return conn.session


def close_soon(conn: Session, reason: str) -> None:
    """Close once the reply (queued right after the handler returns) has been sent."""
    conn.spawn(conn.close_after_reply(reason))


@handles(P.Register)
async def on_register(conn: Session, svc: Services, req: P.Register) -> dict[str, Any]:
    spent = conn.session
    issued = await svc.accounts.register(spent, req.name, req.password, req.client,
                                              address(conn, svc), bot=req.bot)
    out = await become(conn, svc, issued)
    if spent is not None:  # the guest token is spent: its other connections are told, after
        # this one took the new session (the notice names the old one only)
        await svc.accounts.announce_end(spent)
    return P.reply(req.id, "registered", **out)


@handles(P.Login)
async def on_login(conn: Session, svc: Services, req: P.Login) -> dict[str, Any]:
    issued = await svc.accounts.login(conn.session, req.name, req.password, req.client,
                                           address(conn, svc))
    return P.reply(req.id, "logged_in", **await become(conn, svc, issued))


@handles(P.Logout)
async def on_logout(conn: Session, svc: Services, req: P.Logout) -> dict[str, Any]:
    if conn.session is None:
        raise ProtocolError("not_authenticated", "this connection has no session")
    await svc.accounts.end(conn.session)
    close_soon(conn, "logged out")
    return P.reply(req.id, "logged_out", session=conn.session.sid)


@handles(P.Sessions)
async def on_sessions(conn: Session, svc: Services, req: P.Sessions) -> dict[str, Any]:
    rec = _account_session(conn)
    rows = await svc.accounts.sessions(rec)
    return P.reply(req.id, "sessions", account=rec.account,
                   sessions=[session_view(s, rec.sid) for s in rows])


@handles(P.RevokeSession)
async def on_revoke(conn: Session, svc: Services, req: P.RevokeSession) -> dict[str, Any]:
    rec = _account_session(conn)
    await svc.accounts.revoke(rec, req.session)
    if req.session == rec.sid:
        close_soon(conn, "session revoked")
    return P.reply(req.id, "revoked", session=req.session)


@handles(P.ChangePassword)
async def on_password_change(conn: Session, svc: Services, req: P.ChangePassword) -> dict[str, Any]:
    rec = _account_session(conn)
    revoked = await svc.accounts.change_password(rec, req.old, req.new)
    return P.reply(req.id, "password_changed", revoked=revoked)


@handles(P.DeleteAccount)
async def on_account_delete(conn: Session, svc: Services, req: P.DeleteAccount) -> dict[str, Any]:
    rec = _account_session(conn)
    today = await svc.daily.today()
    keys = [(day, variant) for day in daily_days(today) for variant in VARIANTS]
    anon = await svc.accounts.delete(rec, req.password, keys)
    close_soon(conn, "account deleted")
    return P.reply(req.id, "deleted", name=anon)


def on_revoked_notice(conn: Session, notice: dict[str, Any]) -> None:
    """A session of this player was revoked somewhere: if it is this connection's, say so and
    close (requests would be refused anyway; this spares the client a wait)."""
    rec = conn.session
    if rec is None or notice.get("sid") not in (rec.sid, "*"):
        return
    conn.session_revoked = True  # refused from now on, queued requests included
    conn.send(P.error(None, "bad_token", "this session was revoked; log in again"))
    conn.spawn(conn.close_after_reply("session revoked"))
