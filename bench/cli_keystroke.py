"""Keystroke-to-frame time of ``solrace practice`` at a terminal.

Run ``python bench/cli_keystroke.py [--keys 30] [--bot weak] [--baseline DIR] [--json FILE]``.
It starts a private Redis and one solrace server, then runs the CLI in a pseudo-terminal
(120×50) as a player would: a solo practice game of Unlimited (fixed seed), or one against
``--bot`` rivals whose progress keeps arriving while the player types. The terminal is
emulated with ``pyte`` (which also answers the cursor-position requests a real terminal
answers), so "the frame arrived" means what a player sees: the status line of the emulated
screen says one move more.

Each keystroke is ``s`` (the stock: draw, or turn the waste over — always a legal move of
Unlimited), a short pause, then Enter; the time runs from writing Enter to reading the output
that makes the screen show the new move count. Keystrokes are ``--gap`` seconds apart, so each
is timed alone. Each client plays ``--rounds`` sessions of ``--keys`` keystrokes (a fresh
game each, taking turns with the baseline); the table gives min, median, p95 and max over all
of them, and the bytes the CLI printed per keystroke. On a machine busy with other work the
min is the figure that still compares (the time no other process disturbed); the median and
p95 are what a player on such a machine gets.

``--baseline DIR`` (repeatable) also times another copy of the client package (``client/`` of
another checkout, mounted as ``solrace.client``) in the same run, against the same server. To
compare against the last commit, ``mkdir -p /tmp/base && git archive HEAD client | tar -x -C
/tmp/base`` then ``--baseline /tmp/base/client``.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyte
from children import SECRET, SERVER_FLAGS, Listening  # bench/children.py: a sibling
from solrace.server.ops.redisproc import RedisProcess

COLS, ROWS = 120, 50
MOVES = re.compile(r"you: (\d+) moves?\b")
STARTUP = 30.0  # seconds the CLI may take to show the first board
PER_KEY = 10.0  # seconds a keystroke's frame may take before the run fails

# The CLI's entry point, with an optional other copy of the client package mounted first.
LAUNCHER = """
import importlib.util, sys
where = sys.argv.pop(1)
if where:
    spec = importlib.util.spec_from_file_location(
        "solrace.client", where + "/__init__.py", submodule_search_locations=[where])
    module = importlib.util.module_from_spec(spec)
    sys.modules["solrace.client"] = module
    spec.loader.exec_module(module)
from solrace.client.cli import main
sys.exit(main())
"""


class Terminal:
    """The CLI in a pseudo-terminal, its output fed to an emulated screen."""

    def __init__(self, argv: list[str], env: dict[str, str], rows: int = ROWS) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, COLS, 0, 0))
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.screen = pyte.Screen(COLS, rows)
        self.screen.write_process_input = self._answer  # cursor-position reports
        self.stream = pyte.ByteStream(self.screen)
        self.log = bytearray()

    def _answer(self, data: str) -> None:
        os.write(self.master, data.encode())

    def type(self, text: str) -> float:
        """Write keys; the time they were written."""
        t = time.perf_counter()
        os.write(self.master, text.encode())
        return t

    def moves(self) -> int | None:
        for line in self.screen.display:
            found = MOVES.search(line)
            if found:
                return int(found[1])
        return None

    def until(self, done: Any, timeout: float) -> float:
        """Read output until ``done()``; the time the chunk that made it true was read."""
        deadline = time.monotonic() + timeout
        while True:
            if done():
                return time.perf_counter()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no such screen; last screen:\n" + self.text())
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                continue
            t = time.perf_counter()
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # the child closed the terminal
                raise TimeoutError("the CLI exited; last screen:\n" + self.text()) from None
            self.log += chunk
            self.stream.feed(chunk)
            if done():
                return t

    def drain(self, seconds: float) -> None:
        """Read whatever arrives for ``seconds``."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            if select.select([self.master], [], [], left)[0]:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    return
                self.log += chunk
                self.stream.feed(chunk)

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display).rstrip()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.type("quit\r")
            try:
                self.drain(0.5)
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        os.close(self.master)


@contextlib.contextmanager
def serving(work: Path) -> Iterator[str]:
    """A private Redis and one solrace server while inside; the server's URL."""
    redis_proc = RedisProcess(data_dir=work / "redis", appendonly=True).start()
    try:
        (work / "server").mkdir()
        server = Listening("solrace", [
            sys.executable, "-m", "solrace.server", "--host", "127.0.0.1", "--port", "0",
            "--redis-url", redis_proc.url, "--data-dir", str(work / "server"),
            "--secret", SECRET, *SERVER_FLAGS,
        ], work).wait()  # fmt: skip
        try:
            yield server.url
        finally:
            server.stop()
    finally:
        redis_proc.stop()


def practice(url: str, home: Path, name: str, *, client_dir: str = "", seed: int = 7,
             bots: list[str] | tuple[str, ...] = (), rows: int = ROWS) -> Terminal:
    """``solrace practice unlimited`` in a pseudo-terminal, its first board on screen."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SOLRACE_") or k.startswith("SOLRACE_COMPILED")}
    env.update(SOLRACE_HOME=str(home), TERM="xterm-256color")
    for var in ("COLUMNS", "LINES", "NO_COLOR"):
        env.pop(var, None)
    argv = [sys.executable, "-c", LAUNCHER, client_dir, "practice", "unlimited",
            "--seed", str(seed), "--server", url, "--name", name]
    for bot in bots:
        argv += ["--bot", bot]
    term = Terminal(argv, env, rows)
    try:
        term.until(lambda: term.moves() == 0 and "move>" in term.text(), STARTUP)
    except BaseException:
        term.close()
        raise
    return term


def time_keys(client_dir: str, url: str, home: Path, name: str,
              args: argparse.Namespace) -> tuple[list[float], int]:
    """The keystroke times (ms) of one CLI session, and the bytes it printed."""
    term = practice(url, home, name, client_dir=client_dir, seed=args.seed, bots=args.bots)
    times: list[float] = []
    try:
        term.drain(0.5)
        for k in range(1, args.keys + 1):
            term.type("s")
            term.drain(args.pause)
            t0 = term.type("\r")
            t1 = term.until(lambda k=k: (term.moves() or 0) >= k, PER_KEY)
            times.append((t1 - t0) * 1000)
            term.drain(args.gap)
    finally:
        term.close()
    return times, len(term.log)


def summary(label: str, times: list[float], printed: int) -> dict[str, Any]:
    times = sorted(times)
    return {
        "label": label, "keys": len(times),
        "min_ms": times[0], "median_ms": statistics.median(times),
        "p95_ms": times[max(0, round(0.95 * len(times)) - 1)],
        "max_ms": times[-1], "mean_ms": statistics.fmean(times),
        "output_bytes_per_key": printed // max(1, len(times)),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keys", type=int, default=30, help="timed keystrokes per session (30)")
    ap.add_argument("--bot", dest="bots", action="append", default=[],
                    choices=("weak", "medium", "strong"),
                    help="a practice bot racing alongside, repeatable (default: a solo game)")
    ap.add_argument("--seed", type=int, default=7, help="the deal (7)")
    ap.add_argument("--gap", type=float, default=0.25, help="seconds between keystrokes")
    ap.add_argument("--pause", type=float, default=0.05, help="seconds between s and Enter")
    ap.add_argument("--rounds", type=int, default=2,
                    help="CLI sessions per client, taking turns with the baseline (2)")
    ap.add_argument("--baseline", metavar="DIR", action="append", default=[],
                    help="also time this copy of client/ (repeatable)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="cli-keystroke-") as tmp:
        work = Path(tmp)
        trees = [("this tree", "")]
        for where in args.baseline:
            path = Path(where).resolve()
            trees.append((str(path) if len(args.baseline) > 1 else "baseline", str(path)))
        times: dict[str, list[float]] = {label: [] for label, _ in trees}
        printed = dict.fromkeys(times, 0)
        with serving(work) as url:
            for r in range(args.rounds):  # the trees take turns: drift in load hits both
                for i, (label, where) in enumerate(trees):
                    home = work / f"home{r}-{i}"
                    home.mkdir()
                    got, out = time_keys(where, url, home, f"key{r}x{i}", args)
                    times[label] += got
                    printed[label] += out

    rows = [summary(label, times[label], printed[label]) for label in times]
    game = "solo" if not args.bots else "vs " + " + ".join(args.bots)
    print(f"keystroke-to-frame, solrace practice unlimited --seed {args.seed} ({game}), "
          f"{COLS}x{ROWS} pty")
    width = max(12, *(len(r["label"]) for r in rows))
    print(f"{'client':<{width}} {'keys':>5} {'min ms':>7} {'median ms':>10} {'p95 ms':>8} "
          f"{'max ms':>8} {'bytes/key':>10}")
    for r in rows:
        print(f"{r['label']:<{width}} {r['keys']:>5} {r['min_ms']:>7.1f} {r['median_ms']:>10.1f} "
              f"{r['p95_ms']:>8.1f} {r['max_ms']:>8.1f} {r['output_bytes_per_key']:>10}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
