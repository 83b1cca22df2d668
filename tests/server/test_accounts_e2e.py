"""Accounts end to end: real server processes, real Redis, real clients over websockets.

Two devices of one account on two server processes; revocation refused on both at once (by
the notice: test_session_hold.py covers the hold and its fallbacks);
password change, logout, deletion; names that cannot be taken over; the brute-force limits
(with the figures printed); the guest -> account upgrade; ranked requests from guests.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import harness
import msgpack
import pytest
import redis.asyncio as aredis
from solrace.client.library import Client, ClientError
from solrace.server.game.daily import day_of, previous_day, rank_key
from solrace.server.store import Keys, Store
from solrace.server.store.accounts import token_hash
from websockets.exceptions import ConnectionClosed

pytestmark = pytest.mark.timeout(120)

PW = "correct-horse-battery"
FAST = {"rate": 1000.0, "burst": 1000}


async def refused(c: Client, code: str = "bad_token") -> None:
    """The client's next request is refused: an error with ``code`` or, when the server's
    revocation notice closed the connection first, a closed connection."""
    with pytest.raises((ClientError, ConnectionError, ConnectionClosed)) as info:
        await c.request("ping")
    if isinstance(info.value, ClientError):
        assert info.value.code == code, info.value


async def expect(want: str, call: Any, *args: Any, **kwargs: Any) -> ClientError:
    with pytest.raises(ClientError) as info:
        await call(*args, **kwargs)
    assert info.value.code == want, info.value
    return info.value


async def connect(url: str, **kwargs: Any) -> Client:
    c = Client(url, **kwargs)
    await c.connect()
    return c


async def test_two_devices_on_two_processes_revoke_password_logout_delete(
    redis_url: str, tmp_path: Path
) -> None:
    async with harness.two_processes(redis_url, tmp_path, "--rate", "1000", "--burst",
                                     "1000") as (p1, p2):
        opened: list[Client] = []
        try:
            laptop = await connect(p1.url, client="laptop")  # anonymous, then register
            opened.append(laptop)
            reg = await laptop.register(PW, "alice")
            assert reg["account"] and laptop.account and reg["name"] == "alice"
            phone = await connect(p2.url, client="phone")  # another device, another process
            opened.append(phone)
            got = await phone.login("ALICE", PW)  # any spelling of the name
            assert got["player"] == laptop.player and got["token"] != laptop.token
            assert got["session"] != reg["session"]

            # play as the same account from both: the laptop creates a rated race, bob joins,
            # the phone (other process) finds it and moves in it
            bob = harness.AccountClient(p2.url, name="bob")
            await bob.connect()
            opened.append(bob)
            race = await laptop.create_race("unlimited", rated=True)
            rid = race["race"]
            await bob.join(code=race["code"])
            mine = await phone.request("races.mine")
            assert [r["race"] for r in mine["races"]] == [rid]
            await laptop.ready(rid)
            await bob.ready(rid)
            await laptop.wait_running(rid)
            phone.versions.setdefault(rid, 0)
            await phone.sync(rid)
            game = await harness.replica(redis_url, rid)
            move = harness.choose_move(game)
            assert move is not None
            ack = await phone.move(rid, move.text())
            assert ack["seq"] == 1
            assert await harness.read_log(redis_url, rid, str(laptop.player)) == [move.text()]

            rows = await laptop.sessions()
            assert [(r["client"], r["current"]) for r in rows] == [("laptop", True),
                                                                    ("phone", False)]
            assert all(r["created_at"] <= r["last_seen"] for r in rows)

            # the phone's token resumed on both processes; revoke it from the laptop
            phone_again = await connect(p1.url, token=phone.token)
            opened.append(phone_again)
            assert phone_again.player == laptop.player and phone_again.account
            await laptop.revoke(got["session"])
            await refused(phone)  # on p2
            await refused(phone_again)  # on p1
            for url in (p1.url, p2.url):
                await expect("bad_token", connect, url, token=phone.token)
            assert [r["session"] for r in await laptop.sessions()] == [reg["session"]]

            # change the password: every other session ends, the old password is refused
            tablet = await connect(p2.url, client="tablet")
            opened.append(tablet)
            await tablet.login("alice", PW)
            changed = await laptop.change_password(PW, PW + "-2")
            assert changed["revoked"] == 1
            await refused(tablet)
            fresh = await connect(p2.url)
            opened.append(fresh)
            await expect("bad_credentials", fresh.login, "alice", PW)
            await fresh.login("alice", PW + "-2")

            # logout: that token stops working everywhere
            token = fresh.token
            await fresh.logout()
            for url in (p1.url, p2.url):
                await expect("bad_token", connect, url, token=token)

            # delete: personal data gone, history anonymised, the name stays reserved
            pid = str(laptop.player)
            await phone_again.close()
            await bob.resign(rid)
            await laptop.resign(rid)
            await laptop.next_event(t="event", race=rid, k="end")
            laptop_token = laptop.token
            store = Store(aredis.Redis.from_url(redis_url))
            try:  # a leaderboard row of an earlier day, as a finished ranked daily leaves it
                day = previous_day(day_of(await store.server_time_ms()))
                row = {"player": pid, "name": "alice", "result": "won", "time": 61_000,
                       "moves": 120, "home": 52, "finished_at": 1, "race": rid}
                assert await store.record_daily(day, "unlimited", pid, rank_key(row), row)
            finally:
                await store.redis.aclose()
            deleted = await laptop.delete_account(PW + "-2")
            anon = deleted["name"]
            assert anon.startswith("deleted-") and "alice" not in anon
            r = aredis.Redis.from_url(redis_url)
            try:
                racers = {k.decode(): v.decode()
                          for k, v in (await r.hgetall(Keys.racers(rid))).items()}
                assert racers[pid] == anon
                account = {k.decode(): v.decode()
                           for k, v in (await r.hgetall(Keys.account("alice"))).items()}
                assert account["deleted"] == "1" and "kdf" not in account
                assert pid not in account.values(), "the tombstone keeps no player id"
                assert not await r.exists(Keys.rating(pid), Keys.stats(pid))
                lb = msgpack.unpackb(await r.hget(Keys.leaderboard_entries(day, "unlimited"),
                                                  pid), raw=False)
                assert lb["name"] == anon and lb["time"] == 61_000  # kept, anonymised
            finally:
                await r.aclose()
            spectator = await connect(p2.url)
            opened.append(spectator)
            await expect("player_not_found", spectator.request, "profile", name="alice")
            await expect("bad_credentials", spectator.login, "alice", PW + "-2")
            await expect("name_taken", spectator.register, PW, "Alice")
            await expect("bad_token", connect, p1.url, token=laptop_token)
        finally:
            for c in opened:
                with contextlib.suppress(Exception):
                    await c.close()


async def test_expired_session_is_refused_at_the_next_request(redis_url: str) -> None:
    """A session whose key is gone (expired: no notice is sent for that) is refused on an open
    connection at its next request. A held session (test_session_hold.py) is asked about again
    before its lifetime could run out; with a lifetime below the refresh interval, as here,
    every request asks."""
    async with harness.running_server(redis_url, session_ttl=30.0) as server, harness.accounts(
            harness.ws_url(server), "carl") as (carl,):
        assert (await carl.request("ping"))["t"] == "pong"
        r = aredis.Redis.from_url(redis_url)
        try:
            assert await r.delete(Keys.session_hashed(token_hash(str(carl.token))))
        finally:
            await r.aclose()
        await expect("bad_token", carl.request, "ping")


async def test_names_cannot_be_taken_over(redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "erin"):
            for variant in ("erin", "ERIN", "er1n", "Erln", "erIn"):
                await expect("name_taken", connect, url, name=variant)
            anon = await connect(url)
            try:
                await expect("name_taken", anon.register, PW, "ER1N")
                await expect("bad_name", anon.register, PW, "guest-1234")
            finally:
                await anon.close()
            # every session of the account lapses: the name is still the account's
            r = aredis.Redis.from_url(redis_url)
            try:
                async for key in r.scan_iter(match="sr:session:*"):
                    await r.delete(key)
                assert not await r.exists(Keys.name("erin"))
            finally:
                await r.aclose()
            await expect("name_taken", connect, url, name="Erin")
        # a guest's name is held while its session lives, and free after it lapses
        guest = await connect(url, name="dave")
        await expect("name_taken", connect, url, name="DAVE")
        r = aredis.Redis.from_url(redis_url)
        try:
            await r.delete(Keys.name("dave"))  # the guest session's hold lapsed
        finally:
            await r.aclose()
        other = await connect(url, name="Dave")
        assert other.player != guest.player
        await guest.close()
        await other.close()


async def test_brute_force_is_limited_and_the_owner_keeps_working(redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "fay") as (owner,):
            attacker = await connect(url)
            try:
                outcomes: dict[str, int] = {}
                retry = []
                for i in range(100):
                    try:
                        await attacker.login("fay", f"wrong-password-{i}")
                    except ClientError as exc:
                        outcomes[exc.code] = outcomes.get(exc.code, 0) + 1
                        if exc.code == "rate_limited":
                            retry.append(exc.extra["retry_after"])
                print(f"\n100 wrong passwords against one account from one address: {outcomes},"
                      f" retry_after {min(retry)}..{max(retry)} s")
                assert outcomes == {"bad_credentials": 10, "rate_limited": 90}
                assert 0 < min(retry) <= max(retry) <= 15 * 60
                # the right password from elsewhere is refused too while locked ...
                await expect("rate_limited", attacker.login, "fay", harness.password_for("fay"))
            finally:
                await attacker.close()
            # ... but the owner's session is untouched: resumes, plays, logs in, changes password
            again = await connect(url, token=owner.token)
            try:
                assert again.player == owner.player
                got = await owner.login("fay", harness.password_for("fay"))
                assert got["player"] == owner.player
                changed = await owner.change_password(harness.password_for("fay"), PW)
                assert changed["revoked"] >= 1  # the resumed and the original session
            finally:
                await again.close()

        # one address, many names (each failure counted against the address): 20 then locked.
        # The 10 failures above came from this address too: start its count afresh.
        r = aredis.Redis.from_url(redis_url)
        try:
            assert await r.delete(Keys.address_fails("127.0.0.1"))
        finally:
            await r.aclose()
        probe = await connect(url)
        try:
            codes = []
            for i in range(100):
                try:
                    await probe.login(f"nobody{i}", "wrong-password")
                except ClientError as exc:
                    codes.append(exc.code)
            print(f"100 wrong logins for 100 names from one address: "
                  f"{codes.count('bad_credentials')} checked, {codes.count('rate_limited')} "
                  "rate limited")
            assert codes == ["bad_credentials"] * 20 + ["rate_limited"] * 80
        finally:
            await probe.close()


async def test_guest_upgrade_keeps_ratings_and_history(redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server:
        url = harness.ws_url(server)
        assert server.ctx is not None
        store = server.ctx.store
        guest, rival = await connect(url, name="gus"), await connect(url, name="rae")
        try:
            pid, guest_token = str(guest.player), str(guest.token)
            # ranked requests from guests: account_required, and nothing changes
            await expect("account_required", guest.create_race, "unlimited", rated=True)
            await expect("account_required", guest.request, "daily.start", variant="unlimited")
            await expect("account_required", guest.request, "sessions")
            await rival.register(PW)
            rated = await rival.create_race("unlimited", rated=True)
            await expect("account_required", guest.join, code=rated["code"])
            casual = await guest.create_race("unlimited")  # casual play is open to guests
            await rival.join(code=casual["code"])
            assert await store.set_rating(pid, "unlimited", None, "1612.000,90.000,0.060000,7")
            before = await guest.request("profile")

            reg = await guest.register(PW)  # the guest's own name by default
            assert reg["player"] == pid and reg["name"] == "gus" and reg["account"]
            after = await guest.request("profile")
            assert after["ratings"] == before["ratings"] and after["player"] == pid
            assert after["ratings"]["unlimited"]["rating"] == 1612
            assert [r["race"] for r in reg["races"]] == [casual["race"]]
            await expect("bad_token", connect, url, token=guest_token)  # rotated
            await expect("already_registered", guest.register, PW)
            # now ranked play is allowed
            await guest.join(code=rated["code"])
        finally:
            await guest.close()
            await rival.close()


async def test_behind_a_trusted_proxy_each_client_address_counts_apart(redis_url: str) -> None:
    async with harness.running_server(redis_url, trusted_proxies=("127.0.0.1",),
                                      **FAST) as server:
        url = harness.ws_url(server)

        async def raw(client_ip: str) -> harness.RawConnection:
            conn = await harness.RawConnection.open(
                url, additional_headers={"X-Forwarded-For": f"198.51.100.1, {client_ip}"})
            await conn.request("hello", v=1)
            return conn

        one, two = await raw("203.0.113.7"), await raw("203.0.113.8")
        try:
            codes = [(await one.request("login", name=f"nobody{i}", password="wrong-pass"))
                     ["code"] for i in range(21)]
            assert codes == ["bad_credentials"] * 20 + ["rate_limited"]
            other = await two.request("login", name="nobody", password="wrong-pass")
            assert other["code"] == "bad_credentials", "another client behind the same proxy"
            reg = await two.request("register", name="hugo", password=PW)
            assert reg["t"] == "registered"
            rows = (await two.request("sessions"))["sessions"]
            assert [r["address"] for r in rows] == ["203.0.113.8"]
        finally:
            await one.close()
            await two.close()
