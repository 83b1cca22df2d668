"""``solrace watch`` and ``solrace races`` against a real server and a real Redis.

Racers are library clients playing legal moves chosen on engine replicas (the seed is peeked
in Redis); the CLI runs as a subprocess. What the spectator prints is compared with boards
rendered from those replicas, so a wrong delta, a board shown for the wrong racer or a missed
event shows up as a missing line.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import free_port
from solrace.client import cli
from solrace.client.commands import CommandError
from solrace.client.commands.watch import RaceView, race_target, wrap_blocks
from solrace.client.render import board_lines, visible_width
from solrace.server.ops.app import Server
from solrace.shared.engine import Game
from solrace.shared.views import delta, view_of

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
import harness  # tests/server/harness.py: the shared server test harness
from sightings import spectator_views

TIMEOUT = 20.0


async def start_cli(home: Path, *argv: str) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLRACE_")}
    env.update(SOLRACE_HOME=str(home), PYTHONUNBUFFERED="1", COLUMNS="200")
    env.pop("NO_COLOR", None)
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "solrace.client.cli", *argv, "--no-color",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip


@pytest.fixture
def inline(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
           ) -> Any:
    """Run a command in this process (no interpreter start-up): its own event loop on a worker
    thread, output captured; returns (status, stdout, stderr)."""
    monkeypatch.setenv("SOLRACE_HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "200")

    async def run(*argv: str) -> tuple[int, str, str]:
        code = await asyncio.to_thread(cli.main, [*argv, "--no-color"])
        out, err = capsys.readouterr()
        return code, out, err

    return run


async def read_until(proc: asyncio.subprocess.Process, out: list[str], text: str) -> None:
    """Read the child's stdout into ``out`` until ``text`` has appeared."""
    assert proc.stdout is not None
    async with asyncio.timeout(TIMEOUT):
        while text not in "".join(out):
            line = await proc.stdout.readline()
            assert line, f"the CLI exited before printing {text!r}:\n" + "".join(out)
            out.append(line.decode())


async def retry(action: Any, attempts: int = 50) -> Any:
    for i in range(attempts):
        try:
            return await action()
        except (OSError, ConnectionError, TimeoutError):
            if i == attempts - 1:
                raise
            await asyncio.sleep(0.1)
    return None


def assert_board(out: str, view: dict[str, Any]) -> None:
    """Every non-blank line of the board drawn from ``view`` is somewhere in ``out``."""
    for line in board_lines(view):
        assert line.strip() in out, f"board line {line.strip()!r} missing from:\n{out}"


def masked(racers: list[harness.Racer]) -> list[dict[str, Any]]:
    """The racers' views as a spectator of the running race sees them (``sightings``)."""
    g = racers[0].game
    views = spectator_views(g.variant.name, g.options, g.seed,
                            {r.client.player: [m.text() for m in r.game.moves] for r in racers})
    return [views[r.client.player] for r in racers]


def headline(view: dict[str, Any]) -> str:
    """The board's status line (``playing · 2 moves · 1/52 home``): unique per move count."""
    return board_lines(view)[1]


async def race_with_moves(url: str, redis_url: str, moves: tuple[int, int], **kw: Any
                          ) -> tuple[list[Any], dict[str, Any], list[harness.Racer]]:
    clients, summary = await harness.start_race(url, redis_url, "unlimited", ["alice", "bob"],
                                                options={"draw": "1"}, **kw)
    secrets = await harness.race_info(redis_url, summary["race"])
    racers = [harness.Racer(c, summary["race"], secrets.game()) for c in clients]
    for racer, n in zip(racers, moves):
        assert await racer.play(n) == n
    return clients, summary, racers


# ----------------------------------------------------------------------------- watch


async def test_watch_once_shows_every_board_side_by_side(redis_url: str, inline: Any) -> None:
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        clients, summary, racers = await race_with_moves(url, redis_url, (2, 1))
        try:
            by_code = await inline("watch", summary["code"].lower(), "--once",
                                    "--server", url)
            newest = await inline("watch", "--once", "--server", url)
        finally:
            await harness.close_all(clients)
    views = masked(racers)
    assert headline(views[0]) != headline(views[1])
    for code, out, err in (by_code, newest):
        assert code == 0, err
        first = out.splitlines()[0]
        assert f"race {summary['race']} (code {summary['code']})" in first
        assert "running" in first and "no delay" in first
        for view in views:
            assert_board(out, view)
        # side by side: both racers' names on one line, both headlines on another
        assert re.search(r"^alice\s+bob$", out, re.MULTILINE), out
        assert any(headline(views[0]) in line and headline(views[1]) in line
                   for line in out.splitlines()), out
        assert "▒▒" in out and "\x1b[" not in out


async def test_watch_follows_the_race_live_through_a_restart_to_the_standings(
    redis_url: str, tmp_path: Path
) -> None:
    port = free_port()
    server = Server(harness.make_config(redis_url, port=port))
    await server.start()
    url = harness.ws_url(server)
    clients, summary, racers = await race_with_moves(url, redis_url, (0, 0))
    rid = summary["race"]
    alice, bob = racers
    proc = await start_cli(tmp_path, "watch", rid, "--server", url)
    out: list[str] = []
    try:
        await read_until(proc, out, f"race {rid}")  # attached: what follows is live
        seen = []
        for _ in range(2):
            await alice.step()
            seen.append(masked(racers)[0])
            await read_until(proc, out, headline(seen[-1]))  # a frame per move

        await server.stop()  # racers and spectator all lose their connections
        server = Server(harness.make_config(redis_url, port=port))
        await server.start()
        for c in clients:
            await retry(c.reconnect)
        await bob.step()  # while the spectator may still be away: caught up on resume
        await read_until(proc, out, "reconnected: caught up")
        for _ in range(2):
            await alice.step()
            seen.append(masked(racers)[0])
            await read_until(proc, out, headline(seen[-1]))
        await alice.client.resign(rid)
        await bob.client.resign(rid)
        end = await alice.client.next_event(TIMEOUT, t="event", k="end")
        rest, err_b = await asyncio.wait_for(proc.communicate(), TIMEOUT)
    finally:
        await harness.close_all(clients)
        await server.stop()
    text, err = "".join(out) + rest.decode(), err_b.decode()
    assert proc.returncode == 0, err
    for view in seen:  # each board as spectators may see it, before and after the restart
        assert_board(text, view)
    assert_board(text, view_of(bob.game).wire())
    assert "the race is over" in text
    for row in end["standings"]:
        assert re.search(rf"^\s*{row['rank']}\s+{row['name']}\s+resigned\s+{row['home']}/52\s+"
                         rf"{row['moves']}\s", text, re.MULTILINE), text
    assert f"seed {end['seed']} (sha256 matches the commitment" in text


async def test_watch_a_rated_race_runs_behind(redis_url: str, inline: Any) -> None:
    async with harness.running_server(redis_url, spectator_delay=30) as server:
        url = harness.ws_url(server)
        a, b = harness.AccountClient(url, name="alice"), harness.AccountClient(url, name="bob")
        await a.connect()
        await b.connect()
        try:
            summary = await a.create_race("unlimited", rated=True)
            rid = summary["race"]
            await b.join(code=summary["code"])
            await a.ready(rid)
            await b.ready(rid)
            await a.wait_running(rid)
            game = await harness.replica(redis_url, rid)
            start = view_of(game).wire()
            move = harness.choose_move(game)
            assert move is not None
            await a.move(rid, move.text())
            code, out, err = await inline("watch", rid, "--once", "--server", url)
        finally:
            await harness.close_all([a, b])
    assert code == 0, err
    assert "delay 30 s" in out.splitlines()[0]
    # Even the start is less than 30 s old: no board (and no move) reaches the spectator yet.
    assert "racers: alice, bob" in out and "spectator delay has passed" in out
    assert headline(start) not in out and "moves ·" not in out


async def test_watch_unknown_race_and_nothing_live_are_clean_errors(
    redis_url: str, inline: Any
) -> None:
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        nothing = await inline("watch", "--server", url)
        unknown = await inline("watch", "ZZZZZZ", "--server", url)
    assert nothing[0] == 1 and "no race is running" in nothing[2]
    assert unknown[0] == 1 and "race_not_found" in unknown[2]
    assert "Traceback" not in nothing[2] + unknown[2]


# ----------------------------------------------------------------------------- races


async def test_races_lists_live_races_page_by_page(redis_url: str, inline: Any) -> None:
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        older, s1 = await harness.start_race(url, redis_url, "unlimited", ["alice", "bob"])
        newer, s2 = await harness.start_race(url, redis_url, "sixes-and-sevens",
                                             ["carol", "dave", "erin"])
        try:
            everything = await inline("races", "--server", url)
            page = await inline("races", "--limit", "1", "--json", "--server", url)
            cursor = json.loads(page[1])["next"]
            rest = await inline("races", "--limit", "1", "--before", str(cursor),
                                 "--server", url)
        finally:
            await harness.close_all(older + newer)
    code, out, err = everything
    assert code == 0, err
    rows = {line.split()[0]: line for line in out.splitlines()[1:] if line.split()}
    assert re.search(r"\bUnlimited\b.*\bdraw=\d\b.*\s2\s+\d+:\d\d\s+0\s", rows[s1["race"]])
    assert re.search(r"\bSixes and Sevens\b.*\s3\s+\d+:\d\d\s+0\s", rows[s2["race"]])
    assert out.index(s2["race"]) < out.index(s1["race"])  # newest first
    first_page = json.loads(page[1])["races"]
    assert [r["race"] for r in first_page] == [s2["race"]]
    code, out, err = rest
    assert code == 0, err
    assert s1["race"] in out and s2["race"] not in out and "more:" not in out


# ----------------------------------------------------------------------------- pieces


def test_race_view_folds_deltas_and_ignores_replayed_events() -> None:
    games = {"p1": Game("unlimited", {}, 7), "p2": Game("unlimited", {}, 7)}
    start = view_of(games["p1"]).wire()
    reply = {"t": "watching", "v": 5, "delay": 0, "spectators": 1,
             "race": {"race": "r" * 16, "state": "running", "variant": "unlimited",
                      "options": {}, "racers": [{"player": p, "name": p} for p in games]},
             "boards": {p: {"seq": 0, "view": start} for p in games}}
    race = RaceView(reply)
    v = 5
    for i in range(6):
        pid = "p1" if i % 3 else "p2"
        game = games[pid]
        before = view_of(game).wire()
        move = game.legal_moves()[0]
        game.push(move)
        v += 1
        ev = {"k": "progress", "player": pid, "v": v, "moves": len(game.moves),
              "home": game.cards_home, "move": move.text(),
              "delta": delta(before, view_of(game).wire())}
        assert race.apply(ev)
        assert not race.apply(ev)  # the same version again (a resume overlapping): no change
    for pid, game in games.items():
        assert race.boards[pid]["view"] == view_of(game).wire()
        assert race.boards[pid]["seq"] == len(game.moves)
    assert race.apply({"k": "progress", "player": "p2", "v": v + 1, "moves": 2, "home": 0,
                       "result": "resigned", "elapsed": 61_000})
    assert race.results == {"p2": "resigned"}
    assert "resigned at 1:01" in "\n".join(race.block("p2", color=False))


def test_wrap_blocks_keeps_rows_within_the_width() -> None:
    block = [board_lines(view_of(Game("unlimited", {}, 1)).wire())] * 3
    width = max(visible_width(line) for line in block[0])
    one_per_row = wrap_blocks(block, width + 3)
    assert max(visible_width(line) for line in one_per_row) == width
    two_then_one = wrap_blocks(block, 2 * width + 4)
    assert max(visible_width(line) for line in two_then_one) == 2 * width + 4
    assert len(two_then_one) == 2 * len(block[0]) + 1
    assert len(wrap_blocks(block, 10_000)) == len(block[0])


def test_race_target() -> None:
    assert race_target("ab3dfg") == {"code": "AB3DFG"}
    assert race_target("0123456789abcdef") == {"race": "0123456789abcdef"}
    with pytest.raises(CommandError):
        race_target("no such thing")


def test_race_view_applies_reveals_and_the_final_boards() -> None:
    """A masked card (``??``) is drawn as such; a ``reveal`` replaces the piles it lists on
    any racer's board; the ``end`` event's boards replace every board."""
    game = Game("unlimited", {}, 3)
    start = view_of(game).wire()
    reply = {"t": "watching", "v": 4, "delay": 0, "spectators": 0,
             "race": {"race": "r" * 16, "state": "running", "variant": "unlimited",
                      "options": {}, "racers": [{"player": p, "name": p} for p in ("a", "b")]},
             "boards": {p: {"seq": 0, "view": start} for p in ("a", "b")}}
    race = RaceView(reply)
    before = view_of(game).wire()
    game.push("sw")
    after = view_of(game).wire()
    change = delta(before, after)
    drawn = after["piles"]["w"][1][-1]
    assert race.apply({"k": "progress", "player": "a", "v": 5, "moves": 1, "home": 0,
                       "move": "sw", "delta": {**change, "piles": {**change["piles"],
                                                                   "w": [0, ["??"]]}}})
    assert race.boards["a"]["view"]["piles"]["w"] == [0, ["??"]]
    assert "??" in "\n".join(race.block("a", color=False))
    assert any("not every racer has seen" in line for line in race.frame(False, 200, 0))
    assert race.apply({"k": "progress", "player": "b", "v": 6, "moves": 1, "home": 0,
                       "move": "sw", "delta": change, "reveal": {"a": {"w": [0, [drawn]]}}})
    assert race.boards["a"]["view"] == after == race.boards["b"]["view"]
    final = {p: {"seq": 1, "view": after} for p in ("a", "b")}
    assert race.apply({"k": "end", "v": 7, "reason": "done", "standings": [], "boards": final})
    assert race.boards == final
