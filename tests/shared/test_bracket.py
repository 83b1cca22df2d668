"""A knockout's bracket over time (shared/tournaments/bracket.py): the start (or cancelled
with too few), byes decided at once, races deciding matches, walkovers and no-shows, the
next round opening when one is complete, idempotent decisions, bans and the podium."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from solrace.shared.tournaments import bracket as B
from solrace.shared.tournaments import knockout
from solrace.shared.tournaments.machine import TournamentState as S

SHOW = 60_000


def people(n: int) -> list[tuple[str, str, float, float, int]]:
    """``n`` entrants, p1 rated highest, joined in reverse order of rating."""
    return [(f"p{i}", f"name{i}", 2000.0 - 10 * i, 60.0, n - i) for i in range(1, n + 1)]


def test_too_few_entrants_cancel_the_knockout() -> None:
    b = B.start(people(7), 1000, SHOW)
    assert b.state is S.CANCELLED and b.matches == () and b.finished_at == 1000


def test_eight_entrants_open_four_matches_seeded_by_rating() -> None:
    b = B.start(people(8), 1000, SHOW)
    assert b.state is S.RUNNING and b.round == 1 and b.rounds == 3
    assert [e.player for e in b.entrants] == [f"p{i}" for i in range(1, 9)]
    pairs = [(m.high, m.low) for m in b.current()]
    assert pairs == [("p1", "p8"), ("p4", "p5"), ("p2", "p7"), ("p3", "p6")]
    assert all(m.show_by == 1000 + SHOW and not m.decided for m in b.current())


def test_byes_are_decided_at_the_start() -> None:
    b = B.start(people(10), 0, SHOW)
    byes = [m for m in b.current() if m.how is B.How.BYE]
    assert sorted(b.seed_of(m.winner) for m in byes) == [1, 2, 3, 4, 5, 6]
    played = [(b.seed_of(m.high), b.seed_of(m.low)) for m in b.current() if not m.decided]
    assert sorted(played) == [(7, 10), (8, 9)]


def _play_round(b: B.Bracket, now: int, pick_low: bool = False) -> B.Bracket:
    for m in [m for m in b.current() if not m.decided]:
        first = m.low if pick_low else m.high
        assert first is not None
        who, how = B.race_winner(b, m, first, True)
        b = B.decide(b, m.round, m.index, who, how, now)
    return b


def test_rounds_follow_each_other_to_a_podium() -> None:
    b = B.start(people(8), 0, SHOW)
    b = _play_round(b, 10, pick_low=True)  # upsets: 8, 5, 6, 7 advance
    assert b.round == 2 and [(m.high, m.low) for m in b.current()] == [("p5", "p8"),
                                                                         ("p6", "p7")]
    assert all(m.show_by == 10 + SHOW for m in b.current())
    b = _play_round(b, 20)
    assert b.round == 3 and [(m.high, m.low) for m in b.current()] == [("p5", "p6")]
    b = _play_round(b, 30)
    assert b.state is S.FINISHED and b.finished_at == 30
    assert B.podium(b) == {"winner": "p5", "finalist": "p6",
                           "semi_finalists": ["p7", "p8"]}
    assert B.next_due(b, 40) is None


def test_a_decision_is_taken_once() -> None:
    b = B.start(people(8), 0, SHOW)
    m = b.current()[0]
    once = B.decide(b, 1, m.index, "p8", B.How.RACE, 5)
    assert B.decide(once, 1, m.index, "p1", B.How.RACE, 6) == once  # the second is ignored
    with pytest.raises(ValueError):
        B.decide(b, 1, m.index, "p2", B.How.RACE, 5)  # p2 is not in that match


def test_a_tie_and_no_shows_go_to_the_higher_seed_a_walkover_to_who_came() -> None:
    b = B.start(people(8), 0, SHOW)
    m = b.current()[1]  # p4 v p5
    assert B.race_winner(b, m, "p5", False) == ("p4", B.How.TIE)
    assert B.no_show_winner(b, m, []) == ("p4", B.How.NO_SHOW)
    assert B.no_show_winner(b, m, ["p5"]) == ("p5", B.How.WALKOVER)
    with pytest.raises(ValueError):  # both ready: their race starts, nobody is absent
        B.no_show_winner(b, m, ["p4", "p5"])


def test_next_due_is_the_earliest_open_window() -> None:
    b = B.start(people(8), 0, SHOW)
    assert B.next_due(b, 5) == SHOW


def test_races_are_attached_once() -> None:
    b = B.start(people(8), 0, SHOW)
    b1 = B.attach_race(b, 1, 0, "race-a")
    assert B.attach_race(b1, 1, 0, "race-b") == b1 and B.find(b1, 1, 0).race == "race-a"


def test_a_ban_forfeits_the_current_and_later_matches_and_empties_a_podium_place() -> None:
    b = B.start(people(8), 0, SHOW)
    b = B.ban(b, "p8", 1)
    m = B.find(b, 1, 0)
    assert (m.winner, m.how) == ("p1", B.How.FORFEIT)
    # p4 wins, then is banned while waiting for the next round: that match is forfeit
    b = B.decide(b, 1, 1, "p4", B.How.RACE, 2)
    b = B.ban(b, "p4", 3)
    b = _play_round(b, 4)
    semi = B.find(b, 2, 0)
    assert (semi.high, semi.low, semi.winner, semi.how) == ("p1", "p4", "p1", B.How.FORFEIT)
    b = _play_round(b, 5)
    b = _play_round(b, 6)
    assert B.podium(b)["semi_finalists"] == ["p3", None]  # p4's place stays empty
    assert B.podium(B.unban(b, "p4"))["semi_finalists"] == ["p3", "p4"]


def test_an_entrant_banned_before_the_start_forfeits_round_one() -> None:
    b = B.start(people(8), 0, SHOW, frozenset({"p5", "nobody"}))
    m = B.find(b, 1, 1)
    assert (m.high, m.low, m.winner, m.how) == ("p4", "p5", "p4", B.How.FORFEIT)
    assert b.banned == frozenset({"p5"}) and not B.find(b, 1, 0).decided


def test_a_removed_win_leaves_the_podium() -> None:
    b = B.start(people(8), 0, SHOW)
    b = B.attach_race(b, 1, 0, "r1")
    b = _play_round(b, 1)
    b = _play_round(b, 2)
    b = _play_round(b, 3)
    assert B.podium(b)["winner"] == "p1"
    assert B.podium(B.set_review(b, "r1", "removed"))["winner"] is None


def test_the_wire_form_round_trips() -> None:
    b = _play_round(B.ban(B.start(people(11), 0, SHOW), "p9", 1), 2)
    assert B.Bracket.from_wire(b.wire()) == b


@given(st.integers(knockout.MIN_ENTRANTS, knockout.MAX_ENTRANTS), st.randoms())
def test_any_bracket_ends_with_one_winner_in_its_rounds(n: int, rnd: object) -> None:
    import random
    assert isinstance(rnd, random.Random)
    b = B.start(people(n), 0, SHOW)
    now = 0
    while b.state is S.RUNNING:
        now += 1
        m = rnd.choice([m for m in b.current() if not m.decided])
        assert m.high is not None and m.low is not None
        b = B.decide(b, m.round, m.index, rnd.choice([m.high, m.low]), B.How.RACE, now)
    assert b.round == knockout.rounds(n) and len(b.current()) == 1
    assert len([m for m in b.matches if m.how is not B.How.BYE]) == n - 1
    winner = B.podium(b)["winner"]
    assert winner is not None and all(m.loser != winner for m in b.matches)
