"""``solrace report``, ``solrace mod …`` and ``solrace register --bot``, run as real
subprocesses against a real server holding results (``--fair-play hold``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
import harness  # tests/server/harness.py: the shared server test harness
from test_account_cli import PW, run_cli
from test_daily import FAST, store_daily
from test_fairplay_e2e import admin, instant_win

pytestmark = pytest.mark.timeout(180)


async def test_a_moderator_works_the_queue_from_the_terminal(redis_url: str,
                                                             tmp_path: Path) -> None:
    await store_daily(redis_url)
    async with harness.running_server(redis_url, **FAST, fair_play="hold") as server:
        url = harness.ws_url(server)
        mod, rep = tmp_path / "mod", tmp_path / "rep"
        for home, name in ((mod, "mona"), (rep, "rex")):
            code, _, err = await run_cli(home, "register", name, "--server", url,
                                         stdin=PW + "\n")
            assert code == 0, err
        async with harness.accounts(url, "cheater") as (cheater,):
            rid = await instant_win(cheater)
            await cheater.next_event(t="review")  # held (screened just after the end)
            case = f"{rid}:{cheater.player}"
            code, _, err = await run_cli(mod, "mod", "queue", "--server", url)
            assert code == 1 and "forbidden" in err
            assert admin(redis_url, "grant", "mona", "moderator").returncode == 0
            code, out, err = await run_cli(mod, "mod", "queue", "--server", url)
            assert code == 0, err
            assert case in out and "cheater" in out and "instant_play" in out
            code, out, err = await run_cli(mod, "mod", "case", case, "--server", url)
            assert code == 0, err
            assert "instant_play" in out and "YES" in out and "think times" in out
            assert "0-250 ms" in out  # the histogram's first bucket holds the script's gaps
            assert "solver's view: " in out  # queued, or the worker pool's analysis
            code, out, err = await run_cli(rep, "report", "cheater", "--category",
                                           "cheating", "--note", "0.1 s a move",
                                           "--server", url)
            assert code == 0 and "reported cheater" in out, err
            code, out, err = await run_cli(rep, "report", "cheater", "--server", url)
            assert code == 1 and "already_reported" in err
            code, out, err = await run_cli(mod, "mod", "reports", "cheater", "--server", url)
            assert code == 0 and "rex: cheating" in out and "0.1 s a move" in out, err
            code, _, err = await run_cli(mod, "mod", "clear", case, "--server", url)
            assert code == 2 and "--reason" in err  # a decision needs a reason
            code, out, err = await run_cli(mod, "mod", "clear", case, "--reason", "filmed",
                                           "--server", url)
            assert code == 0 and "cleared" in out, err
            code, out, err = await run_cli(mod, "mod", "ban", "cheater", "--reason",
                                           "solver line", "--server", url)
            assert code == 0 and "banned cheater" in out and "1 results" in out, err
            code, _, err = await run_cli(mod, "mod", "audit", "--server", url)
            assert code == 1 and "forbidden" in err  # admins only


async def test_register_a_bot_account(redis_url: str, tmp_path: Path) -> None:
    async with harness.running_server(redis_url) as server:
        url = harness.ws_url(server)
        code, out, err = await run_cli(tmp_path, "register", "robo", "--bot", "--server", url,
                                       stdin=PW + "\n")
        assert code == 0 and "registered robo as a BOT account" in out, err
        code, _, err = await run_cli(tmp_path, "daily", "unlimited", "--server", url)
        assert code == 1 and "bots_not_allowed" in err


def test_boards_and_the_daily_end_say_under_review_and_provisional() -> None:
    from solrace.client.commands.daily import attempt_line, rank_lines
    from solrace.client.commands.leaderboard import board_lines

    board = {"variant": "unlimited", "date": "2026-12-05", "total": 0, "rows": [],
             "provisional": True, "review_until": 1796601600000, "my_review": "held",
             "my_row": {"result": "won", "time": 1950, "moves": 119}}
    text = "\n".join(board_lines(board))
    assert "provisional until 2026-12-07 00:00 UTC" in text
    assert "your result (won, 0:01) is under review" in text
    assert "provisional" not in "\n".join(board_lines({**board, "provisional": False}))
    held = rank_lines({"review": "held", "result": "won", "time": 1950}, "unlimited")
    assert held[0].startswith("your result is under review")
    assert "under review" in attempt_line({"attempt": "abcdefgh", "attempt_state": "finished",
                                           "attempt_review": "held", "variant": "unlimited"})
    # pending: the solver's analysis of the line is still running (seconds)
    checking = "\n".join(board_lines({**board, "my_review": "pending"}))
    assert "your result (won, 0:01) is being checked" in checking
    assert "is under review" not in checking
    assert "being checked" in rank_lines({"review": "pending", "result": "won",
                                          "time": 1950}, "unlimited")[0]
    assert "being checked" in attempt_line({"attempt": "abcdefgh", "attempt_state": "finished",
                                            "attempt_review": "pending",
                                            "variant": "unlimited"})
