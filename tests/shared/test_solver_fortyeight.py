"""The compiled core of Forty and Eight (``shared/solver/fortyeight.c`` via ``fortyeight``): the
Python search's pruned and plain depth-first members redone in C, node for node — the same
edges in the same order (stock macro-moves, delayed pairs, the engine's moves), the same safe
moves, the same canonical classes — so at every node budget it must give the Python search's
answer, node count and line; the Python search answers wherever it cannot.

``test_solver.py`` runs every solver test with the core on and off; this file checks the
agreement itself.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from solrace.shared import Game
from solrace.shared.notation import Move
from solrace.shared.solver import Budget, Outcome, fastcore, fortyeight
from solrace.shared.solver.moves import MoveGen
from solrace.shared.solver.search import Searcher, search_game
from solrace.shared.solver.stock import JUMP

needs_core = pytest.mark.skipif(fortyeight.library() is None,
                                reason=f"no compiled solver core here: {fortyeight.CORE.error}")

F8 = "forty-and-eight"
NO = {"foundation_takeback": "no"}
YES = {"foundation_takeback": "yes"}
OPTIONS = [NO, YES]
IDS = ["no-takeback", "takeback"]


def _walk(options: dict[str, str], seed: int, stock_left: int, redeals: int = 1) -> Game:
    """A position of play: random legal moves (mostly home) until the stock holds
    ``stock_left`` cards with ``redeals`` redeals used, or no move is left."""
    game = Game(F8, options, seed)
    rng = random.Random(seed)
    while len(game.pos.piles[game._S]) > stock_left or game.pos.redeals < redeals:
        legal = game._legal()
        if not legal:
            break
        home = [m for m in legal if m[1] in game._F and m[0] not in game._F]
        game._do(*(rng.choice(home) if home and rng.random() < 0.7 else rng.choice(legal)))
    return game


def _flat(edge: tuple) -> list[tuple[int, int, int]]:
    """An edge of ``MoveGen.edges()`` as engine moves (a stock jump as its draws)."""
    out: list[tuple[int, int, int]] = []
    for step in edge:
        out.extend(step[3] if step[0] == JUMP else [step])
    return out


KINDS = ("dfs", "gdfs", "plain", "gplain")  # pruned or plain, with greedy home moves or not
PRUNED = ("dfs", "gdfs")
GREEDY = ("gdfs", "gplain")


def _member(game: Game, kind: str, nodes: int) -> tuple[Outcome, list, int]:
    searcher = Searcher(game, pruning=kind in PRUNED, greedy=kind in GREEDY)
    outcome, line = searcher.run_dfs(Budget(nodes=nodes))
    return outcome, line, searcher.nodes


@needs_core
@pytest.mark.parametrize("options", OPTIONS, ids=IDS)
def test_edges_are_the_python_searchs_in_its_order(options: dict[str, str]) -> None:
    """On random walks through 8 deals (spaces, both passes, an empty stock and take-backs
    included), the core's edges are ``MoveGen.edges()`` in the same order: pruned (after the
    safe moves, as the search sees a node) and plain (the engine's moves), each also with
    greedy home moves."""
    checked = 0
    redealt = spaces = pairs = 0
    for seed in range(1, 9):
        game = Game(F8, options, seed)
        rng = random.Random(seed)
        for _ in range(250):
            for kind in KINDS:
                work = Game(F8, options, seed, position=game.pos.copy())
                gen = MoveGen(work, pruning=kind in PRUNED, greedy=kind in GREEDY)
                gen.close([], [])
                expected = [_flat(e) for e in gen.edges()]
                assert fortyeight.edges(work, kind) == expected
                pairs += sum(len(e) > 1 and e[0][0] < 16 for e in expected)
            checked += 1
            redealt += game.pos.redeals
            spaces += any(not game.pos.piles[t] for t in game._T)
            legal = game._legal()
            if not legal:
                break
            home = [m for m in legal if m[1] in game._F and m[0] not in game._F]
            game._do(*(rng.choice(home) if home and rng.random() < 0.7 else rng.choice(legal)))
    assert checked > 800 and redealt and spaces and pairs


# late positions both members prove lost: (options, seed, stock left)
LOST = [(NO, 5, 30), (NO, 8, 30), (NO, 9, 10), (NO, 13, 10), (YES, 4, 10), (YES, 5, 10),
        (YES, 2, 0)]


@needs_core
@pytest.mark.parametrize(("options", "seed", "stock"), LOST)
def test_lost_proofs_visit_the_same_positions_as_the_python_search(
        options: dict[str, str], seed: int, stock: int) -> None:
    """Exhaustion: both members prove it lost with the same node counts."""
    game = _walk(options, seed, stock)
    for kind in ("dfs", "plain"):
        outcome, _, nodes = _member(game, kind, 40_000)
        assert outcome is Outcome.LOST
        assert fortyeight.search(game, Budget(nodes=40_000), kind) == (Outcome.LOST, [], nodes)
    assert search_game(game, Budget(nodes=60_000), core="c").outcome is Outcome.LOST


@needs_core
@pytest.mark.parametrize("options", OPTIONS, ids=IDS)
def test_members_at_cut_budgets_from_the_deal_and_mid_game(options: dict[str, str]) -> None:
    """Every member, every budget cut, from deals and from positions after play: the same
    outcome, node count and line as the Python search (wins included)."""
    won = 0
    for seed, stock in [(10, 64), (14, 64), (2, 64), (3, 40), (6, 20), (11, 50)]:
        game = _walk(options, seed, stock, 0)
        for kind in KINDS:
            for nodes in (1, 9, 700, 3_000):
                py = _member(game, kind, nodes)
                assert fortyeight.search(game, Budget(nodes=nodes), kind) == py
                won += py[0] is Outcome.WON
    assert won


@needs_core
@pytest.mark.parametrize("options", OPTIONS, ids=IDS)
def test_the_portfolio_gives_the_python_answer_node_for_node(
        options: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """At a node budget: the same outcome, node count and (shortened, replayed) line, the
    beam (compiled only) skipped in both, as the Python search skips it."""
    monkeypatch.setattr(fortyeight, "beam", lambda *args, **kwargs: None)
    won = 0
    for seed in (10, 14, 16):
        game = Game(F8, options, seed)
        py = search_game(game, Budget(nodes=6_000), core="python")
        c = search_game(game, Budget(nodes=6_000), core="auto")  # the members compiled
        assert (c.outcome, c.moves, c.nodes) == (py.outcome, py.moves, py.nodes)
        if c.won:
            game.replay(c.moves)
            assert game.cards_home == game.total_cards
            won += 1
    assert won


def test_only_forty_and_eight_positions_of_play_go_to_the_core(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for variant, options in [("seven-by-five", {}), ("unlimited", {}),
                             ("double-aces-and-kings", {}), ("sixes-and-sevens", {})]:
        assert not fortyeight.handles(Game(variant, options, 1))
        assert fortyeight.search(Game(variant, options, 1), Budget(nodes=10), "dfs") is None
    assert all(fortyeight.handles(Game(F8, o, 1)) for o in OPTIONS)
    if fortyeight.library() is not None:
        # a pile longer than play makes: the core declines, the Python search answers
        odd = Game(F8, {}, 1)
        odd.pos.piles[8].extend(odd.pos.piles[16][-15:])
        del odd.pos.piles[16][-15:]
        assert fortyeight.search(odd, Budget(nodes=10), "dfs") is None
        assert fortyeight.search(Game(F8, {}, 1), Budget(nodes=10), "dfs") is not None
    monkeypatch.setenv(fastcore.ENV, "python")
    assert fortyeight.library() is None
    assert fortyeight.search(Game(F8, {}, 1), Budget(nodes=10), "dfs") is None


def test_without_a_build_the_python_search_answers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine that had no C compiler at install: no build (here: a manifest naming none)."""
    monkeypatch.delenv(fastcore.ENV, raising=False)
    monkeypatch.setattr(fastcore, "MANIFEST", tmp_path / "compiled.json")
    monkeypatch.setattr(fortyeight.CORE, "tried", False)
    monkeypatch.setattr(fortyeight.CORE, "lib", None)
    monkeypatch.setattr(fortyeight.CORE, "error", None)
    assert fortyeight.library() is None
    assert "not compiled when solrace was installed" in (fortyeight.CORE.error or "")
    result = search_game(Game(F8, {}, 10), Budget(nodes=3_000))
    assert result.won
    monkeypatch.setenv(fastcore.ENV, "c")  # asked for the core: a clear error, no silence
    with pytest.raises(RuntimeError, match="unavailable"):
        fortyeight.library()


@pytest.mark.parametrize("core", ["python", "c"])
def test_a_greedy_members_exhaustion_is_no_proof(core: str) -> None:
    """``gdfs`` and ``gplain`` search a smaller game (every card that fits goes home at once):
    having searched all of it says nothing of the real game, so the answer is ``unknown``;
    the portfolio's pruned member then proves the position lost."""
    if core == "c" and fortyeight.library() is None:
        pytest.skip(f"no compiled solver core here: {fortyeight.CORE.error}")
    game = _walk(NO, 9, 10)
    for kind in GREEDY:
        member = _member(game, kind, 40_000)
        assert member[0] is Outcome.LOST  # the greedy game is exhausted...
        result = search_game(game, Budget(nodes=40_000), strategy=kind, core=core)
        assert result.outcome is Outcome.UNKNOWN and result.nodes == member[2]  # ...no proof
    assert search_game(game, Budget(nodes=40_000), core=core).outcome is Outcome.LOST


def _shuffled(game: Game, seed: int, nodes: int) -> tuple[Outcome, list, int]:
    searcher = Searcher(game, pruning=False, greedy=True, shuffle=seed)
    outcome, line = searcher.run_dfs(Budget(nodes=nodes))
    return outcome, line, searcher.nodes


@needs_core
@pytest.mark.parametrize("options", OPTIONS, ids=IDS)
def test_shuffled_members_are_the_python_search_node_for_node(options: dict[str, str]) -> None:
    """``rgplain<k>``: the greedy plain search with each node's children in a random order
    of seed k — the core draws the same permutations as the Python search (same outcome,
    node count and line at every budget cut), and the order really differs from
    ``gplain``'s."""
    won = differs = 0
    for seed, stock in [(7, 64), (10, 64), (2, 64), (3, 40), (6, 20)]:
        game = _walk(options, seed, stock, 0)
        plain = _member(game, "gplain", 3_000)
        for k in (1, 2):
            for nodes in (1, 9, 700, 3_000):
                py = _shuffled(game, k, nodes)
                assert fortyeight.search(game, Budget(nodes=nodes), "gplain", k) == py
                won += py[0] is Outcome.WON
            differs += py != plain
            result = search_game(game, Budget(nodes=3_000), strategy=f"rgplain{k}", core="c")
            assert (result.outcome, result.nodes) == py[::2]
            if result.won:
                game.replay(result.moves)  # the line replays through Game.push
                assert game.cards_home == game.total_cards
                game = _walk(options, seed, stock, 0)
    assert won and differs


@needs_core
@pytest.mark.parametrize("options", OPTIONS, ids=IDS)
@pytest.mark.parametrize("kind", ["dfs", "plain"])
def test_shuffled_full_members_are_the_python_search_node_for_node(
        options: dict[str, str], kind: str) -> None:
    """``rdfs<k>`` and ``rplain<k>``: the pruned and the plain search (no greedy home moves)
    with each node's children in a random order of seed k (the pruned one's stock jumps
    shuffled with the rest: it has no trailing draw) — the core draws the same permutations
    as the Python search (same outcome, node count and line at every budget cut), the order
    really differs from the unshuffled member's, and ``search_game`` reports the same."""
    won = differs = 0
    for seed, stock, redeals in [(2, 64, 0), (6, 20, 0), (11, 20, 1), (11, 10, 1), (17, 10, 1)]:
        game = _walk(options, seed, stock, redeals)
        unshuffled = _member(game, kind, 3_000)
        for k in (1, 2):
            for nodes in (1, 9, 700, 3_000):
                searcher = Searcher(game, pruning=kind == "dfs", shuffle=k)
                outcome, line = searcher.run_dfs(Budget(nodes=nodes))
                py = (outcome, line, searcher.nodes)
                assert fortyeight.search(game, Budget(nodes=nodes), kind, k) == py
                won += outcome is Outcome.WON
            differs += py != unshuffled
            name = f"r{kind}{k}"
            result = search_game(game, Budget(nodes=3_000), strategy=name, core="c")
            python = search_game(game, Budget(nodes=3_000), strategy=name, core="python")
            assert (result.outcome, result.nodes, result.moves) == (
                python.outcome, python.nodes, python.moves)
            assert result.outcome is not Outcome.LOST  # a shuffled exhaustion is no proof
            if result.won:
                game.replay(result.moves)  # the line replays through Game.push
                assert game.cards_home == game.total_cards
                game = _walk(options, seed, stock, redeals)
    if options is NO:  # (with take-back no position here is won within 3k nodes)
        assert won and differs


@pytest.mark.parametrize("core", ["python", "c"])
def test_shuffled_members_of_an_exhausted_greedy_game_are_skipped(core: str) -> None:
    """Once ``gplain`` has searched its whole (greedy) game without a win, the shuffled
    members, the same game in other orders, cannot win either: they are skipped and their
    shares go to the pruned member, which proves the position lost."""
    if core == "c" and fortyeight.library() is None:
        pytest.skip(f"no compiled solver core here: {fortyeight.CORE.error}")
    game = _walk(NO, 9, 10)
    greedy = _member(game, "gplain", 40_000)
    assert greedy[0] is Outcome.LOST
    pruned = _member(game, "dfs", 40_000)
    assert pruned[0] is Outcome.LOST
    result = search_game(game, Budget(nodes=40_000), strategy="gplain+rgplain1+rgplain2+dfs",
                         core=core)
    assert result.outcome is Outcome.LOST and result.nodes == greedy[2] + pruned[2]


@needs_core
def test_the_default_runs_short_greedy_restarts_after_the_plain_ones() -> None:
    """Forty and Eight's default portfolio (docs/solver.md, "The search"): the 64 capped
    plain restarts, then ``rgplain3`` ... ``rgplain10`` capped at 50k nodes each, then five
    beams ranking the waste down (greedy and safe-only), then ``restarts``. Seed 65 (a
    held-out seed of the tuning) is won by ``rgplain5`` at 9,681 of its own nodes, after the
    plain restarts (64 x 5,000, none wins) and ``rgplain3``, ``rgplain4`` (50,000 each): the
    node count pins the order and the caps; its line replays (``search_game`` checks it)."""
    from solrace.shared.solver.search import (
        GREEDY_RESTART_NODES,
        PHASES,
        PLAIN_RESTART_NODES,
        PLAIN_RESTARTS,
        default_phases,
    )

    phases = default_phases(Game(F8, {}, 65))
    assert phases == PHASES["shaken-plain"]
    greedy = tuple(f"rgplain{k}@{GREEDY_RESTART_NODES}" for k in range(3, 11))
    assert phases[PLAIN_RESTARTS:] == (*greedy, "beam1000x200w10", "beam", "beam1000x200w10s",
                                       "beam3000x300w20", "beam3000x300w20s",
                                       "beam10000x300w20s", "gplain", "rgplain1", "rgplain2",
                                       "dfs")
    result = search_game(Game(F8, {}, 65), Budget(nodes=2_000_000))
    assert result.won
    assert result.nodes == PLAIN_RESTARTS * PLAIN_RESTART_NODES + 2 * GREEDY_RESTART_NODES + 9_681


# ---------------------------------------------------------------------- the beam (core only)

BEAM_WINS = ((14, 61_054), (5, 126_136))  # (seed, the node of its win at the default settings)


@needs_core
@pytest.mark.parametrize(("seed", "nodes"), BEAM_WINS)
def test_the_beams_won_lines_replay_through_game_push(seed: int, nodes: int) -> None:
    """The beam wins these deals at exactly this node of its search (its settings and score
    pinned), and the line it returns — its parent-pointer path, each move with its greedy home
    moves — replays through ``Game.push`` to a won game, both raw and as ``search_game``
    reports it (shortened and checked)."""
    game = Game(F8, NO, seed)
    outcome, line, count = fortyeight.beam(game, Budget(nodes=10 * nodes))
    assert (outcome, count) == (Outcome.WON, nodes)
    ids = game.layout.ids
    for s, d, n in line:
        game.push(Move(ids[s], ids[d], n))
    assert game.cards_home == game.total_cards
    result = search_game(Game(F8, NO, seed), Budget(nodes=10 * nodes), strategy="beam")
    assert result.won and result.nodes == nodes
    replay = Game(F8, NO, seed)
    replay.replay(result.moves)
    assert replay.cards_home == replay.total_cards


@needs_core
def test_the_beam_is_deterministic_at_a_node_budget() -> None:
    """The same budget gives the same answer and node count; any budget short of the win's
    node is ``unknown`` having spent exactly the budget, and the win's own node wins."""
    seed, nodes = BEAM_WINS[0]
    game = Game(F8, NO, seed)
    first = fortyeight.beam(game, Budget(nodes=nodes))
    assert first == fortyeight.beam(game, Budget(nodes=nodes))
    assert first is not None and first[0] is Outcome.WON
    for cut in (1, 500, nodes - 1):
        assert fortyeight.beam(game, Budget(nodes=cut)) == (Outcome.UNKNOWN, [], cut)
    other = fortyeight.beam(game, Budget(nodes=nodes), width=50, local=20)
    assert other is not None and other != first  # the settings are really used


@needs_core
@pytest.mark.parametrize("options", OPTIONS, ids=IDS)
def test_the_beam_never_answers_lost(options: dict[str, str]) -> None:
    """A position whose greedy game is searched to the end (and which the pruned member
    proves lost): the beam empties and answers ``unknown``, in ``search_game`` too; the
    default portfolio still proves it lost."""
    game = _walk(options, 9, 10)
    assert _member(game, "gplain", 40_000)[0] is Outcome.LOST
    outcome, line, count = fortyeight.beam(game, Budget(nodes=40_000))
    assert (outcome, line) == (Outcome.UNKNOWN, []) and count < 40_000  # emptied, no proof
    assert search_game(game, Budget(nodes=40_000), strategy="beam").outcome is Outcome.UNKNOWN
    if options is NO:
        assert search_game(game, Budget(nodes=40_000)).outcome is Outcome.LOST


def test_without_the_core_the_beam_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The beam has no Python twin: with the Python search (asked for, or no compiler) it is
    skipped, spends nothing, and its share goes to the members after it, so a portfolio with
    it answers as the same portfolio without it."""
    game = _walk(NO, 9, 10)
    for core in ("python", "auto"):
        if core == "auto":
            monkeypatch.setenv(fastcore.ENV, "python")
        alone = search_game(game, Budget(nodes=40_000), strategy="beam", core=core)
        assert (alone.outcome, alone.nodes) == (Outcome.UNKNOWN, 0)
        with_beam = search_game(game, Budget(nodes=40_000), strategy="gplain+beam+dfs",
                                core=core)
        without = search_game(game, Budget(nodes=40_000), strategy="gplain+dfs", core=core)
        assert (with_beam.outcome, with_beam.nodes) == (without.outcome, without.nodes)
        assert with_beam.outcome is Outcome.LOST
    assert fortyeight.beam(game, Budget(nodes=10)) is None


@needs_core
def test_the_beam_gets_a_double_share() -> None:
    """``WEIGHTS``: the beam's share counts as two members' (it wins late, and where it does
    not win it empties early). Seed 5 is won by the beam at 126,136 of its nodes: in
    ``beam+dfs`` at 200k nodes its share is two thirds (133,333), so it wins there; an equal
    half (100k) would not (as in ``beam+gplain``: ``gplain`` counts double too, twelfth
    round)."""
    from solrace.shared.solver.search import WEIGHTS

    assert WEIGHTS["beam"] == 2
    seed, nodes = BEAM_WINS[1]
    result = search_game(Game(F8, NO, seed), Budget(nodes=200_000), strategy="beam+dfs")
    assert result.won and result.nodes == nodes
    half = fortyeight.beam(Game(F8, NO, seed), Budget(nodes=100_000))
    assert half is not None and half[0] is Outcome.UNKNOWN


@needs_core
def test_small_budgets_run_the_default_without_beams() -> None:
    """Below ``BEAM_MIN_NODES`` (a hint's 20k nodes, a test's few thousand) the default drops
    its beams, so it answers exactly as the members without them (same outcome and nodes);
    above it the beams run (seed 29 at 4M nodes: won by ``beam1000x200w10``, undecided
    without the beams)."""
    from solrace.shared.solver.search import BEAM_MIN_NODES, PHASES

    old = "+".join(p for p in PHASES["shaken-plain"] if not p.startswith("beam"))
    for seed in (1, 5, 9):
        for nodes in (4_000, 20_000):
            new = search_game(Game(F8, NO, seed), Budget(nodes=nodes))
            was = search_game(Game(F8, NO, seed), Budget(nodes=nodes), strategy=old)
            assert (new.outcome, new.nodes) == (was.outcome, was.nodes)
    big = Budget(nodes=8 * BEAM_MIN_NODES)
    assert search_game(Game(F8, NO, 29), big).won
    assert not search_game(Game(F8, NO, 29), big, strategy=old).won


@needs_core
def test_the_waste_weight_ranks_the_beam() -> None:
    """``waste``: each card left in the waste ranks a beam position that much
    lower. Seed 55, which the unweighted 1000 x 200 beam wins only at 1.77M nodes, is won by the
    same beam with waste weight 10 at exactly 190,597 nodes, and the line replays; unweighted,
    the same budget is not enough. A negative weight is refused."""
    game = Game(F8, NO, 55)
    outcome, line, count = fortyeight.beam(game, Budget(nodes=300_000), 1000, 200, 10)
    assert (outcome, count) == (Outcome.WON, 190_597)
    ids = game.layout.ids
    for s, d, n in line:
        game.push(Move(ids[s], ids[d], n))
    assert game.cards_home == game.total_cards
    plain = fortyeight.beam(Game(F8, NO, 55), Budget(nodes=300_000), 1000, 200, 0)
    assert plain == (Outcome.UNKNOWN, [], 300_000)
    with pytest.raises(ValueError):
        fortyeight.beam(Game(F8, NO, 55), Budget(nodes=1_000), 1000, 200, -1)


@needs_core
def test_the_default_runs_the_waste_beams_first() -> None:
    """The default's first beam is ``beam1000x200w10``: seed 55 at 4M nodes is won right after
    the capped restarts (64 x 5,000 plain, 8 x 50,000 greedy, none wins) at that beam's
    190,597th node, inside its share (a fourteenth of the 3.28M left)."""
    from solrace.shared.solver.search import (
        BEAMS,
        GREEDY_RESTART_NODES,
        GREEDY_RESTART_ORDERS,
        PLAIN_RESTART_NODES,
        PLAIN_RESTARTS,
    )

    assert BEAMS["beam1000x200w10"] == (1000, 200, 10, True)
    result = search_game(Game(F8, NO, 55), Budget(nodes=4_000_000))
    assert result.won
    assert result.nodes == (PLAIN_RESTARTS * PLAIN_RESTART_NODES
                            + len(GREEDY_RESTART_ORDERS) * GREEDY_RESTART_NODES + 190_597)


@needs_core
def test_a_safe_only_beam_leaves_home_moves_to_its_walk() -> None:
    """``greedy=False``: only the safe home moves are made at once, the others
    are choices of the walk. Seed 33's greedy game (1000 x 200, waste weight 10) empties at
    69,082 nodes, proving nothing; the safe-only beam wins it at exactly 257,349 nodes, and its
    line replays through ``Game.push``, also as ``search_game`` reports it (member
    ``beam1000x200w10s``)."""
    from solrace.shared.solver.search import BEAMS

    game = Game(F8, NO, 33)
    greedy = fortyeight.beam(game, Budget(nodes=400_000), 1000, 200, 10)
    assert greedy == (Outcome.UNKNOWN, [], 69_082)
    outcome, line, count = fortyeight.beam(game, Budget(nodes=400_000), 1000, 200, 10,
                                           greedy=False)
    assert (outcome, count) == (Outcome.WON, 257_349)
    ids = game.layout.ids
    for s, d, n in line:
        game.push(Move(ids[s], ids[d], n))
    assert game.cards_home == game.total_cards
    assert BEAMS["beam1000x200w10s"] == (1000, 200, 10, False)
    result = search_game(Game(F8, NO, 33), Budget(nodes=400_000), strategy="beam1000x200w10s")
    assert result.won and result.nodes == 257_349


@needs_core
def test_gplain_counts_double_after_the_beams() -> None:
    """``WEIGHTS["gplain"]`` is 2: the default's beams spend about 2.1M nodes
    on seed 294 without a win, and ``gplain`` needs 1.6M of its own nodes there, more than a
    quarter of what is left for the four long members; as two of five shares it wins, at 7.5M
    nodes in all, at exactly this node (which pins the members and their shares before it)."""
    from solrace.shared.solver.search import WEIGHTS

    assert WEIGHTS["gplain"] == 2
    result = search_game(Game(F8, NO, 294), Budget(nodes=7_500_000))
    assert result.won and result.nodes == 4_514_811
