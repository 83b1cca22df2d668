"""Moderation from the terminal: the review queue, a case's evidence, decisions, reports and
the audit log (docs/fairplay.md). Needs an account with the moderator role (the audit log:
admin); the server checks the role on every request.

    solrace mod queue                       held results, highest score first
    solrace mod case CASE                   the evidence: signals, think times, history, reports
    solrace mod clear CASE --reason TEXT    list the held result
    solrace mod ban NAME --reason TEXT      end its sessions, take its results off the boards
    solrace mod unban NAME --reason TEXT
    solrace mod warn NAME --reason TEXT     the text is shown to the player at once
    solrace mod annul RACE --reason TEXT    a ranked race undone (board, ratings)
    solrace mod rename NAME NEW --reason TEXT
    solrace mod reports [NAME]              reported players, or the reports on one
    solrace mod audit [--limit N]           who decided what, and why (admins)
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
from typing import Any

from solrace.client.commands import CommandError, print_json
from solrace.client.library import ClientError
from solrace.client.session import account_client, refusal
from solrace.client.tui import add_server_arguments, display_name, table

NAME = "mod"
HELP = "moderators: review queue, case evidence, clear/ban/unban/warn/annul/rename, reports, audit"
BUCKETS = (250, 500, 1000, 2000, 4000, 8000, 16000)  # think-time histogram edges, ms


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    sub.add_parser("queue", help="held results, highest score first")
    p = sub.add_parser("case", help="one case's evidence")
    p.add_argument("case", metavar="CASE")
    p = sub.add_parser("clear", help="list a held result")
    p.add_argument("case", metavar="CASE")
    for name, what in (("ban", "ban an account"), ("unban", "lift a ban"),
                       ("warn", "warn a player (shown at once)")):
        p = sub.add_parser(name, help=what)
        p.add_argument("player", type=display_name, metavar="NAME")
    p = sub.add_parser("annul", help="undo a finished ranked race (board, ratings)")
    p.add_argument("race", metavar="RACE")
    p = sub.add_parser("rename", help="force a rename (the old name stays reserved)")
    p.add_argument("player", type=display_name, metavar="NAME")
    p.add_argument("new", type=display_name, metavar="NEW")
    p = sub.add_parser("reports", help="reported players, or the reports on NAME")
    p.add_argument("player", nargs="?", type=display_name, default=None, metavar="NAME")
    p = sub.add_parser("audit", help="the audit log (admins)")
    p.add_argument("--limit", type=int, default=50)
    for p in sub.choices.values():
        if p.prog.split()[-1] in ("clear", "ban", "unban", "warn", "annul", "rename"):
            p.add_argument("--reason", required=True, help="why (goes into the audit log)")
        p.add_argument("--json", action="store_true", help="the server's reply as JSON")
        add_server_arguments(p, player=False)


def when(ms: int | None) -> str:
    if not ms:
        return "-"
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def histogram(think_ms: list[int], width: int = 40) -> list[str]:
    """Think times as text bars: how many gaps between actions fell in each bucket."""
    if not think_ms:
        return ["(no think times: fewer than two actions)"]
    edges = (0, *BUCKETS)
    counts = [0] * len(edges)
    for t in think_ms:
        counts[sum(1 for e in BUCKETS if t >= e)] += 1
    top = max(counts)
    lines = []
    for i, n in enumerate(counts):
        label = f"{edges[i]}-{edges[i + 1]} ms" if i + 1 < len(edges) else f"{edges[i]}+ ms"
        lines.append(f"{label:>14} {'#' * max(1 if n else 0, round(width * n / top)):<{width}}"
                     f" {n}")
    return lines


def analysis_line(analysis: Any) -> str:
    """The solver's view of the line (docs/fairplay.md), or why there is none."""
    if analysis is None:
        return "solver's view: not analysed (only top results and rated-race winners are)"
    if analysis == "pending":
        return "solver's view: queued in the worker pool"
    agreement = analysis.get("agreement")
    share = "-" if agreement is None else f"{100 * agreement:.0f} %"
    return (f"solver's view: played the solver's move at {analysis['agreed']} of "
            f"{analysis['samples'] - analysis['undecided']} decided positions ({share}; "
            f"{analysis['undecided']} undecided at {analysis['nodes']} nodes), "
            f"{analysis['wasted']} moves back to an earlier position")


def render_case(case: dict[str, Any]) -> list[str]:
    ev, score = case["evidence"], case["score"]
    out = [f"case {case['case']}: {case['name']} ({case['player']}), {case['kind']} "
           f"{case['variant']} {case.get('day') or ''}, status {case['status']}",
           f"result {case['result']['result']} in {case['result']['elapsed'] / 1000:.2f} s, "
           f"{ev['moves']} moves in {ev['actions']} actions (par {ev['par']}), "
           f"first action after {ev['first_ms']} ms with {ev['face_up_at_start']} cards "
           "face up",
           f"score {score['total']:.2f} (held at {score['threshold']:.2f})", ""]
    rows = [["signal", "value", "threshold", "weight", "fired", "why"]]
    for s in score["signals"]:
        value = "-" if s["value"] == -1 else f"{s['value']:g}"
        rows.append([s["name"], value, f"{s['threshold']:g}", f"{s['weight']:g}",
                     "YES" if s["fired"] else "", s["why"]])
    out += table(rows)
    out += ["", "think times between actions:", *histogram(ev["think_ms"])]
    out += ["", analysis_line(case.get("analysis"))]
    h = case["history"]
    out += ["", f"history: account {h['account_age_days']:.1f} days old, "
                f"{h['ranked_games']} earlier ranked games, recent scores "
                f"{', '.join(f'{x:g}' for x in h['recent_scores'][-10:]) or '-'}"
                + (f", {h['pair_games']} rated races against one opponent "
                   f"({100 * h['pair_share']:.0f} % one way)" if h.get("pair_games") else "")]
    reports = case.get("reports") or []
    out.append(f"open reports: {len(reports)}")
    out += [f"  {r['name']}: {r['category']} — {r.get('note') or ''}" for r in reports]
    return out


async def mod_main(args: argparse.Namespace) -> int:
    client, _url = await account_client(args, "moderation")
    try:
        try:
            reply = await _request(client, args)
        except ClientError as exc:
            raise CommandError(refusal(exc)) from None
    finally:
        await client.close()
    if args.json:
        print_json(reply)
        return 0
    print("\n".join(_render(args.action, reply)))
    return 0


async def _request(client: Any, args: argparse.Namespace) -> dict[str, Any]:
    a = args.action
    if a == "queue":
        return await client.request("mod.queue")
    if a in ("case", "clear"):
        fields = {"case": args.case} | ({"reason": args.reason} if a == "clear" else {})
        return await client.request(f"mod.{a}", **fields)
    if a == "annul":
        return await client.request("mod.annul", race=args.race, reason=args.reason)
    if a in ("ban", "unban", "warn"):
        return await client.request(f"mod.{a}", player=args.player, reason=args.reason)
    if a == "rename":
        return await client.request("mod.rename", player=args.player, name=args.new,
                                    reason=args.reason)
    if a == "reports":
        fields = {"player": args.player} if args.player else {}
        return await client.request("mod.reports", **fields)
    return await client.request("mod.audit", limit=args.limit)


def _render(action: str, reply: dict[str, Any]) -> list[str]:
    if action == "queue":
        if not reply["cases"]:
            return ["the review queue is empty"]
        rows = [["case", "player", "variant", "day", "score", "result", "fired", "reports"]]
        for c in reply["cases"]:
            rows.append([c["case"], c["name"], c["variant"], c.get("day") or "",
                         f"{c['score']:.2f}", c["result"]["result"], ",".join(c["fired"]),
                         str(c["reports"])])
        return table(rows)
    if action == "case":
        return render_case(reply["case"])
    if action == "clear":
        return [f"cleared {reply['case']}: the result is listed"]
    if action == "ban":
        return [f"banned {reply['name']}: {reply['sessions']} sessions ended, "
                f"{reply['removed']} results taken off the boards"]
    if action == "unban":
        return [f"unbanned {reply['name']}: {reply['restored']} results listed again"]
    if action == "warn":
        return [f"warned {reply['name']} (warning {reply['warnings']})"]
    if action == "annul":
        what = (f"{reply['removed']} daily result taken off its board" if "removed" in reply
                else f"{reply['ratings_rebuilt']} ratings rebuilt without it")
        return [f"annulled race {reply['race']}: {what}"]
    if action == "rename":
        return [f"renamed {reply['was']} to {reply['name']}"]
    if action == "reports":
        if "players" in reply:
            rows = [["player", "reports", "categories", "last"]]
            rows += [[p.get("name") or p["player"], str(p["reports"]), ",".join(p["categories"]),
                      when(p["last_at"])] for p in reply["players"]]
            return table(rows) if reply["players"] else ["no open reports"]
        return [f"{reply['name']}: {len(reply['reports'])} open reports",
                *(f"  {when(r['at'])} {r['name']}: {r['category']} — {r.get('note') or ''}"
                  for r in reply["reports"])]
    rows = [["when", "by", "action", "target", "reason", "details"]]
    rows += [[when(int(e["id"].split("-")[0])), e["by"], e["action"], e["target"],
              e["reason"], e.get("details", "")] for e in reply["entries"]]
    return table(rows)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(mod_main(args))
