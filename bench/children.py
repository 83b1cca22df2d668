"""The processes of a bench run and what /proc says of them: the servers under test and
echo (each a :class:`Listening` child), the forked load generators (:class:`LoadGens`), CPU
seconds, memory and the machine's description. Used by ``bench/server.py`` (and through it by
``cluster.py`` and ``server_instructions.py``)."""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import platform
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import loadgen  # bench/loadgen.py: this script's directory is on sys.path
import msgpack
import redis
import websockets
from solrace.server.ops.config import DEFAULT_LOOP
from solrace.server.ops.redisproc import _spawn, find_redis_server

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


#: event loop of the servers under test and of echo, always the same one (--loop): by default
#: the server's own default (uvloop where it can be imported), so the ratio compares like with
#: like; ``bench/server.py`` sets it from its ``--loop`` before starting anything
LOOP = DEFAULT_LOOP


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
    """Load-generator processes (by default forked ``loadgen.child_main``; bench/tournament.py
    spawns ``tournament_gen.main``), driven in lockstep over one pipe each."""

    def __init__(self, specs: Sequence[dict[str, Any]], target: Any = None,
                 method: str = "fork") -> None:
        ctx = mp.get_context(method)
        self.pipes = []
        self.procs = []
        for spec in specs:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=target or loadgen.child_main, args=(child, spec),
                               daemon=True)
            proc.start()
            child.close()
            self.pipes.append(parent)
            self.procs.append(proc)

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs if p.pid is not None]

    def expect(self, tag: str, timeout: float | None = None) -> list[Any]:
        """Each generator's next message, which must be ``tag``, within ``timeout`` seconds —
        or, with none, however long it takes (registering thousands of players takes minutes);
        a generator that dies is noticed within a second."""
        deadline = None if timeout is None else time.monotonic() + timeout
        out = []
        for pipe, proc in zip(self.pipes, self.procs):
            while not pipe.poll(1.0 if deadline is None
                                else min(1.0, max(0.0, deadline - time.monotonic()))):
                if not proc.is_alive():
                    raise RuntimeError(f"load generator {proc.pid} exited ({proc.exitcode}) "
                                       f"before sending {tag!r}")
                if deadline is not None and time.monotonic() >= deadline:
                    raise RuntimeError(f"load generator {proc.pid} sent no {tag!r} in "
                                       f"{timeout}s")
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
        """Close the pipes (a generator still waiting for the parent, after a failure, then
        stops), then wait for each generator to finish."""
        for pipe in self.pipes:
            pipe.close()
        for proc in self.procs:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
                proc.join()


_T0 = time.monotonic()


def progress(text: str) -> None:
    """A progress line on stderr (stdout carries only the report)."""
    print(f"[bench {time.monotonic() - _T0:6.1f}s] {text}", file=sys.stderr, flush=True)


def _sleep_until(epoch: float) -> None:
    time.sleep(max(0.0, epoch - time.time()))


