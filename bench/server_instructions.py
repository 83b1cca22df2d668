"""Instructions the server executes per move under load, counted by valgrind (callgrind).

    python bench/server_instructions.py --n 100 --seconds 20 [--out /tmp/cg.out]
    python bench/server_instructions.py --n 100 --seconds 20 --echo   # the floor: echo.py
    python bench/server_instructions.py --n 100 --seconds 20 --loop asyncio   # either loop

The same set-up as one solrace window of ``bench/server.py`` (a private Redis, the server with
its benchmark flags, ``bench/loadgen.py`` players in 2-seat races, each "send a move, wait for
its ack") — only the server runs under ``valgrind --tool=callgrind``, instrumenting nothing until
the window starts (``callgrind_control -i on``) and nothing after it ends. Printed: the moves
the server appended in the window (``XADD`` calls counted by Redis between the two toggles),
the instructions it executed meanwhile, and their ratio. ``--loop`` picks the event loop of the
server or of echo (as ``bench/server.py --loop``: both on the same one).

Why: wall-clock and CPU-time figures on a shared machine move by ±10 % between runs of the same
code, and the CPU per move of the same code rises when the server gets less of a core. An
instruction count does not depend on the rest of the machine. The server under valgrind is
about 50 times slower, so every connection always has a move waiting: batches per tick are as
large as they get, in both runs of a before/after comparison (compare counts from this script
only with each other). ``--out`` keeps callgrind's file for ``callgrind_annotate``: where the
instructions went, inside compiled modules and C libraries too (py-spy sees neither).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import children  # bench/children.py: the event loop the children start on (children.LOOP)
import redis
import runner  # bench/runner.py: the window (its profiler hooks and sleeps are patched here)
from solrace.server.ops.redisproc import RedisProcess

import server as bench  # bench/server.py: this script's directory is on sys.path

#: Run instead of ``-m solrace.server`` under valgrind: timing constants scaled to a server
#: about 100 times slower, so that its paths are those of a normal run. The session verified
#: between requests stays held (else every move would ask Redis); from the window's start
#: (SIGUSR1, sent with the toggle) a rival's event waits for that rival's next ack as it does at
#: full speed, instead of leaving alone on the event window's timer (not before: the races'
#: start events must not wait that long).
PRELUDE = (
    "import runpy, signal, solrace.server.fanout.hub as h, solrace.server.session.outbox as o; "
    "h.NOTICE_FRESH = 1e9; "
    "signal.signal(signal.SIGUSR1, lambda *_: setattr(o, 'EVENT_WINDOW', 30.0)); "
    "runpy.run_module('solrace.server', run_name='__main__', alter_sys=True)"
)


def calls_to(path: Path, needle: str) -> int:
    """Calls callgrind recorded to the functions whose name contains ``needle``."""
    names: dict[str, str] = {}
    total, current = 0, ""
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith(("fn=", "cfn=")):  # one table of names for both
            ref, _, name = line.partition("=")[2].partition(" ")
            if name:
                names[ref] = name
            if line[0] == "c":
                current = names.get(ref, "")
        elif line.startswith("calls=") and needle in current:
            total += int(line[6:].split()[0])
    return total


def _moves(r: redis.Redis) -> int:
    """XADDs so far: one per appended move (the move script adds its event to the stream)."""
    stats = r.info("commandstats")
    return int(stats.get("cmdstat_xadd", {}).get("calls", 0))


#: A compiled function called once per acknowledged move (its legal move texts): counted by
#: callgrind in the window exactly, where the XADD count can be off by the moves in flight at
#: either edge.
ACKED = "pointing_13legal_texts"

#: websockets' compiled unmasking (``websockets/speedups.c``), called once per frame a client
#: sent: echo's count of messages echoed, the same on either loop (asyncio's socket send,
#: counted before, is not what uvloop's transport calls: it writes through libuv).
ECHOED = "apply_mask"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100, help="player connections (100)")
    ap.add_argument("--seconds", type=float, default=20.0, help="measured window (20)")
    ap.add_argument("--warmup", type=float, default=5.0, help="warm-up before it (5)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="keep callgrind's output here")
    ap.add_argument("--echo", action="store_true",
                    help="count bench/echo.py instead (the floor): instructions per reply, "
                         "counted as the frames it unmasks (one per echoed message)")
    ap.add_argument("--ping-interval", type=float, default=None, metavar="SECONDS",
                    help="the server's websocket ping interval (its default, 20 s, unless "
                         "given): on a loaded machine the server under valgrind can miss a "
                         "pong by its timeout during set-up")
    ap.add_argument("--loop", choices=("asyncio", "uvloop"), default=children.LOOP,
                    help=f"event loop of the server or of echo ({children.LOOP})")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("valgrind (with callgrind_control) is not installed")
    work = Path(tempfile.mkdtemp(prefix="solrace-cg-"))
    out = args.out or work / "callgrind.out"
    marks: dict[str, Any] = {}
    valgrind = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                f"--callgrind-out-file={out}.%p"]
    real_spawn = children._spawn

    def spawn(argv: list[str], **kw: Any) -> subprocess.Popen[bytes]:
        if args.echo and any(a.endswith("echo.py") for a in argv):  # the floor: under valgrind
            argv = [*valgrind, *argv]
        elif "solrace.server" in argv and not args.echo:  # the server: under valgrind
            at = argv.index("-m")
            argv = [*valgrind, *argv[:at], "-c", PRELUDE, *argv[at + 2:]]
            if args.ping_interval is not None:
                argv += ["--ping-interval", f"{args.ping_interval:g}"]
        return real_spawn(argv, **kw)

    def toggle_on(pid: int, _seconds: float, _out: Path) -> None:
        if not args.echo:  # (echo has no such handler: the signal would end it)
            os.kill(pid, signal.SIGUSR1)
        marks["moves0"] = _moves(rds)
        subprocess.run(["callgrind_control", "-i", "on", str(pid)], check=True,
                       capture_output=True)
        marks["pid"], marks["t0"] = pid, time.time()
        return None

    rds: redis.Redis
    children.LOOP = args.loop
    ns = bench.parse_args(["--n", str(args.n), "--seconds", str(args.seconds), "--warmup",
                           str(args.warmup), "--seed", str(args.seed), "--no-profile"])
    redis_proc = RedisProcess(data_dir=work / "redis", appendonly=True)
    redis_proc.start()
    rds = redis.Redis.from_url(redis_proc.url)
    srv = None
    try:
        children._spawn = spawn  # (children.py starts the server and echo)
        srv = bench.start_echo(work) if args.echo else bench.start_solrace(redis_proc.url, work, 1)
        srv.wait(timeout=600)
        b = bench.Bench(ns, work)
        b.redis_proc, b.redis = redis_proc, rds
        # the window's profiler hook marks the window: callgrind collects from there ...
        runner.start_py_spy = toggle_on  # type: ignore[assignment]
        runner.finish_py_spy = lambda _spy: None  # type: ignore[assignment]
        real_sleep = runner._sleep_until

        def sleep_until(epoch: float) -> None:
            real_sleep(epoch)
            if "pid" in marks and "moves1" not in marks:  # ... to the window's end
                subprocess.run(["callgrind_control", "-i", "off", str(marks["pid"])],
                               check=True, capture_output=True)
                marks["moves1"] = _moves(rds)

        runner._sleep_until = sleep_until
        real_expect = bench.LoadGens.expect  # set-up under valgrind takes minutes, not seconds

        def expect(self: bench.LoadGens, tag: str, timeout: float) -> list[dict[str, Any]]:
            return real_expect(self, tag, timeout * 5)

        bench.LoadGens.expect = expect  # type: ignore[method-assign]
        bench.loadgen.STEP_TIMEOUT *= 10  # (the players are forked: they see this)
        m = b.window("echo" if args.echo else "solrace", args.n, [srv], profile=work / "unused")
    finally:
        if srv is not None:
            srv.stop(grace=120)
        rds.close()
        redis_proc.stop()
    moves = 0 if args.echo else marks["moves1"] - marks["moves0"]
    # one file per process (a forked worker writes its own): the server's is the busiest
    total, acks = 0, 0
    for path in out.parent.glob(out.name + ".*"):
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith(("totals:", "summary:")) and int(line.split()[1]) > total:
                total = int(line.split()[1])
                acks = calls_to(path, ECHOED if args.echo else ACKED)
    if not args.out:
        shutil.rmtree(work, ignore_errors=True)
    print(f"loop {args.loop}; N={args.n}, window {args.seconds:g} s: {moves} moves appended "
          f"({m.count} {'replies' if args.echo else 'acks'} counted by the players), "
          f"errors {m.errors or 'none'}")
    print(f"instructions in the window: {total:,}")
    if moves:
        print(f"instructions per move: {total / moves:,.0f} (per XADD)")
    if acks and args.echo:
        print(f"instructions per reply: {total / acks:,.0f} (per frame unmasked: {acks})")
    elif acks:
        print(f"instructions per move: {total / acks:,.0f} (per ack built: {acks} calls of "
              f"legal_texts, compiled)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
