"""A verified session held without asking Redis per request, and every way that hold ends.

docs/protocol.md 20.6: a connection asks Redis whether its session lives until the session was
verified under the hub's notice token (the pub/sub connection up, the player's channel
subscribed in Redis, a PING answered less than ``NOTICE_FRESH`` ago); then requests skip the
check, and a revocation reaches the connection as a notice instead. These tests prove that the
hold engages (no Redis check per request), that a notice refuses the very next request, and
that the per-request check comes back — fail closed — when the subscription is lost (a killed
pub/sub connection) or stalls (its PINGs unanswered), and before a short lifetime runs out; and,
at the unit level, that a notice refuses requests already queued without asking Redis.
"""

from __future__ import annotations

import asyncio
from typing import Any

import harness
import pytest
import redis.asyncio as aredis
from solrace.client.library import Client, ClientError
from solrace.server.fanout import hub as hub_module
from solrace.server.ops.app import Server
from solrace.server.store import Keys, Store
from solrace.server.store.accounts import token_hash
from websockets.exceptions import ConnectionClosed

pytestmark = pytest.mark.timeout(60)


class Counting:
    """Wraps ``AccountService.alive`` to count the Redis checks a server makes."""

    def __init__(self, server: Server) -> None:
        self.calls = 0
        accounts = server.ctx.accounts
        original = accounts.alive

        async def alive(rec: Any, refresh: bool = True) -> bool:
            self.calls += 1
            return await original(rec, refresh)

        accounts.alive = alive  # type: ignore[method-assign]


async def held(server: Server, c: Client, checks: Counting) -> None:
    """Ping until a ping is served without a Redis check (the hold engaged)."""
    for _ in range(200):
        before = checks.calls
        assert (await c.request("ping"))["t"] == "pong"
        if checks.calls == before:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the session was never held")


async def drop_key(redis_url: str, c: Client) -> None:
    """Delete the session key behind the server's back: no notice is published."""
    r = aredis.Redis.from_url(redis_url)
    try:
        assert await r.delete(Keys.session_hashed(token_hash(str(c.token))))
    finally:
        await r.aclose()


async def refused(c: Client) -> None:
    with pytest.raises((ClientError, ConnectionError, ConnectionClosed)) as info:
        await c.request("ping")
    if isinstance(info.value, ClientError):
        assert info.value.code == "bad_token", info.value


async def test_held_session_skips_redis_and_a_notice_refuses_the_next_request(
        redis_url: str) -> None:
    async with harness.running_server(redis_url) as server, harness.accounts(
            harness.ws_url(server), "hana") as (hana,):
        checks = Counting(server)
        await held(server, hana, checks)
        before = checks.calls
        for _ in range(5):
            assert (await hana.request("ping"))["t"] == "pong"
        assert checks.calls == before, "held: no Redis check per request"
        # a revocation elsewhere: the key goes, then the notice (as AccountService.revoke does)
        await drop_key(redis_url, hana)
        store = Store(aredis.Redis.from_url(redis_url))
        try:
            await store.notify_player(str(hana.player), {"k": "revoked",
                                                         "sid": hana.welcome["session"]})
        finally:
            await store.redis.aclose()
        await refused(hana)


async def test_a_lost_subscription_brings_the_per_request_check_back(redis_url: str) -> None:
    """The pub/sub connection is killed: notices published until it is back are lost, so the
    held session is verified in Redis again; a key deleted without any notice is refused."""
    async with harness.running_server(redis_url) as server, harness.accounts(
            harness.ws_url(server), "ivan") as (ivan,):
        checks = Counting(server)
        await held(server, ivan, checks)
        hub = server.ctx.hub
        epoch = hub.epoch  # type: ignore[attr-defined]
        r = aredis.Redis.from_url(redis_url)
        try:
            assert await r.client_kill_filter(_type="pubsub") >= 1
        finally:
            await r.aclose()
        for _ in range(500):  # the hub notices and reconnects
            if hub.epoch != epoch:  # type: ignore[attr-defined]
                break
            await asyncio.sleep(0.01)
        assert hub.epoch != epoch  # type: ignore[attr-defined]
        await drop_key(redis_url, ivan)
        await refused(ivan)


async def test_unanswered_pings_bring_the_per_request_check_back(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The subscription stalls (no PING answered for longer than NOTICE_FRESH, simulated by a
    clock that jumps ahead): the hold lapses and the next request asks Redis."""
    async with harness.running_server(redis_url) as server, harness.accounts(
            harness.ws_url(server), "jana") as (jana,):
        checks = Counting(server)
        await held(server, jana, checks)
        hub = server.ctx.hub
        assert hub.notices_live(str(jana.player)) is not None
        real = hub_module.time.monotonic
        monkeypatch.setattr(hub_module.time, "monotonic",
                            lambda: real() + 10 * hub_module.NOTICE_FRESH)
        monkeypatch.setattr(hub_module, "PING_EVERY", 1e9)  # and no new PING answers it
        assert hub.notices_live(str(jana.player)) is None
        before = checks.calls
        assert (await jana.request("ping"))["t"] == "pong"
        assert checks.calls == before + 1, "not held: Redis was asked"
        await drop_key(redis_url, jana)
        await refused(jana)


async def test_no_notice_token_before_the_players_channel_is_subscribed(
        redis_url: str) -> None:
    async with harness.running_server(redis_url) as server:
        hub = server.ctx.hub
        assert hub.notices_live("0123456789abcdef") is None  # nobody follows that player


async def test_a_short_lifetime_is_never_held(redis_url: str) -> None:
    """With a session lifetime shorter than the refresh interval every request asks Redis,
    so an expiry (no notice is ever sent for one) is refused at the next request."""
    async with harness.running_server(redis_url, session_ttl=30.0) as server, \
            harness.accounts(harness.ws_url(server), "kofi") as (kofi,):
        checks = Counting(server)
        for _ in range(20):
            before = checks.calls
            assert (await kofi.request("ping"))["t"] == "pong"
            assert checks.calls == before + 1
            await asyncio.sleep(0.02)
        await drop_key(redis_url, kofi)  # as the expiry would
        await refused(kofi)


class _Hub:
    def __init__(self) -> None:
        self.token: int | None = 7

    def notices_live(self, pid: str) -> int | None:
        return self.token


class _Accounts:
    ttl = 7 * 86400.0

    def __init__(self) -> None:
        self.asked = 0

    async def alive(self, rec: Any, refresh: bool = True) -> bool:
        self.asked += 1
        return True


class _Conn:
    """What check_session and on_revoked_notice use of a connection."""

    def __init__(self) -> None:
        self.ctx = type("Ctx", (), {"hub": _Hub(), "accounts": _Accounts()})()
        self.session: Any = None
        self.sent: list[dict[str, Any]] = []
        self.spawned: list[Any] = []

    def send(self, msg: dict[str, Any]) -> None:
        self.sent.append(msg)

    def spawn(self, coro: Any) -> None:
        coro.close()
        self.spawned.append(coro)

    async def close_after_reply(self, reason: str) -> None:
        pass


async def test_a_notice_refuses_even_requests_already_queued() -> None:
    """The unit rule behind the e2e tests: once held, requests skip Redis; a revocation notice
    naming the session makes the very next check refuse (a request queued behind the notice
    included), without asking Redis; a notice for another session changes nothing; a token
    change (a reconnect) makes the next check ask again."""
    from solrace.server.session.handlers import accounts as handlers
    from solrace.server.store.accounts import SessionRecord

    conn = _Conn()
    rec = SessionRecord.of("d" * 64, {"player": "p" * 16, "name": "nia", "kind": "account",
                                      "sid": "s1", "account": "nia"})
    handlers.hold_session(conn, rec)  # type: ignore[arg-type]
    asked = conn.ctx.accounts
    await handlers.check_session(conn, conn.ctx)  # type: ignore[arg-type]
    await handlers.check_session(conn, conn.ctx)  # type: ignore[arg-type]
    assert asked.asked == 1, "verified once, then held"
    handlers.on_revoked_notice(conn, {"k": "revoked", "sid": "other"})  # type: ignore[arg-type]
    await handlers.check_session(conn, conn.ctx)  # type: ignore[arg-type]
    assert asked.asked == 1 and not conn.sent
    conn.ctx.hub.token = 8  # the hub reconnected: verified again, then held under 8
    await handlers.check_session(conn, conn.ctx)  # type: ignore[arg-type]
    await handlers.check_session(conn, conn.ctx)  # type: ignore[arg-type]
    assert asked.asked == 2
    handlers.on_revoked_notice(conn, {"k": "revoked", "sid": "s1"})  # type: ignore[arg-type]
    assert conn.sent and conn.sent[0]["code"] == "bad_token"
    with pytest.raises(handlers.SessionGone):
        await handlers.check_session(conn, conn.ctx)  # type: ignore[arg-type]
    assert asked.asked == 2, "refused without asking Redis"
    conn2 = _Conn()  # and no hold without a token, ever
    conn2.ctx.hub.token = None
    handlers.hold_session(conn2, rec)  # type: ignore[arg-type]
    for _ in range(3):
        await handlers.check_session(conn2, conn2.ctx)  # type: ignore[arg-type]
    assert conn2.ctx.accounts.asked == 3
