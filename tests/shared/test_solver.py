"""The solver (``shared/solver``): wins replay through the public engine, lost means lost,
answers are deterministic, budgets are honoured, and the pruning agrees with a plain search.

Budgets are small node budgets so the whole file stays fast; the seeds below are ones the
solver wins within them (if a change to the search loses one, that is worth knowing).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from positions import make, top_first
from solrace.shared import Game, Status
from solrace.shared.solver import Bot, Budget, Outcome, fastcore, hint, par, solve
from solrace.shared.solver.canonical import key_function
from solrace.shared.solver.safe_moves import SafeMoves
from solrace.shared.solver.search import search_game

SMALL = Budget(nodes=4_000)


@pytest.fixture(autouse=True, params=["python", "c"])
def core(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs on both searches of Klondike: the pure-Python one and, where a C
    compiler is available, the compiled core (``fastcore``); the other variants always
    search in Python, so their tests simply run twice."""
    if request.param == "c":
        monkeypatch.delenv(fastcore.ENV, raising=False)
        if fastcore.library() is None:
            pytest.skip(f"no compiled solver core here: {fastcore.KLONDIKE.error}")
    monkeypatch.setenv(fastcore.ENV, request.param)
    return request.param

# (variant, options, seeds the solver wins within SMALL)
WINNABLE = [
    ("sixes-and-sevens", {}, (1, 15)),
    ("sixes-and-sevens", {"empty_fill": "manual"}, (6,)),
    ("seven-by-five", {"cells": "5", "empty_fill": "any"}, (8, 11)),
    ("double-aces-and-kings", {}, (30,)),
    ("double-aces-and-kings", {"reserve_to_space": "yes"}, (4, 12)),
    ("unlimited", {}, (5, 15)),
    ("unlimited", {"draw": "3"}, (10, 13)),
    ("unlimited", {"foundation_takeback": "no"}, (9, 11)),
    ("forty-and-eight", {}, (10, 14)),
]
CASES = [(v, o, s) for v, o, seeds in WINNABLE for s in seeds]


def _id(case: tuple[str, dict[str, str], int]) -> str:
    v, o, s = case
    return f"{v}-{','.join(f'{k}={x}' for k, x in o.items()) or 'default'}-{s}"


# ------------------------------------------------------------------ wins replay


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_won_line_replays_to_a_win_through_push(case: tuple[str, dict[str, str], int]) -> None:
    variant, options, seed = case
    result = solve((variant, options, seed), SMALL)
    assert result.outcome is Outcome.WON
    game = Game(variant, options, seed)
    for move in result.move_texts():  # the text form, as the CLI and logs carry it
        game.push(move)
    assert game.status is Status.WON
    assert result.par == len(result.moves) == len(game.moves)
    assert 0 < result.nodes <= SMALL.nodes


def test_solve_from_a_live_game_leaves_it_untouched_and_continues_from_its_position() -> None:
    game = Game("unlimited", {}, 5)
    for move in solve(game, SMALL).moves[:20]:
        game.push(move)
    before = game.position_text()
    result = solve(game, SMALL)
    assert game.position_text() == before and len(game.moves) == 20
    assert result.won
    game.replay(result.moves)
    assert game.status is Status.WON


# ------------------------------------------------------------------ lost means lost


def test_draw_three_parity_trap_is_lost_but_draw_one_wins() -> None:
    """The A♥ is drawn first in a stock of four: with draw 3 it is never on top of the waste
    (5♥ 6♥ 7♥ cannot be played anywhere to change the grouping), with draw 1 it is."""
    piles = dict(
        t=["2H", "3H", "4H", "8H9H", "THJH", "QH", "KH"],
        s=top_first("AH 5H 6H 7H"),
    )
    lost = solve(make("unlimited", {"draw": "3"}, **piles), SMALL)
    assert lost.outcome is Outcome.LOST and lost.moves == ()
    won = solve(make("unlimited", {"draw": "1"}, **piles), SMALL)
    assert won.outcome is Outcome.WON


def test_seven_by_five_blocked_aces_are_lost() -> None:
    """Each Ace lies under the two that would free the other: no cells, Kings only in
    spaces."""
    game = make("seven-by-five", {}, t=["AC2D", "AD2C"], rest="t3")
    assert solve(game, SMALL).outcome is Outcome.LOST


def test_sixes_and_sevens_buried_fives_are_lost() -> None:
    """Both 5♣ and both 5♦ lie deep in the waste under cards that need them; one space
    saves one card, which is not enough."""
    game = make(
        "sixes-and-sevens", {"empty_fill": "manual"},
        t=["4C", "3C", "3C", "2C", "2C", "AC", "AC", "4D", "-"],
        w="5C 5C 5D 5D 3D 3D 2D 2D AD AD 4D 4C",
    )
    assert game.legal_moves()  # not over at once: the search has to look
    assert solve(game, SMALL).outcome is Outcome.LOST


# ------------------------------------------------------------------ a plain search agrees


def _plain(game: Game, limit: int) -> str | None:
    """Exhaustive depth-first search over the engine's moves, exact positions, no pruning."""
    g = Game(game.variant, game.options, game.seed, position=game.pos.copy())
    unlimited = g.rules.redeals is None

    def key() -> tuple:
        p = g.pos
        return (tuple(map(tuple, p.piles)), tuple(p.down), 0 if unlimited else p.redeals)

    seen, stack, path = {key()}, [iter(g._legal())], []
    while stack:
        move = next(stack[-1], None)
        if move is None:
            stack.pop()
            if path:
                g._revert(path.pop())
            continue
        ops = g._do(*move)
        if g.cards_home == g.total_cards:
            return "won"
        k = key()
        if k in seen:
            g._revert(ops)
            continue
        seen.add(k)
        if len(seen) > limit:
            return None
        path.append(ops)
        stack.append(iter(g._legal()))
    return "lost"


TB_NO = {"foundation_takeback": "no"}
CELLS = {"cells": "5", "empty_fill": "any"}
# (variant, options of the winning line, seed, options the endgame is checked under)
ENDGAMES = [
    ("unlimited", {}, 5, {}),
    ("unlimited", {}, 15, TB_NO),
    ("unlimited", {"draw": "3"}, 10, {"draw": "3"}),
    ("unlimited", {"draw": "3"}, 13, {"draw": "3", **TB_NO}),
    ("seven-by-five", CELLS, 8, CELLS),
    ("seven-by-five", CELLS, 11, {"cells": "5", "empty_fill": "king"}),
    ("forty-and-eight", {}, 10, {}),
    ("forty-and-eight", {}, 14, {"foundation_takeback": "yes"}),
    ("sixes-and-sevens", {}, 1, {}),
    ("sixes-and-sevens", {"empty_fill": "manual"}, 6, {"empty_fill": "manual"}),
    ("double-aces-and-kings", {"reserve_to_space": "yes"}, 4, {"reserve_to_space": "yes"}),
    ("double-aces-and-kings", {"reserve_to_space": "yes"}, 12, {}),
]


@pytest.mark.parametrize("case", ENDGAMES, ids=lambda c: f"{c[0]}-{c[2]}-{c[3]}")
def test_pruned_search_agrees_with_plain_exhaustive_search(
    case: tuple[str, dict[str, str], int, dict[str, str]],
) -> None:
    """Endgames near a win, set up under (possibly other) options and disturbed by a few
    random moves, so that some stay winnable and some do not: wherever a plain search over
    the engine's moves decides, the solver's safe moves, delayed moves, macro-moves and
    symmetries must give the same answer."""
    variant, line_options, seed, options = case
    game = Game(variant, line_options, seed)
    for move in solve(game, SMALL).moves:
        if game.total_cards - game.cards_home <= 10:
            break
        game.push(move)
    start = game.position_text()
    rng = random.Random(seed)
    decided = 0
    for _ in range(4):
        trial = Game.from_position(variant, options, start)
        for _ in range(rng.randint(0, 5)):
            if trial._legal():
                trial._do(*rng.choice(trial._legal()))
        expected = _plain(trial, 6_000)
        if expected is not None:
            got = solve(trial, Budget(nodes=20_000)).outcome.value
            assert got == expected, trial.position_text()
            decided += 1
    assert decided


# ------------------------------------------------------------------ determinism and budgets


@pytest.mark.parametrize("case", [("unlimited", {"draw": "3"}, 2), ("sixes-and-sevens", {}, 2)])
def test_same_input_gives_the_same_result_and_moves(case: tuple[str, dict[str, str], int]
                                                    ) -> None:
    variant, options, seed = case
    a = solve((variant, options, seed), SMALL)
    b = solve(Game(variant, options, seed), SMALL)
    assert (a.outcome, a.moves, a.nodes) == (b.outcome, b.moves, b.nodes)


def test_node_budget_exhausted_gives_unknown() -> None:
    result = solve(("unlimited", {}, 5), Budget(nodes=5))
    assert result.outcome is Outcome.UNKNOWN
    assert result.moves == () and result.par is None
    assert result.nodes <= 5


def test_time_budget_exhausted_gives_unknown() -> None:
    result = solve(("forty-and-eight", {}, 1), Budget(nodes=None, seconds=0.05))
    assert result.outcome is Outcome.UNKNOWN
    assert result.seconds < 2


def test_dfs_and_best_first_alone_also_prove_and_win() -> None:
    lost = make("seven-by-five", {}, t=["AC2D", "AD2C"], rest="t3")
    for strategy in ("best", "dfs"):
        assert search_game(lost, SMALL, strategy=strategy).outcome is Outcome.LOST
        won = search_game(Game("unlimited", {}, 5), SMALL, strategy=strategy)
        assert won.outcome is Outcome.WON
    with pytest.raises(ValueError):
        search_game(lost, SMALL, strategy="random")


@pytest.mark.parametrize(
    ("text", "nodes", "seconds"),
    [("50000", 50_000, None), ("50k", 50_000, None), ("2m", 2_000_000, None),
     ("10s", None, 10.0), ("2.5s", None, 2.5), ("1_000", 1_000, None)],
)
def test_budget_parse(text: str, nodes: int | None, seconds: float | None) -> None:
    budget = Budget.parse(text)
    assert (budget.nodes, budget.seconds) == (nodes, seconds)


@pytest.mark.parametrize("text", ["", "ten", "10 s", "-5", "5x", "0s"])
def test_budget_parse_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        Budget.parse(text)


# ------------------------------------------------------------------ canonical keys, safe moves


def test_key_ignores_tableau_order_but_not_contents() -> None:
    a = make("seven-by-five", {"cells": "5", "empty_fill": "any"},
             t=["KS", "QH", "5C4H"], c=["9D"], rest="t7")
    b = make("seven-by-five", {"cells": "5", "empty_fill": "any"},
             t=["5C4H", "KS", "QH"], c=["-", "-", "9D"], rest="t7")
    c = make("seven-by-five", {"cells": "5", "empty_fill": "any"},
             t=["KS", "QH", "4H5C"], c=["9D"], rest="t7")
    assert key_function(a)() == key_function(b)()
    assert key_function(a)() != key_function(c)()


def _swap_suits(game: Game) -> Game:
    """The same position with clubs and spades exchanged everywhere."""
    table = str.maketrans("CScs", "SCsc")
    fields = (part.split(":", 1) for part in game.position_text().split())
    text = " ".join(f"{k}:{v if k == 'n' else v.translate(table)}" for k, v in fields)
    return Game.from_position(game.variant, game.options, text)


def test_key_ignores_suits_where_no_rule_reads_them() -> None:
    dak = Game("double-aces-and-kings", {}, 5)
    assert key_function(dak)() == key_function(_swap_suits(dak))()
    f8 = Game("forty-and-eight", {}, 5)
    assert key_function(f8)() != key_function(_swap_suits(f8))()


@pytest.mark.parametrize(("variant", "options"), [
    ("unlimited", {}), ("unlimited", {"foundation_takeback": "no"}),
    ("seven-by-five", {"cells": "5", "empty_fill": "any"}), ("forty-and-eight", {}),
    ("forty-and-eight", {"foundation_takeback": "yes"}),
])
def test_fast_safe_move_rules_match_the_generic_ones(variant: str, options: dict[str, str]
                                                     ) -> None:
    rng = random.Random(3)
    found = 0
    for seed in range(8):
        game = Game(variant, options, seed)
        safe = SafeMoves(game)
        for _ in range(250):
            moves = game._legal()
            if not moves:
                break
            fast = safe.find()
            assert fast == safe._find_generic()
            found += fast is not None
            home = [m for m in moves if m[1] in game._F]
            game._do(*(rng.choice(home) if home and rng.random() < 0.6 else rng.choice(moves)))
    assert found > 0


def test_no_safe_moves_where_a_space_would_refill() -> None:
    """Sixes and Sevens (auto): playing a tableau card home pulls the waste top into its pile,
    which can spoil a later choice, so it is never automatic while the stock or waste holds
    a card."""
    tableau = ["5C", "9S", "TS", "JS", "QS", "KS", "9S", "TS", "JS"]
    spades = {12: "7S", 16: "7S"}  # the spade Sevens wait for an 8: the spades stay out
    game = make("sixes-and-sevens", {}, f=spades, t=tableau)
    assert game.pos.piles[game._S]  # the leftover spades: the stock is not empty
    assert SafeMoves(game).find() is None
    game = make("sixes-and-sevens", {"empty_fill": "manual"}, f=spades, t=tableau)
    # f1 holds the other 5♣ already (and the clubs below it): 5♣ goes onto f5, the other Six
    assert SafeMoves(game).find() == (game.layout.index["t1"], game.layout.index["f5"], 1)


def test_draw_three_waste_card_is_never_automatic() -> None:
    game = make("unlimited", {"draw": "3"}, w="AS", s="2S3S")
    assert SafeMoves(game).find() is None
    game = make("unlimited", {"draw": "1"}, w="AS", s="2S3S")
    assert SafeMoves(game).find() == (game.layout.index["w"], game.layout.index["f4"], 1)


# ------------------------------------------------------------------ hint, par, bots


def test_hint_is_the_first_move_of_a_win_and_none_when_over() -> None:
    game = Game("unlimited", {}, 5)
    move = hint(game, SMALL)
    assert move == solve(game, SMALL).moves[0]
    assert game.is_legal(move)
    game.replay(solve(game, SMALL).moves)
    assert hint(game) is None


def test_par_is_the_solvers_move_count() -> None:
    assert par(("unlimited", {}, 5), SMALL) == len(solve(("unlimited", {}, 5), SMALL).moves)
    assert par(("unlimited", {}, 5), Budget(nodes=5)) is None


@pytest.mark.parametrize("strength", ["weak", "medium", "strong"])
def test_bots_play_legal_moves_until_the_game_ends_or_they_give_up(strength: str) -> None:
    bot = Bot(strength, seed=1, budget=Budget(nodes=1_500), patience=60)
    game = Game("unlimited", {}, 5)
    for _ in range(5_000):
        move = bot.choose(game)
        if move is None:
            break
        game.push(move)  # raises if the bot ever picks an illegal move
    assert move is None or game.status is not Status.PLAYING
    if strength == "strong":
        assert game.status is Status.WON


def test_strong_bot_beats_weak_bot_on_cards_home() -> None:
    home = {}
    for strength in ("weak", "strong"):
        bot = Bot(strength, seed=2, budget=SMALL, patience=60)
        game = Game("seven-by-five", {"cells": "5", "empty_fill": "any"}, 8)
        for _ in range(600):
            move = bot.choose(game)
            if move is None:
                break
            game.push(move)
        home[strength] = game.cards_home
    assert home["strong"] > home["weak"]


# ------------------------------------------------------------------ the CLI


def test_cli_solve_json_and_batch(capsys: pytest.CaptureFixture[str]) -> None:
    from solrace.client.cli import main

    assert main(["solve", "unlimited", "--seed", "5", "--budget", "4k", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["result"] == "won" and doc["seed"] == 5 and doc["par"] == len(doc["moves"])
    game = Game("unlimited", doc["options"], 5)
    game.replay(doc["moves"])
    assert game.status is Status.WON

    assert main(["solve", "seven-by-five", "--batch", "1-3,5", "--budget", "2k"]) == 0
    out = capsys.readouterr()
    assert "lost" in out.out and " 4 " in out.out  # 4 deals in the summary row
    assert "4/4" in out.err  # the progress bar


def test_cli_solve_default_budget_is_capped_below_ten_seconds_and_says_so(
        capsys: pytest.CaptureFixture[str]) -> None:
    from solrace.client.cli import main
    from solrace.client.commands.solve import DEFAULT_BUDGET

    assert DEFAULT_BUDGET.seconds is not None and DEFAULT_BUDGET.seconds <= 10
    assert main(["solve", "seven-by-five", "--seed", "1"]) == 0
    out = capsys.readouterr()
    assert "seed 1: lost" in out.out
    assert "solving seven-by-five seed 1 (budget 200000 nodes, 9 s)" in out.err


def test_time_budget_includes_the_shortening() -> None:
    """With a time budget the shortening pass stops at the budget's end (the line is still a
    win, just less short); a node budget's shortening is unchanged (deterministic)."""
    from solrace.shared.solver.search import Searcher
    from solrace.shared.solver.shorten import shorten

    game = Game("unlimited", {}, 5)
    outcome, line = Searcher(game).run_dfs(SMALL)  # depth-first, not yet shortened
    assert outcome is Outcome.WON
    late = shorten(game, line, deadline=0.0)  # long past: only loops are cut, no shortcuts
    assert len(shorten(game, line)) < len(late) <= len(line)
    timed = search_game(game, Budget(nodes=None, seconds=5.0))
    assert timed.won and timed.seconds < 5.0 + 2.0


def test_cli_solve_rejects_bad_budget_and_seed_list() -> None:
    from solrace.client.cli import main

    assert main(["solve", "unlimited", "--budget", "lots"]) == 2
    assert main(["solve", "unlimited", "--batch", "9-3"]) == 2


# ------------------------------------------------------------------ the benchmark


def test_bench_smoke_runs_and_reports(tmp_path: Path) -> None:
    """``bench/solver.py --smoke`` as a user runs it, so the harness never rots."""
    script = Path(__file__).resolve().parents[2] / "bench" / "solver.py"
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, str(script), "--smoke", "--baseline", "--json", str(out),
         "--only", "seven-by-five", "unlimited draw=3"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(out.read_text())
    for part in ("solver", "baseline"):
        rows = doc[part]
        assert set(rows) == {"seven-by-five", "unlimited draw=3"}
        for row in rows.values():
            assert row["won"] + row["lost"] + row["unknown"] == row["deals"] == 3
    assert doc["solver"]["seven-by-five"]["lost"] == 3  # all three proved lost
    assert "Blake & Gent" in proc.stdout and "baseline" in proc.stdout


def test_bench_first_solves_held_out_seeds(tmp_path: Path) -> None:
    """``--first F`` solves seeds F..F+N-1 (held-out seeds for checking a tuning), and a
    first seed below 1 is refused."""
    script = Path(__file__).resolve().parents[2] / "bench" / "solver.py"
    out = tmp_path / "bench.json"
    args = ["--seeds", "3", "--first", "61", "--budget", "2k", "--json", str(out)]
    proc = subprocess.run(
        [sys.executable, str(script), *args, "--only", "forty-and-eight"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "seeds 61..63" in proc.stdout
    doc = json.loads(out.read_text())
    assert doc["first"] == 61
    rows = doc["solver"]["forty-and-eight"]["rows"]
    assert [r["seed"] for r in rows] == [61, 62, 63]
    bad = subprocess.run(
        [sys.executable, str(script), "--first", "0", "--smoke"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "--first" in bad.stderr


# ------------------------------------------------------------------ the solver's own generation


@pytest.mark.parametrize("variant,options", [
    ("unlimited", {}), ("unlimited", {"draw": "3", "foundation_takeback": "no"}),
    ("forty-and-eight", {"foundation_takeback": "yes"}), ("seven-by-five", CELLS),
    ("sixes-and-sevens", {"empty_fill": "manual"}),
    ("double-aces-and-kings", {"reserve_to_space": "yes"}),
])
def test_restricted_generation_matches_filtering_the_engines_moves(
        variant: str, options: dict[str, str]) -> None:
    """The second half of a delayed-move pair is generated directly (moves from one pile or
    onto one tableau pile); it must be exactly the engine's moves so filtered, in order."""
    from solrace.shared.solver.moves import MoveGen

    rng = random.Random(7)
    checked = 0
    for seed in range(1, 6):
        game = Game(variant, options, seed)
        gen = MoveGen(game)
        for _ in range(60):
            legal = game._legal()
            if not legal:
                break
            for src in game._T + game._F + game._C:
                for dst in game._T:
                    want = [t for t in legal if (t[0] == src or t[1] == dst)
                            and t[0] != game._S and t[1] != game._S]  # draws, redeals
                    assert gen._legal_uses(src, dst) == want, (src, dst, game.position_text())
                    checked += 1
            game._do(*rng.choice(legal))
    assert checked > 1000


@pytest.mark.parametrize("options", [{}, {"draw": "3"}])
def test_stock_jumps_replay_as_draws_and_redeals(options: dict[str, str]) -> None:
    """A stock macro-move is applied as one jump of the waste boundary but recorded as the
    engine's draws and redeals: applying the recorded moves one by one gives the same
    position, and undoing the jump restores the start."""
    from solrace.shared.solver.moves import JUMP, MoveGen

    game = Game("unlimited", options, 3)
    gen = MoveGen(game)
    before = game.position_text()
    jumps = [e for e in gen.edges() if e[0][0] == JUMP]
    assert jumps
    for edge in jumps:
        ops, moves = gen.apply(edge)
        after = (game.position_text(), game.pos.redeals)
        game._revert(ops)
        assert game.position_text() == before
        check = game.copy()
        undo = [check._do(*m) for m in moves]
        assert (check.position_text(), check.pos.redeals) == after
        for u in reversed(undo):
            check._revert(u)


def _stock_reach(game: Game) -> set[int]:
    """Waste lengths reachable from ``game``'s position by draws and redeals alone."""
    S, W = game._S, game._W
    seen = {len(game.pos.piles[W])}
    undo = []
    while True:
        legal = [t for t in game._legal() if t[0] == S or t[1] == S]
        if not legal:
            break
        undo.append(game._do(*legal[0]))
        k = len(game.pos.piles[W])
        if k in seen and not game.pos.piles[S]:
            break
        if k in seen and len(undo) > 200:
            break
        seen.add(k)
    for ops in reversed(undo):
        game._revert(ops)
    return seen


@pytest.mark.parametrize("options", [{}, {"draw": "3"}])
def test_free_cycle_key_joins_only_boundaries_that_reach_each_other(
        options: dict[str, str]) -> None:
    """With unlimited redeals the key forgets the waste boundary up to draws: two positions
    that differ only there get the same key only when draws and redeals lead from each to the
    other (so they are equally winnable)."""
    from solrace.shared.solver.moves import MoveGen

    rng = random.Random(3)
    compared = 0
    for seed in range(1, 9):
        game = Game("unlimited", options, seed)
        for _ in range(rng.randint(0, 40)):
            legal = [t for t in game._legal() if t[0] != game._S]
            if legal:
                game._do(*rng.choice(legal))
        gen, key = MoveGen(game), key_function(game)
        total = len(game.pos.piles[game._S]) + len(game.pos.piles[game._W])
        keys, reach = {}, {}
        for k in range(total + 1):
            ops: list = []
            gen._jump(k, 0, ops)
            keys[k], reach[k] = key(), _stock_reach(game)
            game._revert(ops)
        for a in keys:
            for b in keys:
                if keys[a] == keys[b]:
                    assert b in reach[a] and a in reach[b], (seed, a, b)
                    compared += 1
    assert compared > 100


def _reduced(options: dict[str, str], seed: int, rng: random.Random,
             heights: tuple[int, int] = (8, 11)) -> Game:
    """A real deal with the low cards of every suit taken home (how many: random, within
    ``heights``), the other cards left where they were dealt: mid-size positions with stock,
    waste and face-down cards that a plain search can still exhaust (lower heights: a longer
    stock, for the compiled core)."""
    from solrace.shared.cards import RANK_OF, SUIT_OF

    g = Game("unlimited", options, seed)
    pos = g.pos
    height = [rng.randint(*heights) for _ in range(4)]
    for i, pile in enumerate(pos.piles):
        if i in g._F:
            continue
        down = pos.down[i] if i in g._T else 0
        keep = [c for c in pile if RANK_OF[c] > height[SUIT_OF[c]]]
        if i in g._T:
            hidden = sum(1 for c in pile[:down] if RANK_OF[c] > height[SUIT_OF[c]])
            pos.down[i] = min(hidden, max(0, len(keep) - 1))
        pos.piles[i] = keep
    for suit, f in zip(range(4), g._F):
        pos.piles[f] = [suit * 13 + r for r in range(height[suit])]
    return Game("unlimited", options, 0, position=pos)


def test_held_waste_cards_keep_every_win_of_a_plain_search() -> None:
    """Draw 1, unlimited redeals: a waste card goes to the tableau only paired with a card put
    onto it. On mid-size positions with a stock, wherever a plain search over the engine's
    moves decides, the solver agrees (without take-back: with it, the plain search would
    also take back every home card and decides nothing in reach)."""
    rng = random.Random(11)
    decided = 0
    for _ in range(12):
        trial = _reduced(TB_NO, rng.randint(1, 10**6), rng)
        expected = _plain(trial, 10_000)
        if expected is not None:
            assert solve(trial, Budget(nodes=20_000)).outcome.value == expected, (
                trial.position_text())
            decided += 1
    assert decided >= 4


def test_held_waste_proof_is_confirmed_without_holding() -> None:
    """Unlimited seed 37 is proved lost in a few hundred nodes with held waste cards; the
    search without them (every waste card played anywhere it fits) proves it too, in about
    ten times as many."""
    from solrace.shared.solver.search import Searcher

    held = search_game(Game("unlimited", {}, 37), Budget(nodes=2_000), strategy="dfs")
    assert held.outcome is Outcome.LOST
    searcher = Searcher(Game("unlimited", {}, 37))
    searcher.hold_waste = False
    outcome, _ = searcher.run_dfs(Budget(nodes=20_000))
    assert outcome is Outcome.LOST and searcher.nodes > 5 * held.nodes
