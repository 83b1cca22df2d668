"""Issue 10, items 4, 5, 6 and part of 15: what ``solrace daily`` and ``solrace solve`` say."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest
from solrace.client import cli
from solrace.client.commands import daily as daily_cmd
from solrace.client.commands import solve as solve_cmd
from solrace.shared.engine import Game

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
import asyncio

import harness
from test_daily import WIN_VARIANT, store_daily

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def inline(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
           ) -> Any:
    """A command run in this process on a worker thread: (status, stdout, stderr)."""
    monkeypatch.setenv("SOLRACE_HOME", str(tmp_path))

    async def run(*argv: str) -> tuple[int, str, str]:
        code = await asyncio.to_thread(cli.main, list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


async def test_daily_info_says_finished_after_the_attempt(
        redis_url: str, inline: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    await store_daily(redis_url)
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        base = ["--server", url, "--no-color"]
        # the ranked attempt needs an account: carol registers with the CLI first
        monkeypatch.setenv("SOLRACE_PASSWORD", harness.password_for("carol"))
        code, _, err = await inline("register", "carol", "--server", url)
        assert code == 0, err
        code, out, _ = await inline("daily", WIN_VARIANT, "--info", *base)
        assert code == 0 and "your ranked attempt: not played yet" in out, out
        # play the attempt from the CLI's own saved session, then resign it
        from solrace.client.session import login

        client = await login(url, None)
        try:
            reply = await client.request("daily.start", variant=WIN_VARIANT)
            rid = reply["race"]["race"]
            code, out, _ = await inline("daily", WIN_VARIANT, "--info", *base)
            assert f"in progress (race {rid})" in out, out
            client.versions.setdefault(rid, 0)
            await client.sync(rid)
            await client.resign(rid)
        finally:
            await client.close()
        for _ in range(50):
            code, out, _ = await inline("daily", WIN_VARIANT, "--info", *base)
            if "finished" in out:
                break
        assert f"your ranked attempt: finished (race {rid})" in out, out
        assert "started" not in out


async def test_a_ranked_daily_waits_for_enter_on_a_terminal(
        redis_url: str, inline: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """At a terminal the clock does not start before enter: end of input there starts
    nothing (the attempt stays unplayed)."""
    await store_daily(redis_url)
    monkeypatch.setattr(daily_cmd, "interactive", lambda: True)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        code, out, _ = await inline("daily", WIN_VARIANT, "--server", url, "--name", "dave",
                                    "--no-color")
        assert code == 0, out
        assert "press enter to start your ranked attempt" in out
        assert "not started" in out
        code, out, _ = await inline("daily", WIN_VARIANT, "--info", "--server", url,
                                    "--name", "dave", "--no-color")
        assert "not played yet" in out, out


def test_solve_answers_in_seconds_and_says_what_to_do_when_unknown(
        capsys: pytest.CaptureFixture[str]) -> None:
    args = cli.build_parser().parse_args(["solve", "unlimited"])
    assert args.budget is None  # chosen per variant: more nodes on the compiled core
    budget = solve_cmd.default_budget(Game("unlimited", {}, 0))
    assert budget in (solve_cmd.DEFAULT_BUDGET, solve_cmd.CORE_BUDGET)
    assert budget.seconds == 9.0  # seconds at most, whichever the core
    assert solve_cmd.default_budget(Game("seven-by-five", {}, 0)) == solve_cmd.DEFAULT_BUDGET
    assert solve_cmd.default_budget(Game("forty-and-eight", {}, 0)) in (
        solve_cmd.DEFAULT_BUDGET, solve_cmd.FORTY_EIGHT_BUDGET)
    assert solve_cmd.FORTY_EIGHT_BUDGET.seconds == 9.0
    args.budget = solve_cmd.DEFAULT_BUDGET
    assert cli.main(["solve", "unlimited", "--seed", "1", "--budget", "1k", "-o", "draw=3"]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert "draw=3 foundation_takeback=yes" in first, first  # spaces, like every command
    assert first.endswith(": unknown"), first  # 1k nodes decide nothing on this deal
    assert "--budget 10k" in out and "--budget 60s" in out, out
    assert "unknown" in solve_cmd.unknown_advice(args.budget)
    assert "--budget 2000k" in solve_cmd.unknown_advice(args.budget)


def test_standings_show_rating_changes() -> None:
    """Item 8: a rated race's end shows each racer's rating before and after."""
    from solrace.client.tui import standings_lines

    end = {"reason": "done", "standings": [
        {"rank": 1, "player": "a", "name": "ann", "result": "won", "home": 52, "moves": 90,
         "elapsed": 60_000, "rating": {"before": 1500, "after": 1662, "rd": 290,
                                       "provisional": True}},
        {"rank": 2, "player": "b", "name": "bo", "result": "resigned", "home": 3, "moves": 9,
         "elapsed": 9_000, "rating": {"before": 1500, "after": 1338, "rd": 290,
                                      "provisional": True}}]}
    text = "\n".join(standings_lines(end, me="b"))
    assert "rating" in text and "1500 → 1662 (+162)" in text and "1500 → 1338 (-162)" in text
    plain = "\n".join(standings_lines({"reason": "done", "standings": [
        {k: v for k, v in end["standings"][0].items() if k != "rating"}]}))
    assert "rating" not in plain and "→" not in plain


def test_profile_counts_lost_races() -> None:
    """Item 9: a player with only lost races has played (``races``)."""
    from solrace.client.commands.profile import profile_lines

    lines = profile_lines({"name": "alice", "player": "p", "ratings": {},
                           "stats": {"unlimited": {"races": 4}}})
    text = "\n".join(lines)
    assert "nothing played" not in text and "races" in text
    (row,) = [ln.split() for ln in lines if ln.startswith("  Unlimited")]
    assert row[1] == "4", row


def test_seven_by_five_defaults_are_called_unwinnable(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    """Item 11: ``solrace variants`` (text and JSON) and a race lobby on the default options
    say Seven by Five is practically never winnable and name the preset."""
    import json

    from solrace.client.commands.play import default_options_advice

    assert cli.main(["variants", "--no-color"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    block = out[out.index("seven-by-five"):out.index("double-aces-and-kings")]
    assert "practically no deal can be won" in block and "-o empty_fill=any" in block
    assert cli.main(["variants", "--json"]) == 0
    doc = {d["name"]: d for d in json.loads(capsys.readouterr().out)}
    assert "cells=5" in doc["seven-by-five"]["advice"] and doc["unlimited"]["advice"] is None
    lobby = {"variant": "seven-by-five", "options": {"cells": "0", "empty_fill": "king"}}
    assert "practically no deal can be won" in (default_options_advice(lobby) or "")
    assert default_options_advice({**lobby, "options": {"cells": "5", "empty_fill": "any"}}
                                  ) is None
    assert default_options_advice({"variant": "unlimited", "options": {}}) is None
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "practically never winnable" in readme


def test_watch_keeps_the_header_on_an_80_by_24_terminal() -> None:
    """Item 13: three Forty and Eight boards at 80 columns used to stack into a frame far
    taller than the terminal, scrolling the header and the first board away."""
    from solrace.client.commands.watch import RaceView
    from solrace.shared.engine import Game
    from solrace.shared.views import view_of

    view = view_of(Game("forty-and-eight", None, 3)).wire()
    racers = [{"player": f"p{i}", "name": f"racer{i}", "ready": True} for i in range(3)]
    reply = {"race": {"race": "r" * 16, "code": "ABCDEF", "variant": "forty-and-eight",
                      "options": {}, "state": "running", "racers": racers},
             "boards": {r["player"]: {"seq": 0, "view": view} for r in racers}, "v": 5,
             "delay": 0.0, "spectators": 1}
    race = RaceView(reply)
    tall = race.frame(False, 80, 0)
    assert len(tall) > 24  # what the old frame was at any height
    fitted = race.frame(False, 80, 0, height=24)
    assert len(fitted) <= 23 and fitted[0].startswith("watching race")
    text = "\n".join(fitted)
    assert all(f"racer{i}" in text for i in range(3))
    assert "not shown" in text and "0/104 home" in text
    assert race.frame(False, 400, 0, height=200) == race.frame(False, 400, 0)  # room: all


def _terminal(summary: dict[str, Any], board_moves: int | None = None) -> Any:
    """A play terminal on a stub client (no server): for what it draws and says."""
    import types

    from solrace.client.commands.play import RaceTerminal
    from solrace.client.tui import Screen
    from solrace.shared.engine import Game
    from solrace.shared.views import view_of

    boards = {}
    if board_moves is not None:
        game = Game("unlimited", None, 1)
        for _ in range(board_moves):
            game.push("sw")
        boards[summary["race"]] = {"seq": board_moves, "view": view_of(game).wire()}
    client = types.SimpleNamespace(welcome={"name": "al", "server_time": 0}, player="me",
                                   name="al", account=False, boards=boards)
    term = RaceTerminal(client, "ws://x", color=False, auto_ready=False,  # type: ignore[arg-type]
                        screen=Screen(io.StringIO(), tty=False))
    term.summary, term.rid, term.state = summary, summary["race"], summary["state"]
    return term


def test_small_things_a_new_player_hit() -> None:
    """Item 15: '1 move', invite codes only where they mean something, the commitment at the
    countdown, more than three messages kept, what quit does."""
    race = {"race": "r" * 16, "code": "ABCDEF", "kind": "race", "state": "running",
            "variant": "unlimited", "options": {}, "racers": []}
    term = _terminal(race, board_moves=1)
    assert "you: 1 move · " in term.status_line()
    assert "code ABCDEF" in term.title()
    daily = _terminal({**race, "kind": "daily"})
    assert "code" not in daily.title() and "race " + "r" * 16 in daily.title()
    term.on_event({"v": 3, "k": "countdown", "starts_at": 0, "commitment": "ab" * 32})
    assert any("ab" * 32 in m for m in term.history)
    for i in range(12):
        term.message(f"note {i}")
    assert len(term.messages) == 5 and "note 0" in term.history
    term.show_log()
    out = term.screen.out.getvalue()
    assert "earlier messages:" in out and "note 0" in out.split("earlier messages:")[1]
    assert "resumes" in term.quit_words() and "resign" in term.quit_words()
    term.state = "lobby"
    assert "seat is freed" in term.quit_words()


def test_help_texts_have_no_rest_markup(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("race", "practice", "play", "daily", "watch", "solve"):
        assert cli.main([command, "--help"]) == 0
        out = capsys.readouterr().out
        assert "``" not in out, (command, out)


def test_server_configuration_table_is_aligned() -> None:
    from solrace.server.ops.config import Config

    text = Config(secret="test-secret-0123456789abcdef").describe()
    rows = [line for line in text.splitlines()[1:] if line.startswith("  ")
            and not line.startswith("  warning")]
    starts = {len(line) - len(line[2:].split(" ", 1)[1].lstrip()) for line in rows}
    assert len(starts) == 1, text  # every value starts in one column


def test_play_shows_a_disconnected_rival() -> None:
    """Item 12: a presence frame marks a rival disconnected (their line and a message), and
    back again."""
    from solrace.client.commands.play import Racer

    race = {"race": "r" * 16, "code": "ABCDEF", "kind": "race", "state": "running",
            "variant": "unlimited", "options": {}, "racers": []}
    term = _terminal(race, board_moves=0)
    term.racers = {"me": Racer("me", "al"), "bo": Racer("bo", "bo", home=0)}
    term.on_presence({"t": "presence", "race": "r" * 16, "player": "bo", "online": False})
    assert "(disconnected)" in term.rival_line(term.racers["bo"])
    assert "bo disconnected" in term.history[-1]
    term.on_presence({"t": "presence", "race": "r" * 16, "player": "bo", "online": True})
    assert "(disconnected)" not in term.rival_line(term.racers["bo"])
    assert term.history[-1] == "bo is back"
