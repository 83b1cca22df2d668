"""The move pipeline against the limit of its own stack, measured in one run.

    python bench/server.py                      # N = 1, 100, 1000; 10 s windows (a few minutes)
    python bench/server.py --smoke              # N = 1, 10; 1 s windows (CI: ~10 s)
    python bench/server.py --n 100 --seconds 5 --profile /tmp/server-profile.txt
    python bench/server.py --cluster            # one Redis vs 1 and 3 cluster shards (cluster.py)
    python bench/server.py --servers 2          # main rows on 2 race-affine server processes
    python bench/server.py --n 100,1000 --rounds 3   # 3 alternated echo/solrace rounds per N,
                                                     # the median round reported (noisy hosts)

One run starts, each in its own process:

* the baseline: ``bench/echo.py``, a bare ``websockets`` echo server (same library, same stock
  asyncio loop, same connection settings as ours);
* a private Redis (:class:`~solrace.server.ops.redisproc.RedisProcess`, AOF ``everysec`` as in
  ``docker-compose.yml``) and ``python -m solrace.server`` pointed at it, with rate limits
  raised out of the way;
* load generators (``bench/loadgen.py``, forked): N player connections paired into 2-seat
  races (create, join by code, ready; an odd player gets an idle partner), each looping
  "send a move, wait for its ack" with moves drawn uniformly from the legal moves of an engine
  replica of its own game. Against the echo server the same N connections send frames of the
  same size and wait for each echo.

For each N it warms up, then measures one window and prints: throughput, p50/p99/max latency,
the ratios to echo, server CPU µs per move (``/proc/PID/stat`` utime+stime across the window),
Redis commands per move (``INFO`` ``total_commands_processed``; commands run inside Lua scripts
count) and Redis CPU µs per move, plus the CPU each process used, so a reader sees who was
saturated (on 2 cores the load generator competes with the server). Then: memory per idle
connection (RSS delta of the server for K extra hello'd connections), one vs two server
processes sharing the Redis — the two racers of each race on different processes (delivery
through pub/sub), and race-affine (the joiner follows the race's home, docs/protocol.md 8.1) —
the Redis command mix, and with ``--profile`` a py-spy profile of the server under load
summarised by own time.

``--servers K`` runs the main rows against K race-affine server processes: the load
generators place the players of race i on processes i and i+1 (mod K), as a load balancer
going round them would, and the joiner follows the home hint during set-up; the echo row then
runs K echo processes, connections spread over them the same way.

Loopback only. ``--json PATH`` writes every figure for machines (the CI smoke test reads it).

Its parts, siblings in this folder: ``children.py`` (the processes and /proc), ``runner.py``
(:class:`Bench`: one run's processes and windows), ``measure.py`` (one window's figures),
``profiling.py`` (py-spy), ``report.py`` (the Markdown report); this file parses the flags and
runs the whole.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import children  # bench/children.py and the modules below: this script's directory is on sys.path
import loadgen  # bench/loadgen.py: this script's directory is on sys.path
from children import (
    BENCH,
    SECRET,
    SERVER_FLAGS,
    Listening,
    LoadGens,
    _sleep_until,
    cpu_seconds,
    machine,
    machine_busy,
    progress,
    rss_bytes,
    start_echo,
    start_solrace,
)
from measure import Measure, pct, split_even, split_players
from profiling import finish_py_spy, py_spy, start_py_spy, summarize_profile
from report import fmt, median_round, print_report, target_rows
from runner import Bench
from solrace.server.ops.config import DEFAULT_LOOP
from solrace.server.ops.redisproc import _spawn

# the names cluster.py, server_instructions.py and the tests take from this script
__all__ = ["BENCH", "SECRET", "SERVER_FLAGS", "Bench", "Listening", "LoadGens", "Measure",
           "_sleep_until", "_spawn", "cpu_seconds", "finish_py_spy", "fmt", "loadgen",
           "machine", "machine_busy", "median_round", "parse_args", "pct", "progress",
           "rss_bytes", "split_even", "split_players", "start_echo", "start_py_spy",
           "start_solrace", "summarize_profile", "target_rows", "workdir"]

# ----------------------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--smoke", action="store_true",
                   help="a few seconds in all: N=1,10, 1 s windows, small memory probe (CI)")
    p.add_argument("--n", default=None, help="comma-separated connection counts (1,100,1000)")
    p.add_argument("--seconds", type=float, default=None, help="measured window (10; smoke 1)")
    p.add_argument("--warmup", type=float, default=None, help="warm-up before each window "
                   "(2; smoke 0.3)")
    p.add_argument("--moves-per-conn", type=int, default=1_000_000,
                   help="stop a connection after this many moves")
    p.add_argument("--loadgens", type=int, default=0,
                   help="load-generator processes (0: 1 below N=50, else 2)")
    p.add_argument("--idle-conns", type=int, default=None,
                   help="idle connections for the memory probe (500; smoke 50; 0 skips)")
    p.add_argument("--procs-n", type=int, default=None,
                   help="N of the 1 vs 2 processes comparison (100; smoke 10; 0 skips)")
    p.add_argument("--profile", type=Path, default=None,
                   help="also profile the server with py-spy (one more window at N=--profile-n)"
                   "; its raw collapsed stacks go to this file, a summary to the report")
    p.add_argument("--profile-n", type=int, default=100, help="N of the profiled window (100)")
    p.add_argument("--no-profile", action="store_true",
                   help="skip the profile (it is on by default, outside --smoke, when py-spy is "
                   "installed: the raw stacks go to $TMPDIR/solrace-profile.txt)")
    p.add_argument("--json", type=Path, default=None, help="write every figure here as JSON")
    p.add_argument("--seed", type=int, default=1, help="seed of the load generators' choices")
    p.add_argument("--players", choices=("random", "weak", "medium", "strong"),
                   default="random",
                   help="how the load generators choose moves: uniformly random legal moves "
                   "among those that keep the game going (the default: games practically "
                   "never end) or a practice bot of that "
                   "strength (games end in a win or when the bot gives up; that connection "
                   "then stops)")
    p.add_argument("--loop", choices=("asyncio", "uvloop"), default=DEFAULT_LOOP,
                   help="event loop of the solrace servers and of echo, both the same (the "
                   f"server's default: {DEFAULT_LOOP})")
    p.add_argument("--frames", choices=("batch", "single"), default="batch",
                   help="batch: the players ask for batch frames in hello (race events ride "
                   "with the next reply, docs/protocol.md); single: one message per frame")
    p.add_argument("--rounds", type=int, default=1, metavar="K",
                   help="alternate K echo and solrace windows per N and report the round "
                   "with the median ratio, every round listed (1)")
    p.add_argument("--servers", type=int, default=1, metavar="K",
                   help="server processes of the main rows, race-affine (players placed round "
                   "the processes, joiners following the race's home), against K echo "
                   "processes (1)")
    p.add_argument("--cluster", action="store_true",
                   help="compare one Redis, a 1-shard and a 3-shard Redis Cluster, and "
                   "--wait-replicas 1 (bench/cluster.py; N=100 unless --n)")
    args = p.parse_args(argv)
    smoke = args.smoke
    args.explicit_n = args.n is not None
    args.n = [int(x) for x in (args.n or ("1,10" if smoke else "1,100,1000")).split(",")]
    if any(n < 1 for n in args.n):
        p.error("--n: counts must be positive")
    if args.servers < 1:
        p.error("--servers: at least 1")
    if args.rounds < 1:
        p.error("--rounds: at least 1")
    args.seconds = args.seconds if args.seconds is not None else (1.0 if smoke else 10.0)
    args.warmup = args.warmup if args.warmup is not None else (0.3 if smoke else 2.0)
    args.idle_conns = args.idle_conns if args.idle_conns is not None else (50 if smoke else 500)
    args.procs_n = args.procs_n if args.procs_n is not None else (10 if smoke else 100)
    if args.profile is None and not smoke and not args.no_profile and py_spy() is not None:
        args.profile = Path(tempfile.gettempdir()) / "solrace-profile.txt"
    return args


@contextlib.contextmanager
def workdir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="solrace-bench-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    children.LOOP = args.loop
    if args.cluster:
        import cluster  # bench/cluster.py

        return cluster.main(args)
    info = machine()
    progress(f"N={args.n}, {args.seconds:g} s windows; starting echo, Redis, server(s)")
    with workdir() as work:
        bench = Bench(args, work)
        try:
            k = args.servers
            bench.start(max(k, 2 if args.procs_n else 1), k)
            assert bench.echo is not None
            memory = []
            if args.idle_conns:
                progress(f"memory of {args.idle_conns} idle connections")
                memory = [bench.idle_memory("echo", bench.echo, args.idle_conns),
                          bench.idle_memory("solrace", bench.servers[0], args.idle_conns)]
            rows: list[tuple[Measure, Measure]] = []
            rounds: dict[int, list[tuple[Measure, Measure]]] = {}
            for n in args.n:
                pairs = []
                for r in range(args.rounds):
                    if args.rounds > 1:
                        progress(f"N={n}: round {r + 1} of {args.rounds}")
                    e = bench.window("echo", n, bench.echoes[:k])
                    s = bench.window("solrace", n, bench.servers[:k], echo_rate=e.rate,
                                     follow_home=True)
                    pairs.append((e, s))
                rounds[n] = pairs
                rows.append(median_round(pairs))
            procs: list[Measure] = []
            profile = None
            if args.procs_n:
                by_n = {s.n: (e, s) for e, s in rows}
                if args.procs_n in by_n and k == 1:
                    e1, one = by_n[args.procs_n]
                else:
                    progress(f"N={args.procs_n}: echo, solrace ...")
                    e1 = bench.window("echo", args.procs_n, [bench.echo])
                    one = bench.window("solrace", args.procs_n, bench.servers[:1],
                                       echo_rate=e1.rate)
                progress(f"N={args.procs_n}: 2 server processes, racers on different ones ...")
                two = bench.window("solrace", args.procs_n, bench.servers[:2], echo_rate=e1.rate)
                if args.procs_n in by_n and k == 2:
                    homed = by_n[args.procs_n][1]
                else:
                    progress(f"N={args.procs_n}: 2 server processes, race homes followed ...")
                    homed = bench.window("solrace", args.procs_n, bench.servers[:2],
                                         echo_rate=e1.rate, follow_home=True)
                procs = [one, two, homed]
            if args.profile:
                pn = args.profile_n
                rate = next((e.rate for e, s in rows if s.n == pn), None)
                progress(f"N={pn}: profiling the server with py-spy ...")
                bench.window("solrace", pn, bench.servers[:1], echo_rate=rate,
                             profile=args.profile)
                if args.profile.exists():
                    profile = summarize_profile(args.profile)
        except BaseException:
            for s in bench.servers:
                tail = s.log_tail()
                if tail:
                    print(f"--- {s.name} stderr ---\n{tail}", file=sys.stderr)
            raise
        finally:
            bench.stop()
    progress("done")
    print_report(info, args, rows, memory, procs, profile, rounds)
    if args.json:
        args.json.write_text(json.dumps({
            "machine": info,
            "settings": {"n": args.n, "seconds": args.seconds, "warmup": args.warmup,
                         "moves_per_conn": args.moves_per_conn, "servers": args.servers},
            "rows": [{"echo": e.as_dict(), "solrace": s.as_dict()} for e, s in rows],
            "rounds": {str(n): [{"echo": e.as_dict(), "solrace": s.as_dict()} for e, s in pairs]
                       for n, pairs in rounds.items()},
            "memory": memory,
            "processes": [m.as_dict() for m in procs],
            "profile": profile,
        }, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
