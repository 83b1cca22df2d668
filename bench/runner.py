"""The processes of one run and the measurements on them: :class:`Bench` starts echo, Redis and
the solrace servers, runs one window against a target (load generators, CPU and Redis samples
at its edges, optionally py-spy) and probes the memory of idle connections."""

from __future__ import annotations

import argparse
import math
import os
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import redis
from children import (  # bench/children.py and the others: siblings on sys.path
    PREFILL_CAP,
    Listening,
    LoadGens,
    _sleep_until,
    cpu_seconds,
    machine_busy,
    progress,
    rss_bytes,
    start_echo,
    start_solrace,
)
from measure import Measure, _ratio, pct, split_even, split_players
from profiling import finish_py_spy, start_py_spy
from solrace.server.ops.redisproc import RedisProcess


class Bench:
    """The processes of one run (echo, Redis, solrace servers) and the measurements on them."""

    def __init__(self, args: argparse.Namespace, work: Path) -> None:
        self.args = args
        self.work = work
        self.redis_proc: RedisProcess | None = None
        self.redis: redis.Redis | None = None
        self.echo: Listening | None = None
        self.echoes: list[Listening] = []
        self.servers: list[Listening] = []
        self.run_id = os.urandom(2).hex()
        self._names = 0

    # -- lifecycle

    def start(self, servers: int, echoes: int = 1) -> None:
        """``echoes`` echo processes, Redis and ``servers`` solrace processes, started side by
        side (interpreter start-up dominates). A row uses the first few; the others idle (a
        server's hub wakes once a second)."""
        self.redis_proc = RedisProcess(data_dir=self.work / "redis", appendonly=True)
        self.redis_proc.start()
        self.redis = redis.Redis.from_url(self.redis_proc.url)
        self.echoes = [start_echo(self.work, i + 1) for i in range(echoes)]
        self.echo = self.echoes[0]
        self.servers = [start_solrace(self.redis_proc.url, self.work, i + 1)
                        for i in range(servers)]
        for child in [*self.echoes, *self.servers]:
            child.wait()

    def stop(self) -> None:
        for child in [*self.servers, *self.echoes]:
            child.stop()
        if self.redis is not None:
            self.redis.close()
        if self.redis_proc is not None:
            self.redis_proc.stop()

    def name_prefix(self) -> str:
        self._names += 1
        # The "-" ends the prefix: names are unique up to their fold (case and look-alikes:
        # "i" and "1" are one letter), so "<p>1" + "i11" must not meet "<p>11" + "i1".
        # The counter is written in digits no fold touches (8 folds to b, 1 to l, ...).
        safe = "34679acd"
        n, tag = self._names, ""
        while True:
            n, r = divmod(n, len(safe))
            tag = safe[r] + tag
            if not n:
                break
        return f"b{self.run_id}{tag}-"

    # -- sampling

    def _redis_sample(self) -> tuple[int, Counter[str]]:
        assert self.redis is not None
        total = int(self.redis.info("stats")["total_commands_processed"])
        mix = Counter({k.removeprefix("cmdstat_"): int(v["calls"])
                       for k, v in self.redis.info("commandstats").items()})
        return total, mix

    def _sample(self, pids: Sequence[int], lg: LoadGens) -> dict[str, Any]:
        assert self.redis_proc is not None and self.redis_proc.pid is not None
        total, mix = self._redis_sample() if self.redis is not None else (0, Counter())
        return {
            "t": time.time(),
            "machine": machine_busy(),
            "servers": [cpu_seconds(p) for p in pids],
            "loadgen": sum(cpu_seconds(p) for p in lg.pids),
            "redis": cpu_seconds(self.redis_proc.pid),
            "cmds": total, "mix": mix,
        }  # fmt: skip

    # -- one window

    def window(self, target: str, n: int, servers: Sequence[Listening], *,
               echo_rate: float | None = None, profile: Path | None = None,
               follow_home: bool = False) -> Measure:
        """One measured window of N players against ``servers`` (``follow_home``: the
        joiners move to their race's home during set-up; see loadgen.setup_race)."""
        args = self.args
        procs = args.loadgens if args.loadgens else (1 if n < 50 else 2)
        urls = [s.url for s in servers]
        mode = "echo" if target == "echo" else "race"
        counts = split_players(n, procs) if mode == "race" else split_even(n, procs)
        # Enough precomputed moves that no connection has to draw any inside the window:
        # solrace will not beat the echo server, so its rate bounds what the window needs.
        horizon = (echo_rate or 20_000) * (args.warmup + args.seconds + 1) * 1.1
        prefill = min(args.moves_per_conn, math.ceil(horizon / n) + 32)
        specs = [
            {"mode": mode, "urls": urls, "active": c, "redis_url": self.redis_proc.url,
             "name_prefix": self.name_prefix(), "rng_seed": args.seed * 1000 + i,
             "player": args.players, "batch": args.frames == "batch",
             "moves_per_conn": args.moves_per_conn, "follow_home": follow_home,
             "prefill": min(prefill, PREFILL_CAP // max(1, c))}
            for i, c in enumerate(counts)
        ]  # fmt: skip
        for srv in servers:
            srv.mark_log()
        lg = LoadGens(specs)
        try:
            ready = lg.expect("ready", 120 + n * 0.3)
            progress(f"{target} N={n}: load generators ready; measuring")
            t_go = time.time() + 0.05
            warm, end = t_go + args.warmup, t_go + args.warmup + args.seconds
            lg.send(("go", t_go, warm, end))
            _sleep_until(warm)
            spy = start_py_spy(servers[0].pid, args.seconds, profile) if profile else None
            a = self._sample([s.pid for s in servers], lg)
            _sleep_until(end)
            b = self._sample([s.pid for s in servers], lg)
            results = lg.expect("result", args.seconds + 120)
            if spy is not None:
                finish_py_spy(spy)
        finally:
            lg.close()
        lat = sorted(x for r in results for x in r["lat_us"])
        errors: Counter[str] = Counter()
        endings: Counter[str] = Counter()
        for r in results:
            errors.update(r["errors"])
            endings.update(r["endings"])
        if errors and target == "solrace":
            for srv in servers:
                progress(f"{target} N={n}: errors {dict(errors)}; {srv.name} logged:\n"
                         + srv.log_summary())
        mix = b["mix"] - a["mix"]
        mix.pop("info", None)
        return Measure(
            target=target, n=n, servers=len(servers), window=args.seconds,
            count=sum(r["count"] for r in results),
            p50=pct(lat, 0.50), p99=pct(lat, 0.99), max=pct(lat, 1.0),
            server_cpu=[y - x for x, y in zip(a["servers"], b["servers"])],
            loadgen_cpu=b["loadgen"] - a["loadgen"], loadgens=len(specs),
            sampled=b["t"] - a["t"], machine_cpu=b["machine"] - a["machine"],
            redis_cpu=b["redis"] - a["redis"],
            # the sampler's own INFO calls (two per sample) are not the pipeline's
            redis_cmds=b["cmds"] - a["cmds"] - 2,
            cmd_mix=dict(mix.most_common()),
            errors=dict(errors), finished=sum(r["finished"] for r in results),
            endings=dict(endings),
            exhausted=sum(r["exhausted"] for r in results),
            inline=sum(r["inline"] for r in results),
            # error replies are frames too, but not moves
            frames_per=_ratio(sum(r["frames"] for r in results) - sum(errors.values()),
                              sum(r["total"] for r in results)),
            msgs_per=_ratio(sum(r.get("msgs", r["frames"]) for r in results)
                            - sum(errors.values()), sum(r["total"] for r in results)),
            setup_s=max(r["setup_s"] for r in ready),
            affine=follow_home and mode == "race",
            moved=sum(r.get("moved", 0) for r in ready),
        )

    # -- memory

    def idle_memory(self, target: str, server: Listening, k: int) -> dict[str, Any]:
        """RSS growth of ``server`` for ``k`` idle connections (after a few warm ones)."""
        echo = target == "echo"

        def idle(count: int) -> LoadGens:
            lg = LoadGens([{"mode": "idle", "urls": [server.url], "active": count,
                            "echo": echo, "name_prefix": self.name_prefix()}])
            lg.expect("ready", 60 + count * 0.1)
            return lg

        warm = idle(20)
        try:
            time.sleep(0.3)
            before = rss_bytes(server.pid)
            extra = idle(k)
            try:
                time.sleep(0.5)
                after = rss_bytes(server.pid)
            finally:
                extra.send(("stop",))
                extra.expect("done", 60)
                extra.close()
        finally:
            warm.send(("stop",))
            warm.expect("done", 60)
            warm.close()
        return {"target": target, "conns": k, "before": before, "after": after,
                "per_conn": (after - before) / k}


