"""Spectating a tournament (docs/tournaments.md, "Spectators"): the standings name the
leaders' live deals; a named non-entrant watches one, delayed, and sees no card the deal did
not deal face up — not even in the end's boards; an entrant may not watch, a watcher may not
enter, an anonymous connection may not watch, and a finished deal waits for the end of the
tournament — real server, real Redis (single and cluster)."""

from __future__ import annotations

import asyncio
from typing import Any

import harness
import pytest
from solrace.client.library import Client, ClientError
from solrace.shared.engine import Game
from solrace.shared.views import view_of

BACKENDS = ("single", "cluster")
VARIANT, OPTIONS = "unlimited", {"draw": "1"}  # face-down cards and a stock to hide
FAST: dict[str, Any] = {"rate": 1000.0, "burst": 1000, "spectator_delay": 0.5}


def faces(obj: Any) -> set[str]:
    """Every card face a frame shows (pile views are [down, [cards]])."""
    out: set[str] = set()
    if isinstance(obj, dict):
        if "piles" in obj and isinstance(obj["piles"], dict):
            for pile in obj["piles"].values():
                out |= {c for c in pile[1] if c != "??"}
        for value in obj.values():
            out |= faces(value)
    elif isinstance(obj, list):
        for value in obj:
            out |= faces(value)
    return out


async def test_a_spectator_sees_the_leaders_deals_masked(redis_url: str) -> None:
    async with harness.running_server(redis_url, **FAST) as server, \
            harness.accounts(harness.ws_url(server), "cy", "spy") as (cy, spy):
        url = harness.ws_url(server)
        t = await cy.tournament_create("Watched arena", VARIANT, OPTIONS, minutes=10,
                                       deal_seconds=120)
        tid = t["tournament"]
        await cy.tournament_join(tid)
        rid = (await cy.tournament_play(tid))["race"]["race"]
        await cy.wait_running(rid)
        secrets = await harness.race_info(redis_url, rid)
        dealt = faces(view_of(Game(VARIANT, OPTIONS, secrets.seed)).wire())

        # the standings name the leader's live deal
        rows = (await spy.tournament_standings(tid))["rows"]
        assert (rows[0]["player"], rows[0]["race"], rows[0]["deal"]) == (cy.player, rid, 1)

        # an entrant may not watch (another connection of cy), nor an anonymous one
        anon = Client(url)
        other = Client(url)
        other.token = cy.token
        try:
            await anon.connect()
            with pytest.raises(ClientError) as err:
                await anon.request("watch", race=rid)
            assert err.value.code == "not_watchable" and err.value.extra["detail"] == "needs_name"
            await other.connect()
            with pytest.raises(ClientError) as err:
                await other.request("watch", race=rid)
            assert err.value.code == "not_watchable" and err.value.extra["detail"] == "entrant"
        finally:
            await anon.close()
            await other.close()

        watching = await spy.request("watch", race=rid)
        assert watching["delay"] == 0.5
        seen = faces(watching)
        # cy plays moves that turn cards up (draws from the stock, flips on the tableau)
        game = Game(VARIANT, OPTIONS, secrets.seed)
        turned = set()
        for _ in range(25):
            legal = cy.boards[rid].get("legal") or []
            if not legal:
                break
            move = next((m for m in legal if m == "sw"), legal[0])
            await cy.move(rid, move)
            game.push(move)
            turned |= faces(view_of(game).wire())
        assert turned - dealt, "the moves turned no card up: the test shows nothing"
        await cy.resign(rid)
        async with asyncio.timeout(10):  # the delayed frames, through the end
            while True:
                ev = await spy.next_event(race=rid)
                seen |= faces(ev)
                if ev.get("k") == "end":
                    break
        assert seen <= dealt  # no card the deal did not deal face up, end boards included

        # a watcher may not enter; a finished deal waits for the end of the tournament
        with pytest.raises(ClientError) as err:
            await spy.tournament_join(tid)
        assert err.value.code == "watched"
        with pytest.raises(ClientError) as err:
            await spy.request("watch", race=rid)
        assert err.value.code == "not_watchable" and err.value.extra["detail"] == "not_live"
