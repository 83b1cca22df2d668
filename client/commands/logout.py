"""Log out of the server's current session: its token stops working on every server process.

A guest that logs out loses its name and history (register first to keep them).
"""

from __future__ import annotations

import argparse
import asyncio

from solrace.client.commands import CommandError
from solrace.client.library import ClientError
from solrace.client.session import SessionStore, refusal, resume
from solrace.client.tui import add_server_arguments, resolve_server

NAME = "logout"
HELP = "end the current session on a server"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_server_arguments(parser, player=False)


async def logout_main(args: argparse.Namespace) -> int:
    url, store = resolve_server(args), SessionStore()
    current = store.current(url)
    if current is None:
        print(f"no session on {url}")
        return 0
    client = await resume(url, current, store)
    if client is None:
        return 0  # the server had ended it already; forgotten here too
    try:
        try:
            await client.logout()
        except ClientError as exc:
            raise CommandError(refusal(exc)) from None
    finally:
        await client.close()
    store.forget(url, current.name)
    print(f"logged out {current.name} on {url}")
    return 0


def run(args: argparse.Namespace) -> int:
    return asyncio.run(logout_main(args))
