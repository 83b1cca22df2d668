"""The fair-play core (shared/fairplay): timing evidence and the suspicion score, one test per
signal at its threshold, and the properties the server relies on."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solrace.shared import protocol as P
from solrace.shared.fairplay import GameRecord, History, Score, actions, evidence, score
from solrace.shared.fairplay import signals as S
from solrace.shared.protocol import ProtocolError

SBF = ("seven-by-five", {"cells": "5", "empty_fill": "any"}, 1)  # every card face up
KLONDIKE = ("unlimited", {}, 1)  # 7 cards face up at the start
OLD = History(account_age_days=400.0, ranked_games=100)


def game(times: list[int], *, deal: tuple[str, dict[str, str], int] = SBF, result: str = "won",
         par: int | None = None) -> GameRecord:
    variant, options, seed = deal
    return GameRecord(variant=variant, options=options, seed=seed,
                      moves=tuple(f"m{i}" for i in range(len(times))), times_ms=tuple(times),
                      result=result, elapsed_ms=times[-1] if times else 0, par=par, kind="daily")


def paced(gaps: list[int], first: int = 5000) -> list[int]:
    out, t = [], first
    for g in gaps:
        out.append(t)
        t += g
    return out


def fired(times: list[int], history: History = OLD, **kw: object) -> set[str]:
    result = score(evidence(game(times, **kw)), history)  # type: ignore[arg-type]
    return {s.name for s in result.signals if s.fired}


def human_gaps(n: int) -> list[int]:
    """A spread like a person's: quick obvious moves, long pauses."""
    pattern = [700, 2600, 900, 5200, 1200, 800, 9000, 1500, 650, 3300]
    return [pattern[i % len(pattern)] for i in range(n)]


def test_actions_group_moves_of_one_instant() -> None:
    assert actions([100, 100, 100, 250, 900, 900]) == [(100, 3), (250, 1), (900, 2)]
    assert actions([]) == []


def test_evidence_measures_between_actions_not_moves() -> None:
    ev = evidence(game([1000, 1000, 1000, 3000, 6000]))  # a finish of 3 moves, then two
    assert ev["actions"] == 3 and ev["batch_max"] == 3 and ev["batched_actions"] == 1
    assert ev["think_ms"] == [2000, 3000] and ev["first_ms"] == 1000
    assert ev["face_up_at_start"] == 52
    assert evidence(game([5], deal=KLONDIKE))["face_up_at_start"] == 7 + 0
    with pytest.raises(ValueError):
        evidence(dataclasses.replace(game([1, 2]), times_ms=(1,)))


def test_instant_play_fires_below_its_bound_only_over_a_whole_game() -> None:
    fast = S.INSTANT_MEDIAN_MS - 1
    assert "instant_play" in fired(paced([fast] * 30))
    assert "instant_play" not in fired(paced([S.INSTANT_MEDIAN_MS] * 30))
    # too few actions to judge: a short game says nothing
    assert "instant_play" not in fired(paced([10] * (S.MIN_ACTIONS - 2)))


def test_machine_rhythm_fires_on_even_think_times() -> None:
    even = [2000, 2200, 1900, 2100, 2050] * 5  # cv ~ 0.05
    assert "machine_rhythm" in fired(paced(even))
    assert "machine_rhythm" not in fired(paced(human_gaps(25)))
    assert "machine_rhythm" not in fired(paced(even[: S.MIN_GAPS - 2]))


def test_fast_first_move_needs_a_board_to_read() -> None:
    assert "fast_first_move" in fired(paced(human_gaps(12), first=S.FAST_FIRST_MS - 1))
    assert "fast_first_move" not in fired(paced(human_gaps(12), first=S.FAST_FIRST_MS))
    # seven cards face up: a quick first draw is a person's
    assert "fast_first_move" not in fired(paced(human_gaps(12), first=200), deal=KLONDIKE)


def test_at_par_fires_on_a_won_game_within_par() -> None:
    times = paced(human_gaps(30))
    assert "at_par" in fired(times, par=30)
    assert "at_par" in fired(times, par=31)
    assert "at_par" not in fired(times, par=29)
    assert "at_par" not in fired(times, par=30, result="resigned")
    assert "at_par" not in fired(times, par=None)


def test_new_account_and_reports_and_history() -> None:
    times = paced(human_gaps(30))
    assert "new_account" in fired(times, History(0.5, 0))
    assert "new_account" not in fired(times, History(0.5, S.NEW_GAMES))
    assert "new_account" not in fired(times, History(S.NEW_DAYS, 0))
    assert "reported" in fired(times, History(9, 9, open_reports=S.REPORTS))
    assert "reported" not in fired(times, History(9, 9, open_reports=S.REPORTS - 1))
    steady = (S.RECENT_MEAN,) * S.RECENT_MIN
    assert "suspicious_history" in fired(times, History(9, 9, recent_scores=steady))
    assert "suspicious_history" not in fired(
        times, History(9, 9, recent_scores=steady[:-1]))
    assert "suspicious_history" not in fired(
        times, History(9, 9, recent_scores=(0.0,) * 10 + steady[:-1]))


def test_no_single_weak_signal_holds_but_the_instant_bot_is_held() -> None:
    human = score(evidence(game(paced(human_gaps(40)), par=40)), History(0.1, 0))
    assert not human.held  # at par, new account: still only 0.7
    bot = score(evidence(game(paced([3] * 119, first=40), par=119)), History(0.1, 0))
    assert bot.held and bot.total >= S.HOLD_THRESHOLD
    assert {s.name for s in bot.signals if s.fired} >= {"instant_play", "machine_rhythm",
                                                        "fast_first_move", "at_par"}


def test_score_round_trips_through_the_wire() -> None:
    result = score(evidence(game(paced([300] * 25), par=25)), OLD)
    assert Score.from_wire(result.to_wire()) == result
    assert P.decode(P.encode({"t": "x", "s": result.to_wire()}))["s"] == result.to_wire()


@settings(max_examples=200, deadline=None)
@given(gaps=st.lists(st.integers(0, 60_000), max_size=80), first=st.integers(0, 60_000),
       par=st.one_of(st.none(), st.integers(1, 200)),
       result=st.sampled_from(["won", "lost", "resigned", "timeout", ""]),
       age=st.floats(0, 1000), games=st.integers(0, 50), reports=st.integers(0, 5),
       recent=st.lists(st.floats(0, 5), max_size=20))
def test_score_never_raises_and_totals_the_fired_weights(
        gaps: list[int], first: int, par: int | None, result: str, age: float, games: int,
        reports: int, recent: list[float]) -> None:
    times = paced(gaps, first)
    if not times:
        times = []
    rec = game(times, par=par, result=result) if times else dataclasses.replace(
        game([0]), moves=(), times_ms=(), result=result)
    out = score(evidence(rec), History(age, games, reports, tuple(recent)))
    assert out.total == round(sum(s.weight for s in out.signals if s.fired), 4)
    assert out.held == (out.total >= S.HOLD_THRESHOLD)
    assert out == score(evidence(rec), History(age, games, reports, tuple(recent)))


@pytest.mark.parametrize(("msg", "code"), [
    ({"t": "mod.clear", "case": "0123abcd:f00d", "reason": ""}, "bad_message"),
    ({"t": "mod.clear", "case": "0123abcd:f00d", "reason": "   "}, "bad_message"),
    ({"t": "mod.clear", "case": "0123abcd:f00d", "reason": "x" * 501}, "bad_message"),
    ({"t": "mod.clear", "case": "no-colon", "reason": "r"}, "case_not_found"),
    ({"t": "mod.case", "case": "UPPER123:f00d"}, "case_not_found"),
    ({"t": "mod.ban", "player": "a", "reason": "r"}, "player_not_found"),
    ({"t": "mod.ban", "player": "bob"}, "bad_message"),
    ({"t": "mod.queue", "limit": 0}, "bad_message"),
    ({"t": "mod.queue", "limit": 201}, "bad_message"),
    ({"t": "mod.audit", "before": "yesterday"}, "bad_message"),
    ({"t": "mod.audit", "limit": 500}, "bad_message"),
])
def test_moderator_requests_are_checked_before_the_server_sees_them(
        msg: dict[str, object], code: str) -> None:
    with pytest.raises(ProtocolError) as err:
        P.parse_request(msg)
    assert err.value.code == code
