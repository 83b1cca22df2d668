"""The difficulty rating (``shared/learning/difficulty.py``): its thresholds and edge cases, the
players' blend, and the direction it claims — the practice bots win deals rated hard less
often than deals rated easy — on a small fixed sample (bench/difficulty.py measures it widely).
"""

from __future__ import annotations

import pytest
from solrace.shared.engine import Game, Status
from solrace.shared.learning import difficulty as L
from solrace.shared.solver import Bot, Budget, solve

V = "sixes-and-sevens"


def effort_of_work(work: int, par: int = 100) -> L.Effort:
    assert work % par == 0
    return L.Effort(work // par, par)


def test_thresholds_split_the_work_into_three_bands() -> None:
    lo, hi = L.thresholds("unlimited")
    assert 1 < lo < hi
    assert L.band("unlimited", L.Effort(lo - 1, 1)) is L.Difficulty.EASY
    assert L.band("unlimited", L.Effort(lo, 1)) is L.Difficulty.MEDIUM
    assert L.band("unlimited", L.Effort(hi - 1, 1)) is L.Difficulty.MEDIUM
    assert L.band("unlimited", L.Effort(hi, 1)) is L.Difficulty.HARD
    assert L.band("unlimited", L.Effort(L.RATING_NODES, None)) is L.Difficulty.HARD


def test_work_is_nodes_times_par() -> None:
    assert L.Effort(30, 200).work == 6000
    assert L.Effort(0, 167).work == 167  # a deal won at the first node still has its length
    assert L.Effort(L.RATING_NODES, None).work is None
    assert not L.Effort(L.RATING_NODES, None).won


def test_an_unlisted_variant_uses_the_default_thresholds() -> None:
    assert L.thresholds("no-such-variant") == L.DEFAULT_THRESHOLDS


@pytest.mark.parametrize("variant", sorted(L.THRESHOLDS))
def test_the_solver_score_rises_with_the_work_and_stays_in_its_band(variant: str) -> None:
    lo, hi = L.thresholds(variant)
    works = sorted({1, 2, lo - 1, lo, (lo + hi) // 2, hi - 1, hi, 3 * hi, 10 * hi, 100 * hi})
    scores = [L.solver_score(variant, L.Effort(w, 1)) for w in works]
    assert scores == sorted(scores) and scores[0] == 0.0 and scores[-1] == 1.0
    for w, s in zip(works, scores, strict=True):
        band = L.band(variant, L.Effort(w, 1))
        assert L.of_score(s) is band, (w, s)
    assert L.solver_score(variant, L.Effort(L.RATING_NODES, None)) == 1.0


def test_of_score_cuts_at_thirds() -> None:
    assert L.of_score(0.0) is L.Difficulty.EASY
    assert L.of_score(0.333) is L.Difficulty.EASY
    assert L.of_score(1 / 3) is L.Difficulty.MEDIUM
    assert L.of_score(0.666) is L.Difficulty.MEDIUM
    assert L.of_score(2 / 3) is L.Difficulty.HARD
    assert L.of_score(1.0) is L.Difficulty.HARD


def test_players_count_only_from_the_threshold() -> None:
    few = L.Results(L.MIN_PLAYERS - 1, 0, None)
    assert L.player_score(few, 100) is None
    easy = L.Effort(1, 1)
    # everyone lost, but too few of them: the solver's rating stands
    assert L.rate(V, easy, few) is L.Difficulty.EASY
    enough = L.Results(L.MIN_PLAYERS, 0, None)
    assert L.player_score(enough, 100) == 1.0  # nobody won: lost and slow
    # at the threshold the players weigh half: 0.5 * 0 + 0.5 * 1 = 0.5, medium
    assert L.blend(0.0, 1.0, L.MIN_PLAYERS) == pytest.approx(0.5)
    assert L.rate(V, easy, enough) is L.Difficulty.MEDIUM
    # with many attempts the players decide
    assert L.rate(V, easy, L.Results(1000, 0, None)) is L.Difficulty.HARD
    hard = L.Effort(L.RATING_NODES, None)
    assert L.rate(V, hard, L.Results(1000, 1000, 100 * L.FAST_MS_PER_MOVE)) \
        is L.Difficulty.EASY


def test_player_score_weights_wins_and_slowness() -> None:
    n = 40
    fast = L.Results(n, n, 100 * L.FAST_MS_PER_MOVE)  # everyone won at 1 s per move of par
    assert L.player_score(fast, 100) == 0.0
    slow = L.Results(n, n, 100 * L.SLOW_MS_PER_MOVE)  # everyone won, slowly
    assert L.player_score(slow, 100) == pytest.approx(1 - L.PLAYER_WIN_WEIGHT)
    half = L.Results(n, n // 2, 100 * L.FAST_MS_PER_MOVE)
    assert L.player_score(half, 100) == pytest.approx(L.PLAYER_WIN_WEIGHT / 2)
    slower = L.Results(n, n // 2, 100 * 3 * L.FAST_MS_PER_MOVE)
    assert L.player_score(half, 100) < L.player_score(slower, 100) < 1  # type: ignore[operator]
    assert L.player_score(L.Results(n, n + 5, None), 100) == 1 - L.PLAYER_WIN_WEIGHT  # no time


def test_blend_weight_grows_with_attempts() -> None:
    weights = [L.blend(0.0, 1.0, n) for n in (L.MIN_PLAYERS, 50, 100, 1000)]
    assert weights == sorted(weights) and weights[0] == pytest.approx(0.5)
    assert weights[2] == pytest.approx(100 / 120)
    assert L.blend(0.25, None, 500) == 0.25
    assert L.blend(0.25, 1.0, L.MIN_PLAYERS - 1) == 0.25


def test_measure_is_deterministic() -> None:
    a = L.measure(V, None, 1003)
    assert a == L.measure(V, {}, 1003)
    result = solve((V, None, 1003), Budget(nodes=L.RATING_NODES, seconds=None))
    assert (a.nodes, a.par) == ((result.nodes, result.par) if result.won
                                else (L.RATING_NODES, None))


def _bot_wins(seed: int, strength: str, bot_seed: int = 0) -> bool:
    game, bot = Game(V, None, seed), Bot(strength, seed=bot_seed)
    while game.status is Status.PLAYING and len(game.moves) < 1500:
        move = bot.choose(game)
        if move is None:
            break
        game.push(move)
    return game.status is Status.WON


def test_bots_win_hard_deals_less_often_than_easy_ones() -> None:
    """Seeds 1001..1040 of Sixes and Sevens, every won deal rated and played by the weak bot
    (two bot seeds) and the medium bot: the easy deals' share of bot wins is well above the
    hard deals' (bench/difficulty.py measured 53 % against 0 % on 60 seeds)."""
    wins: dict[L.Difficulty, list[int]] = {d: [] for d in L.Difficulty}
    for seed in range(1001, 1041):
        effort = L.measure(V, None, seed)
        if not effort.won:
            continue
        games = [_bot_wins(seed, "weak", k) for k in range(2)] + [_bot_wins(seed, "medium")]
        wins[L.band(V, effort)].append(sum(games))
    easy, hard = wins[L.Difficulty.EASY], wins[L.Difficulty.HARD]
    assert len(easy) >= 5 and len(hard) >= 5, {d.value: len(w) for d, w in wins.items()}
    share = {d: sum(w) / (3 * len(w)) for d, w in wins.items() if w}
    assert share[L.Difficulty.EASY] >= share[L.Difficulty.HARD] + 0.2, share


def test_the_protocol_accepts_exactly_the_ratings() -> None:
    from solrace.shared.protocol.requests import DIFFICULTIES

    assert DIFFICULTIES == L.DIFFICULTIES == ("easy", "medium", "hard")
