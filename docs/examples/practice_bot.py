"""A BOT account that plays one practice race through the client library (docs/bots.md).

    python docs/examples/practice_bot.py ws://127.0.0.1:8765 mybot 'a long password'

It registers NAME as a BOT account (or logs in if it already is one), starts a practice race
against no one, plays — a card to a foundation when it can, else the first legal move the
server lists — until the game is over or 400 moves, resigns if it is not over, and prints
what happened. It keeps to the server's message rate (and waits when told
``rate_limited``). Everything it knows of the rules is the server's list of legal moves.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from solrace.client.library import Client, ClientError

PAUSE = 0.025  # seconds between moves: well inside the server's default 50 messages a second


async def play(url: str, name: str, password: str, variant: str = "sixes-and-sevens",
               max_moves: int = 400) -> dict[str, Any]:
    c = Client(url, client="practice-bot example")
    await c.connect()  # anonymous: no guest name, the account comes next
    try:
        try:
            await c.register(password, name=name, bot=True)
        except ClientError as exc:
            if exc.code != "name_taken":
                raise
            await c.login(name, password)  # a BOT account already: log in
        race = await c.practice_start(variant)
        rid = race["race"]
        await c.next_event(race=rid, k="start")  # the board is dealt
        legal, status, moves = list(c.boards[rid]["legal"]), "playing", 0
        while legal and status == "playing" and moves < max_moves:
            home = [m for m in legal if "f" in m[1:]]
            try:
                ack = await c.move(rid, (home or legal)[0])
            except ClientError as exc:  # the server's message rate: wait, then go on
                if exc.code != "rate_limited":
                    raise
                await asyncio.sleep(float(exc.extra.get("retry_after") or PAUSE * 10))
                continue
            legal, status, moves = list(ack["legal"]), ack["status"], moves + 1
            await asyncio.sleep(PAUSE)
        if status == "playing":
            await c.request("resign", race=rid)
        return {"race": rid, "moves": moves, "status": status,
                "title": c.welcome.get("title")}
    finally:
        await c.close()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    print(asyncio.run(play(*sys.argv[1:4])))
