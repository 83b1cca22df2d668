"""The compiled Klondike core (``shared/solver/klondike.c`` via ``fastcore``): it is built at
install or not at all, it searches exactly the graph the Python search does, and the
Python search answers wherever it cannot.

``test_solver.py`` runs every solver test on both searches; this file checks what only the
core has.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from positions import make, top_first
from solrace.shared import Game
from solrace.shared.notation import Move
from solrace.shared.solver import Budget, Outcome, fastcore, solve
from solrace.shared.solver.search import search_game

needs_core = pytest.mark.skipif(fastcore.library() is None,
                                reason=f"no compiled solver core here: {fastcore.KLONDIKE.error}")

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
    # without the streamliner and the blocking test, which the Python search does not have
    full = fastcore.search(game, budget, None, streamline=False, dead_ends=False)
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


@needs_core
def test_the_core_is_the_build_made_at_install() -> None:
    """The extension module built beside ``klondike.c`` when solrace was installed (setup.py),
    importable as such, its functions loaded with ctypes; nothing compiled at run time."""
    import solrace.shared.solver._klondike as entry

    path, why = fastcore.built(fastcore.SOURCE)
    assert path is not None and not why
    assert entry.__file__ == str(path) and path.parent == fastcore.SOURCE.parent
    assert fastcore.library()._name == str(path)
    assert search_game(Game("unlimited", {}, 5), Budget(nodes=4_000), core="c").won


def _fresh(monkeypatch: pytest.MonkeyPatch, manifest: Path) -> None:
    monkeypatch.delenv(fastcore.ENV, raising=False)
    monkeypatch.setattr(fastcore, "MANIFEST", manifest)
    monkeypatch.setattr(fastcore.KLONDIKE, "tried", False)
    monkeypatch.setattr(fastcore.KLONDIKE, "lib", None)
    monkeypatch.setattr(fastcore.KLONDIKE, "error", None)


def test_without_a_build_the_python_search_answers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine that had no C compiler at install: no build (here: a manifest naming none)."""
    _fresh(monkeypatch, tmp_path / "compiled.json")
    assert fastcore.library() is None
    assert "not compiled when solrace was installed" in (fastcore.KLONDIKE.error or "")
    result = solve(("unlimited", {}, 5), Budget(nodes=4_000))
    assert result.won
    monkeypatch.setenv(fastcore.ENV, "c")  # asked for the core: a clear error, no silence
    with pytest.raises(RuntimeError, match="unavailable"):
        fastcore.library()


@needs_core
def test_a_build_of_another_source_is_not_loaded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``klondike.c`` edited since the install (here: the manifest names another hash): the
    build beside it is not of this source, so it is not loaded."""
    manifest = tmp_path / "compiled.json"
    manifest.write_text(json.dumps({"solrace.shared.solver._klondike": "0" * 64}))
    _fresh(monkeypatch, manifest)
    assert fastcore.library() is None
    assert "edited since the install" in (fastcore.KLONDIKE.error or "")


# ------------------------------------------------------------------ the blocking test

# (tableau, stock): every card not named is home or in the stock. 10H covers 9H (its suit's next
# card) and both its parents (JS, JC) are under it or under 10D, which covers 9D the same way:
# neither ever moves. The last two need the test's ways out (docs/solver.md, "Dead ends: the
# blocking test"): every pile holds a card that never moves, so no King ever has a space (and each
# King covers its Queen); 10H's parents are in the stock, and they can only be put onto a red
# Queen, which 10H covers.
BLOCKED = [
    (["9hjsjcTH"] + ["-"] * 6, None),
    (["9hjs9dTH", "jcTD"] + ["-"] * 5, None),
    (["9hjs9dTH", "jcTD", "KD"] + ["-"] * 4, None),
    (["qhKH", "qdKD", "qcKC", "qsKS", "tcJC", "tsJS", "thJH"], "9C"),
    (["9hqhqdTH"] + ["-"] * 6, "JSJC"),
]
# the same cards with a way out: JC under 10H but face up, so 10H leaves with it (onto a red
# Queen from the stock); JC home, which take-back can bring back; an empty pile for a King;
# the Queen of diamonds in the stock (a King into a space, the Queen onto it, a Jack onto her)
FREE = [(["9hjsJCTH"] + ["-"] * 6, None), (["9hjsTH"] + ["-"] * 6, None),
        (["qhKH", "qdKD", "qcKC", "qsKS", "tcJC", "tsJS", "-"], "9C"),
        (["9hqhTH"] + ["-"] * 6, "JSJCQDKS")]


def _plain(game: Game, limit: int) -> str | None:
    sys.path.insert(0, str(Path(__file__).parent))
    from test_solver import _plain as plain

    return plain(game, limit)


@needs_core
@pytest.mark.parametrize("case", BLOCKED, ids=lambda c: "/".join(c[0]))
@pytest.mark.parametrize("options", [{}, DRAW3, TB_NO, {**DRAW3, **TB_NO}])
def test_blocked_positions_are_lost_at_once_and_by_exhaustion(
        case: tuple[list[str], str | None], options: dict[str, str]) -> None:
    """The blocking test proves these lost in one node; the search without it exhausts them
    too, and so does a plain search over the engine's moves where it can (no take-back, the
    smallest positions: the plain search needs millions of nodes for the others)."""
    tableau, stock = case
    game = make("unlimited", options, t=tableau, s=stock)
    quick = fastcore.search(game, Budget(nodes=1), None, streamline=False,
                            dead_ends=fastcore.DEAD_START)
    full = fastcore.search(game, Budget(nodes=10**6), None, streamline=False, dead_ends=False)
    assert quick is not None and full is not None
    assert quick[0] is Outcome.LOST and quick[2] == 1
    assert full[0] is Outcome.LOST and full[2] > 1
    if options.get("foundation_takeback") == "no" and case in (BLOCKED[0], BLOCKED[3]):
        assert _plain(game, 100_000) == "lost"


@needs_core
@pytest.mark.parametrize("case", FREE, ids=lambda c: "/".join(c[0]))
@pytest.mark.parametrize("options", [{}, DRAW3])
def test_blocking_test_leaves_a_way_out_open(case: tuple[list[str], str | None],
                                             options: dict[str, str]) -> None:
    """A face-up card leaves with the face-up card under it, a home card that take-back
    can bring back is a parent, a King has a space when a pile is empty, and a parent in the
    stock is one when it can be put onto a parent of its own: these positions are won, and
    the blocking test must not stop at them, neither at the start nor on the way (without
    take-back the second one is lost, the plain search agrees)."""
    tableau, stock = case
    game = make("unlimited", options, t=tableau, s=stock)
    quick = fastcore.search(game, Budget(nodes=1), None, streamline=False)
    assert quick is not None and quick[0] is Outcome.UNKNOWN
    full = fastcore.search(game, Budget(nodes=10_000), None, streamline=False)
    assert full is not None and full[0] is Outcome.WON
    assert solve(game, Budget(nodes=10_000)).won
    if case == FREE[1]:
        lost = make("unlimited", {**options, **TB_NO}, t=tableau)
        assert fastcore.search(lost, Budget(nodes=1), None, streamline=False)[0] is Outcome.LOST
        if options != DRAW3:
            assert _plain(lost, 100_000) == "lost"


@needs_core
@pytest.mark.parametrize("options", [{}, DRAW3])
def test_blocking_test_changes_no_verdict(options: dict[str, str]) -> None:
    """Deals 1..40 at a small budget with the core's own prunings (the blocking test at the
    start and on every node, rule S) on and off: never won by one and proved lost by the
    other; the deals it proves lost at the deal (draw 1: seed 37, a King without a space;
    draw 3: seeds 21, 25) are proved lost in two nodes (both phases)."""
    for seed in range(1, 41):
        game = Game("unlimited", options, seed)
        on = fastcore.search(game, Budget(nodes=30_000), None)
        off = fastcore.search(game, Budget(nodes=30_000), None, dead_ends=False)
        assert on is not None and off is not None
        assert {on[0], off[0]} != {Outcome.WON, Outcome.LOST}, seed
        if off[0] is Outcome.LOST:
            assert on[0] is Outcome.LOST and on[2] <= off[2]
    for seed in (21, 25) if options == DRAW3 else (37,):
        on = fastcore.search(Game("unlimited", options, seed), Budget(nodes=10), None)
        assert on is not None and on[0] is Outcome.LOST and on[2] == 2


@needs_core
def test_stock_cards_home_keep_every_verdict() -> None:
    """Rule S (draw 1, take-back: a stock card goes home when the card under it there is home
    for good) on mid-size positions with a stock (nearly all winnable: the risk is a win lost):
    wherever the search without the core's own prunings (the Python search's graph, node for
    node) decides, the search with them gives the same answer; and the rule cuts proofs: the
    deals 12 and 50, lost, in fewer nodes."""
    sys.path.insert(0, str(Path(__file__).parent))
    import random

    from test_solver import _reduced

    rng = random.Random(5)
    decided = 0
    for _ in range(40):
        trial = _reduced({}, rng.randint(1, 10**6), rng)
        off = fastcore.search(trial, Budget(nodes=200_000), None, streamline=False,
                              dead_ends=False)
        if off is None or off[0] is Outcome.UNKNOWN:
            continue
        for own in (fastcore.STOCK_HOME, fastcore.OWN):
            on = fastcore.search(trial, Budget(nodes=200_000), None, streamline=False,
                                 dead_ends=own)
            assert on is not None and on[0] is off[0], trial.position_text()
        decided += 1
    assert decided >= 20
    for seed in (12, 50):
        game = Game("unlimited", {}, seed)
        off = fastcore.search(game, Budget(nodes=10**6), None, streamline=False, dead_ends=False)
        on = fastcore.search(game, Budget(nodes=10**6), None, streamline=False,
                             dead_ends=fastcore.STOCK_HOME)
        assert off is not None and on is not None
        assert off[0] is on[0] is Outcome.LOST and on[2] < off[2]


@needs_core
@pytest.mark.parametrize("options", [{}, DRAW3, TB_NO])
def test_no_position_of_a_winning_line_is_a_dead_end(options: dict[str, str]) -> None:
    """Every position on a winning line is winnable, so the blocking test (with every way out
    this core knows, the stock order of draw 3 included) must let each of them through: the
    lines of deals 1..25 found without the core's own prunings, position by position."""
    test = fastcore.DEAD_START | fastcore.STOCK_ORDER
    checked = 0
    for seed in range(1, 26):
        game = Game("unlimited", options, seed)
        found = fastcore.search(game, Budget(nodes=100_000), None, dead_ends=False)
        assert found is not None
        if found[0] is not Outcome.WON:
            continue
        for move in found[1]:
            game._do(*move)
            if game.cards_home == game.total_cards:
                break
            at = fastcore.search(game, Budget(nodes=1), None, streamline=False, dead_ends=test)
            assert at is not None and at[0] is not Outcome.LOST, (seed, game.position_text())
            checked += 1
    assert checked > 1000


@needs_core
def test_stock_order_proves_draw_three_deals_lost_at_the_deal() -> None:
    """Draw 3: cards of the stock that no sequence of draws brings to the waste top while the
    cards before them stay are stuck too (docs/solver.md, "Dead ends"). Deals 219 and 269 are
    proved lost at the deal with it (two nodes: both phases), not without it, and the search
    without the core's own prunings exhausts them too."""
    for seed in (219, 269):
        game = Game("unlimited", DRAW3, seed)
        on = fastcore.search(game, Budget(nodes=10), None)
        without = fastcore.search(game, Budget(nodes=10), None,
                                  dead_ends=fastcore.OWN & ~fastcore.STOCK_ORDER)
        full = fastcore.search(game, Budget(nodes=10**6), None, streamline=False, dead_ends=False)
        assert on is not None and without is not None and full is not None
        assert on[0] is Outcome.LOST and on[2] == 2
        assert without[0] is not Outcome.LOST
        assert full[0] is Outcome.LOST and full[2] > 100


@needs_core
@pytest.mark.parametrize(("options", "seed"), [({}, 145), ({}, 154), ({}, 156)])
def test_restarts_win_what_the_fixed_order_misses(options: dict[str, str], seed: int) -> None:
    """Draw-1 deals the fixed move order leaves undecided at 100k nodes (both phases) are won
    by a restart in another order; the line replays, and the restarts are deterministic."""
    game = Game("unlimited", options, seed)
    assert fastcore.search(game, Budget(nodes=100_000), None)[0] is Outcome.UNKNOWN
    a = fastcore.restarts(game, Budget(nodes=100_000), None)
    b = fastcore.restarts(game, Budget(nodes=100_000), None)
    assert a is not None and a[0] is Outcome.WON and a == b
    check = Game("unlimited", options, seed)
    ids = check.layout.ids
    for s, d, n in a[1]:
        check.push(Move(ids[s], ids[d], n))
    assert check.cards_home == 52


@needs_core
@pytest.mark.parametrize(("options", "seed"), LOST)
def test_a_full_restart_in_another_order_proves_the_same_deals_lost(
        options: dict[str, str], seed: int) -> None:
    """Move order does not change what an exhausted search visits: a shaken order counts the
    same nodes as the fixed one on a deal proved lost (so a full restart's "lost" is a proof)."""
    game = Game("unlimited", options, seed)
    lib = fastcore.library()
    fixed = fastcore._run(lib, game, 20_000, None, greedy=False, dead=False, shorten=True)
    shaken = fastcore._run(lib, game, 20_000, None, greedy=False, dead=False, shorten=True,
                           seed=3, jitter=fastcore.RESTART_JITTER)
    assert fixed is not None and shaken is not None
    assert fixed[0] is shaken[0] is Outcome.LOST and fixed[2] == shaken[2]


@needs_core
@pytest.mark.parametrize("options", [{}, DRAW3])
def test_core_lines_are_shortened_and_replay(options: dict[str, str]) -> None:
    """The core's own shortening: never longer than the line found, and it replays."""
    for seed in range(2, 9):
        game = Game("unlimited", options, seed)
        raw = fastcore.search(game, Budget(nodes=20_000), None, shorten=False)
        short = fastcore.search(game, Budget(nodes=20_000), None)
        assert raw is not None and short is not None and raw[0] is short[0]
        assert raw[2] == short[2]  # the same search: shortening spends no nodes
        if short[0] is Outcome.WON:
            assert len(short[1]) <= len(raw[1])
            check = Game("unlimited", options, seed)
            ids = check.layout.ids
            for s, d, n in short[1]:
                check.push(Move(ids[s], ids[d], n))
            assert check.cards_home == 52


@needs_core
def test_half_the_rest_for_restarts_wins_what_a_quarter_missed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Seventh round: the portfolio gives the core's restarts half of what the quick passes
    leave (a quarter before). Draw-3 seed 149 is then won within 850k nodes (the restarts'
    first ~390k); with a quarter every phase is a prefix of the 1.5M-node run that left it
    undecided. The line replays through the engine (``search_game`` checks it). Without the
    best-first members and the beams (the first takes its nodes
    out of the restarts' share, the late one wins seed 149 in the last phase)."""
    from solrace.shared.solver import coreportfolio

    monkeypatch.setattr(coreportfolio, "CORE_BEST", ())
    monkeypatch.setattr(coreportfolio, "CORE_BEAM", ())
    monkeypatch.setattr(coreportfolio, "CORE_LATE_BEAM", {})
    game = Game("unlimited", DRAW3, 149)
    won = search_game(game, Budget(nodes=850_000))
    assert won.outcome is Outcome.WON and won.nodes < 850_000
    check = Game("unlimited", DRAW3, 149)
    for move in won.moves:
        check.push(move)
    assert check.cards_home == 52
    monkeypatch.setattr(coreportfolio, "RESTART_SHARE", 0.25)
    assert search_game(Game("unlimited", DRAW3, 149), Budget(nodes=850_000)).outcome \
        is Outcome.UNKNOWN


@needs_core
@pytest.mark.parametrize("options", [{}, DRAW3, TB_NO])
def test_no_position_of_a_winning_line_is_dead_one_move_past(options: dict[str, str]) -> None:
    """The blocking test looked one move past (a card whose one way out is a parent, stuck
    there for good once it goes) must let every position of a winning line through too: the
    lines of deals 1..25 found without the core's own prunings, position by position."""
    test = fastcore.DEAD_START | fastcore.STOCK_ORDER | fastcore.DEAD_PAST
    checked = 0
    for seed in range(1, 26):
        game = Game("unlimited", options, seed)
        found = fastcore.search(game, Budget(nodes=100_000), None, dead_ends=False)
        assert found is not None
        if found[0] is not Outcome.WON:
            continue
        for move in found[1]:
            game._do(*move)
            if game.cards_home == game.total_cards:
                break
            at = fastcore.search(game, Budget(nodes=1), None, streamline=False, dead_ends=test)
            assert at is not None and at[0] is not Outcome.LOST, (seed, game.position_text())
            checked += 1
    assert checked > 1000


@needs_core
def test_one_move_past_proves_deals_lost_that_exhaustion_proves_too() -> None:
    """Draw 1 deals 468 and 482 are proved lost at the deal (two nodes) by the test looked one
    move past, not by the blocking test alone, and the search with the older prunings only
    exhausts them as lost too; on deals 1..60 of draw 1 and 3 the test on every node never
    contradicts the search without it, and is deterministic."""
    for seed in (468, 482):
        game = Game("unlimited", {}, seed)
        on = fastcore.search(game, Budget(nodes=10), None)
        without = fastcore.search(game, Budget(nodes=10), None,
                                  dead_ends=fastcore.OWN & ~fastcore.DEAD_PAST)
        full = fastcore.search(game, Budget(nodes=10**6), None, streamline=False,
                               dead_ends=fastcore.OWN & ~fastcore.DEAD_PAST)
        assert on is not None and without is not None and full is not None
        assert on[0] is Outcome.LOST and on[2] == 2
        assert without[0] is not Outcome.LOST
        assert full[0] is Outcome.LOST and full[2] > 1000
    every = fastcore.OWN | fastcore.DEAD_PAST_NODES
    for options in ({}, DRAW3):
        for seed in range(1, 61):
            game = Game("unlimited", options, seed)
            a = fastcore.search(game, Budget(nodes=20_000), None, streamline=False,
                                dead_ends=every)
            b = fastcore.search(game, Budget(nodes=20_000), None, streamline=False,
                                dead_ends=fastcore.OWN & ~fastcore.DEAD_PAST)
            again = fastcore.search(game, Budget(nodes=20_000), None, streamline=False,
                                    dead_ends=every)
            assert a is not None and b is not None and again == a
            if a[0] is not Outcome.UNKNOWN and b[0] is not Outcome.UNKNOWN:
                assert a[0] is b[0], (options, seed)
            if a[0] is Outcome.LOST and b[0] is Outcome.LOST:
                assert a[2] <= b[2], (options, seed)
