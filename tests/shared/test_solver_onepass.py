"""The compiled core of Double Aces and Kings and Sixes and Sevens (``shared/solver/onepass.c`` via
``onepass``): the Python search redone in C, node for node — the same edges in the same order,
the same canonical classes, the same two portfolio members — so at every node budget it must
give the Python search's answer, node count and line; the Python search answers wherever it
cannot.

``test_solver.py`` runs every solver test with the core on and off; this file checks the
agreement itself.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from positions import make
from solrace.shared import Game
from solrace.shared.solver import Budget, Outcome, fastcore, onepass
from solrace.shared.solver.moves import MoveGen
from solrace.shared.solver.search import (
    CAPPED_PART,
    PHASES,
    RESTARTS,
    Searcher,
    default_phases,
    phases_of,
    search_game,
)

needs_core = pytest.mark.skipif(onepass.library() is None,
                                reason=f"no compiled solver core here: {onepass.CORE.error}")

DAK = "double-aces-and-kings"
SIXES = "sixes-and-sevens"
R2S = {"reserve_to_space": "yes"}
NO = {"reserve_to_space": "no"}
AUTO = {"empty_fill": "auto"}
CONFIGS = [(DAK, NO), (DAK, R2S), (SIXES, AUTO)]
IDS = ["dak", "dak-r2s", "sixes"]


def _walk(variant: str, options: dict[str, str], seed: int, stock_left: int) -> Game:
    """A position of play: random legal moves (mostly home) until the stock holds
    ``stock_left`` cards or no move is left."""
    game = Game(variant, options, seed)
    rng = random.Random(seed)
    while len(game.pos.piles[game._S]) > stock_left:
        legal = game._legal()
        if not legal:
            break
        home = [m for m in legal if m[1] in game._F and m[0] not in game._F]
        m = rng.choice(home) if home and rng.random() < 0.7 else rng.choice(legal)
        game._do(*m)
    return game


@needs_core
@pytest.mark.parametrize(("variant", "options"), CONFIGS, ids=IDS)
def test_edges_are_the_python_searchs_in_its_order(variant: str, options: dict[str, str]
                                                   ) -> None:
    """On positions all through the game (spaces and an empty stock included), the core's
    edges are ``MoveGen.edges()``, one engine move each, in the same order."""
    checked = 0
    for seed in range(1, 9):
        game = Game(variant, options, seed)
        rng = random.Random(seed)
        for _ in range(300):
            edges = MoveGen(game).edges()
            assert all(len(e) == 1 for e in edges)
            assert onepass.edges(game) == [e[0] for e in edges]
            checked += 1
            legal = game._legal()
            if not legal:
                break
            home = [m for m in legal if m[1] in game._F and m[0] not in game._F]
            game._do(*(rng.choice(home) if home and rng.random() < 0.8 else rng.choice(legal)))
    assert checked > 800


LOST = [(DAK, NO, 6, 5), (DAK, NO, 7, 5), (DAK, NO, 10, 5), (SIXES, AUTO, 5, 3),
        (SIXES, AUTO, 2, 15), (SIXES, AUTO, 11, 15), (SIXES, AUTO, 16, 15)]


@needs_core
@pytest.mark.parametrize(("variant", "options", "seed", "stock"), LOST)
def test_lost_proofs_visit_the_same_positions_as_the_python_search(
        variant: str, options: dict[str, str], seed: int, stock: int) -> None:
    """Late positions both searches prove lost, by exhaustion (in Sixes and Sevens through
    the safe moves of an empty stock and waste): same node counts."""
    game = _walk(variant, options, seed, stock)
    for kind in ("dfs", "best"):
        searcher = Searcher(game)
        outcome, _ = (searcher.run_best if kind == "best" else searcher.run_dfs)(
            Budget(nodes=30_000))
        assert outcome is Outcome.LOST
        assert onepass.search(game, Budget(nodes=30_000), kind) == (
            Outcome.LOST, [], searcher.nodes)
    assert search_game(game, Budget(nodes=30_000), core="c").outcome is Outcome.LOST


@needs_core
@pytest.mark.parametrize(("variant", "options", "seeds", "nodes"),
                         [(DAK, NO, (3, 4), 16_000), (DAK, R2S, (1, 4), 6_000),
                          (SIXES, AUTO, (1, 2, 5), 6_000)], ids=IDS)
def test_the_portfolio_gives_the_python_answer_node_for_node(
        variant: str, options: dict[str, str], seeds: tuple[int, ...], nodes: int) -> None:
    """At a node budget: the same outcome, node count and (shortened, replayed) line."""
    won = 0
    for seed in seeds:
        game = Game(variant, options, seed)
        py = search_game(game, Budget(nodes=nodes), core="python")
        c = search_game(game, Budget(nodes=nodes), core="c")
        assert (c.outcome, c.moves, c.nodes) == (py.outcome, py.moves, py.nodes)
        if c.won:
            game.replay(c.moves)
            assert game.cards_home == game.total_cards
            won += 1
    assert won


@needs_core
@pytest.mark.parametrize(("variant", "options", "seed", "stock"),
                         [(DAK, R2S, 3, 60), (SIXES, AUTO, 13, 3), (SIXES, AUTO, 1, 40)])
def test_members_from_mid_game_positions_and_cut_budgets(
        variant: str, options: dict[str, str], seed: int, stock: int) -> None:
    """Every budget cut, and wins whose lines end in (or consist of) safe moves."""
    game = _walk(variant, options, seed, stock)
    for kind in ("dfs", "best"):
        for nodes in (1, 7, 500):
            searcher = Searcher(game)
            outcome, line = (searcher.run_best if kind == "best" else searcher.run_dfs)(
                Budget(nodes=nodes))
            assert onepass.search(game, Budget(nodes=nodes), kind) == (
                outcome, line, searcher.nodes)
    won = search_game(game, Budget(nodes=20_000), core="c")
    assert won.won
    game.replay(won.moves)
    assert game.cards_home == game.total_cards


@needs_core
@pytest.mark.parametrize(("variant", "options"), CONFIGS, ids=IDS)
def test_shuffled_depth_first_is_the_python_search_node_for_node(
        variant: str, options: dict[str, str]) -> None:
    """``rdfs<k>``: the pruned depth-first search with each node's children in a random order
    of seed k, a trailing draw kept last — the core draws the same permutations as
    ``Searcher(shuffle=k)`` (same outcome, node count and line at every budget cut, from
    deals and from positions of play), the order really differs from ``dfs``'s, and through
    ``search_game`` the line replays and an exhaustion is no proof (``unknown``)."""
    won = differs = 0
    for seed, stock in [(8, 200), (11, 200), (2, 60), (5, 30)]:
        game = _walk(variant, options, seed, stock)
        plain = onepass.search(game, Budget(nodes=3_000), "dfs")
        for k in (1, 2):
            for nodes in (1, 9, 700, 3_000):
                searcher = Searcher(game, shuffle=k)
                outcome, line = searcher.run_dfs(Budget(nodes=nodes))
                py = (outcome, line, searcher.nodes)
                assert onepass.search(game, Budget(nodes=nodes), "dfs", shuffle=k) == py
                won += outcome is Outcome.WON
            differs += py != plain
            result = search_game(game, Budget(nodes=3_000), strategy=f"rdfs{k}", core="c")
            python = search_game(game, Budget(nodes=3_000), strategy=f"rdfs{k}", core="python")
            assert (result.outcome, result.nodes, result.moves) == (
                python.outcome, python.nodes, python.moves)
            assert (result.outcome, result.nodes) == ((Outcome.UNKNOWN, py[2])
                                                      if py[0] is Outcome.LOST else py[::2])
            if result.won:
                game.replay(result.moves)  # the line replays through Game.push
                assert game.cards_home == game.total_cards
                game = _walk(variant, options, seed, stock)
    assert won and differs


@needs_core
def test_a_shuffled_exhaustion_leaves_the_proof_to_dfs() -> None:
    """A late position the shuffled member exhausts: reported ``unknown`` by it, and the
    unshuffled ``dfs`` after it still runs (it is not skipped as the same graph) and proves
    the position lost, in Python and on the core alike."""
    game = _walk(DAK, NO, 6, 5)
    alone = search_game(game, Budget(nodes=30_000), strategy="rdfs1", core="c")
    assert alone.outcome is Outcome.UNKNOWN and alone.nodes < 30_000
    for core in ("python", "c"):
        result = search_game(game, Budget(nodes=60_000), strategy="rdfs1+rdfs2+dfs", core=core)
        assert result.outcome is Outcome.LOST
        assert result.nodes == 2 * alone.nodes  # rdfs2 skipped, dfs searched it all again


@pytest.mark.parametrize("core", ["python", "c"])
def test_a_capped_member_stops_at_its_cap(core: str) -> None:
    """``name@N``: at most N nodes, and the capped members together at most a
    ``CAPPED_PART``-th of the whole budget (those after it is spent are skipped); the
    default portfolio of Double Aces and Kings starts with such restarts, Forty and Eight's
    too (plain ones), Sixes and Sevens keeps the halves."""
    if core == "c" and onepass.library() is None:
        pytest.skip(f"no compiled solver core here: {onepass.CORE.error}")
    game = Game(DAK, NO, 3)  # no order wins it in the first few hundred nodes
    budget = Budget(nodes=300 * CAPPED_PART)
    assert search_game(game, budget, strategy="rdfs1@300", core=core).nodes == 300
    assert search_game(game, budget, strategy="rdfs1@200+rdfs2@50", core=core).nodes == 250
    three = search_game(game, budget, strategy="rdfs1@200+rdfs2@200+rdfs3@200", core=core)
    assert three.nodes == 300  # 200, then the 100 left of the part, then none
    after = search_game(game, budget, strategy="rdfs1@200+rdfs2@200+rdfs3@200+dfs", core=core)
    assert after.nodes == budget.nodes  # the uncapped member after them gets the rest
    small = Budget(nodes=10 * CAPPED_PART)  # the whole budget's part caps instead
    assert search_game(game, small, strategy="rdfs1@300", core=core).nodes == 10
    timed = search_game(game, Budget(nodes=None, seconds=60.0), strategy="rdfs1@300", core=core)
    assert timed.outcome is Outcome.UNKNOWN and timed.nodes == 300
    assert phases_of("rdfs1@0") is None and phases_of("rdfs1@x") is None
    assert default_phases(game) == PHASES["shaken"]
    assert len(PHASES["shaken"]) == RESTARTS + 2 and PHASES["shaken"][-2:] == ("best", "dfs")
    assert default_phases(Game("forty-and-eight", {}, 1)) == PHASES["shaken-plain"]
    assert default_phases(Game(SIXES, AUTO, 1)) == PHASES["portfolio2"]


def test_only_positions_of_its_games_go_to_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    for variant, options in [("forty-and-eight", {}), ("seven-by-five", {}), ("unlimited", {}),
                             (SIXES, {"empty_fill": "manual"})]:
        assert not onepass.handles(Game(variant, options, 1))
        assert onepass.search(Game(variant, options, 1), Budget(nodes=10), "dfs") is None
    assert all(onepass.handles(Game(v, o, 1)) for v, o in CONFIGS)
    # two cards on a tableau pile: no position of play; the Python search answers
    odd = make(DAK, {}, t=["KC", "QCJC", "-", "-", "-", "-", "-", "-"])
    assert onepass.search(odd, Budget(nodes=10), "dfs") is None
    monkeypatch.setenv(fastcore.ENV, "python")
    assert onepass.library() is None
    assert onepass.search(Game(DAK, {}, 1), Budget(nodes=10), "dfs") is None


def test_without_a_build_the_python_search_answers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine that had no C compiler at install: no build (here: a manifest naming none)."""
    monkeypatch.delenv(fastcore.ENV, raising=False)
    monkeypatch.setattr(fastcore, "MANIFEST", tmp_path / "compiled.json")
    monkeypatch.setattr(onepass.CORE, "tried", False)
    monkeypatch.setattr(onepass.CORE, "lib", None)
    monkeypatch.setattr(onepass.CORE, "error", None)
    assert onepass.library() is None
    assert "not compiled when solrace was installed" in (onepass.CORE.error or "")
    result = search_game(Game(DAK, R2S, 1), Budget(nodes=4_000))
    assert result.won
    monkeypatch.setenv(fastcore.ENV, "c")  # asked for the core: a clear error, no silence
    with pytest.raises(RuntimeError, match="unavailable"):
        onepass.library()
