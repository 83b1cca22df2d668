"""A retry of the move that ended a game — answered ``unavailable`` although the store had
logged it (as with ``--wait-replicas`` and a stalled replica) — is the duplicate ack every
retry is (docs/protocol.md section 9.1), not ``already_finished``, whether the race is still
running or over. Real server, real Redis; the store's failure after the append is simulated.
"""

from __future__ import annotations

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
