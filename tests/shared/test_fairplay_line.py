"""The solver's view of a ranked line (shared/fairplay/analysis.py), the results-based signals
(win trading, thrown games) and the game's own total that the history keeps."""

from __future__ import annotations

import pytest
from solrace.shared.engine import Game
from solrace.shared.fairplay import GameRecord, History, evidence, pair_record, score
from solrace.shared.fairplay import signals as S
from solrace.shared.fairplay.analysis import analyse
from solrace.shared.solver import Budget, solve

SBF = ("seven-by-five", {"cells": "5", "empty_fill": "any"}, 2)  # every card face up
OLD = History(account_age_days=400.0, ranked_games=100)


def solver_line() -> list[str]:
    result = solve(SBF, Budget(nodes=200_000, seconds=None))
    assert result.moves, "the pinned deal is won by the solver"
    return [m.text() for m in result.moves]


def record(moves: list[str], *, result: str = "won", kind: str = "daily") -> GameRecord:
    times = [5000 + 2500 * i + (i * 7919) % 3000 for i in range(len(moves))]  # a person's pace
    variant, options, seed = SBF
    return GameRecord(variant=variant, options=options, seed=seed, moves=tuple(moves),
                      times_ms=tuple(times), result=result, elapsed_ms=times[-1] if times else 0,
                      par=None, kind=kind)


def fired(rec: GameRecord, history: History = OLD, analysis: dict | None = None) -> set[str]:
    return {s.name for s in score(evidence(rec), history, analysis).signals if s.fired}


@pytest.fixture(scope="module")
def line() -> list[str]:
    return solver_line()


def test_the_solvers_own_line_agrees_with_the_solver(line: list[str]) -> None:
    a = analyse(*SBF, line, samples=6, nodes=20_000)
    assert a["samples"] == 6 and a["undecided"] == 0
    assert a["agreement"] >= S.AGREE and a["wasted"] == 0
    assert a["cpu_ms"] >= 0 and a["nodes"] == 20_000


def test_out_and_back_moves_are_wasted_and_lower_the_agreement(line: list[str]) -> None:
    padded: list[str] = []
    last = 0
    for i, move in enumerate(line):  # a card to a free cell and straight back, now and then
        if i - last >= 6:
            g = Game(*SBF)
            g.replay(padded)
            cell = next((g.layout.ids[c] for c in g.layout.cells if not g.pos.piles[c]), None)
            for t in g.layout.tableau if cell is not None else ():
                src = g.layout.ids[t]
                if g.pos.piles[t] and g.is_legal(f"{src}{cell}"):
                    g.push(f"{src}{cell}")
                    back = g.is_legal(f"{cell}{src}")
                    g.pop()
                    if back:
                        padded += [f"{src}{cell}", f"{cell}{src}"]
                        last = i
                        break
        padded.append(move)
    won = Game(*SBF)
    won.replay(padded)
    assert won.status.value == "won" and len(padded) >= len(line) + 10
    a = analyse(*SBF, padded, samples=8, nodes=20_000)
    assert a["wasted"] >= 5  # each shuffle brings back the position before it
    plain = analyse(*SBF, line, samples=8, nodes=20_000)
    assert a["agreement"] < plain["agreement"]  # sampled shuffles are not the solver's moves


def test_a_line_far_from_the_solvers_disagrees() -> None:
    game = Game(*SBF)  # the practice bots' greedy player: its own moves, not the solver's
    from solrace.shared.solver.bots import Bot

    bot, moves = Bot("medium"), []
    while (move := bot.choose(game)) is not None and len(moves) < 60:
        moves.append(game.push(move).text())
    a = analyse(*SBF, moves, samples=8, nodes=5_000)
    assert a["agreement"] is None or a["agreement"] < S.AGREE


def test_an_empty_line_is_analysed_without_samples() -> None:
    a = analyse(*SBF, [], samples=8, nodes=1_000)
    assert a["samples"] == 0 and a["agreement"] is None and a["wasted"] == 0


def test_solver_agreement_and_padding_fire_only_on_a_won_game(line: list[str]) -> None:
    high = {"samples": 8, "undecided": 0, "agreement": 0.9, "wasted": 12}
    assert {"solver_agreement", "padding"} <= fired(record(line), analysis=high)
    assert not {"solver_agreement", "padding"} & fired(record(line, result="lost"),
                                                      analysis=high)
    low = {**high, "agreement": S.AGREE - 0.01, "wasted": 0}
    assert not {"solver_agreement", "padding"} & fired(record(line), analysis=low)
    few = {**high, "undecided": 8 - S.AGREE_MIN + 1}  # too few decided samples: not judged
    assert "solver_agreement" not in fired(record(line), analysis=few)
    assert not {"solver_agreement", "padding"} & fired(record(line))  # no analysis yet


def test_a_rated_race_thrown_after_a_handful_of_moves(line: list[str]) -> None:
    assert "thrown_game" in fired(record(line[:S.THROWN_MOVES - 1], result="resigned",
                                         kind="race"))
    assert "thrown_game" not in fired(record(line[:S.THROWN_MOVES], result="resigned",
                                             kind="race"))
    assert "thrown_game" not in fired(record(line[:3], result="resigned"))  # a daily: no rival


def races(me: str, other: str, my_wins: int, their_wins: int) -> list[dict]:
    return ([{"ranks": {me: 1, other: 2}}] * my_wins
            + [{"ranks": {me: 2, other: 1}}] * their_wins)


def test_pair_record_finds_the_opponent_met_most_and_its_lopsidedness() -> None:
    assert pair_record([], "a") == (0, 0.0)
    assert pair_record(races("a", "b", 5, 0), "a") == (5, 1.0)
    assert pair_record(races("a", "b", 0, 5), "a") == (5, 1.0)  # either side of the pair
    assert pair_record(races("a", "b", 3, 3), "a") == (6, 0.5)
    mixed = races("a", "b", 2, 0) + races("a", "c", 4, 1)
    assert pair_record(mixed, "a") == (5, 0.8)
    tie = [{"ranks": {"a": 1, "b": 1}}] * 6  # a draw says nothing of who won
    assert pair_record(tie, "a") == (0, 0.0)
    assert pair_record(races("a", "b", 30, 0), "a") == (20, 1.0)  # the last 20 only


def test_win_trading_holds_the_feeder_not_an_honest_rival(line: list[str]) -> None:
    pair = History(400.0, 100, pair_games=S.PAIR_GAMES, pair_share=S.PAIR_SHARE)
    feeder = score(evidence(record(line[:4], result="resigned", kind="race")), pair)
    assert feeder.held and {"thrown_game", "same_opponent"} <= {
        s.name for s in feeder.signals if s.fired}
    rival = score(evidence(record(line[:80], result="lost", kind="race")), pair)
    assert not rival.held
    fewer = History(400.0, 100, pair_games=S.PAIR_GAMES - 1, pair_share=1.0)
    assert "same_opponent" not in fired(record(line[:4], result="resigned", kind="race"), fewer)


def test_the_history_keeps_the_games_own_total_not_the_accounts_context(line: list[str]
                                                                        ) -> None:
    context = History(0.1, 0, open_reports=S.REPORTS, pair_games=9, pair_share=1.0)
    s = score(evidence(record(line[:80], result="lost", kind="race")), context)
    assert {"new_account", "reported", "same_opponent"} <= {x.name for x in s.signals if x.fired}
    assert s.total == pytest.approx(0.2 + 0.3 + 0.3) and s.game_total == 0.0
    assert s.to_wire()["game_total"] == 0.0
