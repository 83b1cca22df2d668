"""Par beside results: the leaderboard column and the line after a ranked daily attempt."""

from __future__ import annotations

from solrace.client.commands.daily import rank_lines
from solrace.client.commands.leaderboard import board_lines, versus_par


def row(result: str, moves: int, **extra: object) -> dict[str, object]:
    return {"rank": 1, "player": "p1", "name": "ann", "result": result, "home": 52,
            "moves": moves, "time": 61_000, **extra}


def test_versus_par_for_winners_only() -> None:
    assert versus_par(row("won", 100), 94) == "+6"
    assert versus_par(row("won", 90), 94) == "-4"
    assert versus_par(row("won", 94), 94) == "par"
    assert versus_par(row("lost", 30), 94) == ""  # an unfinished game has no par to meet
    assert versus_par(row("won", 100), None) == ""


def test_board_shows_par_in_title_and_column() -> None:
    board = {"variant": "unlimited", "date": "2026-11-29", "total": 2, "par": 94,
             "rows": [row("won", 100), {**row("resigned", 12), "rank": 2, "name": "bob"}]}
    lines = board_lines(board)
    assert lines[0].endswith("· 2 entries · par 94 moves")
    assert lines[2].split()[:6] == ["1", "ann", "won", "52", "100", "+6"]
    assert "+" not in lines[3] and "par" not in lines[3]


def test_rank_line_after_the_attempt_names_par() -> None:
    won = rank_lines({**row("won", 100), "total": 9}, "unlimited", par=94)
    assert "100 moves (+6 against par 94)" in won[0]
    exact = rank_lines({**row("won", 94), "total": 9}, "unlimited", par=94)
    assert "94 moves (par)" in exact[0]
    lost = rank_lines({**row("lost", 40), "total": 9}, "unlimited", par=94)
    assert "40 moves," in lost[0]
