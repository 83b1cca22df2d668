"""Issue 10, item 3: ``solrace play`` with open games never picks one silently, and invalid
race settings on its command line are always refused, resuming or not."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from solrace.client import opengames
from solrace.client.session import SessionStore, login
from test_play_cli import Cli, play_args

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
import harness

pytestmark = pytest.mark.timeout(120)


def game(rid: str, state: str = "running", kind: str = "practice") -> dict[str, Any]:
    return {"race": rid, "state": state, "kind": kind, "variant": "unlimited",
            "racers": [{}, {}], "code": "ABCDEF", "ends_at": 60_000}


def test_choose_never_guesses_among_several() -> None:
    games = [game("a" * 16), game("b" * 16, kind="daily")]
    kw: dict[str, Any] = {"race": None, "new": False, "asked_new": False,
                          "new_label": "create a new race", "now_ms": 0}
    with pytest.raises(opengames.Choice, match="--race"):
        opengames.choose(games, ask=None, **kw)
    answers = iter(["9", "x", "2"])
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    assert opengames.choose(games, ask=ask, **kw)["race"] == "b" * 16
    assert "1. resume practice " + "a" * 16 in asked[0] and "3. create a new race" in asked[0]
    assert opengames.choose(games, ask=lambda _: "3", **kw) is None
    assert opengames.choose(games[:1], ask=None, **kw)["race"] == "a" * 16  # one: resumed
    with pytest.raises(opengames.Choice):  # one, but a new race was asked for
        opengames.choose(games[:1], ask=None, **{**kw, "asked_new": True})
    assert opengames.choose(games, ask=None, **{**kw, "new": True}) is None
    assert opengames.choose(games, ask=None, **{**kw, "race": "b" * 16})["race"] == "b" * 16
    with pytest.raises(opengames.Choice, match="not one of your open games"):
        opengames.choose(games, ask=None, **{**kw, "race": "c" * 16})


async def test_play_lists_open_games_and_resumes_the_chosen_one(
        redis_url: str, tmp_path: Path) -> None:
    async with harness.running_server(redis_url, bot_delay=50) as server:
        url = harness.ws_url(server)
        client = await login(url, "alice", SessionStore(tmp_path / "session.json"))
        try:
            first = (await client.request("practice.start", variant="unlimited",
                                          bots=["weak"]))["race"]["race"]
            second = (await client.request("practice.start", variant="unlimited",
                                           bots=["weak"]))["race"]["race"]
        finally:
            await client.close()

        cli = await Cli.start(tmp_path, *play_args(server, "--name", "alice"))
        code, out, err = await cli.finish()
        assert code == 1, (out, err)
        assert f"solrace play --race {first}" in err and f"solrace play --race {second}" in err

        cli = await Cli.start(tmp_path, *play_args(server, "--name", "alice", "--seats", "9"))
        code, out, err = await cli.finish()
        assert code == 2 and "9 is outside 2..8" in err, (out, err)

        cli = await Cli.start(tmp_path, *play_args(server, "--name", "alice", "--race", second,
                                                   "--time-limit", "900"))
        await cli.read_until(f"resuming race {second}")
        out = await cli.read_until("apply to new races only")
        assert "--time-limit" in out
        await cli.send("quit", close=True)
        code, out, err = await cli.finish()
        assert code == 0, err


async def test_practice_says_how_to_end_once_the_bots_are_done(
        redis_url: str, tmp_path: Path) -> None:
    """Item 14: when every bot has finished, the player is told how to end the race now
    (``resign``) instead of waiting for the time limit; resigning then ends it at once."""
    async with harness.running_server(redis_url, bot_delay=0.0) as server:
        cli = await Cli.start(tmp_path, "practice", "sixes-and-sevens", "--bot", "medium",
                              "--seed", "1", "--server", harness.ws_url(server),
                              "--name", "liam", "--no-color")
        try:
            await cli.read_until("every bot has finished", timeout=60)
            await cli.send("resign")
            out = await cli.read_until("standings — ", timeout=30)
        finally:
            cli.kill()
        assert "you resigned; the race is over" in out
        assert "waiting for the others" not in out
