"""The compiled Klondike core (``shared/solver/klondike.c`` via ``fastcore``): it is built on
first use or not at all, it searches exactly the graph the Python search does, and the
Python search answers wherever it cannot.

``test_solver.py`` runs every solver test on both searches; this file checks what only the
core has.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from positions import make, top_first
from solrace.shared import Game
from solrace.shared.solver import Budget, Outcome, fastcore, solve
from solrace.shared.solver.search import search_game

needs_core = pytest.mark.skipif(fastcore.library() is None,
                                reason=f"no compiled solver core here: {fastcore.build_error}")

TB_NO = {"foundation_takeback": "no"}
DRAW3 = {"draw": "3"}
# deals both searches prove lost (seed, options)
LOST = [({}, 37), ({}, 335), (DRAW3, 69), (DRAW3, 147), (TB_NO, 41),
        ({**DRAW3, **TB_NO}, 66), ({**DRAW3, **TB_NO}, 215)]


@needs_core
@pytest.mark.parametrize(("options", "seed"), LOST, ids=lambda x: str(x))
def test_lost_proofs_visit_the_same_positions_as_the_python_search(
        options: dict[str, str], seed: int) -> None:
    """An exhausted search visits every node of the pruned graph once, whatever its order, so
    the two searches must agree on the node count too: the core's pruning and keys are the
    Python search's, not merely something that gives the same answers."""
    game = Game("unlimited", options, seed)
    budget = Budget(nodes=20_000)
    full = fastcore.search(game, budget, None, streamline=False)  # without the streamliner
    python = search_game(game, budget, core="python", strategy="dfs")
    assert full is not None and python.outcome is Outcome.LOST
    assert full[0] is Outcome.LOST and full[2] == python.nodes
    assert search_game(game, budget, core="c").outcome is Outcome.LOST


@needs_core
@pytest.mark.parametrize("options", [{}, DRAW3, TB_NO])
def test_core_wins_replay_and_node_budgets_are_deterministic(options: dict[str, str]) -> None:
    won = 0
    for seed in range(1, 9):
        a = search_game(Game("unlimited", options, seed), Budget(nodes=30_000), core="c")
        b = search_game(Game("unlimited", options, seed), Budget(nodes=30_000), core="c")
        assert (a.outcome, a.moves, a.nodes) == (b.outcome, b.moves, b.nodes)
        if a.won:  # search_game has replayed it through Game.push already; once more here
            game = Game("unlimited", options, seed)
            game.replay(a.moves)
            assert game.cards_home == 52
            won += 1
    assert won >= 3


@needs_core
def test_mid_game_positions_and_the_node_budget() -> None:
    game = Game("unlimited", {}, 5)
    line = solve(game, Budget(nodes=4_000)).moves
    game.replay(line[:30])
    result = search_game(game, Budget(nodes=4_000), core="c")
    assert result.won and len(game.moves) == 30
    game.replay(result.moves)
    assert game.cards_home == 52
    cut = search_game(Game("unlimited", {}, 6), Budget(nodes=7), core="c")
    assert cut.outcome is Outcome.UNKNOWN and cut.nodes <= 7


def test_only_klondike_positions_from_play_go_to_the_core() -> None:
    assert fastcore.handles(Game("unlimited", DRAW3, 1))
    for variant in ("forty-and-eight", "sixes-and-sevens", "seven-by-five",
                    "double-aces-and-kings"):
        assert not fastcore.handles(Game(variant, {}, 1))
        assert fastcore.search(Game(variant, {}, 1), Budget(nodes=10), None) is None
    # 9♥ on 8♥ is no built run: a set-up position the core refuses (the Python search runs)
    odd = make("unlimited", {}, t=["2H", "3H", "4H", "8H9H", "THJH", "QH", "KH"],
               s=top_first("AH 5H 6H 7H"))
    assert fastcore.search(odd, Budget(nodes=10), None) is None
    assert solve(odd, Budget(nodes=4_000)).won


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                    reason="no C compiler")
def test_the_core_is_built_on_first_use_into_the_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(fastcore.ENV, raising=False)
    monkeypatch.setattr(fastcore, "_cache_dirs", lambda: [tmp_path])
    monkeypatch.setattr(fastcore, "_tried", False)
    monkeypatch.setattr(fastcore, "_lib", None)
    assert fastcore.library() is not None
    assert [p.suffix for p in tmp_path.iterdir()] == [".so"]
    assert search_game(Game("unlimited", {}, 5), Budget(nodes=4_000), core="c").won


def test_without_a_compiler_the_python_search_answers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh machine with only Python: nothing to compile with, nothing cached."""
    monkeypatch.delenv(fastcore.ENV, raising=False)
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(fastcore, "_cache_dirs", lambda: [tmp_path])
    monkeypatch.setattr(fastcore, "_tried", False)
    monkeypatch.setattr(fastcore, "_lib", None)
    monkeypatch.setattr(fastcore, "build_error", None)
    assert fastcore.library() is None
    assert "no C compiler" in (fastcore.build_error or "")
    result = solve(("unlimited", {}, 5), Budget(nodes=4_000))
    assert result.won
    monkeypatch.setenv(fastcore.ENV, "c")  # asked for the core: a clear error, no silence
    with pytest.raises(RuntimeError, match="unavailable"):
        fastcore.library()
