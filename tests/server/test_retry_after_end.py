"""A retry of the move that ended a game — answered ``unavailable`` although the store had
logged it (as with ``--wait-replicas`` and a stalled replica) — is the duplicate ack every
retry is (docs/protocol.md section 9.1), not ``already_finished``, whether the race is still
running or over. Real server, real Redis; the store's failure after the append is simulated.
"""

from __future__ import annotations

import asyncio
from typing import Any

import harness
import pytest
from solrace.client.library import ClientError
from solrace.server.store import ReplicationLag
from test_daily import FAST, daily_start, play, store_daily
from test_daily import winning_line as daily_line

BACKENDS = ("single", "cluster")


async def test_the_retried_winning_move_of_a_daily_is_a_duplicate(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    await store_daily(redis_url)
    async with harness.running_server(redis_url, **FAST) as server:
        races = server.ctx.races
        store = server.ctx.store
        # the path a server with --wait-replicas takes: no synchronous start
        monkeypatch.setattr(races, "move_now", lambda *a, **k: None)
        original = store.append_move
        line = daily_line()
        calls: dict[str, int] = {"lag": 0}

        async def lagging(*args: Any, **kwargs: Any) -> Any:
            res = await original(*args, **kwargs)
            if args[3] == line[-1] and args[2] == len(line) - 1 and not calls["lag"]:
                calls["lag"] += 1  # logged, but the replica did not confirm it in time
                raise ReplicationLag("0 of 1 replicas acknowledged")
            return res
        monkeypatch.setattr(store, "append_move", lagging)
        async with harness.accounts(harness.ws_url(server), "ann") as (ann,):
            race, _ = await daily_start(ann)
            rid = race["race"]
            await play(ann, rid, line[:-1])
            with pytest.raises(ClientError) as err:
                await ann.request("move", race=rid, seq=len(line) - 1, move=line[-1])
            assert err.value.code == "unavailable"
            again = await ann.request("move", race=rid, seq=len(line) - 1, move=line[-1])
            assert again["duplicate"] is True and again["seq"] == len(line), again
            assert again["move"] == line[-1] and again["view"]["status"] == "won"
            # a different move at that seq is refused as before: the game is over
            with pytest.raises(ClientError) as err:
                await ann.request("move", race=rid, seq=len(line) - 1, move="sw")
            assert err.value.code in ("not_running", "stale_seq", "already_finished")
            # and from a process with nothing cached (the race has ended): still a duplicate
            races.games.clear()
            later = await ann.request("move", race=rid, seq=len(line) - 1, move=line[-1])
            assert later["duplicate"] is True and later["seq"] == len(line)


async def test_a_retried_move_leaves_no_hole_in_the_movers_versions(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A move logged but answered ``unavailable``: its progress event was skipped for the
    mover (the ack stands for it) and no ack came. The retry's duplicate ack carries the
    event's version, and a ``sync`` on the same connection gives the event: with the acks'
    versions, the connection sees every version of the race (docs/protocol.md section 8)."""
    await store_daily(redis_url)
    async with harness.running_server(redis_url, **FAST) as server:
        store = server.ctx.store
        line = daily_line()
        original = store.submit_move
        failed: list[int] = []

        def lagging(*args: Any, **kwargs: Any) -> Any:
            fut = original(*args, **kwargs)
            if args[2] != 5 or failed:
                return fut

            async def after() -> Any:
                await fut  # logged: then the reply is lost
                failed.append(1)
                raise ReplicationLag("0 of 1 replicas acknowledged")
            return asyncio.ensure_future(after())
        monkeypatch.setattr(store, "submit_move", lagging)
        async with harness.accounts(harness.ws_url(server), "bo") as (bo,):
            race, _ = await daily_start(bo)
            rid = race["race"]
            for move in line[:5]:
                await bo.move(rid, move)
            with pytest.raises(ClientError) as err:
                await bo.request("move", race=rid, seq=5, move=line[5])
            assert err.value.code == "unavailable" and failed
            again = await bo.request("move", race=rid, seq=5, move=line[5])
            assert again["duplicate"] is True and isinstance(again["v"], int)
            for i, move in enumerate(line[6:10], start=6):
                await bo.request("move", race=rid, seq=i, move=move)
            synced = await bo.request("sync", race=rid, since=0)
            events = {e["v"]: e for e in synced["events"]}
            assert again["v"] in events, sorted(events)  # the one no ack carried
            lost = events[again["v"]]
            assert lost["k"] == "progress" and lost["player"] == bo.player
            assert lost["moves"] == 6
            # the moves acknowledged normally are not sent again (their acks carried them)
            assert not [e for e in events.values()
                        if e.get("player") == bo.player and e["moves"] != 6]
