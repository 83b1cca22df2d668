"""Issue 10: standings among non-winners (item 7), the ``ready`` event of ``daily.start``
(item C) and practice races that do not hold a human hostage (item 14)."""

from __future__ import annotations

import asyncio
from typing import Any

import harness
import pytest
from harness import RawConnection, running_server, ws_url
from solrace.client.library import Client
from solrace.server.game.races import standings
from solrace.server.store.records import RaceRecord
from test_daily import WIN_VARIANT, end_of, store_daily

pytestmark = pytest.mark.timeout(120)


def record(players: dict[str, dict[str, str]]) -> RaceRecord:
    order = list(players)
    return RaceRecord(rid="r" * 16, meta={"started_at": "0", "ends_at": "600000"},
                      order=order, names={p: p for p in order}, ready=set(order),
                      players=players)


def ranked(players: dict[str, dict[str, str]]) -> list[str]:
    return [r["player"] for r in standings(record(players))]


def test_doing_nothing_never_outranks_playing() -> None:
    """Equal cards home: the racer who resigned without a move ranks below one who played,
    whatever their seats (the old rule, fewer moves first, put the idle racer first)."""
    idle = {"result": "resigned", "moves": "0", "home": "0", "finished_at": "1000"}
    played = {"result": "resigned", "moves": "40", "home": "0", "finished_at": "90000"}
    timeout = {"moves": "120", "home": "0"}
    assert ranked({"idle": idle, "played": played}) == ["played", "idle"]
    assert ranked({"played": played, "idle": idle}) == ["played", "idle"]
    assert ranked({"idle": idle, "timeout": timeout, "played": played}) == [
        "timeout", "played", "idle"]


def test_non_winners_by_home_then_who_got_there_first_then_moves() -> None:
    early = {"result": "lost", "moves": "90", "home": "12", "progress_at": "50000"}
    late = {"result": "resigned", "moves": "30", "home": "12", "progress_at": "80000"}
    more_home = {"result": "lost", "moves": "5", "home": "13", "progress_at": "99000"}
    winner = {"result": "won", "moves": "200", "home": "52", "finished_at": "300000",
              "progress_at": "300000"}
    assert ranked({"late": late, "early": early, "more": more_home, "winner": winner}) == [
        "winner", "more", "early", "late"]


async def test_idle_resign_ranks_below_a_racer_who_played_end_to_end(redis_url: str) -> None:
    """A real race: alice resigns at once, bob draws a few cards (none home) and resigns."""
    async with running_server(redis_url) as server, \
            harness.clients(ws_url(server), "alice", "bob") as (alice, bob):
        race = await alice.create_race("unlimited", {})
        rid = race["race"]
        await bob.join(race=rid)
        await asyncio.gather(alice.ready(rid), bob.ready(rid))
        await harness_wait_running(alice, rid)
        await harness_wait_running(bob, rid)
        await alice.resign(rid)
        for _ in range(3):
            await bob.move(rid, "sw")
        await bob.resign(rid)
        end = await end_of(bob, rid)
        assert [r["name"] for r in end["standings"]] == ["bob", "alice"], end["standings"]
        harness.check_standings(end["standings"])


async def harness_wait_running(c: Client, rid: str) -> None:
    for _ in range(100):
        if rid in c.boards:
            return
        await c.sync(rid)
        await asyncio.sleep(0.05)
    raise AssertionError("the race did not start")


async def test_daily_start_sends_join_ready_countdown_start(redis_url: str) -> None:
    """docs/protocol.md 5.17: after the reply, the join, ready, countdown and start events."""
    await store_daily(redis_url)
    async with running_server(redis_url) as server:
        conn = await RawConnection.open(ws_url(server))
        await conn.hello("alice")
        await conn.request("register", password=harness.password_for("alice"))  # ranked
        reply = await conn.request("daily.start", variant=WIN_VARIANT)
        assert reply["t"] == "race", reply
        kinds: list[Any] = []
        async with asyncio.timeout(10):
            while len(kinds) < 4:
                msg = await conn.recv()
                if msg["t"] == "event":
                    kinds.append((msg["v"], msg["k"]))
        assert kinds == [(1, "join"), (2, "ready"), (3, "countdown"), (4, "start")], kinds
        await conn.close()


async def test_profile_counts_races_lost_too(redis_url: str, tmp_path: Any,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 9: a player who lost every race has played: ``profile`` counts finished races
    (``races``) whatever their result, and the CLI shows them instead of "nothing played"."""
    from solrace.client import cli

    monkeypatch.setenv("SOLRACE_HOME", str(tmp_path))
    async with running_server(redis_url) as server, \
            harness.clients(ws_url(server), "erin", "fred") as (erin, fred):
        for _ in range(2):
            race = await erin.create_race("unlimited", {})
            rid = race["race"]
            await fred.join(race=rid)
            await asyncio.gather(erin.ready(rid), fred.ready(rid))
            await harness_wait_running(erin, rid)
            await harness_wait_running(fred, rid)
            await erin.move(rid, "sw")
            await erin.resign(rid)
            await fred.resign(rid)
            await end_of(fred, rid)
        profile = await fred.request("profile")
        assert profile["stats"]["unlimited"]["races"] == 2, profile
        assert "wins" not in profile["stats"]["unlimited"]
        code = await asyncio.to_thread(cli.main, ["profile", "fred", "--server", ws_url(server),
                                                  "--name", "gina", "--no-color"])
        assert code == 0


def test_bots_move_at_a_persons_pace_as_documented() -> None:
    """Item 14: a bot's think time per move is a person's (a strong bot at about a move a
    second won before a person could read the board), and the documents say the same."""
    from pathlib import Path

    from solrace.server.game.bots import THINK
    from solrace.shared.solver.bots import Strength

    assert THINK == {Strength.WEAK: 4.0, Strength.MEDIUM: 3.0, Strength.STRONG: 2.0}
    docs = Path(__file__).resolve().parents[2] / "docs"
    protocol = " ".join((docs / "protocol.md").read_text().split())
    assert "about 4 s (weak), 3 s (medium) or 2 s (strong)" in protocol
    assert "about 4 s weak, 3 s medium, 2 s strong" in " ".join(
        (docs / "solver.md").read_text().split())


async def test_rivals_are_told_when_a_racer_disconnects_and_returns(redis_url: str) -> None:
    """Item 12: presence frames (never in the event log) tell a rival that a racer's last
    connection closed, and that they are back; an attaching racer learns everyone's state."""
    async with running_server(redis_url) as server, \
            harness.clients(ws_url(server), "hana", "ivan") as (hana, ivan):
        race = await hana.create_race("unlimited", {})
        rid = race["race"]
        await ivan.join(race=rid)
        first = await hana.next_event(t="presence", race=rid, player=ivan.player)
        assert first["online"] is True
        token = ivan.token
        assert token
        await ivan.close()
        gone = await hana.next_event(t="presence", race=rid, player=ivan.player)
        assert gone["online"] is False
        back = Client(ws_url(server), token=token)
        await back.connect()
        try:
            back.versions.setdefault(rid, 0)
            await back.sync(rid)
            seen = await back.next_event(t="presence", race=rid, player=hana.player)
            assert seen["online"] is True
            again = await hana.next_event(t="presence", race=rid, player=back.player)
            assert again["online"] is True
        finally:
            await back.close()
        events = (await hana.request("sync", race=rid, since=0))["events"]
        assert {e["k"] for e in events} == {"join"}, events  # nothing in the log


def test_a_random_deal_is_never_over_before_the_first_move(monkeypatch) -> None:
    """Seven by Five's seed rules deal seeds 3, 5 and 6 lost (no card can ever go home):
    a fresh race skips them and takes the first playable draw; a named seed is kept."""
    from solrace.server.game import racemodel
    from solrace.shared.engine import Game

    draws = iter([3, 5, 6, 4, 13])
    monkeypatch.setattr(racemodel.secrets, "randbits", lambda bits: next(draws))
    assert all(Game("seven-by-five", {}, s).is_over() for s in (3, 5, 6))
    assert not Game("seven-by-five", {}, 4).is_over()
    assert racemodel.playable_seed("seven-by-five", {}) == 4
    # never more than PLAYABLE_TRIES draws: all lost, the last one is used as it is
    draws = iter([3] * racemodel.PLAYABLE_TRIES + [4])
    assert racemodel.playable_seed("seven-by-five", {}) == 3
    assert next(draws) == 4


async def test_races_and_practice_open_on_a_playable_deal(redis_url: str) -> None:
    """End to end on the variant with the most deals lost as dealt (about 45 %): fresh races
    and practice games all start playable, while a practice seed the player names is dealt
    as it is, lost or not."""
    async with running_server(redis_url) as server, \
            harness.clients(ws_url(server), "alice") as (alice,):
        for _ in range(6):
            race = await alice.create_race("seven-by-five", {})
            secret = await harness.race_info(redis_url, race["race"])
            assert not secret.game().is_over(), secret.seed
            await alice.leave(race["race"])
            practice = await alice.practice_start("seven-by-five", bots=[])
            secret = await harness.race_info(redis_url, practice["race"])
            assert not secret.game().is_over(), secret.seed
            await alice.resign(practice["race"])
        named = await alice.practice_start("seven-by-five", bots=[], seed=3)
        assert (await harness.race_info(redis_url, named["race"])).seed == 3
