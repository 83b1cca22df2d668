"""Durability: server processes die (SIGKILL) and Redis restarts; no acknowledged move is lost.

The servers here are real ``python -m solrace.server`` child processes sharing one Redis, so a
SIGKILL is a real crash: no shutdown code runs, the clients' sockets just drop. The clients
then resume on a second process, which has never seen the race and rebuilds everything from
Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path

import pytest
from harness import (
    Racer,
    RecordingClient,
    ServerProcess,
    check_standings,
    choose_move,
    close_all,
    race_info,
    read_log,
    redis_client,
    running_server,
    start_race,
    two_processes,
    ws_url,
)
from solrace.client.library import Client, ClientError
from solrace.server.ops.config import DEFAULT_LOOP
from solrace.server.ops.redisproc import RedisProcess
from solrace.shared.engine import Game
from solrace.shared.views import view_of

BACKENDS = ("single", "cluster")  # every test with redis_url runs on both (conftest.py)

pytestmark = pytest.mark.timeout(90)


def replay(game: Game, moves: list[str]) -> Game:
    for text in moves:
        game.push(text)
    return game




async def move_until_killed(racer: Racer, proc: ServerProcess, acks_before_kill: int
                            ) -> tuple[list[str], str | None]:
    """Send moves back to back and SIGKILL ``proc`` after ``acks_before_kill`` acks, while the
    next move is in flight. Returns the acknowledged moves and the one in flight (if any)."""
    acked: list[str] = []
    while True:
        move = choose_move(racer.game, racer.seen, keep_playing=True)
        assert move is not None, "the test deal ran out of moves"
        send = asyncio.ensure_future(racer.client.move(racer.race, move.text()))
        if len(acked) == acks_before_kill:
            await asyncio.sleep(0)  # the frame is on its way
            await asyncio.to_thread(proc.kill)
            with contextlib.suppress(ConnectionError, ClientError, TimeoutError):
                await send
            return acked, move.text()
        await send
        racer.game.push(move)
        racer.seen.add(racer.game.position_text())
        acked.append(move.text())


async def test_sigkill_mid_race_then_resume_on_another_process(
    redis_url: str, tmp_path: Path
) -> None:
    async with two_processes(redis_url, tmp_path) as (one, two):
        cs, summary = await start_race(one.url, redis_url, "unlimited", ["alice", "bob"],
                                       cls=RecordingClient)
        alice, bob = cs
        rid = summary["race"]
        try:
            secrets = await race_info(redis_url, rid)
            ra, rb = Racer(alice, rid, secrets.game()), Racer(bob, rid, secrets.game())
            await rb.play(3)
            first = await alice.sync(rid)
            clock = {k: first["race"][k] for k in ("started_at", "ends_at")}
            elapsed_before = max(a["elapsed"] for a in rb.acks)

            acked, in_flight = await move_until_killed(ra, one, acks_before_kill=6)
            assert one.proc is not None and one.proc.returncode == -9
            log = await read_log(redis_url, rid, alice.player)
            assert log[: len(acked)] == acked, "an acknowledged move was lost"
            assert log[len(acked):] in ([], [in_flight]), log

            for c in cs:
                c.url = two.url
                welcome = await c.reconnect()
                assert rid in [r["race"] for r in welcome["races"]]
            synced = await alice.sync(rid)
            assert {k: synced["race"][k] for k in clock} == clock, "the race clock moved"
            assert synced["race"]["state"] == "running"
            # The board continues exactly after the last move the log holds.
            assert alice.boards[rid]["seq"] == len(log)
            assert alice.boards[rid]["view"] == view_of(
                replay(secrets.game(), log)).wire()
            rb.board_matches()
            # The client retries the move whose ack the crash swallowed: applied exactly once,
            # whether or not the dead process had logged it.
            assert in_flight is not None
            retried = await alice.move(rid, in_flight, seq=len(acked))
            assert bool(retried.get("duplicate")) == (len(log) > len(acked)), retried
            ra.game.push(in_flight)
            ra.seen.add(ra.game.position_text())
            assert await read_log(redis_url, rid, alice.player) == [*acked, in_flight]
            ra.board_matches()

            await ra.play(4)
            await rb.play(2)
            assert min(a["elapsed"] for a in rb.acks[3:]) > elapsed_before
            await alice.next_event(t="event", race=rid, k="progress", player=bob.player,
                                   moves=len(rb.game.moves))
            await alice.resign(rid)
            await bob.resign(rid)
            end = await bob.next_event(t="event", race=rid, k="end")
            rows = {r["player"]: r for r in end["standings"]}
            assert rows[alice.player]["moves"] == len(ra.game.moves)
            assert rows[bob.player]["moves"] == len(rb.game.moves)
            check_standings(end["standings"])
            assert await read_log(redis_url, rid, alice.player) == [
                m.text() for m in ra.game.moves]
            for c in cs:  # across the crash every version arrived once, in order
                seen = c.versions_seen(rid)
                assert seen == sorted(set(seen)), seen
            assert two.running, two.log()
        finally:
            await close_all(cs)


async def test_sigkill_during_countdown_race_still_starts(redis_url: str, tmp_path: Path
                                                          ) -> None:
    """The process that armed the start timer dies; the one the players resume on starts it."""
    async with two_processes(redis_url, tmp_path) as (one, two):
        cs: list[Client] = []
        try:
            for name in ("alice", "bob"):
                c = Client(one.url, name=name)
                await c.connect()
                cs.append(c)
            alice, bob = cs
            lobby = await alice.create_race("forty-and-eight")
            rid = lobby["race"]
            await bob.join(code=lobby["code"])
            await alice.ready(rid)
            await bob.ready(rid)
            countdown = await alice.next_event(t="event", race=rid, k="countdown")
            await asyncio.to_thread(one.kill)
            for c in cs:
                c.url = two.url
                await c.reconnect()
            boards = [await c.wait_running(rid) for c in cs]
            assert boards[0] == boards[1]
            synced = await bob.sync(rid)
            assert synced["race"]["started_at"] == countdown["starts_at"]
            game = (await race_info(redis_url, rid)).game()
            assert boards[0]["view"] == view_of(game).wire()
            racer = Racer(alice, rid, game)
            assert await racer.play(3) == 3
        finally:
            await close_all(cs)


async def test_quick_pairing_skips_players_whose_process_died(redis_url: str, tmp_path: Path
                                                               ) -> None:
    """A player waiting for a quick pairing on a process that is SIGKILLed leaves a ghost entry
    in the queue (no cleanup runs). Once that process's heartbeat has lapsed, the next player
    is not paired with the ghost: it waits, and the next live player gets the race."""
    from solrace.server.store import Keys

    queue_key = Keys.quick("unlimited|draw=1,foundation_takeback=yes")
    r = redis_client(redis_url)
    async with two_processes(redis_url, tmp_path) as (one, two):
        names = {"alice": one, "bob": two, "carol": one, "dave": two, "erin": two}
        cs: dict[str, Client] = {}
        try:
            for name, proc in names.items():
                cs[name] = Client(proc.url, name=name)
                await cs[name].connect()
            # Across two live processes: paired as before (the heartbeat check passes).
            assert (await cs["alice"].quick("unlimited"))["t"] == "queued"
            paired = await cs["bob"].quick("unlimited")
            assert paired["t"] == "race"
            await cs["alice"].next_event(t="matched")

            assert (await cs["carol"].quick("unlimited"))["t"] == "queued"
            entry = (await r.lrange(queue_key, 0, -1))[0].decode()
            process = entry.split(":")[2]
            assert entry.startswith(f"{cs['carol'].player}:carol:") and process.startswith("one")
            assert 0 < await r.pttl(Keys.alive(process)) <= 30_000
            await asyncio.to_thread(one.kill)
            await r.delete(Keys.alive(process))  # its heartbeat lapses (we do not wait for it)
            assert await r.lrange(queue_key, 0, -1) == [entry.encode()]  # the ghost

            assert (await cs["dave"].quick("unlimited"))["t"] == "queued"  # not carol's race
            assert [e.decode().split(":")[1] for e in await r.lrange(queue_key, 0, -1)] == [
                "dave"]
            race = await cs["erin"].quick("unlimited")
            assert race["t"] == "race"
            assert {x["name"] for x in race["race"]["racers"]} == {"dave", "erin"}
        finally:
            await close_all(c for n, c in cs.items() if names[n] is two)
            await r.aclose()


@pytest.mark.parametrize("loop", [None, "uvloop", "asyncio"])
async def test_clean_stop_prints_and_exits_zero(redis_url: str, tmp_path: Path,
                                                loop: str | None) -> None:
    """SIGTERM stops the server cleanly (exit 0) on either event loop (None: the default,
    uvloop where it can be imported), and it runs on the one it was told."""
    extra = () if loop is None else ("--loop", loop)
    proc = ServerProcess(redis_url, tmp_path / "solo", *extra, name="solo")
    await asyncio.to_thread(proc.start)
    try:
        c = Client(proc.url, name="alice")
        await c.connect()
        await c.close()
    finally:
        code = await asyncio.to_thread(proc.terminate)
    assert code == 0, proc.log()
    out = "\n".join(proc.stdout_lines)
    assert "solrace server configuration" in out
    assert "test-secret" not in out, "the secret was printed"
    want = loop or DEFAULT_LOOP
    assert re.search(rf"^  loop +{want} ", out, re.M), out
    running = "event loop: uvloop.Loop" if want == "uvloop" else "event loop: asyncio."
    assert running in proc.log()


@pytest.mark.loops("asyncio", "uvloop")
async def test_redis_restart_mid_race_keeps_acked_moves(private_redis: RedisProcess) -> None:
    """Redis is SIGKILLed (``appendfsync always``) and restarted: moves in between get
    ``unavailable`` on a connection that survives, every acknowledged move is still in the log
    after the restart, and play and live progress resume."""
    url = private_redis.url
    async with running_server(url) as server:
        cs, summary = await start_race(ws_url(server), url, "unlimited", ["alice", "bob"])
        alice, bob = cs
        rid = summary["race"]
        try:
            secrets = await race_info(url, rid)
            ra, rb = Racer(alice, rid, secrets.game()), Racer(bob, rid, secrets.game())
            await ra.play(3)
            await rb.play(2)
            acked = [m.text() for m in ra.game.moves]

            await asyncio.to_thread(private_redis.kill)
            move = choose_move(ra.game, ra.seen, keep_playing=True)
            assert move is not None
            with pytest.raises(ClientError) as err:
                await alice.move(rid, move.text())
            assert err.value.code == "unavailable"
            with pytest.raises(ClientError) as err:  # the connection still serves requests
                await alice.request("no.such.request")
            assert err.value.code == "unknown_type"

            await asyncio.to_thread(private_redis.restart)
            assert await read_log(url, rid, alice.player) == acked
            await ra.step()  # the move refused during the outage, now accepted
            await rb.play(2)
            await alice.next_event(timeout=10, t="event", race=rid, k="progress",
                                   player=bob.player, moves=len(rb.game.moves))
            assert await read_log(url, rid, alice.player) == [m.text() for m in ra.game.moves]
        finally:
            await close_all(cs)
