"""The operator's command: roles (``grant|revoke|roles``) and recurring tournaments
(``schedule add|remove|list``).

Why a command and not a request: a role is power over other players' results, so it is
granted by whoever runs the servers (with access to their Redis), never by a player — no
request of the protocol writes an account's ``roles``. Every grant and revoke goes into the
audit log as ``operator``.

    solrace-server admin --redis-url URL grant NAME moderator|admin
    solrace-server admin --redis-url URL revoke NAME moderator|admin
    solrace-server admin --redis-url URL roles NAME
    solrace-server admin --redis-url URL schedule add "unlimited | every 1h at :00 for 30m | 300"
    solrace-server admin --redis-url URL schedule remove "unlimited | every 1h at :00 for 30m | 300"
    solrace-server admin --redis-url URL schedule list

A stored schedule joins those of ``--arenas`` on every process sharing the Redis within 30 s
(docs/tournaments.md, "Scheduling"); removing it stops new instances, not one already made.

``--redis-url`` defaults to ``SOLRACE_REDIS_URL``; a ``redis+cluster://`` URL works as for
the server. (An embedded Redis, started by a server without a URL, prints its URL at start.)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence

from solrace.server.moderation.roles import ROLES, parse_roles, roles_text
from solrace.server.store import Store
from solrace.server.store.connect import open_client
from solrace.shared.tournaments.schedule import parse_arena
from solrace.shared.variants import resolve


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="solrace-server admin",
                                     description="Grant and revoke moderator and admin roles; "
                                     "store recurring public tournaments.")
    parser.add_argument("--redis-url", default=os.environ.get("SOLRACE_REDIS_URL"),
                        help="the servers' Redis (default: $SOLRACE_REDIS_URL)")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("grant", "revoke"):
        p = sub.add_parser(name, help=f"{name} a role")
        p.add_argument("name", help="the account's name")
        p.add_argument("role", choices=ROLES)
    p = sub.add_parser("roles", help="show an account's roles")
    p.add_argument("name")
    p = sub.add_parser("schedule", help="recurring public tournaments stored in Redis")
    p.add_argument("action", choices=("add", "remove", "list"))
    p.add_argument("line", nargs="?", default=None,
                   help="'<variant> [k=v ...] | <recurrence> | <deal seconds> [| event N]'")
    return parser


async def schedule(url: str, action: str, line: str | None) -> str:
    """Add, remove or list the stored recurring tournaments; the text to print. Raises
    ValueError for a line that does not parse or names a bad variant or option."""
    redis = open_client(url, max_connections=2)
    store = Store(redis)
    try:
        ts = store.tournaments
        if action == "list":
            lines = await ts.schedules()
            return "\n".join(lines) if lines else "no stored schedules"
        if not line:
            raise ValueError(f"schedule {action} needs the tournament's line")
        spec = parse_arena(line)
        if action == "remove":
            if not await ts.remove_schedule(spec.text):
                raise ValueError(f"no stored schedule {spec.text!r}")
            return f"removed: {spec.text}"
        try:
            resolve(spec.variant, dict(spec.options))
        except Exception as exc:
            raise ValueError(str(getattr(exc, "reason", exc))) from None
        added = await ts.add_schedule(spec.text, await store.server_time_ms())
        return f"{'added' if added else 'already stored'}: {spec.text}"
    finally:
        await redis.aclose()


async def run(url: str, command: str, name: str, role: str | None) -> str:
    """Carry out one command; the line to print. Raises LookupError for an unknown account."""
    redis = open_client(url, max_connections=2)
    store = Store(redis)
    try:
        acct = await store.accounts.account(name)
        if acct is None or acct.get("deleted"):
            raise LookupError(f"no account called {name}")
        stored = {r for r in (acct.get("roles") or "").split(",") if r in ROLES}
        if command != "roles":
            assert role is not None
            if command == "grant":
                stored.add(role)
            else:
                stored.discard(role)  # an admin stays a moderator until admin is revoked
            await store.accounts.set_flag(acct["name"], "roles", roles_text(stored) or None)
            await store.audit({"by": "operator", "action": command, "target": acct["name"],
                               "reason": f"solrace-server admin {command} {role}"})
        roles = parse_roles(roles_text(stored))
        return f"{acct['name']}: {roles_text(roles) or 'no roles'}"
    finally:
        await redis.aclose()


def main(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    if not args.redis_url:
        print("solrace-server admin: give --redis-url (or SOLRACE_REDIS_URL)", file=sys.stderr)
        return 2
    try:
        if args.command == "schedule":
            line = asyncio.run(schedule(args.redis_url, args.action, args.line))
        else:
            line = asyncio.run(run(args.redis_url, args.command, args.name,
                                   getattr(args, "role", None)))
    except (LookupError, ValueError) as exc:
        print(f"solrace-server admin: {exc}", file=sys.stderr)
        return 1
    print(line)
    return 0


__all__ = ["main", "run"]
