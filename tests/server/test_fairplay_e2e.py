"""Fair play end to end (docs/fairplay.md): a scripted ranked daily win is held, a moderator
clears or bans, every decision is audited — real server processes, real Redis (single and
cluster). The servers here run with the product's default ``--fair-play hold``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any

import harness
import pytest
from solrace.client.library import Client, ClientError
from test_daily import FAST, WIN_VARIANT, daily_start, end_of, eventually, play, store_daily
from test_daily import winning_line as daily_line

BACKENDS = ("single", "cluster")
HOLD: dict[str, Any] = {**FAST, "fair_play": "hold"}


def admin(redis_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``solrace-server admin …`` as an operator runs it (a separate process)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLRACE_")}
    return subprocess.run(
        [sys.executable, "-m", "solrace.server", "admin", "--redis-url", redis_url, *args],
        capture_output=True, text=True, env=env, timeout=60)


async def board(c: Client, **extra: Any) -> dict[str, Any]:
    return await c.request("leaderboard", variant=WIN_VARIANT, **extra)


async def instant_win(c: Client) -> str:
    """The cheater's script: start the ranked daily and play a winning line at full speed."""
    race, ranked = await daily_start(c)
    assert ranked
    ack = await play(c, race["race"], daily_line())
    assert ack["status"] == "won"
    (row,) = (await end_of(c, race["race"]))["standings"]
    assert row["result"] == "won"
    return str(race["race"])


async def test_a_scripted_daily_win_is_held_until_a_moderator_clears_it(redis_url: str) -> None:
    day = await store_daily(redis_url)
    async with harness.running_server(redis_url, **HOLD) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "cheater", "mia", "viewer") as (bot, mia, viewer):
            rid = await instant_win(bot)
            note = await bot.next_event(t="review")  # the player is told, nothing more
            assert note == {"t": "review", "race": rid, "status": "held"}
            # another connection reads the public board: the result is not there
            public = await board(viewer)
            assert public["total"] == 0 and public["rows"] == []
            assert public["provisional"] is True and public["review_until"] > 0
            mine = await board(bot)
            assert mine["my_review"] == "held" and mine["my_rank"] is None
            assert mine["my_row"]["result"] == "won" and "score" not in mine["my_row"]
            info = await bot.request("daily", variant=WIN_VARIANT)
            assert info["attempt_review"] == "held"
            # nor does the public profile show its time, wins or streak
            assert (await viewer.request("profile", name="cheater"))["stats"] == {}
            # no role: every moderator request is refused, whatever the request says
            for kind, fields in (("mod.queue", {}), ("mod.case", {"case": f"{rid}:x"}),
                                 ("mod.clear", {"case": f"{rid}:x", "reason": "r"})):
                with pytest.raises(ClientError) as err:
                    await mia.request(kind, **fields)
                assert err.value.code == "forbidden"
            # the operator grants the role; it takes effect on the next request
            done = admin(redis_url, "grant", "mia", "moderator")
            assert done.returncode == 0, done.stderr
            assert done.stdout.strip() == "mia: moderator"
            (case,) = (await mia.request("mod.queue"))["cases"]
            assert case["case"] == f"{rid}:{bot.player}" and case["name"] == "cheater"
            assert "instant_play" in case["fired"] and case["score"] >= 1.0
            full = (await mia.request("mod.case", case=case["case"]))["case"]
            signals = {s["name"]: s for s in full["score"]["signals"]}
            assert signals["instant_play"]["fired"]
            assert signals["instant_play"]["value"] < signals["instant_play"]["threshold"]
            assert len(full["evidence"]["think_ms"]) == full["evidence"]["actions"] - 1
            assert full["evidence"]["moves"] == len(daily_line())
            with pytest.raises(ClientError) as err:  # a decision needs a reason
                await mia.request("mod.clear", case=case["case"], reason=" ")
            assert err.value.code == "bad_message"
            cleared = await mia.request("mod.clear", case=case["case"], reason="known player")
            assert cleared["status"] == "clear"
            assert (await bot.next_event(t="review"))["status"] == "clear"
            public = await board(viewer)
            assert public["total"] == 1
            (row,) = public["rows"]
            assert row["rank"] == 1 and row["player"] == bot.player and row["result"] == "won"
            assert (await mia.request("mod.queue"))["cases"] == []
            assert (await board(bot))["my_review"] == "clear"
            stats = (await viewer.request("profile", name="cheater"))["stats"][WIN_VARIANT]
            assert stats["dailies"] == 1 and stats["daily_wins"] == 1 and stats["wins"] == 1
            assert stats["best_time"] == row["time"]
            with pytest.raises(ClientError) as err:  # once: a cleared case is not held
                await mia.request("mod.clear", case=case["case"], reason="again")
            assert err.value.code == "bad_message"
    assert day


async def test_an_honest_short_attempt_is_listed_at_once(redis_url: str) -> None:
    """Few actions say nothing about a person: the signals need a whole game, so a short
    attempt (here, resigned after three moves) is never held."""
    await store_daily(redis_url)
    async with harness.running_server(redis_url, **HOLD) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "honest", "viewer") as (me, viewer):
            race, _ = await daily_start(me)
            await play(me, race["race"], daily_line()[:3])
            await me.request("resign", race=race["race"])
            public = await eventually(lambda: board(viewer), lambda b: b["total"] == 1)
            assert [r["player"] for r in public["rows"]] == [me.player]
            assert (await board(me))["my_review"] == "clear"


async def test_a_ban_ends_sessions_removes_results_and_is_audited(redis_url: str) -> None:
    await store_daily(redis_url)
    async with harness.running_server(redis_url, **{**HOLD, "fair_play": "record"}) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "booster", "boss", "mod", "viewer") as (
                cheat, boss, mod, viewer):
            rid = await instant_win(cheat)  # recorded, listed (record mode)
            assert (await eventually(lambda: board(viewer), lambda b: b["total"] == 1))["total"]
            assert admin(redis_url, "grant", "boss", "admin").returncode == 0
            assert admin(redis_url, "grant", "mod", "moderator").returncode == 0
            banned = await mod.request("mod.ban", player="booster", reason="solver bot")
            assert banned["removed"] == 1 and banned["sessions"] >= 1
            assert (await board(viewer))["total"] == 0
            # the banned account's connection is told and closed; its token is dead
            await cheat.next_event(t="closed", timeout=10)
            again = Client(url, token=cheat.token)
            with pytest.raises(ClientError) as err:
                await again.connect()
            assert err.value.code == "bad_token"
            await again.close()
            fresh = Client(url)
            await fresh.connect()
            with pytest.raises(ClientError) as err:
                await fresh.login("booster", harness.password_for("booster"))
            assert err.value.code == "banned"
            await fresh.close()
            with pytest.raises(ClientError) as err:  # a wrong password still says only that
                fresh = Client(url)
                await fresh.connect()
                try:
                    await fresh.login("booster", "not-the-password-at-all")
                finally:
                    await fresh.close()
            assert err.value.code == "bad_credentials"
            # a warning reaches the player's open connections and is audited
            async with harness.accounts(url, "rude") as (rude,):
                warned = await mod.request("mod.warn", player="rude", reason="mind the chat")
                assert warned["warnings"] == 1
                assert (await rude.next_event(t="warning"))["reason"] == "mind the chat"
            # the audit log is for admins
            with pytest.raises(ClientError) as err:
                await mod.request("mod.audit")
            assert err.value.code == "forbidden"
            unbanned = await mod.request("mod.unban", player="booster", reason="appeal won")
            assert unbanned["restored"] == 1
            assert (await board(viewer))["total"] == 1
            entries = (await boss.request("mod.audit"))["entries"]
            assert [(e["by"], e["action"], e["target"]) for e in entries] == [
                ("mod", "unban", "booster"), ("mod", "warn", "rude"), ("mod", "ban", "booster"),
                ("operator", "grant", "mod"), ("operator", "grant", "boss")]
            assert entries[2]["reason"] == "solver bot"
            older = (await boss.request("mod.audit", limit=2, before=entries[2]["id"]))
            assert [e["id"] for e in older["entries"]] == [e["id"] for e in entries[3:]]
            # annulling the daily attempt takes it off the board for good
            annulled = await mod.request("mod.annul", race=rid, reason="shared account")
            assert annulled["removed"] == 1 and (await board(viewer))["total"] == 0


async def test_roles_come_only_from_the_operator(redis_url: str) -> None:
    async with harness.running_server(redis_url, **HOLD) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "eve") as (eve,):
            for kind in ("mod.grant", "admin", "roles", "account.roles"):
                with pytest.raises(ClientError) as err:
                    await eve.request(kind, player="eve", role="admin")
                assert err.value.code == "unknown_type"
            with pytest.raises(ClientError) as err:
                await eve.request("mod.queue")
            assert err.value.code == "forbidden"
            out = admin(redis_url, "grant", "Eve", "admin")
            assert out.returncode == 0 and out.stdout.strip() == "eve: moderator,admin"
            assert (await eve.request("mod.queue"))["cases"] == []
            out = admin(redis_url, "revoke", "eve", "admin")
            assert out.returncode == 0 and out.stdout.strip() == "eve: no roles"
            with pytest.raises(ClientError) as err:  # revoked: refused at once
                await eve.request("mod.queue")
            assert err.value.code == "forbidden"
            missing = admin(redis_url, "grant", "nobody", "moderator")
            assert missing.returncode == 1 and "no account called nobody" in missing.stderr
    await asyncio.sleep(0)


async def test_reports_are_limited_seen_by_moderators_and_feed_the_score(redis_url: str
                                                                         ) -> None:
    await store_daily(redis_url)
    async with harness.running_server(redis_url, **HOLD) as server:
        url = harness.ws_url(server)
        names = ("suspect", "ann", "ben", "mod", *(f"spam{i}" for i in range(6)))
        async with harness.accounts(url, *names) as (suspect, ann, ben, mod, *_):
            guest = Client(url, name="lurker")
            await guest.connect()
            with pytest.raises(ClientError) as err:  # accounts only
                await guest.request("report", player="suspect", category="cheating")
            assert err.value.code == "account_required"
            await guest.close()
            for bad, code in (({"player": "ann", "category": "rude"}, "bad_message"),
                              ({"player": "nobody", "category": "other"}, "player_not_found"),
                              ({"player": "ANN", "category": "other"}, "bad_message")):
                with pytest.raises(ClientError) as err:
                    await ann.request("report", **bad)
                assert err.value.code == code, bad
            ok = await ann.request("report", player="5uspect", category="cheating",
                                   note="0.1 s per move")
            assert ok == {"t": "reported", "re": ok["re"], "player": "suspect"}
            with pytest.raises(ClientError) as err:  # one open report per pair
                await ann.request("report", player="suspect", category="other")
            assert err.value.code == "already_reported"
            await ben.request("report", player="suspect", category="boosting")
            for name in ("ben", "mod", "spam0", "spam1"):  # ann: 5 an hour at most
                await ann.request("report", player=name, category="other")
            with pytest.raises(ClientError) as err:
                await ann.request("report", player="spam2", category="other")
            assert err.value.code == "rate_limited" and err.value.extra["retry_after"] > 0
            assert admin(redis_url, "grant", "mod", "moderator").returncode == 0
            listed = (await mod.request("mod.reports"))["players"]
            top = listed[0]
            assert top["player"] == suspect.player and top["reports"] == 2
            assert top["name"] == "suspect"
            assert top["categories"] == ["boosting", "cheating"]
            on = await mod.request("mod.reports", player="suspect")
            assert [r["name"] for r in on["reports"]] == ["ann", "ben"]
            assert on["reports"][0]["note"] == "0.1 s per move"
            # two open reports count in the suspect's next ranked result
            await instant_win(suspect)
            await suspect.next_event(t="review")  # held (screened just after the end)
            (case,) = (await mod.request("mod.queue"))["cases"]
            assert case["reports"] == 2
            full = (await mod.request("mod.case", case=case["case"]))["case"]
            fired = {s["name"] for s in full["score"]["signals"] if s["fired"]}
            assert "reported" in fired and full["history"]["open_reports"] == 2
            assert len(full["reports"]) == 2
            # a ban closes them; the reporters are never told anything
            await mod.request("mod.ban", player="suspect", reason="reports and evidence")
            assert all(p["player"] != suspect.player
                       for p in (await mod.request("mod.reports"))["players"])


async def test_a_screening_fault_never_costs_a_player_the_result(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from solrace.server.fairplay.service import FairPlayService

    async def broken(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("a bug in screening")

    monkeypatch.setattr(FairPlayService, "screen_daily", broken)
    await store_daily(redis_url)
    async with harness.running_server(redis_url, **HOLD) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "lucky", "viewer") as (me, viewer):
            race, _ = await daily_start(me)
            await me.request("resign", race=race["race"])
            public = await eventually(lambda: board(viewer), lambda b: b["total"] == 1)
            assert [r["player"] for r in public["rows"]] == [me.player]
