"""One arena under load, with plain solo games at the same move rate alongside, in one run.

    python bench/tournament.py                       # 100 entrants, human pace, 30 s windows
    python bench/tournament.py --entrants 300 --pace full --seconds 20
    python bench/tournament.py --entrants 1000 --servers 2   # two processes, one Redis
    python bench/tournament.py --entrants 1000 --cluster     # a 3-master Redis Cluster
    python bench/tournament.py --entrants 1000 --cluster --replicas 1 --servers 2
    python bench/tournament.py --entrants 3000 --generators 3 --pace slow --stagger

Starts a private Redis (or, with ``--cluster``, a private Redis Cluster of 3 masters with
``--replicas`` replicas each, 0 by default) and ``--servers`` processes of
``python -m solrace.server`` sharing it (as bench/server.py and bench/cluster.py do; players are
spread over the processes in turn, and the standings of one arena are followed from every
process), then runs two windows with the same number of players, each player its own
connection:

* **plain**: every player plays practice games with no bots (a solo race: the same move path
  as any race) — a move, its ack, the next move; a new game when one ends;
* **arena**: every player is an account entered in one arena and plays deal after deal
  (``tournament.play``), following the standings (``tournament.standings`` with ``follow``).

The players are driven by ``--generators`` load-generator processes (bench/tournament_gen.py,
default 1): one drives about a thousand players here before its own CPU sets the pace, so
2,000–5,000 entrants need several. Each owns a slice of the players; all start a window at the
same moment, and the arena window only once every player of every slice has joined.

Without ``--stagger`` every entrant starts deal 1 at the same moment, so with the same clock
their deals end together: a burst of deal ends, an event's worst case. ``--stagger`` spreads
the first deals over one deal's time, as entrants of an arena arrive. ``--pace human`` waits
0.5–1.5 s (uniform) between a player's moves; ``slow`` waits 3–7 s, a thinking player, so that
thousands of connected entrants fit on 2 cores (the load per entrant is then mostly the
connection, the standings frames and the deal results, not the moves); ``full`` sends the next
move as soon as the ack is in. Every game — an arena deal or a practice game — has the same
time limit (``--deal-seconds``, default 30, the shortest the server allows) and is played until
it ends or its clock runs out, then the next one starts: results are recorded during the
window at the same rate in both. A pause or a staggered arrival that would run past the
window's end is cut there: no move is sent after it. At a human or slow pace a deal mostly ends
by its clock, so the staleness needs windows longer than ``--deal-seconds``.

Per window: moves and moves/s, ack p50/p99 (ms), server CPU µs per move (``/proc``), Redis
commands per move (``INFO``: commands inside scripts count; on a cluster, summed over every
master — the replicas only replay them), standings frames per entrant per second, and the
standings' staleness: from the moment a player's deal ended (the ack or resign reply that ended
it) to the first ``standings`` frame showing that deal, p50/p99. On 2 cores the load generators
compete with the servers and Redis: their summed CPU is printed too, and the busiest one's below
the table (near the window's length, a generator was the limit).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import children  # bench/children.py: this script's directory is on sys.path
import redis
import tournament_gen

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # test support
from rediscluster import RedisClusterProcess
from solrace.server.ops.redisproc import RedisProcess


class Backend:
    """The Redis the servers share: one process, or a 3-master cluster (as bench/cluster.py
    starts it). :meth:`commands` counts on every master only: a replica replays its master's
    writes, which is not what a move costs the cluster's masters."""

    def __init__(self, work: Path, cluster: bool, replicas: int) -> None:
        self.cluster: RedisClusterProcess | None = None
        self.single: RedisProcess | None = None
        if cluster:
            # a generous node timeout: on a busy 2-core machine a starved node must not be
            # voted down (a failover mid-window would measure the fault, not the path)
            self.cluster = RedisClusterProcess(masters=3, replicas=replicas,
                                               data_dir=work / "cluster", node_timeout_ms=15000)
            self.label = f"a Redis Cluster of 3 masters, {replicas} replica(s) each"
        else:
            self.single = RedisProcess(data_dir=work / "redis", appendonly=True)
            self.label = "one Redis"

    def start(self) -> None:
        if self.cluster is not None:
            children.progress("starting a 3-master Redis Cluster")
            self.cluster.start()
        else:
            assert self.single is not None
            self.single.start()

    @property
    def url(self) -> str:
        """``redis://`` or ``redis+cluster://`` (every node a seed): the servers' --redis-url."""
        if self.cluster is not None:
            return self.cluster.url
        assert self.single is not None
        return self.single.url

    def master_ports(self) -> list[int]:
        if self.cluster is not None:  # asked each time: a failover would move the masters
            return [i.port for i in self.cluster.topology() if i.master and i.slots]
        assert self.single is not None
        return [self.single.port]

    def commands(self) -> int:
        total = 0
        for port in self.master_ports():
            with redis.Redis(host="127.0.0.1", port=port) as r:
                total += int(r.info("stats")["total_commands_processed"])
        return total

    def stop(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()
        if self.single is not None:
            self.single.stop()


class Generators(children.LoadGens):
    """The load-generator processes (``tournament_gen.main``), driven in lockstep over pipes;
    spawned, not forked: this process holds threads (the servers' readers)."""

    def __init__(self, specs: list[dict[str, Any]]) -> None:
        super().__init__(specs, target=tournament_gen.main, method="spawn")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def servers_cpu(pids: list[int]) -> float:
    return sum(children.cpu_seconds(pid) for pid in pids)


def window(kind: str, gens: Generators, backend: Backend, server_pids: list[int],
           entrants: int, seconds: float) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One window played by every generator from the same moment; the merged row and each
    generator's raw figures."""
    cmd0, cpu0 = backend.commands(), servers_cpu(server_pids)
    gens.send((kind, time.time() + 0.5))  # a moment every generator gets the message before
    raw = gens.expect(kind)
    moves = sum(r["moves"] for r in raw)
    acks = [a for r in raw for a in r["acks"]]
    stale = [s for r in raw for s in r["stale"]]
    elapsed = sum(r["elapsed"] for r in raw) / len(raw)
    return {
        "kind": kind, "moves": moves, "rate": moves / seconds,
        "p50": 1000 * pct(acks, 0.5), "p99": 1000 * pct(acks, 0.99),
        "cpu_us": 1e6 * (servers_cpu(server_pids) - cpu0) / max(1, moves),
        "redis": (backend.commands() - cmd0) / max(1, moves),
        "frames": sum(r["frames"] for r in raw) / entrants / elapsed,
        "stale50": pct(stale, 0.5), "stale99": pct(stale, 0.99),
        "deals": sum(r["deals"] for r in raw), "shown": len(stale),
        "gen_cpu": sum(r["cpu"] for r in raw), "gen_max": max(r["cpu"] for r in raw),
        "elapsed": elapsed,
    }, raw


def row(r: dict[str, Any]) -> str:
    frames = f"{r['frames']:.2f}" if r["kind"] == "arena" else "—"
    stale = (f"{r['stale50']:.2f} / {r['stale99']:.2f} ({r['shown']} of {r['deals']})"
             if r["kind"] == "arena" else "—")
    return (f"| {r['kind']} | {r['moves']} | {r['rate']:.0f} | {r['p50']:.1f} | "
            f"{r['p99']:.1f} | {r['cpu_us']:.0f} | {r['redis']:.1f} | {frames} | {stale} | "
            f"{r['gen_cpu']:.1f} |")


def run(args: argparse.Namespace, backend: Backend, urls: list[str],
        server_pids: list[int]) -> None:
    n, k = args.entrants, args.generators
    rng = random.Random(args.rng)
    players = [(urls[i % len(urls)], f"bench{i:04d}", rng.random()) for i in range(n)]
    specs = [{"players": players[g * n // k:(g + 1) * n // k], "pace": args.pace,
              "deal_seconds": args.deal_seconds, "seconds": args.seconds,
              "stagger": args.deal_seconds if args.stagger else 0.0, "create": g == 0}
             for g in range(k)]
    children.progress(f"{n} players connecting and registering ({k} load generator(s))")
    gens = Generators(specs)
    try:
        gens.expect("ready")
        children.progress("plain window")
        plain, raw = window("plain", gens, backend, server_pids, n, args.seconds)
        gens.send(("join", raw[0]["tid"]))  # generator 0 created the arena after the window
        gens.expect("joined")
        children.progress("arena window")
        arena, _ = window("arena", gens, backend, server_pids, n, args.seconds)
    finally:
        gens.close()
    print(f"\n{n} players on {len(urls)} server process(es) and {backend.label}, "
          f"{k} load-generator process(es), pace {args.pace}, "
          f"{'staggered starts, ' if args.stagger else ''}{args.seconds:g} s windows, "
          f"{tournament_gen.VARIANT} deals of {args.deal_seconds} s (arena)\n")
    print("| window | moves | moves/s | ack p50 ms | ack p99 ms | server CPU µs/move | "
          "Redis cmds/move | standings frames/entrant/s | staleness p50 / p99 s "
          "(deals shown of ended) | load generator CPU s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in (plain, arena):
        print(row(r))
    print(f"\narena/plain: server CPU per move {arena['cpu_us'] / plain['cpu_us']:.2f}×, "
          f"ack p99 {arena['p99'] / plain['p99']:.2f}×")
    print(f"busiest load generator: {plain['gen_max']:.1f} CPU s of a {plain['elapsed']:.1f} s "
          f"plain window, {arena['gen_max']:.1f} of {arena['elapsed']:.1f} s arena")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--pace", choices=("human", "slow", "full"), default="human",
                        help="between a player's moves: 0.5–1.5 s, 3–7 s, or none")
    parser.add_argument("--deal-seconds", type=int, default=30)
    parser.add_argument("--rng", type=int, default=1)
    parser.add_argument("--servers", type=int, default=1,
                        help="server processes sharing the one Redis (or cluster)")
    parser.add_argument("--cluster", action="store_true",
                        help="a private Redis Cluster of 3 masters instead of one Redis")
    parser.add_argument("--replicas", type=int, default=0,
                        help="with --cluster: replicas per master")
    parser.add_argument("--generators", type=int, default=1,
                        help="load-generator processes, each driving a slice of the players")
    parser.add_argument("--stagger", action="store_true",
                        help="each entrant starts their first deal after a random wait of up to "
                        "one deal's time (entrants arriving over time) instead of all at once")
    args = parser.parse_args(argv)
    if not 1 <= args.generators <= args.entrants:
        parser.error("--generators must be between 1 and --entrants")
    if args.replicas and not args.cluster:
        parser.error("--replicas needs --cluster")
    with tempfile.TemporaryDirectory(prefix="solrace-bench-") as tmp:
        backend = Backend(Path(tmp), args.cluster, args.replicas)
        servers: list[Any] = []
        try:
            backend.start()
            for i in range(1, args.servers + 1):
                servers.append(children.start_solrace(backend.url, Path(tmp), i).wait())
            run(args, backend, [s.url for s in servers], [s.pid for s in servers])
        finally:
            for server in servers:
                server.stop()
            backend.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
