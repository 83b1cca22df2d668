"""The move pipeline on one Redis, a 1-shard and a 3-shard Redis Cluster (``--cluster``).

    python bench/server.py --cluster                   # N=100, 10 s windows (~2 min)
    python bench/server.py --cluster --n 200 --seconds 5
    python bench/server.py --cluster --smoke           # N=10, 1 s windows (CI)

Same load generators, same server, same move pipeline as ``bench/server.py`` (2-seat races,
one move in flight per connection), against in turn:

* ``single``: one Redis, a ``redis://`` URL (today's path, the baseline);
* ``1 shard``: a Redis Cluster of 1 master + 1 replica, ``redis+cluster://``;
* ``3 shards``: 3 masters + 3 replicas;
* ``3 shards, --wait-replicas 1``: every move acknowledged only once a replica has it.

Per row: moves/s, latency p50/p99, server CPU µs/move, and per master: Redis CPU µs per move
*it served* (its commands' share of the moves) and the share of races and commands it got
(how evenly the hash tags spread the races), plus the replicas' CPU. On a 2-core machine every
Redis node, the server and the load generators share two cores: read the rates as the cost of
the cluster path, not as its capacity (docs/scaling.md turns the per-move costs into capacity).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # test support
from rediscluster import RedisClusterProcess
from solrace.server.ops.redisproc import RedisProcess

from server import (  # bench/server.py: the shared machinery
    SECRET,
    SERVER_FLAGS,
    Bench,
    Listening,
    Measure,
    cpu_seconds,
    fmt,
    machine,
    machine_busy,
    progress,
    workdir,
)


@dataclass
class Node:
    port: int
    pid: int
    master: bool


class _Target:
    """What ``Bench.window`` needs of "the Redis": a URL (for the load generators) and a pid."""

    def __init__(self, url: str, pid: int) -> None:
        self.url = url
        self.pid = pid


class ClusterBench(Bench):
    """:class:`Bench` whose Redis is a list of nodes: CPU and commands sampled on each."""

    def __init__(self, args: argparse.Namespace, work: Path, nodes: list[Node], url: str
                 ) -> None:
        super().__init__(args, work)
        self.nodes = nodes
        self.url = url
        self.redis_proc = _Target(url, nodes[0].pid)  # type: ignore[assignment]
        self.redis = None
        self.samples: list[dict[int, tuple[float, int]]] = []

    def _sample(self, pids: Sequence[int], lg: Any) -> dict[str, Any]:
        per: dict[int, tuple[float, int]] = {}
        for n in self.nodes:
            with redis.Redis(host="127.0.0.1", port=n.port) as r:
                cmds = int(r.info("stats")["total_commands_processed"])
            per[n.port] = (cpu_seconds(n.pid), cmds)
        self.samples.append(per)
        out = {
            "t": time.time(), "machine": 0.0,
            "servers": [cpu_seconds(p) for p in pids],
            "loadgen": sum(cpu_seconds(p) for p in lg.pids),
            "redis": sum(per[n.port][0] for n in self.nodes if n.master),
            "cmds": sum(per[n.port][1] for n in self.nodes if n.master),
            "mix": Counter(),
        }  # fmt: skip
        out["machine"] = machine_busy()
        return out

    def per_node(self) -> dict[int, tuple[float, int]]:
        """CPU seconds and commands of each node over the last window."""
        a, b = self.samples[-2], self.samples[-1]
        return {p: (b[p][0] - a[p][0], b[p][1] - a[p][1] - 1) for p in b}


def start_server(url: str, work: Path, index: int, extra: Sequence[str]) -> Listening:
    data = work / f"server{index}"
    data.mkdir(exist_ok=True)
    argv = [
        sys.executable, "-m", "solrace.server", "--host", "127.0.0.1", "--port", "0",
        "--redis-url", url, "--data-dir", str(data), "--secret", SECRET,
        "--process-id", f"bench{index}-{os.getpid()}", *SERVER_FLAGS, *extra,
    ]  # fmt: skip
    return Listening(f"solrace{index}", argv, work).wait()


def races_per_master(cluster: RedisClusterProcess) -> dict[int, int]:
    """Race meta hashes (``sr:race:{id}``) stored on each master."""
    out = {}
    for info in cluster.topology():
        if not info.master or not info.slots:
            continue
        with redis.Redis(host="127.0.0.1", port=info.port) as r:
            out[info.port] = sum(1 for k in r.scan_iter(match="sr:race:{*}", count=1000)
                                 if k.endswith(b"}"))
    return out


@dataclass
class Row:
    label: str
    m: Measure
    masters: list[dict[str, Any]]
    replicas_cpu_us: float


def measure(label: str, url: str, nodes: list[Node], work: Path, args: argparse.Namespace,
            extra: Sequence[str], cluster: RedisClusterProcess | None) -> Row:
    bench = ClusterBench(args, work, nodes, url)
    server = start_server(url, work, len(os.listdir(work)), extra)
    try:
        progress(f"{label}: N={args.n[0]}")
        m = bench.window("solrace", args.n[0], [server])
    finally:
        server.stop()
    if m.errors.get("internal"):
        log = server.log_path.read_text(errors="replace")
        at = log.find("Traceback")
        progress(f"{label}: first internal error:\n{log[at:at + 3000]}")
    per = bench.per_node()
    masters = [n for n in nodes if n.master]
    races = races_per_master(cluster) if cluster else {nodes[0].port: 1}  # all of them
    total_races = sum(races.values()) or 1
    total_cmds = sum(per[n.port][1] for n in masters) or 1
    rows = []
    for n in masters:
        cpu, cmds = per[n.port]
        share = cmds / total_cmds
        rows.append({"port": n.port, "races": races.get(n.port, 0) / total_races,
                     "cmds": share,
                     "us_per_move": cpu / (m.count * share) * 1e6 if m.count and share else
                     math.nan,
                     "cpu_pct": 100 * cpu / args.seconds})
    replicas = [per[n.port][0] for n in nodes if not n.master]
    rep_us = sum(replicas) / m.count * 1e6 if m.count and replicas else math.nan
    if cluster is not None:
        cluster.flushall()
    return Row(label, m, rows, rep_us)


def cluster_nodes(c: RedisClusterProcess) -> list[Node]:
    masters = {i.port for i in c.topology() if i.master}
    return [Node(n.port, n.pid or 0, n.port in masters) for n in c.nodes]


def report(info: dict[str, str], args: argparse.Namespace, rows: list[Row]) -> None:
    w = print
    w("# solrace move pipeline: one Redis vs Redis Cluster")
    w("")
    w("machine: " + "; ".join(f"{k} {v}" for k, v in info.items()))
    w("")
    w(f"settings: N={args.n[0]} connections (2-seat races), {args.seconds:g} s window after "
      f"{args.warmup:g} s warm-up; one server process; AOF everysec on every node; loopback")
    w("")
    base = rows[0].m
    w("| backend | moves/s | p50 / p99 ms | × single p50 | server CPU µs/move "
      "| Redis CPU µs/move (all masters) | replicas CPU µs/move |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        m = r.m
        w(f"| {r.label} | {fmt(m.rate)} | {fmt(m.p50, 2)} / {fmt(m.p99, 2)} "
          f"| {m.p50 / base.p50:.2f}× | {fmt(m.server_us)} | {fmt(m.redis_us)} "
          f"| {fmt(r.replicas_cpu_us)} |")
    w("")
    w("Per master: Redis CPU µs per move it served (its share of the commands), share of the "
      "races stored on it and of the commands it ran, its CPU % of one core.")
    w("")
    w("| backend | master | µs/move | races | commands | CPU % |")
    w("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        for i, s in enumerate(r.masters):
            w(f"| {r.label} | {i + 1} | {fmt(s['us_per_move'])} | {100 * s['races']:.0f}% "
              f"| {100 * s['cmds']:.0f}% | {fmt(s['cpu_pct'])} |")
    errors = {r.label: r.m.errors for r in rows if r.m.errors}
    if errors:
        w("")
        w(f"errors: {errors}")


def main(args: argparse.Namespace) -> int:
    if not args.explicit_n:
        args.n = [10] if args.smoke else [100]
    info = machine()
    rows: list[Row] = []
    with workdir() as work:
        single = RedisProcess(data_dir=work / "single", appendonly=True).start()
        try:
            rows.append(measure("single Redis", single.url,
                                [Node(single.port, single.pid or 0, True)], work, args, (),
                                None))
        finally:
            single.stop()
        for masters, label in ((1, "cluster, 1 shard"), (3, "cluster, 3 shards")):
            progress(f"starting a {masters}-master cluster")
            # a generous node timeout: on a busy 2-core machine a starved node must not be
            # voted down (a failover mid-window would measure the fault, not the path)
            c = RedisClusterProcess(masters=masters, replicas=1, data_dir=work / f"c{masters}",
                                    node_timeout_ms=15000)
            c.start()
            try:
                nodes = cluster_nodes(c)
                rows.append(measure(label, c.url, nodes, work, args, (), c))
                if masters == 3:
                    rows.append(measure("cluster, 3 shards, --wait-replicas 1", c.url, nodes,
                                        work, args, ("--wait-replicas", "1"), c))
            finally:
                c.stop()
    report(info, args, rows)
    return 0
