"""Show a player's profile: Glicko-2 ratings per variant, daily streaks, the month's badge,
statistics per variant and options and the last 30 days.

Asks the server's ``profile`` (yourself when NAME is omitted). A rating marked provisional has
a deviation above 110: too few rated races to trust it yet. The daily streak counts won dailies
on consecutive UTC days; the server stores it as of the player's last won daily, so a streak
whose last day is before yesterday (on the server's clock) is shown as broken. Badges and
statistics are the server's (docs/leaderboards.md, "Badges" and "Statistics"): this prints them.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
from collections.abc import Mapping
from typing import Any

from solrace.client.commands import CommandError, print_json, use_color
from solrace.client.library import ClientError
from solrace.client.render import paint
from solrace.client.session import SessionStore, login, spectate
from solrace.client.tui import (
    add_server_arguments,
    clock,
    display_name,
    resolve_name,
    resolve_server,
    table,
)
from solrace.shared.variants import VARIANTS

NAME = "profile"
HELP = "a player's ratings, streaks, badges and statistics"
BARS = " ▁▂▃▄▅▆▇█"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("player", nargs="?", type=display_name, default=None, metavar="NAME",
                        help="the player to show (default: you)")
    parser.add_argument("--json", action="store_true", help="print the server's reply as JSON")
    add_server_arguments(parser)


def _title(variant: str) -> str:
    return VARIANTS[variant].title if variant in VARIANTS else variant


def current_streak(stats: Mapping[str, Any], today: str | None) -> int:
    """The streak still alive ``today``: the stored one if its last won daily is today or
    yesterday, else 0 (a day passed without a won daily)."""
    streak = int(stats.get("streak", 0))
    last = stats.get("last_daily")
    if not streak or today is None or not last:
        return streak
    yesterday = (dt.date.fromisoformat(today) - dt.timedelta(days=1)).isoformat()
    return streak if str(last) >= yesterday else 0


def server_day(server_time_ms: int | None) -> str | None:
    if not server_time_ms:
        return None
    return dt.datetime.fromtimestamp(server_time_ms / 1000, dt.UTC).date().isoformat()


def badge_text(month: Mapping[str, Any] | None) -> str:
    """``December 2026: silver (12 of 31 days won; gold at 20)``."""
    if not month:
        return "no badge yet"
    name = dt.date.fromisoformat(f"{month['month']}-01").strftime("%B %Y")
    got = month.get("badge") or "no badge yet"
    text = f"{name}: {got} ({month.get('days_won', 0)} of {month.get('days')} days won"
    if month.get("next"):
        text += f"; {month['next']} at {month['next_at']}"
    return text + ")"


def you_lines(you: Mapping[str, Any] | None, variant: str, *, color: bool = False
              ) -> list[str]:
    """The caller's daily streak in ``variant`` and the month's badge (the ``daily`` reply's
    ``you``)."""
    if not you:
        return []
    streak = int(you.get("streak", 0))
    days = "day" if streak == 1 else "days"
    return [paint(f"your {_title(variant)} daily streak: {streak} {days}", "1", color)
            + f" (best {you.get('best_streak', 0)})",
            "your monthly badge: " + badge_text(you.get("badge"))]


def chart_lines(days: list[Mapping[str, Any]]) -> list[str]:
    """The last days as two rows of bars (played, won), oldest first, scaled to the busiest
    day."""
    if not days:
        return []
    top = max(int(d.get("played", 0)) for d in days) or 1

    def bars(key: str) -> str:
        return "".join(BARS[round(int(d.get(key, 0)) * (len(BARS) - 1) / top)]
                       if int(d.get(key, 0)) else "·" for d in days)

    total_p = sum(int(d.get("played", 0)) for d in days)
    total_w = sum(int(d.get("won", 0)) for d in days)
    return [f"last {len(days)} days ({days[0].get('date')} to {days[-1].get('date')}, "
            f"most in a day: {top}):",
            f"  played {bars('played')} {total_p}",
            f"  won    {bars('won')} {total_w}"]


def games_lines(games: list[Mapping[str, Any]]) -> list[str]:
    """Statistics per variant and options (ranked dailies and rated races, once cleared)."""
    if not games:
        return ["statistics: no ranked game counted yet (ranked dailies and rated races)"]
    rows = [["variant", "options", "played", "won %", "best", "median", "avg home",
             "win run", "best run"]]
    for g in games:
        best, med = g.get("best_time"), g.get("median_time")
        rows.append([_title(str(g.get("variant"))), str(g.get("options") or "-"),
                     str(g.get("played", 0)), f"{g.get('win_pct', 0)}",
                     clock(best, tenths=True) if best is not None else "-",
                     clock(med) if med is not None else "-",
                     f"{g.get('avg_home', 0)}", str(g.get("run", 0)),
                     str(g.get("best_run", 0))])
    return ["statistics (ranked dailies and rated races, once cleared by fair play):",
            *("  " + line for line in table(rows, right=(2, 3, 4, 5, 6, 7, 8)))]


def profile_lines(reply: Mapping[str, Any], *, today: str | None = None, color: bool = False
                  ) -> list[str]:
    lines = [paint(f"profile · {reply.get('name')}", "1", color)
             + f" (player {reply.get('player')})"]
    ratings: Mapping[str, Any] = reply.get("ratings") or {}
    if ratings:
        rows = [["variant", "rating", "±", "races", ""]]
        for variant in sorted(ratings):
            r = ratings[variant]
            rows.append([_title(variant), str(r.get("rating")), str(r.get("rd")),
                         str(r.get("games", 0)),
                         paint("provisional", "33", color) if r.get("provisional") else ""])
        lines += ["ratings (Glicko-2, rated races):",
                  *("  " + line for line in table(rows, right=(1, 2, 3)))]
    else:
        lines.append("ratings: none yet (no rated race finished)")
    stats: Mapping[str, Any] = reply.get("stats") or {}
    if stats:
        rows = [["variant", "races", "wins", "best time", "races won", "dailies",
                 "daily wins", "streak", "best streak", "last won daily"]]
        for variant in sorted(stats):
            s = stats[variant]
            best = s.get("best_time")
            rows.append([
                _title(variant), str(s.get("races", 0)), str(s.get("wins", 0)),
                clock(best, tenths=True) if best is not None else "-",
                str(s.get("races_won", 0)), str(s.get("dailies", 0)),
                str(s.get("daily_wins", 0)), str(current_streak(s, today)),
                str(s.get("best_streak", 0)), str(s.get("last_daily") or "-"),
            ])
        lines += ["all time:", *("  " + line for line in table(rows, right=tuple(range(1, 9))))]
    else:
        lines.append("all time: no race or daily finished yet")
    badges: Mapping[str, Any] = reply.get("badges") or {}
    if badges:
        lines.append("monthly badge: " + badge_text(badges.get("current")))
        past = [badge_text(m) for m in badges.get("past") or [] if m.get("badge")]
        if past:
            lines += ["earlier badges:", *("  " + p for p in past)]
    lines += trophy_lines(reply.get("trophies"))
    if "games" in reply:
        lines += games_lines(list(reply.get("games") or []))
    lines += chart_lines(list(reply.get("days") or []))
    lines.append("(practice games and practice races count nowhere)")
    return lines


PLACES = ("1st", "2nd", "3rd")


def trophy_lines(trophies: Mapping[str, Any] | None) -> list[str]:
    """Podium places in final public tournaments and the best arena score
    (docs/tournaments.md, "Trophies")."""
    if not trophies:
        return []
    counts = (trophies.get("first", 0), trophies.get("second", 0), trophies.get("third", 0))
    if not any(counts):
        lines = ["trophies: no podium place yet in a public tournament"]
    else:
        lines = ["trophies: " + ", ".join(f"{n} × {p}" for n, p in zip(counts, PLACES))]
        for r in trophies.get("recent") or []:
            day = dt.datetime.fromtimestamp(int(r["ended_at"]) / 1000, dt.UTC).date()
            lines.append(f"  {PLACES[int(r['place']) - 1]}  {r['name']} ({r['format']}, {day},"
                         f" {r['tournament']})")
    best = trophies.get("best_arena")
    if best:
        lines.append(f"best arena score: {best['points']} points in {best['name']}"
                     f" ({best['tournament']})")
    return lines


async def profile_main(args: argparse.Namespace) -> int:
    url, name = resolve_server(args), resolve_name(args)
    if args.player and name is None and SessionStore().current(url) is None:
        client = await spectate(url)  # someone else's profile needs no session of one's own
    else:
        client = await login(url, name)
    try:
        fields = {"name": args.player} if args.player else {}
        reply = await client.request("profile", **fields)
        pong = await client.request("ping")
    except ClientError as exc:
        raise CommandError(f"{exc.code}: {exc.reason}") from None
    finally:
        await client.close()
    if args.json:
        print_json({k: v for k, v in reply.items() if k not in ("t", "re")})
        return 0
    today = reply.get("today") or server_day(pong.get("server_time"))
    print("\n".join(profile_lines(reply, today=today, color=use_color(args))))
    return 0


def run(args: argparse.Namespace) -> int:
    return asyncio.run(profile_main(args))
