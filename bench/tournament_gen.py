"""The players of ``bench/tournament.py``: one load-generator process per slice of them.

One process drives about a thousand players on this machine before its own CPU, not the server,
sets the pace. ``--generators K`` splits the players into K contiguous slices, each driven by a
process started here (``multiprocessing`` *spawn*: the parent holds threads reading its
servers' output, which a fork would copy half-held). Every generator, even a single one, runs
in its own process, so ``--generators 1`` and ``--generators 4`` measure the same code.

The parent and the generators speak over a pipe, in lockstep::

    generator -> ("ready", None)               its players are connected and registered
    parent    -> ("plain", start)              play the plain window from ``start`` (epoch s)
    generator -> ("plain", {raw figures, tid}) generator 0 also creates the arena: its id
    parent    -> ("join", tid)                 enter every player in that arena
    generator -> ("joined", None)
    parent    -> ("arena", start)              play the arena window from ``start``
    generator -> ("arena", {raw figures})      then it closes its connections and exits

The parent samples server CPU and Redis commands between these steps, so no player plays
while it measures the edges of a window, and every generator starts a window at the same
moment. Raw figures are what the parent can merge: every ack time, moves, standings frames,
each ended deal's staleness, the generator's own CPU seconds over the window.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import traceback
from typing import Any

from solrace.client.library import Client, ClientError

VARIANT, OPTIONS = "unlimited", {"draw": "1"}
PASSWORD = "bench-password-0123456789"
PAUSES = {"human": (0.5, 1.5), "slow": (3.0, 7.0)}  # seconds between a player's moves


class BenchClient(Client):
    """A client that hands ``standings`` frames to its player as they arrive (not queued with
    the race events the player waits for)."""

    on_standings: Any = None

    async def _on_message(self, msg: dict[str, Any]) -> None:
        if msg.get("t") == "standings" and self.on_standings is not None:
            self.on_standings(msg)
            return
        await super()._on_message(msg)


class Player:
    def __init__(self, url: str, name: str, pace: str, seed: float, deal_s: int) -> None:
        self.client = BenchClient(url, name=name, timeout=60.0)
        self.client.on_standings = self.standings
        self.pace, self.rng = pace, random.Random(seed)
        self.deal_s = deal_s
        self.acks: list[float] = []
        self.moves = 0
        self.ended: dict[int, float] = {}  # deal number -> when it ended (monotonic)
        self.seen: dict[int, float] = {}  # deal number -> first standings frame showing it
        self.frames = 0

    async def pause(self, until: float) -> None:
        """The wait before a move, cut at the window's end (a slow pace's 7 s would otherwise
        add moves after it)."""
        if self.pace in PAUSES:
            wait = self.rng.uniform(*PAUSES[self.pace])
            await asyncio.sleep(min(wait, max(0.0, until - time.monotonic())))

    async def play_game(self, rid: str, until: float) -> bool:
        """Random legal moves until the game ends (won, lost, or its clock ran out: the move
        is refused) or ``until``; True when the game ended."""
        board = await self.client.wait_running(rid, timeout=30)
        legal = list(board.get("legal") or self.client.boards[rid].get("legal") or [])
        while time.monotonic() < until:
            await self.pause(until)
            if time.monotonic() >= until:
                break
            if not legal:
                return True
            t = time.perf_counter()
            try:
                ack = await self.client.move(rid, self.rng.choice(legal))
            except ClientError:
                return True  # its clock ran out
            self.acks.append(time.perf_counter() - t)
            self.moves += 1
            if ack.get("status") in ("won", "lost"):
                return True
            legal = list(ack.get("legal") or [])
        return False

    async def plain(self, until: float) -> None:
        while time.monotonic() < until:
            r = await self.client.practice_start(VARIANT, OPTIONS, time_limit=self.deal_s)
            await self.play_game(r["race"], until)

    async def arena(self, tid: str, until: float, stagger: float) -> None:
        arrive = self.rng.uniform(0, stagger)  # entrants arrive over time (within the window)
        await asyncio.sleep(min(arrive, max(0.0, until - time.monotonic())))
        while time.monotonic() < until:
            try:
                r = await self.client.tournament_play(tid)
            except ClientError as exc:
                if exc.code != "deal_not_ready":
                    raise
                await asyncio.sleep(min(float(exc.extra.get("retry_after", 1)),
                                        max(0.0, until - time.monotonic())))
                continue
            if await self.play_game(r["race"]["race"], until):
                self.ended[int(r["deal"])] = time.monotonic()

    def standings(self, msg: dict[str, Any]) -> None:
        self.frames += 1
        mine = next((r for r in msg["rows"] if r["player"] == self.client.player), None)
        if mine is not None:
            for k in range(1, int(mine["played"]) + 1):
                self.seen.setdefault(k, time.monotonic())


async def window(players: list[Player], start: float, seconds: float, tid: str | None,
                 stagger: float) -> dict[str, Any]:
    """One window from ``start`` (epoch seconds, the same in every generator): its raw
    figures."""
    await asyncio.sleep(max(0.0, start - time.time()))
    for p in players:
        p.acks.clear()
        p.moves = p.frames = 0
    me0, t0 = time.process_time(), time.monotonic()
    until = t0 + seconds
    if tid is not None:
        for p in players:
            await p.client.tournament_standings(tid, follow=True)
        await asyncio.gather(*(p.arena(tid, until, stagger) for p in players))
    else:
        await asyncio.gather(*(p.plain(until) for p in players))
    await asyncio.sleep(2.5)  # the last standings frames (at most one a second)
    return {
        "moves": sum(p.moves for p in players), "acks": [a for p in players for a in p.acks],
        "frames": sum(p.frames for p in players), "elapsed": time.monotonic() - t0,
        "stale": [p.seen[k] - t for p in players for k, t in p.ended.items() if k in p.seen],
        "deals": sum(len(p.ended) for p in players), "cpu": time.process_time() - me0,
    }


async def drive(pipe: Any, spec: dict[str, Any]) -> None:
    async def send(*msg: Any) -> None:  # off the loop: a full pipe must not stall the players
        await asyncio.to_thread(pipe.send, msg)

    async def recv(tag: str) -> Any:
        kind, payload = await asyncio.to_thread(pipe.recv)
        assert kind == tag, (kind, tag)
        return payload

    players = [Player(url, name, spec["pace"], seed, spec["deal_seconds"])
               for url, name, seed in spec["players"]]
    gate = asyncio.Semaphore(8)  # registrations hash passwords (scrypt) on the servers

    async def join(p: Player) -> None:
        async with gate:
            await p.client.connect()
            await p.client.register(PASSWORD)

    await asyncio.gather(*(join(p) for p in players))
    await send("ready", None)
    plain = await window(players, await recv("plain"), spec["seconds"], None, 0.0)
    if spec["create"]:
        t = await players[0].client.tournament_create(
            "bench arena", VARIANT, OPTIONS, minutes=10, deal_seconds=spec["deal_seconds"])
        plain["tid"] = t["tournament"]
    await send("plain", plain)
    tid = await recv("join")
    for p in players:
        await p.client.tournament_join(tid)
    await send("joined", None)
    await send("arena", await window(players, await recv("arena"), spec["seconds"], tid,
                                     spec["stagger"]))
    for p in players:
        await p.client.close()


def main(pipe: Any, spec: dict[str, Any]) -> None:
    """A generator process's entry point: a failure goes to the parent as ``("error", tb)``."""
    try:
        asyncio.run(drive(pipe, spec))
    except BaseException:
        with contextlib.suppress(OSError):  # the parent may have gone already
            pipe.send(("error", traceback.format_exc()))
        raise
    finally:
        pipe.close()
