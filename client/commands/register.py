"""Make an account on a server: the name is yours for good, on every device.

Run with a guest session current on the server (the one ``solrace play`` made or ``--name``
chose), it turns that guest into the account — same player, so ratings, stats and races stay
— and NAME defaults to the guest's name. With no session, it makes a new account NAME. The
password is asked at the terminal (twice), or read from stdin's first line or
``$SOLRACE_PASSWORD``: 8-128 characters, not the name. The account becomes the server's
current session.
"""

from __future__ import annotations

import argparse
import asyncio

from solrace.client.commands import CommandError
from solrace.client.library import Client, ClientError
from solrace.client.session import (
    SessionStore,
    client_label,
    open_client,
    read_password,
    refusal,
    resume,
    saved_of,
)
from solrace.client.tui import add_server_arguments, display_name, resolve_server

NAME = "register"
HELP = "make an account (a guest keeps its history); ranked play needs one"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("account", nargs="?", type=display_name, default=None, metavar="NAME",
                        help="the account's name (default: the current guest's name)")
    parser.add_argument("--bot", action="store_true",
                        help="a BOT account (for a program: never ranked, labelled BOT "
                        "everywhere; for good): docs/bots.md")
    add_server_arguments(parser)


async def register_main(args: argparse.Namespace) -> int:
    url, store = resolve_server(args), SessionStore()
    name = args.account or getattr(args, "name", None)
    current = store.current(url)
    if current is not None and current.account:
        raise CommandError(f"you are logged in as {current.name} on {url}; 'solrace logout' "
                           "first to make another account")
    client = await resume(url, current, store) if current is not None else None
    if client is None:
        if name is None:
            raise CommandError("which name? solrace register NAME")
        client = Client(url, client=client_label())
        await open_client(client, url)
    try:
        password = read_password(confirm=True)
        try:
            reply = await client.register(password, name, bot=args.bot)
        except ClientError as exc:
            raise CommandError(refusal(exc)) from None
        if current is not None and current.name.lower() != client.name.lower():
            store.forget(url, current.name)
        store.save(url, saved_of(client))
        store.set_current(url, client.name)
        kept = " (your guest history is kept)" if current is not None else ""
        what = " as a BOT account" if reply.get("title") == "BOT" else ""
        print(f"registered {reply['name']}{what} on {url}{kept}; you are logged in")
        return 0
    finally:
        await client.close()


def run(args: argparse.Namespace) -> int:
    return asyncio.run(register_main(args))
