"""``winnable`` (docs/protocol.md 5.26): the practice page's "still winnable?" check, on a
real server with the real solver — a deal proved lost says ``lost``, a won one ``winnable`` with
the hidden-card claim, the answer follows the position (``seq``), and the check is refused in
races, ranked daily attempts and tournaments, as hints are."""

from __future__ import annotations

from typing import Any

import harness
import pytest
from solrace.client.library import ClientError
from solrace.shared.learning.winnable import CLAIM_HIDDEN, CLAIM_LOST
from test_daily import FAST, WIN_VARIANT, daily_start, store_daily

BACKENDS = ("single", "cluster")
DRAW1 = {"draw": "1"}
LOST_SEED = 37  # tests/shared/test_learning_winnable.py: proved lost from the deal
WON_SEED = 2  # won within 3 000 nodes


async def error_of(call: Any) -> ClientError:
    with pytest.raises(ClientError) as err:
        await call
    return err.value


async def test_the_check_in_practice_games(redis_url: str) -> None:
    async with harness.running_server(redis_url, hint_budget=20_000, **FAST) as server, \
            harness.clients(harness.ws_url(server), "pia") as (pia,):
        lost = await pia.practice_start("unlimited", DRAW1, seed=LOST_SEED)
        rid = lost["race"]
        got = await pia.winnable(rid)
        assert got == {**got, "race": rid, "seq": 0, "outcome": "lost", "claim": CLAIM_LOST,
                       "nodes": 20_000}
        ack = await pia.move(rid, "sw")  # lost stays lost, for the position after the move
        after = await pia.request("winnable", race=rid, within=30)
        assert (after["seq"], after["outcome"]) == (ack["seq"], "lost")
        await pia.resign(rid)
        assert (await error_of(pia.request("winnable", race=rid))).code == "already_finished"

        won = await pia.practice_start("unlimited", DRAW1, seed=WON_SEED)
        got = await pia.request("winnable", race=won["race"], within=30)
        assert (got["seq"], got["outcome"], got["claim"]) == (0, "winnable", CLAIM_HIDDEN)
        assert "move" not in got  # whether, never how: no move is named
        await pia.resign(won["race"])


async def test_the_check_is_refused_outside_practice_games(redis_url: str) -> None:
    await store_daily(redis_url)
    async with harness.running_server(redis_url, **FAST) as server:
        url = harness.ws_url(server)
        racers, summary = await harness.start_race(url, redis_url, WIN_VARIANT, ["ida", "jon"])
        try:
            for c in racers:  # a race between people: never
                err = await error_of(c.request("winnable", race=summary["race"]))
                assert err.code == "not_practice" and "still winnable" in err.reason
            async with harness.accounts(url, "kim") as (kim,):
                ranked, is_ranked = await daily_start(kim)  # the ranked daily attempt
                assert is_ranked
                err = await error_of(kim.request("winnable", race=ranked["race"]))
                assert err.code == "not_practice"
                await kim.resign(ranked["race"])

                t = await kim.tournament_create("No peeking", "unlimited", minutes=10,
                                                deal_seconds=60)
                await kim.tournament_join(t["tournament"])
                deal = await kim.tournament_play(t["tournament"])
                rid = deal["race"]["race"]
                await kim.wait_running(rid)
                err = await error_of(kim.request("winnable", race=rid))
                assert err.code == "not_practice"
                await kim.resign(rid)
        finally:
            await harness.close_all(racers)
