"""Who you are on a server, and your account's sessions (created, last seen, client).

``--revoke ID`` ends one of them (its token stops working on every server process at once;
a connection of it is refused at its next request). Guests have one session and no list.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt

from solrace.client.commands import CommandError, print_json
from solrace.client.library import ClientError
from solrace.client.session import SessionStore, refusal, resume
from solrace.client.tui import add_server_arguments, resolve_server, table

NAME = "sessions"
HELP = "who you are; list your account's sessions, --revoke one"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--revoke", metavar="ID", default=None, help="end the session ID")
    parser.add_argument("--json", action="store_true", help="the session list as JSON")
    add_server_arguments(parser, player=False)


def when(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


async def sessions_main(args: argparse.Namespace) -> int:
    url, store = resolve_server(args), SessionStore()
    current = store.current(url)
    if current is None:
        print(f"no session on {url}: 'solrace login NAME' or 'solrace register NAME'")
        return 0
    client = await resume(url, current, store)
    if client is None:
        return 1
    try:
        kind = "account" if client.account else "guest"
        if not client.account:
            print(f"you are {client.name} (a guest) on {url}; 'solrace register' makes it an "
                  "account")
            return 0
        try:
            if args.revoke:
                await client.revoke(args.revoke)
                print(f"revoked session {args.revoke}")
                return 0
            rows = await client.sessions()
        except ClientError as exc:
            raise CommandError(refusal(exc)) from None
    finally:
        await client.close()
    if args.json:
        print_json(rows)
        return 0
    print(f"you are {client.name} ({kind}) on {url}")
    cells = [["session", "created", "last seen", "client", ""]]
    for r in rows:
        cells.append([r["session"], when(r["created_at"]), when(r["last_seen"]), r["client"],
                      "this one" if r.get("current") else ""])
    print("\n".join(table(cells)))
    return 0


def run(args: argparse.Namespace) -> int:
    return asyncio.run(sessions_main(args))
