"""Practice races against server bots (``practice.start``, ``server/game/bots.py``).

Real Redis, real servers (in-process, and child processes for the crash test), real clients.
The bots' moves are checked after the fact by replaying their durable logs through the engine:
a bot move that the server had not validated could not replay. Bots think for no time here
(``bot_delay`` 0) unless a test needs them to be slow enough to interrupt.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aredis
from harness import (
    Racer,
    RawConnection,
    RecordingClient,
    check_standings,
    choose_move,
    clients,
    close_all,
    race_info,
    read_log,
    redis_client,
    running_server,
    two_processes,
    ws_url,
)
from solrace.client.library import Client, ClientError
from solrace.server.game.races import Player
from solrace.server.store import Keys
from solrace.shared.engine import Game, Status
from solrace.shared.pointing import legal_texts
from solrace.shared.prng import commitment
from solrace.shared.protocol import ProtocolError
from solrace.shared.views import view_of

BACKENDS = ("single", "cluster")  # every test with redis_url runs on both (conftest.py)

pytestmark = pytest.mark.timeout(120)

REAL_PID = re.compile(r"^[0-9a-f]{16}$")
# Deals the bots finish quickly: every Sixes and Sevens game ends within a few hundred moves
# (seed 1: the medium bot wins in 157); the strong bot wins Unlimited seed 2 in about 150.
QUICK = ("sixes-and-sevens", 1)
STRONG_WIN = ("unlimited", 2)


async def redis_call(redis_url: str, fn: Callable[[aredis.Redis], Awaitable[Any]]) -> Any:
    r = redis_client(redis_url, decode=True)
    try:
        return await fn(r)
    finally:
        await r.aclose()


async def until(check: Callable[[], Awaitable[Any]], timeout: float = 20.0,
                pause: float = 0.05) -> Any:
    """Poll ``check`` until it returns something truthy; that value."""
    async with asyncio.timeout(timeout):
        while True:
            value = await check()
            if value:
                return value
            await asyncio.sleep(pause)


def bots_of(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["player"]: r for r in summary["racers"] if "bot" in r}


async def check_bot_games(redis_url: str, rid: str, end: dict[str, Any]) -> dict[str, Game]:
    """Every bot's durable log replays through the engine to what the standings say."""
    info = await race_info(redis_url, rid)
    games = {}
    for row in end["standings"]:
        if not row["player"].startswith("bot-"):
            continue
        game = info.game()
        game.replay(await read_log(redis_url, rid, row["player"]))  # raises on an illegal move
        assert row["moves"] == len(game.moves) > 0, row
        assert row["home"] == game.cards_home, row
        if row["result"] in ("won", "lost"):
            assert game.status.value == row["result"], (row, game.status)
        else:
            assert row["result"] == "resigned" and game.status is Status.PLAYING, row
        games[row["player"]] = game
    return games


async def end_of(c: Client, rid: str, timeout: float = 60.0) -> dict[str, Any]:
    return await c.next_event(timeout, t="event", race=rid, k="end")


# ----------------------------------------------------------------------------- a practice race


async def test_practice_against_a_weak_and_a_medium_bot(redis_url: str) -> None:
    variant, seed = QUICK
    async with (
        running_server(redis_url, bot_delay=0.0) as server,
        clients(ws_url(server), "alice", cls=RecordingClient) as (alice,),
    ):
        summary = await alice.practice_start(variant, bots=["weak", "medium"], seed=seed)
        rid = summary["race"]
        assert summary["kind"] == "practice" and not summary["rated"]
        assert summary["seats"] == 3 and summary["state"] == "running"
        assert summary["commitment"] == commitment(seed)
        assert summary["racers"][0] == {"player": alice.player, "name": "alice",
                                        "ready": True}
        bots = bots_of(summary)
        assert sorted((r["bot"], r["name"]) for r in bots.values()) == [
            ("medium", "medium bot"), ("weak", "weak bot")]
        for pid in bots:  # never a real player's id
            assert pid.startswith("bot-") and not REAL_PID.match(pid)
        assert REAL_PID.match(alice.player)

        board = await alice.wait_running(rid)
        game = (await race_info(redis_url, rid)).game()
        assert board == {"seq": 0, "view": view_of(game).wire(), "legal": legal_texts(game)}
        racer = Racer(alice, rid, game)
        assert await racer.play(3) == 3  # the human's game is an ordinary one
        await alice.resign(rid)
        end = await end_of(alice, rid)

        assert end["reason"] == "done"
        assert end["seed"] == seed and commitment(end["seed"]) == end["commitment"]
        check_standings(end["standings"])
        rows = {r["player"]: r for r in end["standings"]}
        assert set(rows) == {alice.player, *bots}
        assert rows[alice.player]["result"] == "resigned"
        assert rows[alice.player]["moves"] == 3
        for pid, r in bots.items():
            assert rows[pid]["name"] == r["name"]
        games = await check_bot_games(redis_url, rid, end)
        assert set(games) == set(bots)
        # The bots' progress reached the human live, like a human rival's, each version
        # once and in order, and never with a board (racers see no rival's moves).
        for pid, game in games.items():
            seen = [e for e in alice.raw_events
                    if e.get("k") == "progress" and e.get("player") == pid]
            assert seen and seen[-1]["moves"] == len(game.moves)
            assert not any("move" in e or "delta" in e for e in seen)
        versions = alice.versions_seen(rid)
        assert versions == sorted(set(versions))

        # Practice counts nowhere, and the race's bookkeeping is gone with it.
        profile = await alice.request("profile")
        assert profile["ratings"] == {} and profile["stats"] == {}
        keys = await redis_call(redis_url, lambda r: r.keys("sr:*"))
        assert not [k for k in keys if k.startswith(("sr:stats:", "sr:rating:", "sr:lb:"))]
        assert await redis_call(redis_url, lambda r: r.zcard(Keys.BOT_RACES)) == 0
        assert not await redis_call(redis_url, lambda r: r.exists(Keys.bot_lease(rid)))
        live = await alice.request("races.live")
        assert live["races"] == []
        assert server.ctx is not None and server.ctx.bots.driving() == []


async def test_a_strong_bot_wins_an_easy_deal(redis_url: str) -> None:
    variant, seed = STRONG_WIN
    async with (
        running_server(redis_url, bot_delay=0.0) as server,
        clients(ws_url(server), "alice") as (alice,),
    ):
        summary = await alice.practice_start(variant, bots=["strong"], seed=seed,
                                             time_limit=300)
        rid = summary["race"]
        ((pid, racer),) = bots_of(summary).items()
        assert racer["name"] == "strong bot" and racer["bot"] == "strong"
        await alice.wait_running(rid)
        await alice.resign(rid)
        end = await end_of(alice, rid, timeout=90)
        first = end["standings"][0]
        assert (first["player"], first["result"], first["home"]) == (pid, "won", 52)
        games = await check_bot_games(redis_url, rid, end)
        assert games[pid].status is Status.WON
        assert end["seed"] == seed


async def test_no_bots_is_a_solo_practice_game_with_a_revealed_seed(redis_url: str) -> None:
    async with (
        running_server(redis_url, bot_delay=0.0) as server,
        clients(ws_url(server), "alice") as (alice,),
    ):
        summary = await alice.practice_start("unlimited", {"draw": "3"}, time_limit=30)
        rid = summary["race"]
        assert summary["seats"] == 1 and summary["options"]["draw"] == "3"
        assert bots_of(summary) == {}
        await alice.wait_running(rid)
        await alice.resign(rid)
        end = await end_of(alice, rid)
        assert commitment(end["seed"]) == summary["commitment"]
        assert await redis_call(redis_url, lambda r: r.zcard(Keys.BOT_RACES)) == 0


async def test_bad_practice_requests_are_refused(redis_url: str) -> None:
    async with running_server(redis_url, bot_delay=0.0) as server:
        raw = await RawConnection.open(ws_url(server))
        try:
            await raw.hello("alice")
            cases = [
                ({"bots": ["expert"]}, "bad_option"),
                ({"bots": ["weak"] * 8}, "bad_option"),
                ({"bots": [3]}, "bad_option"),
                ({"bots": "weak"}, "bad_message"),
                ({"time_limit": 29}, "bad_option"),
                ({"time_limit": 3601}, "bad_option"),
                ({"seed": -1}, "bad_option"),
                ({"variant": "no-such-game"}, "bad_option"),
                ({"options": {"draw": "7"}}, "bad_option"),
            ]
            for fields, code in cases:
                reply = await raw.request("practice.start", **{"variant": "unlimited",
                                                               **fields})
                assert (reply["t"], reply["code"]) == ("error", code), (fields, reply)
                assert reply["reason"]
            mine = await raw.request("races.mine")
            assert mine["races"] == []  # nothing was created
            anonymous = await RawConnection.open(ws_url(server))
            try:
                await anonymous.request("hello", v=1)
                reply = await anonymous.request("practice.start", variant="unlimited")
                assert reply["code"] == "not_authenticated"
            finally:
                await anonymous.close()
        finally:
            await raw.close()


async def test_practice_races_cannot_be_watched(redis_url: str) -> None:
    async with (
        running_server(redis_url, bot_delay=1.0) as server,
        clients(ws_url(server), "alice", "bob") as (alice, bob),
    ):
        summary = await alice.practice_start("unlimited", bots=["weak"])
        rid = summary["race"]
        for how in ({"race": rid}, {"code": summary["code"]}):
            with pytest.raises(ClientError) as err:
                await bob.request("watch", **how)
            assert err.value.code == "not_watchable"
        assert (await bob.request("races.live"))["races"] == []
        with pytest.raises(ClientError) as err:  # nor joined: it started full
            await bob.join(race=rid)
        assert err.value.code == "race_started"
        await alice.resign(rid)


# ----------------------------------------------------------------------------- the lease


async def bot_moves(redis_url: str, rid: str, pid: str) -> int:
    return len(await read_log(redis_url, rid, pid))


async def test_a_driver_that_loses_its_lease_stops_and_the_race_is_picked_up_again(
        redis_url: str) -> None:
    variant, seed = QUICK
    # a short bot delay: after alice resigns, the race ends when the bot's game does
    async with running_server(redis_url, bot_delay=0.005, bot_lease=1.0) as server:
        assert server.ctx is not None
        async with clients(ws_url(server), "alice") as (alice,):
            summary = await alice.practice_start(variant, bots=["medium"], seed=seed)
            rid = summary["race"]
            (pid,) = bots_of(summary)
            await until(lambda: _at_least(redis_url, rid, pid, 3))
            assert server.ctx.bots.driving() == [rid]
            # Someone else holds the lease (no expiry): this driver's next renewal fails.
            await redis_call(redis_url, lambda r: r.set(Keys.bot_lease(rid), "intruder"))
            await until(lambda: _not_driving(server))
            stopped = await bot_moves(redis_url, rid, pid)
            await asyncio.sleep(1.5)  # three renewal periods, several sweeps
            assert await bot_moves(redis_url, rid, pid) in (stopped, stopped + 1)
            assert server.ctx.bots.driving() == []  # a held lease is never taken
            # The lease frees up: the next sweep drives the bot again, from its log.
            await redis_call(redis_url, lambda r: r.delete(Keys.bot_lease(rid)))
            await until(lambda: _at_least(redis_url, rid, pid, stopped + 3))
            owner = await redis_call(redis_url, lambda r: r.get(Keys.bot_lease(rid)))
            assert owner == server.config.process_id
            await alice.resign(rid)
            end = await end_of(alice, rid)
            await check_bot_games(redis_url, rid, end)


async def test_a_bot_move_logged_elsewhere_makes_its_driver_reload(redis_url: str) -> None:
    """Another process (its own game cache) logs a move of the bot: the driver's next move is
    refused as stale (or a duplicate), and it reloads the game and plays on."""
    variant, seed = QUICK
    async with (
        running_server(redis_url, bot_delay=0.1) as first,
        running_server(redis_url, bot_delay=0.1) as second,
        clients(ws_url(first), "alice") as (alice,),
    ):
        assert first.ctx is not None and second.ctx is not None
        summary = await alice.practice_start(variant, bots=["medium"], seed=seed)
        rid = summary["race"]
        ((pid, racer),) = bots_of(summary).items()
        await until(lambda: _at_least(redis_url, rid, pid, 2))
        info = await race_info(redis_url, rid)
        for _ in range(20):
            logged = await read_log(redis_url, rid, pid)
            game = info.game()
            game.replay(logged)
            move = choose_move(game)
            assert move is not None
            try:
                await second.ctx.races.move(Player(pid, racer["name"]), rid, len(logged),
                                            move.text())
                break
            except ProtocolError as exc:  # the driver moved first: try again
                assert exc.code == "stale_seq", exc
        else:
            raise AssertionError("never got a move in between the driver's")
        await until(lambda: _at_least(redis_url, rid, pid, len(logged) + 4))
        assert first.ctx.bots.driving() == [rid] and second.ctx.bots.driving() == []
        first.ctx.bots.delay_scale = 0.0  # the rest of the game at full speed
        await alice.resign(rid)
        end = await end_of(alice, rid)
        await check_bot_games(redis_url, rid, end)


async def _at_least(redis_url: str, rid: str, pid: str, n: int) -> bool:
    return await bot_moves(redis_url, rid, pid) >= n


async def _not_driving(server: Any) -> bool:
    return server.ctx.bots.driving() == []


async def test_a_clean_stop_hands_the_bots_over_at_once(redis_url: str) -> None:
    """SIGTERM-like stop: the leaving process releases its lease, and another process's next
    sweep (half a lease later at most) takes the bots over, well before the lease would have
    run out."""
    variant, seed = QUICK
    async with running_server(redis_url, bot_delay=0.05, bot_lease=4.0,
                              process_id="second") as second:
        first = await _start_server(redis_url, process_id="first")
        stopped = False
        try:
            async with clients(ws_url(first), "alice") as (alice,):
                summary = await alice.practice_start(variant, bots=["medium"], seed=seed)
                rid = summary["race"]
                (pid,) = bots_of(summary)
                await until(lambda: _at_least(redis_url, rid, pid, 3))
            await first.stop()
            stopped = True
            n = await bot_moves(redis_url, rid, pid)
            await until(lambda: _at_least(redis_url, rid, pid, n + 3), timeout=3.5)
            assert second.ctx is not None and second.ctx.bots.driving() == [rid]
            owner = await redis_call(redis_url, lambda r: r.get(Keys.bot_lease(rid)))
            assert owner == "second"
        finally:
            if not stopped:
                await first.stop()


async def _start_server(redis_url: str, **overrides: Any) -> Any:
    from harness import make_config
    from solrace.server.ops.app import Server

    server = Server(make_config(redis_url, bot_delay=0.05, bot_lease=4.0, **overrides))
    await server.start()
    return server


# ----------------------------------------------------------------------------- crashes




async def test_sigkill_of_the_driving_process_the_bots_play_on_elsewhere(
        redis_url: str, tmp_path: Path) -> None:
    variant, seed = QUICK
    # a short bot delay: after alice resigns, the race ends when the bot's game does
    async with two_processes(redis_url, tmp_path, "--bot-delay", "0.005", "--bot-lease", "1"
                             ) as (one, two):
        alice = RecordingClient(one.url, name="alice")
        await alice.connect()
        try:
            summary = await alice.practice_start(variant, bots=["medium"], seed=seed)
            rid = summary["race"]
            (pid,) = bots_of(summary)
            await alice.wait_running(rid)
            await until(lambda: _at_least(redis_url, rid, pid, 10))
            owner = await redis_call(redis_url, lambda r: r.get(Keys.bot_lease(rid)))
            assert owner is not None and owner.startswith("one-")

            await asyncio.to_thread(one.kill)
            assert one.proc is not None and one.proc.returncode == -9
            before = await bot_moves(redis_url, rid, pid)
            alice.url = two.url
            await alice.reconnect()
            # The lease runs out (1 s) and process two's sweep takes the bot over.
            await until(lambda: _at_least(redis_url, rid, pid, before + 5), timeout=15)
            owner = await redis_call(redis_url, lambda r: r.get(Keys.bot_lease(rid)))
            assert owner is not None and owner.startswith("two-"), owner
            await alice.resign(rid)
            end = await end_of(alice, rid)
            check_standings(end["standings"])
            await check_bot_games(redis_url, rid, end)  # played to its end, every move valid
            versions = alice.versions_seen(rid)
            assert versions == sorted(set(versions))
            assert two.running, two.log()
        finally:
            await close_all([alice])


# ----------------------------------------------------------------------------- the command line


async def run_cli(home: Path, *argv: str, stdin: str = "", timeout: float = 60.0
                  ) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLRACE_")}
    env.update(SOLRACE_HOME=str(home), PYTHONUNBUFFERED="1", COLUMNS="200")
    env.pop("NO_COLOR", None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "solrace.client.cli", *argv, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
    out, err = await asyncio.wait_for(proc.communicate(stdin.encode()), timeout)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_solrace_practice_plays_against_bots_to_the_standings(
        redis_url: str, tmp_path: Path) -> None:
    variant, seed = QUICK
    async with running_server(redis_url, bot_delay=0.0) as server:
        base = ("--server", ws_url(server), "--name", "liam", "--no-color")
        code, out, err = await run_cli(
            tmp_path, "practice", variant, "--bot", "weak", "--bot", "medium", "--seed",
            str(seed), *base, stdin="board\nresign\n")
        assert code == 0, err
        assert "you resigned" in out
        # the bots' progress, live, as rivals' lines; then the standings and the seed
        assert re.search(r"^medium bot +\d+/104 home +\d+ moves", out, re.MULTILINE), out
        assert re.search(r"^weak bot +\d+/104 home", out, re.MULTILINE), out
        standings = out[out.index("standings"):]
        for name in ("liam (you)", "weak bot", "medium bot"):
            assert name in standings
        assert f"seed {seed} (sha256 matches the commitment" in out
        assert "practice race: not ranked" in out

        code, _, err = await run_cli(tmp_path, "practice", variant, "--bot", "expert", *base)
        assert code == 2 and "expert" in err
        code, _, err = await run_cli(tmp_path, "practice", variant, *(["--bot", "weak"] * 8),
                                     *base)
        assert code == 1 and "at most 7 bots" in err
