"""Quick play at the terminal (``client/quickplay.py``): a whole practice game won through the
CLI by typing piles, ``f``, ``auto`` and ``finish`` — the very lines ``bench/keystrokes.py``
counts — against a real server and Redis; and the prompt and messages of each word."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from solrace.client import quickplay
from solrace.client.render import render_view
from solrace.shared.engine import Game
from solrace.shared.pointing import autoplay
from solrace.shared.views import view_of
from test_play_cli import CLI_TIMEOUT, Cli, server_and_host

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import keystrokes  # bench/keystrokes.py: the typed lines of a won game

FAST = {"rate": 1000.0, "burst": 1000}  # a whole game piped in back to back


def practice_args(server: Any, *extra: str) -> list[str]:
    from harness import ws_url

    return ["practice", "unlimited", "--seed", "5", "--server", ws_url(server), "--no-color",
            "--name", "alice", *extra]


async def test_a_won_game_typed_with_piles_auto_and_finish(redis_url: str, tmp_path: Path
                                                         ) -> None:
    lines, game = keystrokes.after("unlimited", {}, 5)
    assert lines[0] == "auto" and lines[-1] == "finish"
    assert any(len(x) <= 3 and x[0] == "t" for x in lines)  # pile clicks among them
    async with server_and_host(redis_url, **FAST) as (server, _bob):
        cli = await Cli.start(tmp_path, *practice_args(server))
        await cli.send(*lines, close=True)
        code, out, err = await cli.finish(CLI_TIMEOUT * 3)
    assert code == 0, err
    assert "auto-play on: safe cards go home after every move" in out
    assert "you won: every card is home" in out, out[-3000:]
    assert render_view(view_of(game).wire()) in out  # the final board is the replica's
    assert "finish: " in out and " moves played: " in out
    click = next(x for x in lines[1:] if x[0] == "t" and len(x) <= 3)
    assert f"> {click}" in out and f"{click} → t" in out  # the resolved move is named


async def test_f_reports_safe_cards_and_refusals_name_their_code(redis_url: str,
                                                                  tmp_path: Path) -> None:
    game = Game("unlimited", {}, 5)
    async with server_and_host(redis_url, **FAST) as (server, _bob):
        cli = await Cli.start(tmp_path, *practice_args(server))
        await cli.send("finish", "t9", "f", "resign", close=True)
        code, out, err = await cli.finish()
    assert code == 0, err
    assert "✗ finish: cannot_finish — " in out and "face-down" in out
    assert "✗ t9: illegal_move — Unlimited has no pile t9" in out
    safe = autoplay(game.copy())
    if safe:
        assert f"f: {len(safe)} safe card" in out
    else:
        assert "f: no card is safe to play home yet" in out


class _Term:
    def __init__(self, auto: bool) -> None:
        self.auto_play = auto
        self.said: list[str] = []

    def message(self, text: str) -> None:
        self.said.append(text)


@pytest.mark.parametrize("auto, expected", [(False, "move> "), (True, "move (auto)> ")])
def test_the_prompt_says_when_auto_play_is_on(auto: bool, expected: str) -> None:
    assert quickplay.prompt(_Term(auto), "move> ") == expected  # type: ignore[arg-type]
    assert quickplay.prompt(_Term(auto), "> ") == "> "  # type: ignore[arg-type]


def test_report_names_resolved_moves_and_batches() -> None:
    t = _Term(False)
    quickplay.report(t, "t3", {"moves": ["t3f1"]})  # type: ignore[arg-type]
    quickplay.report(t, "t3f1", {"moves": ["t3f1"]})  # type: ignore[arg-type]
    quickplay.report(t, "t2t4", {"moves": ["t2t4", "t6f1"]})  # type: ignore[arg-type]
    quickplay.report(t, "f", {"moves": []})  # type: ignore[arg-type]
    quickplay.report(t, "f", {"moves": ["t1f1", "wf1"]})  # type: ignore[arg-type]
    assert t.said == ["t3 → t3f1", "t2t4 → t2t4 · then home: t6f1",
                      "f: no card is safe to play home yet", "f: 2 safe cards home: t1f1 wf1"]
