"""Rated races under fair play: a held result holds its race's rating changes until cleared,
and a ban rebuilds the ratings of everyone the banned player met — the rebuild without I/O,
then end to end on a real server and Redis (single and cluster)."""

from __future__ import annotations

from typing import Any

import harness
import pytest
from solrace.client.library import Client, ClientError
from solrace.server.fairplay.ratings import log_entry, replay
from solrace.server.game.results import PendingRating, parse_rating, rating_text
from solrace.shared.ratings import Rating, update
from test_daily import FAST, eventually
from test_fairplay_e2e import admin

BACKENDS = ("single", "cluster")
A, B, C = Rating(1500, 350, 0.06), Rating(1620, 120, 0.06), Rating(1400, 80, 0.06)


def test_replay_rebuilds_without_the_excluded_players_games() -> None:
    log = [log_entry("r1", "unlimited", None, [("bad", A, 0.0)]),
           log_entry("r2", "unlimited", None, [("ok", B, 1.0), ("bad", A, 0.0)]),
           log_entry("r3", "unlimited", None, [("ok", C, 0.5)])]
    everything = update(update(update(Rating(), [(A, 0.0)]), [(B, 1.0), (A, 0.0)]), [(C, 0.5)])
    assert replay(log, set()) == (everything, 3)
    without = update(update(Rating(), [(B, 1.0)]), [(C, 0.5)])
    assert replay(log, {"bad"}) == (without, 2)  # r1 had no one else: it no longer counts
    assert replay(log, {"bad", "ok"}) == (Rating(), 0)
    start = parse_rating(rating_text(Rating(1710, 60, 0.059), 40))  # from before the log
    assert replay(log[2:], set(), start) == (update(start[0], [(C, 0.5)]), 41)


def test_a_pending_rating_survives_its_trip_through_redis() -> None:
    p = PendingRating("me", "1500.000,350.000,0.060000,0", "1540.000,300.000,0.060000,1",
                      [("you", B, 1.0), ("them", C, 0.5)])
    assert PendingRating.of(p.wire()) == p


async def play_and_resign(c: Client, rid: str, moves: int) -> None:
    """``moves`` legal moves at machine speed (the server's first listed one), then resign."""
    legal = list(c.boards[rid]["legal"])
    for _ in range(moves):
        ack = await c.move(rid, legal[0])
        legal = list(ack["legal"])
    await c.request("resign", race=rid)


async def race_between(url: str, fast: Any, slow: Any) -> str:
    """A rated race: ``fast`` makes 30 quick moves, ``slow`` none; both resign (fast ranks
    first: more moves with as many cards home)."""
    summary = await fast.create_race("unlimited", rated=True)
    rid = summary["race"]
    await slow.join(race=rid)
    for c in (fast, slow):
        await c.ready(rid)
    for c in (fast, slow):
        await c.wait_running(rid)
    await slow.request("resign", race=rid)
    await play_and_resign(fast, rid, 30)
    end = await fast.next_event(race=rid, k="end")
    assert [r["player"] for r in end["standings"]] == [fast.player, slow.player]
    return rid


async def rating_of(c: Client, name: str) -> dict[str, Any] | None:
    return (await c.request("profile", name=name))["ratings"].get("unlimited")


async def test_a_held_rated_result_holds_the_race_ratings_until_cleared(redis_url: str
                                                                        ) -> None:
    async with harness.running_server(redis_url, **FAST, fair_play="hold") as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "zoom", "calm", "mod") as (zoom, calm, mod):
            rid = await race_between(url, zoom, calm)
            await zoom.next_event(t="review")
            assert await rating_of(calm, "zoom") is None  # no rating applied, for anyone
            assert await rating_of(calm, "calm") is None
            assert admin(redis_url, "grant", "mod", "moderator").returncode == 0
            (case,) = (await mod.request("mod.queue"))["cases"]
            assert case["case"] == f"{rid}:{zoom.player}" and case["kind"] == "race"
            await mod.request("mod.clear", case=case["case"], reason="a fast human")
            won = await eventually(lambda: rating_of(calm, "zoom"), lambda r: r is not None)
            lost = await rating_of(calm, "calm")
            assert won["rating"] > 1500 > lost["rating"] and won["games"] == lost["games"] == 1


async def test_a_ban_rebuilds_the_ratings_of_everyone_the_player_met(redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server:  # nothing held here
        url = harness.ws_url(server)
        async with harness.accounts(url, "booster", "victim", "other", "mod") as (
                booster, victim, other, mod):
            await race_between(url, booster, victim)  # victim loses to the booster
            await race_between(url, victim, other)  # then beats someone else
            after_both = await eventually(lambda: rating_of(mod, "victim"),
                                          lambda r: r is not None and r["games"] == 2)
            assert admin(redis_url, "grant", "mod", "moderator").returncode == 0
            banned = await mod.request("mod.ban", player="booster", reason="boosting")
            assert banned["ratings_rebuilt"] == 1
            rebuilt = await rating_of(mod, "victim")
            # as if the race against the booster never happened: one game, a win
            alone = update(Rating(), [(Rating(), 1.0)])
            assert rebuilt["games"] == 1 and rebuilt["rating"] == round(alone.rating)
            assert rebuilt["rating"] > after_both["rating"]
            await mod.request("mod.unban", player="booster", reason="appeal")
            assert await rating_of(mod, "victim") == after_both



async def test_an_annulled_rated_race_counts_in_nobodys_rating(redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "win", "lose", "third", "mod") as (
                win, lose, third, mod):
            fixed = await race_between(url, win, lose)
            await race_between(url, lose, third)
            await eventually(lambda: rating_of(mod, "lose"),
                             lambda r: r is not None and r["games"] == 2)
            assert admin(redis_url, "grant", "mod", "moderator").returncode == 0
            out = await mod.request("mod.annul", race=fixed, reason="arranged result")
            assert out == {"t": "mod.annulled", "re": out["re"], "race": fixed,
                           "ratings_rebuilt": 2}
            assert (await rating_of(mod, "win"))["games"] == 0
            assert (await rating_of(mod, "win"))["rating"] == 1500
            alone = update(Rating(), [(Rating(), 1.0)])
            assert await rating_of(mod, "lose") == {
                **(await rating_of(mod, "lose")), "games": 1, "rating": round(alone.rating)}
            casual = await win.create_race("unlimited")
            await win.leave(casual["race"])
            with pytest.raises(ClientError) as err:  # not finished, nothing ranked
                await mod.request("mod.annul", race=casual["race"], reason="x")
            assert err.value.code == "bad_message"
            with pytest.raises(ClientError) as err:
                await mod.request("mod.annul", race="0123456789abcdef", reason="x")
            assert err.value.code == "race_not_found"
