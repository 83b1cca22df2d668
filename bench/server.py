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
* a private Redis (:class:`~solrace.server.redisproc.RedisProcess`, AOF ``everysec`` as in
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
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing as mp
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import loadgen  # bench/loadgen.py: this script's directory is on sys.path
import msgpack
import redis
import websockets
from solrace.server.config import DEFAULT_LOOP
from solrace.server.redisproc import RedisProcess, _spawn, find_redis_server

BENCH = Path(__file__).resolve().parent
SECRET = "bench-secret-0123456789abcdef"
LISTENING = re.compile(r"listening on ws://(?P<host>[^:\s]+):(?P<port>\d+)")
CLK_TCK = os.sysconf("SC_CLK_TCK")
PREFILL_CAP = 300_000  # precomputed moves per load-generator process, at most
# Rate limits out of the way, a short countdown, and no solver work: no background
# certification of daily deals or winnable pools, no verdict after each race (a solver in a
# worker process: it would take a core from the measured pipeline).
SERVER_FLAGS = (
    "--countdown", "0.2", "--rate", "1000000", "--burst", "1000000", "--idle-timeout", "1h",
    "--daily-prepare", "-1", "--pool-prepare", "0", "--verdict-budget", "0",
    "--log-level", "WARNING",
)  # fmt: skip


# ----------------------------------------------------------------------------- /proc


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a whole process (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def machine_busy() -> float:
    """CPU seconds all cores spent not idle since boot (``/proc/stat``), to see how much of a
    window went to processes that are not part of the benchmark."""
    with open("/proc/stat") as fh:
        values = [int(x) for x in fh.readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
    return (sum(values[:8]) - idle) / CLK_TCK


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def machine() -> dict[str, str]:
    model = "unknown CPU"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as fh:
        for line in fh:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    try:
        out = subprocess.run([find_redis_server(), "--version"], capture_output=True, text=True,
                             timeout=10).stdout
        redis_server = out.split(" sha=")[0].strip()
    except Exception as exc:
        redis_server = f"unknown ({exc})"
    return {
        "cpu": model,
        "cores": f"{os.cpu_count()} logical, {len(os.sched_getaffinity(0))} usable",
        "os": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "loop": f"{LOOP} (servers and echo)",
        "load average at start": " ".join(Path("/proc/loadavg").read_text().split()[:3]),
        "websockets": websockets.__version__,
        "redis-py": redis.__version__,
        "msgpack": ".".join(map(str, msgpack.version)),
        "redis-server": redis_server,
    }


# ----------------------------------------------------------------------------- children


class Listening:
    """A child process that prints ``... listening on ws://HOST:PORT`` once it serves."""

    def __init__(self, name: str, argv: Sequence[str], log_dir: Path) -> None:
        self.name = name
        self.log_path = log_dir / f"{name}.stderr"
        # the server's own settings come from its flags; SOLRACE_COMPILED* passes through
        # (shared/accel.py: compiled modules or pure Python, for before/after runs)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("SOLRACE_") or k.startswith("SOLRACE_COMPILED")}
        env["PYTHONUNBUFFERED"] = "1"
        with self.log_path.open("ab") as err:
            self.proc = _spawn(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=err, env=env, cwd=log_dir)
        self.url = ""
        self._log_mark = 0

    def wait(self, timeout: float = 30.0) -> Listening:
        """Block until the child listens (its URL is then in :attr:`url`)."""
        if not self.url:
            self.url = self._wait_listening(timeout)
            # Drain the rest of stdout so a chatty child can never block on a full pipe.
            threading.Thread(target=self._drain, daemon=True).start()
        return self

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _wait_listening(self, timeout: float) -> str:
        assert self.proc.stdout is not None
        lines: list[str] = []
        box: list[str] = []

        def read() -> None:
            assert self.proc.stdout is not None
            for raw in self.proc.stdout:
                line = raw.decode(errors="replace")
                lines.append(line)
                match = LISTENING.search(line)
                if match:
                    box.append(f"ws://{match['host']}:{match['port']}")
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout)
        if not box:
            self.stop()
            raise RuntimeError(f"{self.name} did not start listening within {timeout}s:\n"
                               + "".join(lines) + self.log_tail())
        return box[0]

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for _ in self.proc.stdout:
            pass

    def mark_log(self) -> None:
        """Start :meth:`log_summary` from here."""
        with contextlib.suppress(OSError):
            self._log_mark = self.log_path.stat().st_size

    def log_summary(self, top: int = 8) -> str:
        """The child's distinct stderr lines since :meth:`mark_log` (timestamps dropped), most
        frequent first."""
        try:
            with self.log_path.open("rb") as fh:
                fh.seek(self._log_mark)
                lines = fh.read().decode(errors="replace").splitlines()
        except OSError:
            return ""
        counts = Counter(re.sub(r"^[\d-]+ [\d:,]+ ", "", line) for line in lines)
        return "\n".join(f"  {c}× {line[:200]}" for line, c in counts.most_common(top))

    def log_tail(self, n: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        return ""

    def stop(self, grace: float = 10.0) -> None:
        if self.proc.poll() is None:
            t = time.monotonic()
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                progress(f"{self.name} still running {grace:g} s after SIGTERM: killed")
                self.proc.kill()
                self.proc.wait()
            progress(f"{self.name} stopped in {time.monotonic() - t:.1f} s")


#: event loop of the servers under test and of echo, always the same one (--loop): by default
#: the server's own default (uvloop where it can be imported), so the ratio compares like with
#: like
LOOP = DEFAULT_LOOP


def start_solrace(redis_url: str, log_dir: Path, index: int) -> Listening:
    data = log_dir / f"server{index}"
    data.mkdir(exist_ok=True)
    argv = [
        sys.executable, "-m", "solrace.server", "--host", "127.0.0.1", "--port", "0",
        "--redis-url", redis_url, "--data-dir", str(data), "--secret", SECRET,
        "--process-id", f"bench{index}-{os.getpid()}", "--loop", LOOP, *SERVER_FLAGS,
    ]  # fmt: skip
    return Listening(f"solrace{index}", argv, log_dir)


def start_echo(log_dir: Path, index: int = 1) -> Listening:
    name = "echo" if index == 1 else f"echo{index}"
    return Listening(name, [sys.executable, str(BENCH / "echo.py"), "--loop", LOOP], log_dir)


class LoadGens:
    """Forked load-generator processes (``loadgen.child_main``), driven in lockstep."""

    def __init__(self, specs: Sequence[dict[str, Any]]) -> None:
        ctx = mp.get_context("fork")
        self.pipes = []
        self.procs = []
        for spec in specs:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=loadgen.child_main, args=(child, spec), daemon=True)
            proc.start()
            child.close()
            self.pipes.append(parent)
            self.procs.append(proc)

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs if p.pid is not None]

    def expect(self, tag: str, timeout: float) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        out = []
        for pipe, proc in zip(self.pipes, self.procs):
            if not pipe.poll(max(0.0, deadline - time.monotonic())):
                raise RuntimeError(f"load generator {proc.pid} sent no {tag!r} in {timeout}s")
            kind, payload = pipe.recv()
            if kind == "error":
                raise RuntimeError(f"load generator {proc.pid} failed:\n{payload}")
            if kind != tag:
                raise RuntimeError(f"load generator {proc.pid}: expected {tag!r}, got {kind!r}")
            out.append(payload)
        return out

    def send(self, message: tuple[Any, ...]) -> None:
        for pipe in self.pipes:
            pipe.send(message)

    def close(self) -> None:
        for proc in self.procs:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
                proc.join()


# ----------------------------------------------------------------------------- one window


def pct(sorted_us: Sequence[int], q: float) -> float:
    """Nearest-rank percentile of sorted microseconds, in milliseconds (nan when empty)."""
    if not sorted_us:
        return math.nan
    return sorted_us[min(len(sorted_us) - 1, max(0, math.ceil(q * len(sorted_us)) - 1))] / 1000


@dataclass
class Measure:
    """One measured window against one target."""

    target: str  # "echo" or "solrace"
    n: int
    servers: int
    window: float
    count: int
    p50: float
    p99: float
    max: float
    server_cpu: list[float]  # seconds per server process
    loadgen_cpu: float
    loadgens: int
    sampled: float = 0.0  # wall seconds between the two CPU samples (≈ window)
    machine_cpu: float = 0.0  # every process on the machine, the benchmark's included
    redis_cpu: float = 0.0
    redis_cmds: int = 0
    cmd_mix: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    finished: int = 0
    endings: dict[str, int] = field(default_factory=dict)
    exhausted: int = 0
    inline: int = 0
    affine: bool = False  # joiners followed the race's home (docs/protocol.md 8.1)
    moved: int = 0  # joiners that moved to their race's home during set-up
    frames_per: float = math.nan  # frames the clients received per reply (race events too)
    msgs_per: float = math.nan  # messages in those frames per reply (batch frames carry several)
    setup_s: float = 0.0

    @property
    def rate(self) -> float:
        return self.count / self.window

    @property
    def server_us(self) -> float:
        return sum(self.server_cpu) / self.count * 1e6 if self.count else math.nan

    @property
    def redis_us(self) -> float:
        return self.redis_cpu / self.count * 1e6 if self.count else math.nan

    @property
    def cmds_per(self) -> float:
        return self.redis_cmds / self.count if self.count else math.nan

    @property
    def others_cpu(self) -> float:
        """CPU seconds of processes outside the benchmark (another job on a shared machine)."""
        ours = sum(self.server_cpu) + self.redis_cpu + self.loadgen_cpu
        return max(0.0, self.machine_cpu - ours)

    def busy(self, seconds: float) -> float:
        """CPU seconds as % of one core over the sampled window."""
        return 100 * seconds / (self.sampled or self.window)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(rate=self.rate, server_us=self.server_us, redis_us=self.redis_us,
                   cmds_per=self.cmds_per, others_cpu=self.others_cpu)
        return out


def split_players(n: int, procs: int) -> list[int]:
    """Active players per load generator, whole races in each (an odd one only in the last)."""
    pairs = (n + 1) // 2
    procs = max(1, min(procs, pairs))
    per = [pairs // procs + (1 if i < pairs % procs else 0) for i in range(procs)]
    counts = [2 * p for p in per]
    counts[-1] -= 2 * pairs - n
    return [c for c in counts if c > 0]


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


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


def split_even(n: int, procs: int) -> list[int]:
    procs = max(1, min(procs, n))
    return [n // procs + (1 if i < n % procs else 0) for i in range(procs)]


_T0 = time.monotonic()


def progress(text: str) -> None:
    """A progress line on stderr (stdout carries only the report)."""
    print(f"[bench {time.monotonic() - _T0:6.1f}s] {text}", file=sys.stderr, flush=True)


def _sleep_until(epoch: float) -> None:
    time.sleep(max(0.0, epoch - time.time()))


# ----------------------------------------------------------------------------- profile


def py_spy() -> str | None:
    # PATH first, then beside this interpreter (a venv's bin/ is often not on PATH)
    return shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))


def start_py_spy(pid: int, seconds: float, out: Path) -> subprocess.Popen[bytes] | None:
    exe = py_spy()
    if exe is None:
        print("(--profile: py-spy is not installed: pip install py-spy)", file=sys.stderr)
        return None
    argv = [exe, "record", "--pid", str(pid), "--duration", str(max(1, int(seconds))),
            "--rate", "250", "--format", "raw", "--nolineno", "--output", str(out)]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def finish_py_spy(spy: subprocess.Popen[bytes]) -> None:
    try:
        _, err = spy.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        spy.kill()
        _, err = spy.communicate()
    if spy.returncode:
        print(f"(py-spy exited with {spy.returncode}: {err.decode(errors='replace')[-500:]})",
              file=sys.stderr)


def _frame_file(frame: str) -> str:
    """The file of a py-spy frame ``fn (path/file.py)`` as py-spy shortened it (``server/...``,
    ``shared/...`` for ours, ``asyncio/...``, ``redis/...`` for the rest)."""
    m = re.search(r"\(([^()]*)\)\s*$", frame)
    return m.group(1) if m else frame


#: (layer, file prefixes): what a leaf frame's own time is charged to, first match wins.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("solrace engine, views, protocol (shared/)", ("shared/",)),
    ("solrace server (server/)", ("server/",)),
    ("event loop and socket syscalls (asyncio, selectors)", ("asyncio/", "selectors.py")),
    ("websockets", ("websockets/",)),
    ("redis-py", ("redis/",)),
    ("msgpack", ("msgpack/",)),
)
OURS = ("server/", "shared/")


def summarize_profile(path: Path, top: int = 20) -> dict[str, Any]:
    """Own time (leaf frame) per function and per layer, and inclusive time of our functions,
    from py-spy's raw output (one ``frame;frame;...;leaf count`` line per distinct stack)."""
    own: Counter[str] = Counter()
    layers: Counter[str] = Counter()
    ours: Counter[str] = Counter()
    total = 0
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        c = int(count)
        frames = [f for f in stack.split(";")
                  if f and not f.startswith(("process ", "thread "))]
        if not frames:
            continue
        total += c
        leaf = frames[-1]
        own[leaf] += c
        file = _frame_file(leaf)
        layers[next((name for name, prefixes in LAYERS if file.startswith(prefixes)),
                    "other (stdlib, typing, dataclasses, ...)")] += c
        for f in set(frames):
            if _frame_file(f).startswith(OURS):
                ours[f] += c
    return {
        "samples": total,
        "own": own.most_common(top),
        "layers": layers.most_common(),
        # frames on every stack (``main``, ``<module>``) say nothing
        "ours_inclusive": [(f, c) for f, c in ours.most_common(top + 4) if c < total][:top],
    }


# ----------------------------------------------------------------------------- printing


def fmt(x: float, digits: int = 0) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:,.{digits}f}"


def lat3(m: Measure) -> str:
    return f"{fmt(m.p50, 2)} / {fmt(m.p99, 2)} / {fmt(m.max, 1)}"


def median_round(pairs: list[tuple[Measure, Measure]]) -> tuple[Measure, Measure]:
    """The (echo, solrace) round whose throughput ratio is the median of the rounds (the
    lower middle one for an even count): one round's figures, never a mix of rounds."""
    def key(pair: tuple[Measure, Measure]) -> float:
        e, s = pair
        return s.rate / e.rate if e.rate else 0.0
    ordered = sorted(pairs, key=key)
    return ordered[(len(ordered) - 1) // 2]


def ratio(a: float, b: float) -> str:
    if not b or math.isnan(a) or math.isnan(b):
        return "—"
    return f"{a / b:.2f}×"


#: the targets (docs/performance.md, "Reading the tables"): throughput >= 0.35x echo at
#: N=100 and N=1000, p99 <= 3x echo's at N=100, server CPU <= 150 us per move, Redis
#: commands per move <= 6
TARGET_RATE, TARGET_P99, TARGET_CPU_US, TARGET_CMDS = 0.35, 3.0, 150.0, 6.0


def target_rows(rows: list[tuple[Measure, Measure]]) -> list[tuple[str, str, bool]]:
    """(target, measured, met) for the rows of this run the targets speak of (N=100, 1000)."""
    out = []
    for e, s in rows:
        if s.n not in (100, 1000) or not s.count or not e.count:
            continue
        out.append((f"throughput ≥ {TARGET_RATE}× echo at N={s.n}", ratio(s.rate, e.rate),
                    s.rate >= TARGET_RATE * e.rate))
        if s.n == 100:
            out.append((f"p99 ≤ {TARGET_P99:g}× echo's at N={s.n}", ratio(s.p99, e.p99),
                        s.p99 <= TARGET_P99 * e.p99))
        out.append((f"server CPU ≤ {TARGET_CPU_US:g} µs/move at N={s.n}", fmt(s.server_us),
                    s.server_us <= TARGET_CPU_US))
        out.append((f"Redis commands ≤ {TARGET_CMDS:g} per move at N={s.n}",
                    fmt(s.cmds_per, 1), s.cmds_per <= TARGET_CMDS))
    return out


def print_report(
    info: dict[str, str],
    args: argparse.Namespace,
    rows: list[tuple[Measure, Measure]],
    memory: list[dict[str, Any]],
    procs: list[Measure],
    profile: dict[str, Any] | None,
    rounds: dict[int, list[tuple[Measure, Measure]]] | None = None,
) -> None:
    """The whole report as Markdown on stdout (``docs/performance.md`` pastes it)."""
    out: list[str] = []
    w = out.append
    w("# solrace move pipeline vs bare websockets echo")
    w("")
    w("machine: " + "; ".join(f"{k} {v}" for k, v in info.items()))
    w("")
    w(f"settings: {args.seconds:g} s window after {args.warmup:g} s warm-up per row; variant "
      f"{loadgen.VARIANT} {loadgen.OPTIONS}; 2-seat races; moves: {args.players}; "
      f"frames: {args.frames}; Redis AOF everysec; loopback; "
      f"moves/conn ≤ {args.moves_per_conn}")
    w("")
    if args.servers > 1:
        w(f"**{args.servers} server processes** on one Redis in the main rows, race-affine: "
          f"race i is created through process i mod {args.servers} and joined through the "
          "next, and the joiner moves to the race's home (docs/protocol.md 8.1) during set-up; "
          f"the echo rows run **{args.servers} echo processes**, connections spread over them "
          "the same way. Server CPU is the sum over the processes.")
        w("")
    w("## Throughput and latency (request → reply, one in flight per connection)")
    w("")
    w("| N | echo msg/s | solrace moves/s | × echo | echo p50 / p99 / max ms "
      "| solrace p50 / p99 / max ms | p99 × echo |")
    w("|---:|---:|---:|---:|---:|---:|---:|")
    for e, s in rows:
        w(f"| {s.n} | {fmt(e.rate)} | {fmt(s.rate)} | {ratio(s.rate, e.rate)} | {lat3(e)} "
          f"| {lat3(s)} | {ratio(s.p99, e.p99)} |")
    w("")
    if rounds and any(len(p) > 1 for p in rounds.values()):
        w("## Rounds (echo and solrace windows alternated; the tables show each N's median "
          "round)")
        w("")
        w("The host's speed can change between windows (the echo server's own CPU per "
          "message is the tell), so each N ran several rounds of one echo window then one "
          "solrace window, and every other table of this report shows the round whose ratio "
          "is the median.")
        w("")
        w("| N | round | echo msg/s | solrace moves/s | × echo | echo CPU µs/msg "
          "| server CPU µs/move |")
        w("|---:|---:|---:|---:|---:|---:|---:|")
        for n, pairs in rounds.items():
            mid = median_round(pairs)
            for i, (e, s) in enumerate(pairs, 1):
                mark = " (median)" if (e, s) is mid else ""
                w(f"| {n} | {i}{mark} | {fmt(e.rate)} | {fmt(s.rate)} | {ratio(s.rate, e.rate)} "
                  f"| {fmt(e.server_us)} | {fmt(s.server_us)} |")
        w("")
    w("## Cost per move and who is saturated")
    w("")
    w("CPU % is of one core over the window (this machine has "
      f"{len(os.sched_getaffinity(0))} usable); \"others\" is every process outside the "
      "benchmark: high values mean a shared, noisy machine. \"frames / msgs out/move\": websocket "
      "frames the server sent per acknowledged move, and the messages in them (the ack plus "
      "race events to every racer; a batch frame carries several).")
    w("")
    w("| N | server CPU µs/move | echo CPU µs/msg | frames / msgs out/move | Redis cmds/move "
      "| Redis CPU µs/move | CPU % server / Redis / loadgen / others "
      "| echo run: CPU % echo / loadgen / others |")
    w("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for e, s in rows:
        w(f"| {s.n} | {fmt(s.server_us)} | {fmt(e.server_us)} | {fmt(s.frames_per, 2)} / "
          f"{fmt(s.msgs_per, 2)} "
          f"| {fmt(s.cmds_per, 1)} "
          f"| {fmt(s.redis_us)} | {fmt(s.busy(sum(s.server_cpu)))} / {fmt(s.busy(s.redis_cpu))}"
          f" / {fmt(s.busy(s.loadgen_cpu))} ({s.loadgens}p) / {fmt(s.busy(s.others_cpu))} "
          f"| {fmt(e.busy(sum(e.server_cpu)))} / {fmt(e.busy(e.loadgen_cpu))} ({e.loadgens}p)"
          f" / {fmt(e.busy(e.others_cpu))} |")
    if memory:
        w("")
        w("## Memory per idle connection")
        w("")
        w("| server | idle connections | RSS before MiB | RSS after MiB | KiB per connection |")
        w("|---|---:|---:|---:|---:|")
        for m in memory:
            label = "echo" if m["target"] == "echo" else "solrace (hello'd, named)"
            w(f"| {label} | {m['conns']} | {fmt(m['before'] / 2**20, 1)} "
              f"| {fmt(m['after'] / 2**20, 1)} | {fmt(m['per_conn'] / 1024, 1)} |")
    if procs:
        w("")
        w(f"## 1 vs 2 server processes on one Redis (N={procs[0].n})")
        w("")
        w("Placement: race i is created through process i mod 2 and joined through the other. "
          "*different processes*: the joiner stays, so every move crosses processes through "
          "Redis pub/sub (a client that ignores homes); *race homes*: the joiner moves to the "
          "race's home during set-up, so both racers of a race share a process.")
        w("")
        w("| processes | placement | moves/s | × 1 process | p50 / p99 / max ms "
          "| server CPU µs/move | CPU % per server | Redis cmds/move | Redis CPU µs/move "
          "| CPU % Redis / loadgen / others |")
        w("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for m in procs:
            per = " + ".join(fmt(m.busy(c)) for c in m.server_cpu)
            placement = ("—" if m.servers == 1 else
                         f"race homes ({m.moved} joiners moved)" if m.affine else
                         "different processes")
            w(f"| {m.servers} | {placement} | {fmt(m.rate)} | {ratio(m.rate, procs[0].rate)} "
              f"| {lat3(m)} "
              f"| {fmt(m.server_us)} | {per} | {fmt(m.cmds_per, 1)} | {fmt(m.redis_us)} "
              f"| {fmt(m.busy(m.redis_cpu))} / {fmt(m.busy(m.loadgen_cpu))} "
              f"/ {fmt(m.busy(m.others_cpu))} |")
    mix_row = next((s for _, s in reversed(rows) if s.count), None)
    mid = [s for _, s in rows if s.n == args.procs_n and s.count]
    if mid:
        mix_row = mid[0]
    if mix_row is not None and mix_row.cmd_mix:
        w("")
        w(f"## Redis command mix at N={mix_row.n} (calls per move; commands inside scripts "
          "count)")
        w("")
        w("| command | calls/move |")
        w("|---|---:|")
        for cmd, calls in list(mix_row.cmd_mix.items())[:12]:
            w(f"| {cmd} | {calls / mix_row.count:.2f} |")
    targets = target_rows(rows)
    if targets:
        w("")
        w("## Targets (this run)")
        w("")
        w("| target | measured | met |")
        w("|---|---|:---:|")
        for what, measured, ok in targets:
            w(f"| {what} | {measured} | {'yes' if ok else 'no'} |")
    w("")
    w("## Checks")
    w("")
    shown: list[Measure] = []
    for m in [x for pair in rows for x in pair] + procs:
        if any(m is x for x in shown):
            continue
        shown.append(m)
        ended = f" {m.endings}" if m.endings else ""
        homes = f", joiners moved home {m.moved}" if m.affine else ""
        w(f"- {m.target} N={m.n} ×{m.servers}{homes}: {m.count} replies in the window, errors "
          f"{m.errors or 'none'}, games over {m.finished}{ended}, connections that hit the "
          f"move cap {m.exhausted}, moves drawn inline {m.inline}, setup {m.setup_s:.1f} s")
    if profile is not None:
        w("")
        w(f"## Profile of the server under load (py-spy, N={args.profile_n}, "
          f"{profile['samples']} non-idle samples)")
        w("")
        w("Own time by function (leaf frame):")
        w("")
        w("| % | function (file) |")
        w("|---:|---|")
        for frame, c in profile["own"]:
            w(f"| {100 * c / profile['samples']:.1f} | `{frame}` |")
        w("")
        w("Own time by layer:")
        w("")
        w("| % | layer |")
        w("|---:|---|")
        for f, c in profile["layers"]:
            w(f"| {100 * c / profile['samples']:.1f} | {f} |")
        w("")
        w("Inclusive time of solrace functions (the sample's stack passes through them):")
        w("")
        w("| % | function (file) |")
        w("|---:|---|")
        for frame, c in profile["ours_inclusive"]:
            w(f"| {100 * c / profile['samples']:.1f} | `{frame}` |")
    print("\n".join(out), flush=True)


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
    global LOOP
    args = parse_args(argv)
    LOOP = args.loop
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
