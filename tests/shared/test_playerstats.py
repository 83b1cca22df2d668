"""Monthly badges, statistics per variant and options, the 30-day chart (shared/playerstats)."""

from __future__ import annotations

from solrace.shared import playerstats as ps


def test_badge_tiers_and_diamond_needs_every_day_of_the_month() -> None:
    assert ps.badge(0, "2026-12") is None
    assert ps.badge(4, "2026-12") is None
    assert ps.badge(5, "2026-12") == "bronze"
    assert ps.badge(10, "2026-12") == "silver"
    assert ps.badge(19, "2026-12") == "silver"
    assert ps.badge(20, "2026-12") == "gold"
    assert ps.badge(30, "2026-12") == "gold"  # December has 31 days
    assert ps.badge(31, "2026-12") == "diamond"
    assert ps.badge(28, "2026-02") == "diamond"
    assert ps.badge(28, "2028-02") == "gold"  # a leap year's February


def test_month_summary_names_the_next_tier() -> None:
    assert ps.month_summary("2026-11", 7) == {
        "month": "2026-11", "days_won": 7, "days": 30, "badge": "bronze",
        "next": "silver", "next_at": 10}
    assert ps.month_summary("2026-11", 0)["next"] == "bronze"
    top = ps.month_summary("2026-11", 30)
    assert top["badge"] == "diamond" and top["next"] is None and top["next_at"] is None


def test_badges_count_days_not_dailies_and_list_past_months() -> None:
    fields = {"2026-12-01:d": "5", "2026-12-01:p": "5", "2026-12-01:w": "5",  # 5 variants: 1 day
              "2026-12-02:d": "1", "2026-12-03:p": "1",  # played, not won: no day
              "2026-12-04:d": "0"}
    fields |= {f"2026-11-{d:02d}:d": "1" for d in range(1, 31)}  # every day of November
    fields |= {f"2025-11-{d:02d}:d": "1" for d in range(1, 11)}  # 13 months ago: not listed
    fields |= {"2026-01-15:d": "1"}
    out = ps.badges(fields, "2026-12-05")
    assert out["current"]["month"] == "2026-12" and out["current"]["days_won"] == 2
    assert out["current"]["badge"] is None
    assert [(m["month"], m["badge"]) for m in out["past"]] == [
        ("2026-11", "diamond"), ("2026-01", None)]


def test_months_back_crosses_the_year() -> None:
    assert ps.months_back("2027-02", 3) == ["2027-02", "2027-01", "2026-12", "2026-11"]


def test_last_days_fills_missing_days_oldest_first_across_month_end() -> None:
    fields = {"2026-12-01:p": "3", "2026-12-01:w": "2", "2026-11-30:p": "1",
              "2026-11-01:p": "9"}  # 35 days back: outside the chart
    days = ps.last_days(fields, "2026-12-05")
    assert len(days) == 30
    assert days[0]["date"] == "2026-11-06" and days[-1]["date"] == "2026-12-05"
    by = {d["date"]: (d["played"], d["won"]) for d in days}
    assert by["2026-12-01"] == (3, 2) and by["2026-11-30"] == (1, 0)
    assert by["2026-12-05"] == (0, 0)


def test_median_is_the_lower_middle_of_the_histogram() -> None:
    assert ps.median_seconds({}) is None
    assert ps.median_seconds({90: 1}) == 90
    assert ps.median_seconds({90: 1, 100: 1}) == 90
    assert ps.median_seconds({90: 1, 100: 1, 300: 1}) == 100
    assert ps.median_seconds({300: 5, 90: 1, 100: 1}) == 300
    # against the definition on the expanded list
    hist = {7: 3, 2: 2, 11: 4}
    expanded = sorted(s for s, n in hist.items() for _ in range(n))
    assert ps.median_seconds(hist) == expanded[(len(expanded) - 1) // 2]


def test_config_stats_from_the_hash_fields() -> None:
    fields = {
        "unlimited|draw=1,foundation_takeback=yes:played": "4",
        "unlimited|draw=1,foundation_takeback=yes:won": "3",
        "unlimited|draw=1,foundation_takeback=yes:home": "170",
        "unlimited|draw=1,foundation_takeback=yes:best": "61234",
        "unlimited|draw=1,foundation_takeback=yes:t61": "1",
        "unlimited|draw=1,foundation_takeback=yes:t95": "1",
        "unlimited|draw=1,foundation_takeback=yes:t120": "1",
        "unlimited|draw=1,foundation_takeback=yes:run": "2",
        "unlimited|draw=1,foundation_takeback=yes:best_run": "2",
        "sixes-and-sevens|empty_fill=auto:played": "1",
        "sixes-and-sevens|empty_fill=auto:home": "40",
        "sixes-and-sevens|empty_fill=auto:run": "0",
    }
    unl, six = ps.config_stats(fields)
    assert unl.wire() == {
        "variant": "unlimited", "options": "draw=1,foundation_takeback=yes", "played": 4,
        "won": 3, "win_pct": 75.0, "best_time": 61234, "median_time": 95000,
        "avg_home": 42.5, "run": 2, "best_run": 2}
    assert six.wire()["win_pct"] == 0.0 and six.best_time is None and six.median_time is None
    assert six.avg_home == 40.0


def test_current_streak_is_zero_after_a_missed_day() -> None:
    assert ps.current_streak(4, "2026-12-05", "2026-12-05") == 4
    assert ps.current_streak(4, "2026-12-04", "2026-12-05") == 4
    assert ps.current_streak(4, "2026-12-03", "2026-12-05") == 0
    assert ps.current_streak(3, "2026-12-31", "2027-01-01") == 3  # across a year's midnight
    assert ps.current_streak(0, None, "2026-12-05") == 0
    out = ps.daily_streaks({"unlimited": {"dailies": 5, "streak": 2, "best_streak": 4,
                                          "last_daily": "2026-12-04"},
                            "seven-by-five": {"races": 3}}, "2026-12-05")
    assert out == {"unlimited": {"current": 2, "best": 4}}


def test_prune_keeps_days_kept() -> None:
    assert ps.prune_before("2026-12-05") == "2025-10-31"  # 400 days back
