"""How ``solrace daily`` names a daily's difficulty (client/commands/daily.py): the deal's rating,
what players make of it once they count, and the flag that reaches the same daily again."""

from __future__ import annotations

from solrace.client.commands.daily import attempt_line, difficulty_flag, difficulty_text, info_lines


def test_the_difficulty_follows_the_date() -> None:
    assert difficulty_text({"difficulty": "hard"}) == " · hard"
    assert difficulty_text({}) == ""  # a server without ratings: nothing said
    info = {"variant": "unlimited", "date": "2030-01-02", "difficulty": "easy",
            "commitment": "ab" * 32, "par": 120, "options": {}}
    assert "2030-01-02 (UTC) · easy" in info_lines(info)[0]


def test_players_are_named_only_when_they_disagree() -> None:
    rating = {"players": {"win_rate": 0.2}, "now": "hard"}
    assert difficulty_text({"difficulty": "easy", "rating": rating}) == \
        " · easy (players so far find it hard)"
    assert difficulty_text({"difficulty": "hard", "rating": rating}) == " · hard"
    assert difficulty_text({"difficulty": "easy", "rating": {"players": None, "now": "easy"}}) \
        == " · easy"


def test_the_commands_it_suggests_keep_the_difficulty() -> None:
    assert difficulty_flag({"asked": "hard"}) == " --difficulty hard"
    assert difficulty_flag({"asked": None}) == ""
    done = {"variant": "unlimited", "attempt": "r1", "attempt_state": "finished",
            "asked": "easy"}
    line = attempt_line(done)
    assert "solrace daily unlimited --difficulty easy --practice" in line
    assert "solrace leaderboard unlimited --difficulty easy --around-me" in line
    running = {**done, "attempt_state": "running", "asked": None}
    assert "'solrace daily unlimited' resumes it" in attempt_line(running)
