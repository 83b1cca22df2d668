"""Names end to end: separators never make a different name, accounts stored under the legacy
fold move at start-up (collisions renamed, never lost), and a moderator's forced rename —
real server, real Redis (single and cluster)."""

from __future__ import annotations

import subprocess

import harness
import pytest
from solrace.client.library import Client, ClientError
from solrace.server.accounts.names import fold, legacy_fold
from solrace.server.store import Keys
from test_fairplay_e2e import admin

BACKENDS = ("single", "cluster")


async def register(url: str, name: str) -> str:
    """Register ``name`` on a fresh connection; the error code, or "ok"."""
    c = Client(url)
    try:
        await c.connect()
        try:
            await c.register(harness.password_for(name), name=name)
        except ClientError as exc:
            return exc.code
        return "ok"
    finally:
        await c.close()


async def login(url: str, name: str, password: str) -> dict | str:
    c = Client(url)
    try:
        await c.connect()
        try:
            return await c.login(name, password)
        except ClientError as exc:
            return exc.code
    finally:
        await c.close()


async def to_legacy_key(redis_url: str, name: str, *, display: str | None = None,
                        created_at: int | None = None) -> None:
    """Store the account of ``name`` as a server before the fold change did: under the
    legacy fold of ``display`` (default: its own name), with that display name."""
    r = harness.redis_client(redis_url)
    try:
        acct = await r.hgetall(Keys.account(name))
        sessions = await r.hgetall(Keys.account_sessions(name))
        await r.delete(Keys.account(name))
        await r.delete(Keys.account_sessions(name))
        acct[b"name"] = (display or name).encode()
        if created_at is not None:
            acct[b"created_at"] = str(created_at).encode()
        old = Keys.account_at(legacy_fold(display or name))
        await r.hset(old, mapping=acct)
        if sessions:
            await r.hset(old + ":sessions", mapping=sessions)
        await r.delete(Keys.NAMES_MIGRATED)
    finally:
        await r.aclose()


def test_separators_fold_away() -> None:
    assert len({fold(n) for n in ("Alice", "a.lice", "Alice.", "a_lice", "al-ice", "A.L.I.C.E",
                                   "a1ice")}) == 1
    assert fold("bob") != fold("bobs")


async def test_look_alikes_with_separators_are_refused(redis_url: str) -> None:
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        assert await register(url, "Alice") == "ok"
        for name in ("a.lice", "Alice.", "a_lice", "al-ice", "A.L.I.C.E", "a1ice"):
            assert await register(url, name) == "name_taken", name
            guest = Client(url, name=name)  # not as a guest either
            with pytest.raises(ClientError) as err:
                await guest.connect()
            assert err.value.code == "name_taken"
            await guest.close()
        assert await register(url, "alicia") == "ok"


async def test_legacy_accounts_move_and_collisions_are_renamed(redis_url: str) -> None:
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        for name in ("x.ray", "carol", "temp"):
            assert await register(url, name) == "ok"
    # as the old fold stored them: x.ray under "x-ray"; "c.arol" (made from temp) under
    # "c-arol", registered after carol, whose key the new fold gives it too
    await to_legacy_key(redis_url, "x.ray")
    await to_legacy_key(redis_url, "temp", display="c.arol", created_at=2**42)
    async with harness.running_server(redis_url) as server:  # start-up migrates
        url = harness.ws_url(server)
        moved = await login(url, "x.ray", harness.password_for("x.ray"))
        assert isinstance(moved, dict) and moved["name"] == "x.ray"
        assert isinstance(await login(url, "xray", harness.password_for("x.ray")), dict)
        kept = await login(url, "carol", harness.password_for("carol"))
        assert isinstance(kept, dict) and kept["name"] == "carol"
        renamed = await login(url, "c.arol2", harness.password_for("temp"))
        assert isinstance(renamed, dict) and renamed["name"] == "c.arol2"
        assert await register(url, "x_ray") == "name_taken"
    r = harness.redis_client(redis_url)
    try:
        assert await r.hget(Keys.account("c.arol2"), "renamed_from") == b"c.arol"
        assert not await r.exists(Keys.account_at("x-ray"))
        assert await r.get(Keys.NAMES_MIGRATED) == b"1"
    finally:
        await r.aclose()


async def test_a_moderator_forces_a_rename(redis_url: str) -> None:
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "mod", "a1ic3", "bob") as (mod, imp, _):
            done: subprocess.CompletedProcess[str] = admin(redis_url, "grant", "mod",
                                                           "moderator")
            assert done.returncode == 0
            with pytest.raises(ClientError) as err:
                await mod.request("mod.rename", player="a1ic3", name="b0b", reason="taken")
            assert err.value.code == "name_taken"
            with pytest.raises(ClientError) as err:
                await mod.request("mod.rename", player="a1ic3", name="guest-1", reason="x")
            assert err.value.code == "bad_name"
            out = await mod.request("mod.rename", player="a1ic3", name="player9",
                                    reason="impersonates alice")
            assert out["name"] == "player9" and out["was"] == "a1ic3"
            assert out["player"] == imp.player
            again = await login(url, "player9", harness.password_for("a1ic3"))
            assert isinstance(again, dict) and again["player"] == imp.player
            assert await login(url, "a1ic3", harness.password_for("a1ic3")) \
                == "bad_credentials"
            assert await register(url, "aIic3") == "name_taken"  # the old name stays reserved
            # its live connection is told and goes on under the new name
            assert (await imp.next_event(t="renamed")) == {"t": "renamed", "name": "player9"}
            assert len(await imp.sessions()) == 2  # its own and the login above
            profile = await mod.request("profile", name="player9")
            assert profile["player"] == imp.player
            entries = await harness.redis_client(redis_url).xrevrange(Keys.FP_AUDIT)
            assert entries[0][1][b"action"] == b"rename"
            assert entries[0][1][b"target"] == b"a1ic3"
