"""Monthly badges, statistics per variant and options, and the last days' chart — pure.

The server stores a player's counted results as flat Redis hash fields (``server/store``,
``lua.GAME_STATS``); this module turns those fields into what a profile shows, without I/O,
so the rules are tested in microseconds and documented once (docs/leaderboards.md, "Badges"
and "Statistics").

* **Monthly badge**: the number of UTC days of a calendar month on which the player won at
  least one ranked daily (any variant): bronze from :data:`BRONZE` days, silver from
  :data:`SILVER`, gold from :data:`GOLD`, diamond on every day of the month.
* **Statistics** per ``<variant>|<options>``: played, won, win %, best and median winning time,
  average cards home, the current and best run of consecutive won games.
* **Chart**: games played and won on each of the last :data:`CHART_DAYS` UTC days.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

BRONZE, SILVER, GOLD = 5, 10, 20  # days with a won daily in the month; diamond: every day
TIERS = ("bronze", "silver", "gold", "diamond")
CHART_DAYS = 30
BADGE_MONTHS = 12  # past months listed in a profile (the day counts are kept 400 days)
DAYS_KEPT = 400  # days of per-day counts kept (older dates pruned when a new date is counted)


def days_in_month(month: str) -> int:
    """``YYYY-MM`` → 28..31."""
    year, mon = (int(x) for x in month.split("-"))
    return calendar.monthrange(year, mon)[1]


def thresholds(month: str) -> tuple[tuple[str, int], ...]:
    """Each tier with the days it needs in ``month`` (diamond: all of them)."""
    return (("bronze", BRONZE), ("silver", SILVER), ("gold", GOLD),
            ("diamond", days_in_month(month)))


def badge(days_won: int, month: str) -> str | None:
    """The highest tier ``days_won`` days reach in ``month``; None below bronze."""
    got = None
    for tier, need in thresholds(month):
        if days_won >= need:
            got = tier
    return got


def month_summary(month: str, days_won: int) -> dict[str, Any]:
    """One month's badge: ``{month, days_won, days, badge, next, next_at}`` — ``next`` the
    following tier (None after diamond) and ``next_at`` the days it needs."""
    nxt = next(((t, n) for t, n in thresholds(month) if days_won < n), None)
    return {"month": month, "days_won": days_won, "days": days_in_month(month),
            "badge": badge(days_won, month),
            "next": nxt[0] if nxt else None, "next_at": nxt[1] if nxt else None}


def months_back(month: str, n: int) -> list[str]:
    """``month`` and the ``n`` months before it, newest first."""
    year, mon = (int(x) for x in month.split("-"))
    out = []
    for _ in range(n + 1):
        out.append(f"{year:04d}-{mon:02d}")
        year, mon = (year - 1, 12) if mon == 1 else (year, mon - 1)
    return out


def badges(day_fields: Mapping[str, str], today: str) -> dict[str, Any]:
    """The current month's badge and the past :data:`BADGE_MONTHS` months that had a won daily,
    from the per-day hash (``<date>:d`` = dailies won that date)."""
    per_month: dict[str, int] = {}
    for field, value in day_fields.items():
        date, _, kind = field.partition(":")
        if kind == "d" and int(value) > 0:
            per_month[date[:7]] = per_month.get(date[:7], 0) + 1
    current, *past = months_back(today[:7], BADGE_MONTHS)
    return {"current": month_summary(current, per_month.get(current, 0)),
            "past": [month_summary(m, per_month[m]) for m in past if per_month.get(m)]}


def last_days(day_fields: Mapping[str, str], today: str, n: int = CHART_DAYS
              ) -> list[dict[str, Any]]:
    """Games played and won on each of the ``n`` days ending ``today``, oldest first."""
    end = dt.date.fromisoformat(today)
    out = []
    for i in range(n - 1, -1, -1):
        d = (end - dt.timedelta(days=i)).isoformat()
        out.append({"date": d, "played": int(day_fields.get(f"{d}:p", 0)),
                    "won": int(day_fields.get(f"{d}:w", 0))})
    return out


def prune_before(today: str) -> str:
    """The oldest date kept in the per-day hash (older dates are dropped)."""
    return (dt.date.fromisoformat(today) - dt.timedelta(days=DAYS_KEPT)).isoformat()


def config_key(variant: str, options: str) -> str:
    """The statistics key of a variant and its canonical options text."""
    return f"{variant}|{options}"


def median_seconds(histogram: Mapping[int, int]) -> int | None:
    """The lower median of a ``{seconds: count}`` histogram; None when empty."""
    total = sum(histogram.values())
    if total <= 0:
        return None
    want = (total + 1) // 2  # the lower middle element, 1-based
    seen = 0
    for sec in sorted(histogram):
        seen += histogram[sec]
        if seen >= want:
            return sec
    raise AssertionError("unreachable")


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigStats:
    """The statistics of one (variant, options), as a profile shows them."""

    variant: str
    options: str
    played: int
    won: int
    best_time: int | None  # ms
    median_time: int | None  # ms, whole seconds (the lower median of the won games)
    home_total: int
    run: int
    best_run: int

    @property
    def win_pct(self) -> float:
        return round(100 * self.won / self.played, 1) if self.played else 0.0

    @property
    def avg_home(self) -> float:
        return round(self.home_total / self.played, 1) if self.played else 0.0

    def wire(self) -> dict[str, Any]:
        return {"variant": self.variant, "options": self.options, "played": self.played,
                "won": self.won, "win_pct": self.win_pct, "best_time": self.best_time,
                "median_time": self.median_time, "avg_home": self.avg_home,
                "run": self.run, "best_run": self.best_run}


def config_stats(fields: Mapping[str, str]) -> list[ConfigStats]:
    """Every (variant, options) of the statistics hash (``<variant>|<options>:<name>``,
    names ``played won home best run best_run`` and ``t<seconds>`` for the won times),
    sorted by games played (most first), then by name."""
    grouped: dict[str, dict[str, str]] = {}
    for field, value in fields.items():
        cfg, _, name = field.rpartition(":")
        if cfg:
            grouped.setdefault(cfg, {})[name] = value
    out = []
    for cfg, f in grouped.items():
        variant, _, options = cfg.partition("|")
        hist = {int(k[1:]): int(v) for k, v in f.items() if k.startswith("t") and k[1:].isdigit()}
        med = median_seconds(hist)
        out.append(ConfigStats(
            variant=variant, options=options, played=int(f.get("played", 0)),
            won=int(f.get("won", 0)),
            best_time=int(f["best"]) if f.get("best") else None,
            median_time=med * 1000 if med is not None else None,
            home_total=int(f.get("home", 0)), run=int(f.get("run", 0)),
            best_run=int(f.get("best_run", 0))))
    out.sort(key=lambda s: (-s.played, s.variant, s.options))
    return out


def current_streak(streak: int, last_won: str | None, today: str) -> int:
    """A daily streak still alive ``today``: the stored one when its last won daily is today
    or yesterday, else 0 (a missed day broke it; the stored value is corrected at the next
    attempt)."""
    if not streak or not last_won:
        return 0
    yesterday = (dt.date.fromisoformat(today) - dt.timedelta(days=1)).isoformat()
    return streak if last_won >= yesterday else 0


def daily_streaks(stats: Mapping[str, Mapping[str, Any]], today: str) -> dict[str, Any]:
    """Per variant ``{current, best}`` daily streaks from the all-time stats (only variants
    with a daily played)."""
    out = {}
    for variant, s in stats.items():
        if not s.get("dailies"):
            continue
        out[variant] = {"current": current_streak(int(s.get("streak", 0)),
                                                  s.get("last_daily"), today),
                        "best": int(s.get("best_streak", 0))}
    return out
