"""Log in to your account on a server (a new session of its own, with its own token).

The password is asked at the terminal, or read from stdin's first line or
``$SOLRACE_PASSWORD``. The account becomes the server's current session: every command
without ``--name`` plays as it. Wrong passwords are limited (the server says when to retry).
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
    saved_of,
)
from solrace.client.tui import add_server_arguments, display_name, resolve_server

NAME = "login"
HELP = "log in to your account (each device its own session)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("account", type=display_name, metavar="NAME", help="the account's name")
    add_server_arguments(parser, player=False)


async def login_main(args: argparse.Namespace) -> int:
    url, store = resolve_server(args), SessionStore()
    client = Client(url, client=client_label())
    await open_client(client, url)
    try:
        try:
            reply = await client.login(args.account, read_password())
        except ClientError as exc:
            raise CommandError(refusal(exc)) from None
        store.save(url, saved_of(client))
        store.set_current(url, client.name)
        print(f"logged in as {reply['name']} on {url} (session {reply['session']})")
        return 0
    finally:
        await client.close()


def run(args: argparse.Namespace) -> int:
    return asyncio.run(login_main(args))
