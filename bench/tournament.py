"""One arena under load, with plain solo games at the same move rate alongside, in one run.

    python bench/tournament.py                       # 100 entrants, human pace, 30 s windows
    python bench/tournament.py --entrants 300 --pace full --seconds 20
    python bench/tournament.py --entrants 1000 --servers 2   # two processes, one Redis

Starts a private Redis and ``--servers`` processes of ``python -m solrace.server`` sharing it
(as bench/server.py does; players are spread over them in turn, and the standings of one arena
are followed from every process), then runs two windows with the same number of players, each
player its own connection from this process:

* **plain**: every player plays practice games with no bots (a solo race: the same move path
  as any race) — a move, its ack, the next move; a new game when one ends;
* **arena**: every player is an account entered in one arena and plays deal after deal
  (``tournament.play``), following the standings (``tournament.standings`` with ``follow``).

Without ``--stagger`` every entrant starts deal 1 at the same moment, so with the same clock
their deals end together: a burst of deal ends, an event's worst case. ``--stagger`` spreads
the first deals over one deal's time, as entrants of an arena arrive. ``--pace human`` waits
0.5–1.5 s (uniform) between a player's moves; ``full`` sends the next
move as soon as the ack is in. Every game — an arena deal or a practice game — has the same
time limit (``--deal-seconds``, default 30, the shortest the server allows) and is played until
it ends or its clock runs out, then the next one starts: results are recorded during the
window at the same rate in both.

Per window: moves and moves/s, ack p50/p99 (ms), server CPU µs per move (``/proc``), Redis
commands per move (``INFO``: commands inside scripts count), standings frames per entrant per
second, and the standings' staleness: from the moment a player's deal ended (the ack or
resign reply that ended it) to the first ``standings`` frame showing that deal, p50/p99.
On 2 cores the load generator (this process) competes with the server: its CPU is printed too.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import children  # bench/children.py: this script's directory is on sys.path
from solrace.client.library import Client, ClientError
from solrace.server.ops.redisproc import RedisProcess

VARIANT, OPTIONS = "unlimited", {"draw": "1"}
PASSWORD = "bench-password-0123456789"


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
    def __init__(self, url: str, name: str, pace: str, rng: random.Random) -> None:
        self.client = BenchClient(url, name=name, timeout=60.0)
        self.client.on_standings = self.standings
        self.pace, self.rng = pace, rng
        self.deal_s = 30
        self.acks: list[float] = []
        self.moves = 0
        self.ended: dict[int, float] = {}  # deal number -> when it ended (monotonic)
        self.seen: dict[int, float] = {}  # deal number -> first standings frame showing it
        self.frames = 0

    async def pause(self) -> None:
        if self.pace == "human":
            await asyncio.sleep(self.rng.uniform(0.5, 1.5))

    async def play_game(self, rid: str, until: float) -> bool:
        """Random legal moves until the game ends (won, lost, or its clock ran out: the move
        is refused) or ``until``; True when the game ended."""
        board = await self.client.wait_running(rid, timeout=30)
        legal = list(board.get("legal") or self.client.boards[rid].get("legal") or [])
        while time.monotonic() < until:
            await self.pause()
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
        await asyncio.sleep(self.rng.uniform(0, stagger))  # entrants arrive over time
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


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def redis_commands(url: str) -> int:
    from redis.asyncio import Redis
    r = Redis.from_url(url)
    try:
        return int((await r.info("stats"))["total_commands_processed"])
    finally:
        await r.aclose()


def servers_cpu(pids: list[int]) -> float:
    return sum(children.cpu_seconds(pid) for pid in pids)


async def window(kind: str, players: list[Player], server_pids: list[int], redis_url: str,
                 seconds: float, tid: str | None, stagger: float = 0.0) -> dict[str, Any]:
    cmd0, cpu0, me0 = (await redis_commands(redis_url), servers_cpu(server_pids),
                       time.process_time())
    t0 = time.monotonic()
    until = t0 + seconds
    if kind == "arena":
        assert tid is not None
        for p in players:
            await p.client.tournament_standings(tid, follow=True)
        jobs = [p.arena(tid, until, stagger) for p in players]
    else:
        jobs = [p.plain(until) for p in players]
    await asyncio.gather(*jobs)
    await asyncio.sleep(2.5)  # the last standings frames (at most one a second)
    elapsed = time.monotonic() - t0
    moves = sum(p.moves for p in players)
    acks = [a for p in players for a in p.acks]
    stale = [p.seen[k] - t for p in players for k, t in p.ended.items() if k in p.seen]
    ended = sum(len(p.ended) for p in players)
    return {
        "kind": kind, "moves": moves, "rate": moves / seconds,
        "p50": 1000 * pct(acks, 0.5), "p99": 1000 * pct(acks, 0.99),
        "cpu_us": 1e6 * (servers_cpu(server_pids) - cpu0) / max(1, moves),
        "redis": (await redis_commands(redis_url) - cmd0) / max(1, moves),
        "frames": sum(p.frames for p in players) / len(players) / elapsed,
        "stale50": pct(stale, 0.5), "stale99": pct(stale, 0.99),
        "deals": ended, "shown": len(stale), "gen_cpu": time.process_time() - me0,
    }


def row(r: dict[str, Any]) -> str:
    frames = f"{r['frames']:.2f}" if r["kind"] == "arena" else "—"
    stale = (f"{r['stale50']:.2f} / {r['stale99']:.2f} ({r['shown']} of {r['deals']})"
             if r["kind"] == "arena" else "—")
    return (f"| {r['kind']} | {r['moves']} | {r['rate']:.0f} | {r['p50']:.1f} | "
            f"{r['p99']:.1f} | {r['cpu_us']:.0f} | {r['redis']:.1f} | {frames} | {stale} | "
            f"{r['gen_cpu']:.1f} |")


async def run(args: argparse.Namespace, urls: list[str], server_pids: list[int],
              redis_url: str) -> None:
    rng = random.Random(args.rng)
    children.progress(f"{args.entrants} players connecting and registering")
    players = [Player(urls[i % len(urls)], f"bench{i:04d}", args.pace,
                      random.Random(rng.random())) for i in range(args.entrants)]
    for p in players:
        p.deal_s = args.deal_seconds
    gate = asyncio.Semaphore(8)  # registrations hash passwords (scrypt) on the servers

    async def join(p: Player) -> None:
        async with gate:
            await p.client.connect()
            await p.client.register(PASSWORD)

    await asyncio.gather(*(join(p) for p in players))
    results = []
    children.progress("plain window")
    results.append(await window("plain", players, server_pids, redis_url, args.seconds, None))
    for p in players:
        p.acks.clear()
        p.moves = 0
    host = players[0].client
    t = await host.tournament_create("bench arena", VARIANT, OPTIONS, minutes=10,
                                     deal_seconds=args.deal_seconds)
    for p in players:
        await p.client.tournament_join(t["tournament"])
    children.progress("arena window")
    stagger = args.deal_seconds if args.stagger else 0.0
    results.append(await window("arena", players, server_pids, redis_url, args.seconds,
                                t["tournament"], stagger))
    for p in players:
        await p.client.close()
    print(f"\n{args.entrants} players on {len(urls)} server process(es), pace {args.pace}, "
          f"{'staggered starts, ' if args.stagger else ''}{args.seconds:g} s windows, "
          f"{VARIANT} deals of {args.deal_seconds} s (arena)\n")
    print("| window | moves | moves/s | ack p50 ms | ack p99 ms | server CPU µs/move | "
          "Redis cmds/move | standings frames/entrant/s | staleness p50 / p99 s "
          "(deals shown of ended) | load generator CPU s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(row(r))
    plain, arena = results
    print(f"\narena/plain: server CPU per move {arena['cpu_us'] / plain['cpu_us']:.2f}×, "
          f"ack p99 {arena['p99'] / plain['p99']:.2f}×")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--pace", choices=("human", "full"), default="human")
    parser.add_argument("--deal-seconds", type=int, default=30)
    parser.add_argument("--rng", type=int, default=1)
    parser.add_argument("--servers", type=int, default=1,
                        help="server processes sharing the one Redis")
    parser.add_argument("--stagger", action="store_true",
                        help="each entrant starts their first deal after a random wait of up to "
                        "one deal's time (entrants arriving over time) instead of all at once")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="solrace-bench-") as tmp:
        redis = RedisProcess(data_dir=Path(tmp) / "redis", appendonly=True)
        redis.start()
        servers: list[Any] = []
        try:
            for i in range(1, args.servers + 1):
                servers.append(children.start_solrace(redis.url, Path(tmp), i).wait())
            asyncio.run(run(args, [s.url for s in servers], [s.pid for s in servers],
                            redis.url))
        finally:
            for server in servers:
                server.stop()
            redis.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
