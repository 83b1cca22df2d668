"""``solrace play`` and ``solrace race create`` against a real server and a real Redis.

The CLI runs as a subprocess (``python -m solrace.client.cli``) with moves piped to its stdin,
exactly as a user's terminal session would, while a library :class:`Client` plays the other
seat in the test's event loop, next to an in-process server. The test peeks the race's seed in
Redis (a privilege real clients lack) to know which moves are legal and what every board must
look like, so the assertions compare the CLI's output with boards rendered from an engine
replica — not with strings copied from a previous run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import stat
import sys
from collections.abc import AsyncIterator
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest
from helpers import free_port
from solrace.client import cli
from solrace.client.commands.play import invite_code
from solrace.client.library import Client
from solrace.client.render import render_view
from solrace.client.session import SavedSession, SessionStore, login
from solrace.client.tui import sanitize_name, server_url
from solrace.server.ops.app import Server
from solrace.shared.engine import Game
from solrace.shared.errors import IllegalMove
from solrace.shared.protocol import NAME_RE
from solrace.shared.views import view_of

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
import harness  # tests/server/harness.py: the shared server test harness

CLI_TIMEOUT = 20.0


# ----------------------------------------------------------------------------- helpers


class Cli:
    """``solrace ARGS`` as a child process with stdin and stdout pipes."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.out: list[str] = []

    @classmethod
    async def start(cls, home: Path, *argv: str) -> Cli:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SOLRACE_")}
        env.update(SOLRACE_HOME=str(home), PYTHONUNBUFFERED="1", COLUMNS="200")
        env.pop("NO_COLOR", None)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "solrace.client.cli", *argv,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=env,
        )  # fmt: skip
        return cls(proc)

    async def send(self, *lines: str, close: bool = False) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(f"{line}\n" for line in lines).encode())
        await self.proc.stdin.drain()
        if close:
            self.proc.stdin.close()

    async def finish(self, timeout: float = CLI_TIMEOUT) -> tuple[int, str, str]:
        out, err = await asyncio.wait_for(self.proc.communicate(), timeout)
        return self.proc.returncode or 0, "".join(self.out) + out.decode(), err.decode()

    async def read_until(self, text: str, timeout: float = CLI_TIMEOUT) -> str:
        """Read stdout until ``text`` has appeared; everything read so far."""
        assert self.proc.stdout is not None
        async with asyncio.timeout(timeout):
            while text not in "".join(self.out):
                line = await self.proc.stdout.readline()
                if not line:
                    raise AssertionError(f"CLI exited before printing {text!r}:\n"
                                         + "".join(self.out))
                self.out.append(line.decode())
        return "".join(self.out)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGKILL)


@pytest.fixture
def inline(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
           ) -> Any:
    """Run a command that needs no stdin in this process (no interpreter start-up): its own
    event loop on a worker thread, output captured; returns (status, stdout, stderr)."""
    monkeypatch.setenv("SOLRACE_HOME", str(tmp_path))

    async def run(*argv: str) -> tuple[int, str, str]:
        code = await asyncio.to_thread(cli.main, list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


@contextlib.asynccontextmanager
async def server_and_host(redis_url: str, **overrides: Any) -> AsyncIterator[tuple[Server, Client]]:
    """A server and a connected library client ``bob`` (closed at the end)."""
    async with harness.running_server(redis_url, **overrides) as server:
        bob = Client(harness.ws_url(server), name="bob")
        await bob.connect()
        try:
            yield server, bob
        finally:
            await bob.close()


def an_illegal_move(game: Game) -> tuple[str, str]:
    """A pile-to-pile move the engine refuses, and its reason."""
    for src, dst in permutations(game.layout.ids, 2):
        try:
            game.copy().push(f"{src}{dst}")
        except IllegalMove as exc:
            return f"{src}{dst}", exc.reason
    raise AssertionError("every move legal?")


def play_args(server: Server, *extra: str) -> list[str]:
    return ["play", "--server", harness.ws_url(server), "--no-color", *extra]


async def alice_progress(bob: Client, **match: Any) -> dict[str, Any]:
    """The next progress event of the other racer (alice, the CLI) that bob receives."""
    while True:
        ev = await bob.next_event(CLI_TIMEOUT, t="event", k="progress")
        if ev["player"] != bob.player and all(ev.get(k) == v for k, v in match.items()):
            return ev


def assert_standings(out: str, end: dict[str, Any], total: int) -> None:
    """Every standings row of the server's end event appears, in rank order, in ``out``."""
    positions = []
    for row in end["standings"]:
        pattern = (rf"^\s*{row['rank']}\s+{re.escape(row['name'])}( \(you\))?\s+"
                   rf"{row['result']}\s+{row['home']}/{total}\s+{row['moves']}\s")
        match = re.search(pattern, out, re.MULTILINE)
        assert match, f"no standings row {row} in:\n{out}"
        positions.append(match.start())
    assert positions == sorted(positions)
    assert f"seed {end['seed']} (sha256 matches the commitment" in out


# ----------------------------------------------------------------------------- play


async def test_play_by_invite_board_ack_rejection_and_standings(
    redis_url: str, tmp_path: Path
) -> None:
    async with server_and_host(redis_url) as (server, bob):
        summary = await bob.create_race("unlimited", {"draw": "1"})
        rid = summary["race"]
        game = await harness.replica(redis_url, rid)
        start_view = view_of(game).wire()
        legal = harness.choose_move(game)
        assert legal is not None
        game.push(legal)
        after_view = view_of(game).wire()
        illegal, reason = an_illegal_move(game)

        cli = await Cli.start(tmp_path, *play_args(server, "--invite", summary["code"].lower(),
                                                   "--ready", "--name", "alice"))
        await cli.send(legal.text(), "t1t1", illegal, "resign", close=True)
        await bob.next_event(CLI_TIMEOUT, t="event", k="join")
        await bob.ready(rid)
        await alice_progress(bob, result="resigned")
        await bob.resign(rid)
        end = await bob.next_event(CLI_TIMEOUT, t="event", k="end")
        code, out, err = await cli.finish()

    assert code == 0, err
    assert "\x1b[" not in out  # --no-color
    assert render_view(start_view) in out  # the board as dealt, from the start event's view
    assert render_view(after_view) in out  # the ack's delta applied: the move's effect
    assert f"> {legal.text()}" in out
    assert "✗ t1t1: bad_notation" in out
    assert f"✗ {illegal}: illegal_move — {reason}" in out
    assert "you resigned" in out
    assert_standings(out, end, total=52)


async def test_play_resumes_after_a_crash_with_the_saved_token(
    redis_url: str, tmp_path: Path
) -> None:
    async with server_and_host(redis_url) as (server, bob):
        summary = await bob.create_race("unlimited", {"draw": "3"})
        rid = summary["race"]
        game = await harness.replica(redis_url, rid)
        legal = harness.choose_move(game)
        assert legal is not None
        game.push(legal)
        after_view = view_of(game).wire()

        first = await Cli.start(tmp_path, *play_args(server, "--invite", summary["code"],
                                                     "--ready", "--name", "alice"))
        await bob.next_event(CLI_TIMEOUT, t="event", k="join")
        await bob.ready(rid)
        await first.send(legal.text())  # stdin stays open: the CLI would play on
        await alice_progress(bob, moves=1)
        first.kill()  # a crash: no goodbye, no resign
        await first.finish()

        saved = SessionStore(tmp_path / "session.json").load(harness.ws_url(server), "alice")
        assert saved is not None and saved.player is not None
        mode = stat.S_IMODE((tmp_path / "session.json").stat().st_mode)
        assert mode == 0o600, oct(mode)

        # Same home, same name, no invite: the saved session resumes the race in progress.
        second = await Cli.start(tmp_path, *play_args(server, "--name", "alice"))
        await second.send("resign", close=True)
        await alice_progress(bob, result="resigned")
        await bob.resign(rid)
        end = await bob.next_event(CLI_TIMEOUT, t="event", k="end")
        code, out, err = await second.finish()

    assert code == 0, err
    assert f"resuming race {rid} (running)" in out
    assert render_view(after_view) in out  # the board where the crashed run left it
    assert next(r for r in end["standings"] if r["name"] == "alice")["player"] == saved.player
    assert_standings(out, end, total=game.total_cards)


async def test_play_reconnects_when_the_server_restarts(redis_url: str, tmp_path: Path) -> None:
    port = free_port()
    server = Server(harness.make_config(redis_url, port=port))
    await server.start()
    bob = Client(harness.ws_url(server), name="bob")
    await bob.connect()
    try:
        summary = await bob.create_race("unlimited")
        rid = summary["race"]
        game = await harness.replica(redis_url, rid)
        cli = await Cli.start(tmp_path, *play_args(server, "--invite", summary["code"],
                                                   "--ready", "--name", "alice"))
        await bob.next_event(CLI_TIMEOUT, t="event", k="join")
        await bob.ready(rid)
        first = harness.choose_move(game, keep_playing=True)
        assert first is not None
        game.push(first)
        await cli.send(first.text())
        await alice_progress(bob, moves=1)

        await server.stop()  # every connection drops
        await cli.read_until("connection lost")
        server = Server(harness.make_config(redis_url, port=port))
        await server.start()
        await _retry(bob.reconnect)
        await cli.read_until("reconnected")

        second = harness.choose_move(game, {game.position_text()}, keep_playing=True)
        assert second is not None
        game.push(second)
        await cli.send(second.text(), "resign", close=True)
        await alice_progress(bob, result="resigned")
        await bob.resign(rid)
        end = await bob.next_event(CLI_TIMEOUT, t="event", k="end")
        code, out, err = await cli.finish()
    finally:
        await bob.close()
        await server.stop()
    assert code == 0, err
    assert render_view(view_of(game).wire()) in out  # the move after the reconnect, acked
    assert_standings(out, end, total=52)


async def test_play_quick_pairs_with_a_waiting_player(redis_url: str, tmp_path: Path) -> None:
    async with server_and_host(redis_url) as (server, bob):
        cli = await Cli.start(tmp_path, *play_args(server, "sixes-and-sevens", "--quick",
                                                   "--name", "alice"))
        await cli.send("resign", close=True)
        # Whoever queues first is paired with the second: bob either finds alice waiting
        # (a race at once) or waits for her (a ``matched`` notice).
        reply = await bob.quick("sixes-and-sevens")
        if reply["t"] == "race":
            rid = reply["race"]["race"]
        else:
            rid = (await bob.next_event(CLI_TIMEOUT, t="matched"))["race"]["race"]
        await bob.wait_running(rid)
        game = await harness.replica(redis_url, rid)
        await alice_progress(bob, result="resigned")
        await bob.resign(rid)
        end = await bob.next_event(CLI_TIMEOUT, t="event", k="end")
        code, out, err = await cli.finish()
    assert code == 0, err
    assert render_view(view_of(game).wire()) in out
    assert_standings(out, end, total=game.total_cards)


async def test_play_unknown_invite_code_is_a_clean_error(redis_url: str, inline: Any) -> None:
    async with server_and_host(redis_url) as (server, _bob):
        code, _, err = await inline(*play_args(server, "--invite", "ZZZZZZ", "--name", "alice"))
    assert code == 1
    assert "race_not_found" in err and "ZZZZZZ" in err
    assert "Traceback" not in err


async def test_race_create_no_wait_prints_a_code_others_can_join(
    redis_url: str, inline: Any
) -> None:
    async with server_and_host(redis_url) as (server, bob):
        url = harness.ws_url(server)
        code, out, err = await inline(
            "race", "create", "forty-and-eight", "-o", "foundation_takeback=no",
            "--seats", "3",
            "--time-limit", "120", "--no-wait", "--server", url, "--name", "carol",
        )
        assert code == 0, err
        invite = re.search(r"^invite code: ([A-Z2-9]{6})$", out, re.MULTILINE)
        rid = re.search(r"^race id: ([a-z0-9]+)$", out, re.MULTILINE)
        assert invite and rid, out
        joined = await bob.join(code=invite.group(1))
        assert joined["race"] == rid.group(1)
        assert joined["variant"] == "forty-and-eight"
        assert joined["options"]["foundation_takeback"] == "no"
        assert (joined["seats"], joined["time_limit"]) == (3, 120)
        assert [r["name"] for r in joined["racers"]] == ["carol", "bob"]

        code, out, err = await inline("race", "create", "unlimited", "--no-wait", "--json",
                                      "--server", url, "--name", "carol")
        assert code == 0, err
        summary = json.loads(out)
        assert summary["state"] == "lobby" and summary["racers"][0]["name"] == "carol"

        code, _, err = await inline("race", "create", "unlimited", "-o", "draw=7", "--no-wait",
                                    "--server", url, "--name", "carol")
        assert code == 1 and "bad_option" in err


async def test_race_create_waits_in_the_lobby_and_plays(redis_url: str, tmp_path: Path) -> None:
    async with server_and_host(redis_url) as (server, bob):
        cli = await Cli.start(tmp_path, "race", "create", "double-aces-and-kings",
                              "--server", harness.ws_url(server), "--no-color", "--name", "dora")
        out = await cli.read_until("press enter when you are ready")
        invite = re.search(r"invite code ([A-Z2-9]{6})", out)
        assert invite, out
        joined = await bob.join(code=invite.group(1))
        game = await harness.replica(redis_url, joined["race"])
        await cli.read_until("bob joined (2/2)")
        await bob.ready(joined["race"])
        await cli.read_until("bob is ready")
        await cli.send("", "resign", close=True)  # enter = ready; then resign once it runs
        await alice_progress(bob, result="resigned")
        await bob.resign(joined["race"])
        end = await bob.next_event(CLI_TIMEOUT, t="event", k="end")
        code, out, err = await cli.finish()
    assert code == 0, err
    assert render_view(view_of(game).wire()) in out
    assert_standings(out, end, total=game.total_cards)


# ----------------------------------------------------------------------------- pieces


def test_session_store_round_trip_and_isolation(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sub" / "session.json")
    assert store.load("ws://h:1", "alice") is None
    store.save("ws://h:1/", SavedSession("t" * 32, "Alice", "p1"))
    store.save("ws://h:1", SavedSession("u" * 32, "bob", "p2"))
    store.save("ws://other:2", SavedSession("v" * 32, "alice", "p3"))
    assert store.load("ws://h:1", "ALICE") == SavedSession("t" * 32, "Alice", "p1")
    assert store.load("ws://h:1/", "bob") == SavedSession("u" * 32, "bob", "p2")
    assert store.load("ws://other:2", "alice") == SavedSession("v" * 32, "alice", "p3")
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    store.forget("ws://h:1", "alice")
    assert store.load("ws://h:1", "alice") is None
    assert store.load("ws://h:1", "bob") is not None
    store.path.write_text("{not json")
    assert store.load("ws://h:1", "bob") is None  # corrupt: treated as empty, not a crash
    store.save("ws://h:1", SavedSession("w" * 32, "bob"))
    assert store.load("ws://h:1", "bob") == SavedSession("w" * 32, "bob", None)


async def test_login_falls_back_to_a_new_session_when_the_token_is_unknown(
    redis_url: str, tmp_path: Path
) -> None:
    store = SessionStore(tmp_path / "session.json")
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        store.save(url, SavedSession("x" * 32, "alice", "gone"))
        client = await login(url, "alice", store)
        try:
            saved = store.load(url, "alice")
            assert saved is not None and saved.token == client.token != "x" * 32
            assert saved.player == client.player
        finally:
            await client.close()
        again = await login(url, "alice", store)  # the saved token now resumes the session
        try:
            assert again.player == client.player and again.welcome.get("token") is None
        finally:
            await again.close()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("alice", "alice"), ("José Díaz", "Jose-Diaz"), ("_x", "x-player"), ("", "player"),
     ("a" * 30, "a" * 20), ("..", "player"), ("d'Artagnan", "d-Artagnan")],
)
def test_sanitize_name_obeys_the_name_rule(raw: str, expected: str) -> None:
    name = sanitize_name(raw)
    assert name == expected
    assert NAME_RE.match(name)


def test_argument_types() -> None:
    assert server_url("127.0.0.1:9") == "ws://127.0.0.1:9"
    assert server_url("wss://example.org/ws") == "wss://example.org/ws"
    assert invite_code(" ab3dfg ") == "AB3DFG"
    for bad in ("http://x", ""):
        with pytest.raises(Exception, match="URL"):
            server_url(bad)
    with pytest.raises(Exception, match="invite code"):
        invite_code("AB1")


# ----------------------------------------------------------------------------- utilities


async def _retry(action: Any, attempts: int = 50) -> Any:
    for i in range(attempts):
        try:
            return await action()
        except (OSError, ConnectionError, TimeoutError):
            if i == attempts - 1:
                raise
            await asyncio.sleep(0.1)
    return None
