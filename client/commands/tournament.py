"""Tournaments (arenas, events, knockouts): list them, create a private one, join, play your
next deal or match, and see the standings or the bracket.

``solrace tournament list`` shows public tournaments; ``create NAME VARIANT`` makes a private
arena (``--event DEALS``: a scheduled event; ``--format knockout``: a knockout) and prints its
invite code; ``join REF`` enters one (its id or invite code); ``play REF`` plays your current
deal, or your next one — in a knockout, your match of the round — on the same board as
``solrace play`` (``--berserk``: half the time, a bonus if won), then prints the standings or
the bracket; ``standings REF`` and ``bracket REF`` print them (``--follow``: live, until
Ctrl-C). The rules: docs/tournaments.md.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
from collections.abc import Mapping
from typing import Any

from solrace.client.commands import CommandError, use_color, variant_name
from solrace.client.commands.play import interrupted
from solrace.client.commands.watch import watch_race
from solrace.client.library import Client, ClientError
from solrace.client.raceterm.terminal import RaceTerminal
from solrace.client.render import paint
from solrace.client.session import login, refusal, who
from solrace.client.tui import (
    add_server_arguments,
    clock,
    options_text,
    resolve_name,
    resolve_server,
)

NAME = "tournament"
HELP = "arenas, events, knockouts: list, create, join, play, standings, bracket"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    sub.add_parser("list", help="public tournaments: upcoming, live, finished")
    create = sub.add_parser("create", help="a private arena (prints its invite code)")
    create.add_argument("title", metavar="NAME", help="its name (1-40 characters)")
    create.add_argument("variant", type=variant_name, metavar="VARIANT")
    create.add_argument("--option", action="append", default=[], metavar="K=V",
                        help="a variant option (repeatable)")
    create.add_argument("--minutes", type=int, default=30, help="the window, 10-120")
    create.add_argument("--deal-seconds", type=int, default=300,
                        help="each deal's time limit, 30-1800")
    create.add_argument("--starts-in", type=int, default=0, metavar="SECONDS")
    create.add_argument("--event", type=int, default=0, metavar="DEALS",
                        help="a scheduled event of DEALS deals (1-5) instead of an arena: "
                        "entries close at the start, ranked by deals won, then time")
    create.add_argument("--format", choices=("arena", "event", "knockout"), default=None,
                        help="arena (the default), event (of --event DEALS, 3 if not given) "
                        "or knockout: a bracket of head-to-head races from --starts-in")
    create.add_argument("--max-entrants", type=int, default=64, metavar="N",
                        help="a knockout's most entrants, 8-64")
    for action, text in (("join", "enter a tournament"),
                         ("play", "play your current deal, or your next"),
                         ("standings", "the standings"),
                         ("bracket", "a knockout's bracket"),
                         ("watch", "the standings live, as a spectator; --leader: watch the "
                                   "leader's live deal (a watcher may not enter)")):
        p = sub.add_parser(action, help=text)
        p.add_argument("ref", metavar="TOURNAMENT", help="its id or invite code")
        if action == "play":
            p.add_argument("--berserk", action="store_true",
                           help="half the deal's time limit; +1 point if won")
        if action in ("standings", "bracket"):
            p.add_argument("--follow", action="store_true", help="live, until Ctrl-C")
        if action == "watch":
            p.add_argument("--leader", action="store_true",
                           help="watch the deal the leader (a knockout: the best seed still "
                           "playing) is playing, until it ends")
    for p in [parser, *sub.choices.values()]:
        if p is not parser:
            add_server_arguments(p)


def when(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def summary_line(t: Mapping[str, Any]) -> str:
    opts = options_text(t.get("options"))
    return (f"{t['name']} · {t['format']} · {t['variant']}" + (f" ({opts})" if opts else "")
            + f" · {when(int(t['starts_at']))} – {when(int(t['ends_at']))[11:]}"
            f" · deals of {t['deal_seconds']} s · {t['entrants']} entered · {t['state']}"
            f" · id {t['tournament']}" + (f" · invite code {t['code']}" if t.get("code")
                                           else ""))


PLACES = ("1st", "2nd", "3rd")


def leaders_text(t: Mapping[str, Any]) -> str:
    """A live tournament's leader, a finished one's podium ('' when nobody has entered)."""
    top = t.get("leaders") or []
    if not top:
        return ""

    def score(r: Mapping[str, Any]) -> str:
        return f"{r['won']} won" if t.get("format") == "event" else f"{r['points']} pts"

    if t.get("state") == "running":
        return f"leader: {top[0]['name']} ({score(top[0])})"
    return "podium: " + ", ".join(f"{p} {r['name']} ({score(r)})" for p, r in zip(PLACES, top))


def standings_lines(s: Mapping[str, Any], *, color: bool = False) -> list[str]:
    lines = [paint(f"standings · {s['entrants']} entered", "1", color)
             + (f" · you are #{s['my_rank']}" if s.get("my_rank") else "")]
    last = 0
    for r in s["rows"]:
        if r["rank"] > last + 1:
            lines.append("   …")
        last = r["rank"]
        flame = " 🔥" if r["fire"] else ""
        if "time" in r:  # an event: deals won, then total time, then cards home
            lines.append(f"{r['rank']:>4}. {r['name']:<20} {r['won']} won  "
                         f"{clock(r['time'])}  {r['home']} home")
        else:
            lines.append(f"{r['rank']:>4}. {r['name']:<20} {r['points']:>4} pts  "
                         f"{r['won']}/{r['played']} won{flame}")
        if "race" in r and not s.get("my_rank"):  # a leader's live deal, for a non-entrant
            lines.append(f"        playing deal {r['deal']}: solrace watch {r['race']}"
                         " (a watcher may not enter)")
    return lines


HOW = {"race": "won the race", "tie": "a tie: the higher seed", "walkover": "walkover",
       "no_show": "neither came: the higher seed", "bye": "bye", "forfeit": "forfeit"}


def bracket_lines(b: Mapping[str, Any], *, color: bool = False, me: str | None = None
                  ) -> list[str]:
    """A knockout's bracket as text: every round's matches, who won and how, your match
    marked (``me``: the caller's player id; a non-entrant is shown the matches it may
    watch), then the podium."""
    people = {e["player"]: e for e in b["entrants"]}
    entered = me is not None and me in people

    def who(pid: str | None) -> str:
        if pid is None:
            return "—"
        e = people.get(pid, {})
        banned = " (banned)" if e.get("banned") else ""
        return f"({e.get('seed')}) {e.get('name', '?')}{banned}"

    head = f"bracket · {b['state']}"
    if b["round"]:
        head += f" · round {b['round']} of {b['rounds']}"
    lines = [paint(head, "1", color)]
    if not b["round"]:
        names = ", ".join(e["name"] for e in b["entrants"]) or "nobody yet"
        return [*lines, f"  {len(b['entrants'])} entered: {names}"]
    mine = b.get("my_match") or {}
    for r in range(1, b["round"] + 1):
        lines.append(paint(f"round {r}", "1", color))
        for m in sorted((m for m in b["matches"] if m["round"] == r), key=lambda m: m["index"]):
            text = f"  {who(m['high'])} v {who(m['low'])}"
            if m["winner"]:
                review = " · under review" if m["review"] == "held" else ""
                text += f"  → {people[m['winner']]['name']} ({HOW[m['how']]}){review}"
            else:
                text += f"  · to play, start window closes {when(int(m['show_by']))[11:]}"
            if (m["round"], m["index"]) == (mine.get("round"), mine.get("index")):
                text += "  ◀ you"
            elif m.get("race") and not entered:  # being played: a spectator may watch it
                text += f"  · solrace watch {m['race']}"
            lines.append(text)
    podium = b.get("podium")
    if podium:
        def name(pid: str | None) -> str:
            return people[pid]["name"] if pid else "(disqualified)"
        semis = ", ".join(name(p) for p in podium["semi_finalists"])
        lines.append(paint("podium", "1", color) + f": 1. {name(podium['winner'])}  "
                     f"2. {name(podium['finalist'])}  3. {semis}")
    return lines


class ArenaTerminal(RaceTerminal):
    def __init__(self, client: Client, url: str, t: Mapping[str, Any], *, color: bool) -> None:
        super().__init__(client, url, color=color, auto_ready=True)
        self.t = t
        self.deal = 0

    def title(self) -> str:
        what = f"round {self.deal}" if self.t["format"] == "knockout" else f"deal {self.deal}"
        return " · ".join([paint("solrace tournament", "1", self.color), str(self.t["name"]),
                           self.variant_label(), what,
                           f"you: {who(self.client)}"])


async def _main(args: argparse.Namespace) -> int:
    url, name = resolve_server(args), resolve_name(args)
    color = use_color(args)
    client = await login(url, name)
    try:
        try:
            return await _act(client, url, args, color)
        except ClientError as exc:
            raise CommandError(refusal(exc)) from None
    finally:
        await client.close()


async def _act(client: Client, url: str, args: argparse.Namespace, color: bool) -> int:
    if args.action == "list":
        listing = await client.tournaments()
        for key in ("upcoming", "live", "finished"):
            print(paint(key, "1", color))
            rows = listing[key] or []
            for t in rows:
                print("  " + summary_line(t))
                if leaders_text(t):
                    print("    " + leaders_text(t))
            if not rows:
                print("  (none)")
        return 0
    if args.action == "create":
        options = dict(kv.split("=", 1) for kv in args.option if "=" in kv)
        fmt = args.format or ("event" if args.event else "arena")
        t = await client.tournament_create(args.title, args.variant, options,
                                           starts_in=args.starts_in, minutes=args.minutes,
                                           deal_seconds=args.deal_seconds, format=fmt,
                                           deals=args.event or 3,
                                           max_entrants=args.max_entrants)
        print(summary_line(t))
        print(f"invite: solrace tournament join {t['code']}")
        return 0
    if args.action == "join":
        print(summary_line(await client.tournament_join(args.ref)))
        return 0
    if args.action == "standings":
        s = await client.tournament_standings(args.ref, follow=args.follow)
        print("\n".join(standings_lines(s, color=color)), flush=True)
        while args.follow:
            s = await client.next_event(t="standings", timeout=3600)
            print("\n".join(["", *standings_lines(s, color=color)]), flush=True)
        return 0
    if args.action == "watch":
        info = (await client.request("tournament.info", tournament=args.ref))["tournament"]
        if info["format"] != "knockout":
            return await _watch(client, url, args, color)
        if args.leader:  # the match of the best seed still playing one
            b = await client.tournament_bracket(args.ref)
            seeds = {e["player"]: e["seed"] for e in b["entrants"]}
            live = sorted((m for m in b["matches"] if m.get("race")),
                          key=lambda m: seeds.get(m["high"]) or 99)
            if not live:
                raise CommandError("no match is being played right now")
            print(f"watching round {live[0]['round']}'s match of seed "
                  f"{seeds.get(live[0]['high'])} (a watcher may not enter)", flush=True)
            return await watch_race(client, url, {"race": live[0]["race"]}, color)
    if args.action in ("bracket", "watch"):
        follow = args.action == "watch" or args.follow
        b = await client.tournament_bracket(args.ref, follow=follow)
        print("\n".join(bracket_lines(b, color=color, me=client.player)), flush=True)
        while follow and b["state"] in ("open", "running"):
            b = await client.next_event(t="bracket", timeout=3600)
            print("\n".join(["", *bracket_lines(b, color=color, me=client.player)]), flush=True)
        return 0
    t = await client.request("tournament.info", tournament=args.ref)
    t = t["tournament"]
    knockout = t["format"] == "knockout"
    if not knockout:
        t = await client.tournament_join(args.ref)  # entering twice changes nothing
    term = ArenaTerminal(client, url, t, color=color)

    async def enter() -> dict[str, Any]:
        reply = await client.tournament_play(args.ref, berserk=args.berserk)
        term.deal = int(reply["deal"])
        limit = reply["race"].get("time_limit")
        if knockout:
            names = [r["name"] for r in reply["race"]["racers"] if r["player"] != client.player]
            term.message(f"round {term.deal} of {t['name']}: against "
                         f"{', '.join(names) or '?'}, {limit} s")
        else:
            term.message(f"deal {term.deal} of {t['name']}: {limit} s"
                         + (" (berserk)" if limit and 2 * int(limit) <= int(t["deal_seconds"])
                            else ""))
        rid = reply["race"]["race"]
        synced = await client.sync(rid)
        return dict(synced["race"])

    code = await term.run(enter)
    if knockout:
        print("\n".join(bracket_lines(await client.tournament_bracket(args.ref), color=color,
                                       me=client.player)))
        return code
    s = await client.tournament_standings(args.ref)
    print("\n".join(standings_lines(s, color=color)))
    return code


async def _watch(client: Client, url: str, args: argparse.Namespace, color: bool) -> int:
    """A spectator's view: the standings followed live, or (``--leader``) the leader's live
    deal, masked as docs/tournaments.md, "Spectators", says."""
    s = await client.tournament_standings(args.ref, follow=not args.leader)
    print("\n".join(standings_lines(s, color=color)), flush=True)
    if args.leader:
        row = next((r for r in s["rows"] if "race" in r), None)
        if row is None:
            raise CommandError("none of the leaders is playing a deal right now")
        print(f"watching {row['name']}'s deal {row['deal']} (a watcher may not enter this "
              "tournament)", flush=True)
        return await watch_race(client, url, {"race": row["race"]}, color)
    while True:
        s = await client.next_event(t="standings", timeout=3600)
        print("\n".join(["", *standings_lines(s, color=color)]), flush=True)


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_main(args))
    except KeyboardInterrupt:
        return interrupted()
