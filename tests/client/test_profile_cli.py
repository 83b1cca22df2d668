"""What ``solrace profile`` and ``solrace daily`` print of streaks, badges, statistics and the
last 30 days (pure: from replies as the server sends them)."""

from __future__ import annotations

from solrace.client.commands.daily import info_lines
from solrace.client.commands.profile import badge_text, chart_lines, profile_lines, you_lines
from solrace.shared import playerstats as ps


def test_badge_text_names_the_month_the_badge_and_the_next_step() -> None:
    assert badge_text(ps.month_summary("2026-12", 12)) == \
        "December 2026: silver (12 of 31 days won; gold at 20)"
    assert badge_text(ps.month_summary("2026-02", 28)) == \
        "February 2026: diamond (28 of 28 days won)"
    assert badge_text(ps.month_summary("2026-12", 0)) == \
        "December 2026: no badge yet (0 of 31 days won; bronze at 5)"


def test_you_lines_and_the_daily_info_show_streak_and_badge() -> None:
    you = {"streak": 3, "best_streak": 7, "badge": ps.month_summary("2026-12", 5)}
    assert you_lines(you, "unlimited") == [
        "your Unlimited daily streak: 3 days (best 7)",
        "your monthly badge: December 2026: bronze (5 of 31 days won; silver at 10)"]
    info = {"variant": "unlimited", "date": "2026-12-05", "options": {}, "commitment": "ab",
            "par": 100, "attempt": None, "you": you}
    assert "your Unlimited daily streak: 3 days (best 7)" in info_lines(info)


def test_profile_prints_statistics_badges_and_the_chart() -> None:
    days = {"2026-12-05:p": "4", "2026-12-05:w": "2", "2026-12-04:p": "1", "2026-12-04:d": "1",
            "2026-11-01:d": "1"} | {f"2026-11-{d:02d}:d": "1" for d in range(2, 12)}
    stats = {"unlimited|draw=3:played": "4", "unlimited|draw=3:won": "2",
             "unlimited|draw=3:home": "150", "unlimited|draw=3:best": "61250",
             "unlimited|draw=3:t61": "1", "unlimited|draw=3:t95": "1",
             "unlimited|draw=3:run": "1", "unlimited|draw=3:best_run": "2"}
    reply = {"name": "ann", "player": "p1", "ratings": {}, "stats": {},
             "games": [g.wire() for g in ps.config_stats(stats)],
             "days": ps.last_days(days, "2026-12-05"), "badges": ps.badges(days, "2026-12-05")}
    text = "\n".join(profile_lines(reply, today="2026-12-05"))
    assert "monthly badge: December 2026: no badge yet (1 of 31 days won; bronze at 5)" in text
    assert "  November 2026: silver (11 of 30 days won; gold at 20)" in text
    row = next(line for line in text.splitlines() if "draw=3" in line).split()
    assert row[:9] == ["Unlimited", "draw=3", "4", "50.0", "1:01.2", "1:01", "37.5", "1", "2"]
    played = next(line for line in text.splitlines() if line.startswith("  played"))
    assert played.endswith("▂█ 5") and played.count("·") == 28
    assert chart_lines([]) == []
    assert "no ranked game counted yet" in "\n".join(profile_lines({**reply, "games": []}))


def test_profile_prints_trophies_and_the_best_arena_score() -> None:
    from solrace.client.commands.profile import trophy_lines

    trophies = {"first": 1, "second": 0, "third": 2,
                "recent": [{"tournament": "617f0a93789784aa", "name": "Unlimited arena",
                            "format": "arena", "place": 3, "ended_at": 1764432000000}],
                "best_arena": {"points": 17, "tournament": "617f0a93789784aa",
                               "name": "Unlimited arena", "at": 1764432000000}}
    assert trophy_lines(trophies) == [
        "trophies: 1 × 1st, 0 × 2nd, 2 × 3rd",
        "  3rd  Unlimited arena (arena, 2025-11-29, 617f0a93789784aa)",
        "best arena score: 17 points in Unlimited arena (617f0a93789784aa)"]
    none = {"first": 0, "second": 0, "third": 0, "recent": [], "best_arena": None}
    assert trophy_lines(none) == ["trophies: no podium place yet in a public tournament"]
    assert trophy_lines(None) == []
    reply = {"name": "ann", "player": "p1", "ratings": {}, "stats": {}, "trophies": trophies}
    assert "trophies: 1 × 1st, 0 × 2nd, 2 × 3rd" in profile_lines(reply, today="2026-12-05")
