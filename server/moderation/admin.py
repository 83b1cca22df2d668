"""The operator's command for roles: ``solrace-server admin grant|revoke|roles``.

Why a command and not a request: a role is power over other players' results, so it is
granted by whoever runs the servers (with access to their Redis), never by a player — no
request of the protocol writes an account's ``roles``. Every grant and revoke goes into the
audit log as ``operator``.

    solrace-server admin --redis-url URL grant NAME moderator|admin
    solrace-server admin --redis-url URL revoke NAME moderator|admin
    solrace-server admin --redis-url URL roles NAME

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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="solrace-server admin",
                                     description="Grant and revoke moderator and admin roles.")
    parser.add_argument("--redis-url", default=os.environ.get("SOLRACE_REDIS_URL"),
                        help="the servers' Redis (default: $SOLRACE_REDIS_URL)")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("grant", "revoke"):
        p = sub.add_parser(name, help=f"{name} a role")
        p.add_argument("name", help="the account's name")
        p.add_argument("role", choices=ROLES)
    p = sub.add_parser("roles", help="show an account's roles")
    p.add_argument("name")
    return parser


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
        line = asyncio.run(run(args.redis_url, args.command, args.name,
                               getattr(args, "role", None)))
    except LookupError as exc:
        print(f"solrace-server admin: {exc}", file=sys.stderr)
        return 1
    print(line)
    return 0


__all__ = ["main", "run"]
