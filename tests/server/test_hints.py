"""Hints (``hint``, ``server/game/hints.py``): the solver's next move, in practice games only.

Real Redis, a real in-process server and the real solver in its worker process. Practice games
come from the daily tests' stored winnable deal (``store_daily``): a ranked attempt first
(resigned at once), then ``daily.start`` with ``practice``. Every hinted move is checked
against an engine replica of the deal, so "legal" and "wins" are the engine's word, not the
server's. The node budget is kept small (``HINT_BUDGET``) so each search is quick.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import harness
import pytest
from solrace.client.commands.play import hint_text
from solrace.client.library import Client, ClientError
from solrace.server.ops import metrics
from solrace.shared.engine import Game, Status
from test_daily import (  # the daily tests' helpers: a stored winnable daily, its winning line
    FAST,
    WIN_SEED,
    WIN_VARIANT,
    daily_start,
    end_of,
    play,
    register_cli,
    run_cli,
    store_daily,
    winning_line,
)

HINT_BUDGET = 3000
#: Moves of the pinned winning line left for the hints to finish.
LEFT_TO_HINTS = 12


async def error_of(call: Any) -> ClientError:
    with pytest.raises(ClientError) as err:
        await call
    return err.value


async def practice_game(c: Client) -> tuple[str, str]:
    """(ranked attempt, practice game) race ids: the attempt is resigned at once, since
    practice on the daily deal opens only after it is over."""
    ranked, is_ranked = await daily_start(c)
    assert is_ranked and ranked["kind"] == "daily"
    await c.resign(ranked["race"])
    await end_of(c, ranked["race"])
    practice, is_ranked = await daily_start(c, practice=True)
    assert not is_ranked and practice["kind"] == "practice"
    return ranked["race"], practice["race"]


def legal_texts(game: Game) -> set[str]:
    return {m.text() for m in game.legal_moves()}


def hints_counted(outcome: str) -> float:
    return metrics.sample_value("solrace_hints_total", outcome=outcome) or 0


async def test_following_hints_wins_a_practice_game(redis_url: str) -> None:
    await store_daily(redis_url)
    won_before = hints_counted("won")
    async with harness.running_server(redis_url, hint_budget=HINT_BUDGET, **FAST) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "hana") as (c,):
            _, rid = await practice_game(c)
            game = await harness.replica(redis_url, rid)
            assert (game.variant.name, game.seed) == (WIN_VARIANT, WIN_SEED)

            first = await c.hint(rid)
            assert first["t"] == "hint" and first["race"] == rid and first["seq"] == 0
            assert first["outcome"] == "won" and first["move"] in legal_texts(game)
            assert isinstance(first["par"], int) and first["par"] >= 1
            assert (await c.sync(rid))["board"]["seq"] == 0  # a hint is not a move

            line = winning_line()[:-LEFT_TO_HINTS]
            await play(c, rid, line)
            game.replay(line)
            ack: dict[str, Any] = {}
            for _ in range(4 * LEFT_TO_HINTS):  # the solver's line may be a little longer
                reply = await c.hint(rid)
                assert reply["seq"] == len(game.moves), reply
                assert reply["outcome"] == "won", reply
                assert reply["move"] in legal_texts(game), (reply, legal_texts(game))
                game.push(reply["move"])
                ack = await c.move(rid, reply["move"])
                assert ack["seq"] == len(game.moves)
                if ack["status"] != "playing":
                    break
            assert ack["status"] == "won" and game.status is Status.WON

            err = await error_of(c.hint(rid))  # the game is over (and so is the race)
            assert err.code == "already_finished"
    assert hints_counted("won") > won_before


async def test_hints_are_refused_outside_practice_games(redis_url: str) -> None:
    await store_daily(redis_url)
    async with harness.running_server(redis_url, hint_budget=HINT_BUDGET, **FAST) as server:
        url = harness.ws_url(server)
        racers, summary = await harness.start_race(url, redis_url, WIN_VARIANT, ["ida", "jon"])
        try:
            async with harness.accounts(url, "kim", "lou") as (kim, stranger):
                rid = summary["race"]
                for c in racers:  # a race between people, running: never a hint
                    assert (await error_of(c.hint(rid))).code == "not_practice"
                # a rated race: not_practice too
                rated = await kim.create_race(WIN_VARIANT, seats=2, rated=True)
                await stranger.join(race=rated["race"])
                for c in (kim, stranger):
                    await c.ready(rated["race"])
                await kim.wait_running(rated["race"])
                for c in (kim, stranger):
                    assert (await error_of(c.hint(rated["race"]))).code == "not_practice"
                    await c.resign(rated["race"])

                ranked, is_ranked = await daily_start(kim)  # the ranked daily attempt
                assert is_ranked
                assert (await error_of(kim.hint(ranked["race"]))).code == "not_practice"
                await play(kim, ranked["race"], winning_line()[:2])
                assert (await error_of(kim.hint(ranked["race"]))).code == "not_practice"
                await kim.resign(ranked["race"])
                await end_of(kim, ranked["race"])
                practice, _ = await daily_start(kim, practice=True)

                # someone else's practice game, or a race one is not in: not_in_race
                for race in (practice["race"], rid):
                    assert (await error_of(stranger.hint(race))).code == "not_in_race"
                err = await error_of(stranger.hint("0123456789abcdef"))
                assert err.code == "race_not_found"
                err = await error_of(stranger.request("hint", race=practice["race"], seq=0))
                assert err.code == "bad_message"
                # the owner still gets one: the refusals changed nothing
                assert (await kim.hint(practice["race"]))["outcome"] == "won"
        finally:
            await harness.close_all(racers)


async def test_one_hint_in_flight_per_connection_and_moves_go_on(redis_url: str) -> None:
    """The first hint of a server spawns its worker process (a fraction of a second at least),
    so a second hint and a move sent right behind it find it still in flight."""
    await store_daily(redis_url)
    async with harness.running_server(redis_url, hint_budget=HINT_BUDGET, **FAST) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "olga") as (c,):
            _, rid = await practice_game(c)
            game = await harness.replica(redis_url, rid)
            done: list[str] = []

            async def tagged(name: str, call: Any) -> Any:
                try:
                    return await call
                except ClientError as exc:
                    return exc
                finally:
                    done.append(name)

            first_move = winning_line()[0]
            hint, again, ack = await asyncio.gather(
                tagged("hint", c.hint(rid)), tagged("again", c.hint(rid)),
                tagged("move", c.move(rid, first_move, 0)))
            assert isinstance(again, ClientError) and again.code == "rate_limited"
            assert "hint" in again.reason
            assert ack["seq"] == 1
            assert done.index("move") < done.index("hint")  # the search did not hold it up
            assert hint["seq"] == 0 and hint["move"] in legal_texts(game)  # the old position
            game.push(first_move)
            later = await c.hint(rid)  # the slot is free again
            assert later["seq"] == 1 and later["move"] in legal_texts(game)


def test_hint_text() -> None:
    board = {"seq": 3, "view": {}}
    won = {"race": "r", "seq": 3, "move": "t3t5:2", "outcome": "won", "par": 40}
    assert hint_text(won, board) == "hint: t3t5:2 — a win in 40 moves from here"
    assert "(for the position after 2 moves)" in hint_text({**won, "seq": 2}, board)
    unknown = {"race": "r", "seq": 3, "move": None, "outcome": "unknown", "par": None}
    assert hint_text(unknown, board) == "no hint: no winning line found within the budget"
    lost = {**unknown, "outcome": "lost"}
    assert "proved this position lost" in hint_text(lost, board)


async def test_solrace_daily_hint_command_in_practice_only(redis_url: str, tmp_path: Path
                                                           ) -> None:
    await store_daily(redis_url)
    async with harness.running_server(redis_url, hint_budget=HINT_BUDGET, **FAST) as server:
        base = ("--server", harness.ws_url(server), "--name", "pia", "--no-color")
        await register_cli(tmp_path, harness.ws_url(server), "pia")
        code, out, err = await run_cli(tmp_path, "daily", *base, stdin="help\nhint\nresign\n")
        assert code == 0, err
        assert "hints are for practice games only" in out
        assert "commands: resign" in out and "hint (" not in out

        code, out, err = await run_cli(tmp_path, "daily", "--practice", *base,
                                       stdin="help\nhint\nresign\n")
        assert code == 0, err
        assert "commands: hint (the solver's next move)" in out
        hinted = [line for line in out.splitlines() if line.startswith("hint: ")]
        assert len(hinted) == 1, out
        move = hinted[0].split()[1]
        assert move in legal_texts(Game(WIN_VARIANT, None, WIN_SEED))
        assert "a win in" in hinted[0]



async def test_a_dead_worker_costs_one_hint_not_all_later_ones(redis_url: str) -> None:
    await store_daily(redis_url)
    async with harness.running_server(redis_url, hint_budget=HINT_BUDGET, **FAST) as server:
        url = harness.ws_url(server)
        async with harness.accounts(url, "quin") as (c,):
            _, rid = await practice_game(c)
            assert (await c.hint(rid))["outcome"] == "won"
            assert server.ctx is not None
            pool = server.ctx.hints.worker._pool
            assert pool is not None
            (pid,) = list(pool._processes)  # the one worker this test's server spawned
            os.kill(pid, signal.SIGKILL)
            err = await error_of(c.hint(rid))
            assert err.code == "internal"
            assert (await c.hint(rid))["outcome"] == "won"  # on a fresh worker
            assert server.ctx.hints.worker._pool is not pool
