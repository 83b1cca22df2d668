"""The sans-I/O cost of one move: what the server runs in ``shared/`` per move, step by step.

Run ``python bench/move_cost.py [--repeat R] [--games G] [--variants LABEL ...]`` for a table of
microseconds per move per step, or ``--instructions`` for instructions per move per step counted
by valgrind (exact and repeatable, whatever else the machine runs; about a minute per step).
``--smoke`` is a few seconds in all (CI).

The steps mirror ``server/game/racemoves.py`` ``_apply`` and ``_acked`` and the delivery of the
move's event (``server/fanout/hub.py``, ``server/fanout/feed.py``), without any I/O: the racer's
request decoded (``decode``), ``Game.push`` of its text (``push``: parse, validation, apply),
``Game.status`` (``status``), the view delta (``view``: ``views.advance``), the progress event
built and packed for the store (``event``), the legal moves in full notation (``legal``:
``pointing.legal_texts``), the ack built and encoded (``ack``), and the event as the rival
receives it (``rival``: unpacked as the pub/sub hub does, ``protocol.racer_event``, encoded).
``mask`` (only when a spectator watches the race: once per race and event, whoever watches) is
``masking.Masker.push`` and is not in ``total``.

The moves are uniformly random legal moves of seeded games (as ``bench/loadgen.py`` draws them),
played until the game is over or ``--moves`` moves, precomputed: only the server's work is
timed. Each (move, step) counts at its fastest of ``--repeat`` replays, so a busy machine still
gives figures that compare. The ``loadgen`` row is the load generator's own mix: Unlimited
(draw 1), long random games.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack

# The engine under test, bound by load() (another copy of the package with --shared DIR)
P: Any = None
Game: Any = None
Status: Any = None
Masker: Any = None
legal_texts: Any = None
advance: Any = None
view_of: Any = None


def load(shared_dir: str | None) -> None:
    """Bind the modules measured: ``solrace.shared``, or the copy in ``shared_dir``."""
    global P, Game, Status, Masker, legal_texts, advance, view_of
    if shared_dir is not None:
        sys.path.insert(0, str(Path(__file__).parent))
        from engine import load_engine  # bench/engine.py mounts a copy as solrace.shared

        load_engine(shared_dir)
    from solrace.shared import protocol
    from solrace.shared.engine import Game as G
    from solrace.shared.engine import Status as S
    from solrace.shared.masking import Masker as M
    from solrace.shared.pointing import legal_texts as lt
    from solrace.shared.views import advance as adv
    from solrace.shared.views import view_of as vo

    P, Game, Status, Masker, legal_texts, advance, view_of = protocol, G, S, M, lt, adv, vo

# (label, variant, options, games, moves per game at most)
CONFIGS: tuple[tuple[str, str, dict[str, str], int, int], ...] = (
    ("sixes-and-sevens", "sixes-and-sevens", {}, 8, 300),
    ("seven-by-five", "seven-by-five", {}, 40, 300),
    ("double-aces-and-kings", "double-aces-and-kings", {}, 8, 300),
    ("unlimited", "unlimited", {}, 8, 300),
    ("forty-and-eight", "forty-and-eight", {}, 8, 300),
    ("loadgen", "unlimited", {"draw": "1"}, 4, 1000),
)
STEPS = ("decode", "push", "status", "view", "event", "legal", "ack", "rival")
EXTRA = ("mask",)  # per spectated race, not in the total
RACE = "0123456789abcdef"
RIVAL = "p-rival"


def random_games(variant: str, options: dict[str, str], games: int, moves: int
                 ) -> list[tuple[int, list[str]]]:
    """Seeded random games: (seed, move texts), each until over or ``moves`` long."""
    out = []
    for seed in range(1, games + 1):
        game = Game(variant, options, seed)
        rng = random.Random(seed)
        texts: list[str] = []
        while len(texts) < moves and game.status is Status.PLAYING:
            legal = game.legal_moves()
            if not legal:
                break
            texts.append(game.push(rng.choice(legal)).text())
        out.append((seed, texts))
    return out


class Replay:
    """One game replayed the way the server serves it; :meth:`move` runs the steps of one move
    (the first ``upto`` of them) and stores each step's time in ``times``."""

    def __init__(self, variant: str, options: dict[str, str], seed: int, spectated: bool
                 ) -> None:
        self.game = Game(variant, options, seed)
        self.view = view_of(self.game).wire()
        self.version = 10
        self.masker = None
        if spectated:
            self.masker = Masker(variant, options, seed)
            for v, ev in enumerate(({"k": "join", "player": "me"},
                                    {"k": "join", "player": RIVAL},
                                    {"k": "start", "view": self.view}), 1):
                self.masker.push({**ev, "v": v})
            self.version = 3

    def move(self, frame: bytes, times: list[int], upto: int) -> None:
        clock = time.perf_counter_ns
        game = self.game
        if upto < 1:
            return
        t0 = clock()
        req = P.parse_request(P.decode(frame))
        t1 = clock()
        times[0] = t1 - t0
        if upto < 2:
            return
        move = game.push(req.move)  # type: ignore[attr-defined]
        t2 = clock()
        times[1] = t2 - t1
        if upto < 3:
            return
        status = game.status
        result = status.value if status in (Status.WON, Status.LOST) else ""
        t3 = clock()
        times[2] = t3 - t2
        if upto < 4:
            return
        after, change = advance(game, self.view)
        t4 = clock()
        times[3] = t4 - t3
        if upto < 5:
            return
        home, done = game.cards_home, move.text()
        event: dict[str, Any] = {
            "k": "progress", "player": "me", "home": home,
            "moves": len(game.moves), "move": done, "delta": change,
        }
        if result:
            event["result"] = result
        packed = msgpack.packb(event)
        self.view = after
        self.version += 1
        t5 = clock()
        times[4] = t5 - t4
        if upto < 6:
            return
        legal = legal_texts(game)
        t6 = clock()
        times[5] = t6 - t5
        if upto < 7:
            return
        ack = {"seq": len(game.moves), "delta": change, "v": self.version, "elapsed": 12345,
               "status": status.value, "move": done, "moves": [done], "legal": legal}
        P.encode(P.reply(req.id, "ack", race=req.race, **ack))  # type: ignore[attr-defined]
        t7 = clock()
        times[6] = t7 - t6
        if upto < 8:
            return
        ev = msgpack.unpackb(packed, raw=False)
        ev["v"] = self.version
        P.encode({"t": "event", "race": RACE, **P.racer_event(ev)})
        t8 = clock()
        times[7] = t8 - t7
        if upto < 9 or self.masker is None:
            return
        ev = msgpack.unpackb(packed, raw=False)
        ev["v"] = self.version
        self.masker.push(ev)
        times[8] = clock() - t8


def frames(texts: list[str]) -> list[bytes]:
    return [P.encode({"t": "move", "id": 1000 + i, "race": RACE, "seq": i, "move": text})
            for i, text in enumerate(texts)]


def measure(variant: str, options: dict[str, str], games: int, moves: int, repeat: int,
            upto: int = len(STEPS) + 1) -> tuple[int, dict[str, float]]:
    """(moves, ns per move per step), each (move, step) at its fastest of ``repeat`` replays."""
    played = [(seed, frames(texts)) for seed, texts in random_games(variant, options, games,
                                                                      moves)]
    count = sum(len(f) for _, f in played)
    width = len(STEPS) + len(EXTRA)
    best = [[1 << 62] * width for _ in range(count)]
    times = [0] * width
    for _ in range(repeat):
        i = 0
        for seed, fs in played:
            replay = Replay(variant, options, seed, spectated=True)
            for frame in fs:
                replay.move(frame, times, upto)
                row = best[i]
                for k in range(width):
                    if times[k] < row[k]:
                        row[k] = times[k]
                i += 1
    names = STEPS + EXTRA
    return count, {names[k]: sum(r[k] for r in best) / max(count, 1) for k in range(width)}


def table(rows: dict[str, tuple[int, dict[str, float]]], unit: str, scale: float) -> str:
    head = ["variant", "moves", *STEPS, "total", *EXTRA]
    body = []
    for label, (count, per) in rows.items():
        total = sum(per[s] for s in STEPS)
        cells = [per[s] for s in STEPS] + [total] + [per[s] for s in EXTRA]
        body.append([label, str(count)] + [f"{c / scale:,.1f}" if unit == "us"
                                           else f"{c / scale:,.0f}" for c in cells])
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    how = "fastest of the repeats" if unit == "us" else "valgrind"
    lines = [f"{unit} per move, per step ({how})"]
    for r in [head, *body]:
        lines.append("  ".join([r[0].ljust(widths[0])]
                               + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- instructions

def _count_instructions(args: list[str], shared_dir: str | None) -> int:
    """Instructions a run of this script with ``args`` executes (valgrind's cachegrind)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
               sys.executable, __file__, "--stage", *args]
        if shared_dir is not None:
            cmd += ["--shared", shared_dir]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if done.returncode:
            raise SystemExit(f"valgrind run failed:\n{done.stderr[-2000:]}")
        m = re.search(r"^summary:\s+(\d+)", out.read_text(), re.M)
        if m is None:
            raise SystemExit("no summary in the cachegrind output")
        return int(m.group(1))


def instructions(configs: list[tuple[str, str, dict[str, str], int, int]], scale: int,
                 shared_dir: str | None) -> dict[str, tuple[int, dict[str, float]]]:
    """Per config, instructions per move per step: one valgrind run per prefix of the steps
    (steps 1..k), each step the difference between two prefixes (Python's start-up, the
    imports and the games' set-up cancel out)."""
    rows = {}
    for label, variant, options, games, moves in configs:
        games, moves = max(1, games // scale), max(1, moves // scale)
        base = ["--variant", variant, "--options", ",".join(f"{k}={v}" for k, v in
                                                             options.items()),
                "--games", str(games), "--moves", str(moves)]
        counts = [_count_instructions([*base, "--upto", str(k)], shared_dir)
                  for k in range(len(STEPS) + len(EXTRA) + 1)]
        n = sum(len(t) for _, t in random_games(variant, options, games, moves))
        names = STEPS + EXTRA
        rows[label] = (n, {names[k]: (counts[k + 1] - counts[k]) / n for k in range(len(names))})
        print(f"  counted {label}", file=sys.stderr)
    return rows


def stage(ns: argparse.Namespace) -> None:
    """One replay of one config, running the first ``--upto`` steps (under valgrind)."""
    options = dict(kv.split("=", 1) for kv in ns.options.split(",") if kv)
    # A warm-up game through every step first (the same in every run, so it cancels out): the
    # one-time costs (first calls filling caches) stay out of the per-move counts.
    measure(ns.variant, options, 1, 30, 1)
    measure(ns.variant, options, ns.games, ns.moves, 1, ns.upto)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=15, help="replays per config (default 15)")
    ap.add_argument("--variants", nargs="+", metavar="LABEL",
                    help="rows to run: " + ", ".join(c[0] for c in CONFIGS))
    ap.add_argument("--instructions", action="store_true",
                    help="count instructions with valgrind instead of timing")
    ap.add_argument("--scale", type=int, default=4,
                    help="--instructions: divide games and moves per game by this (default 4)")
    ap.add_argument("--smoke", action="store_true", help="a few seconds in all (CI)")
    ap.add_argument("--shared", metavar="DIR",
                    help="measure the copy of the shared package in DIR (e.g. an older commit's)")
    ap.add_argument("--stage", action="store_true", help=argparse.SUPPRESS)
    for name, kind in (("variant", str), ("options", str), ("games", int), ("moves", int),
                       ("upto", int)):
        ap.add_argument(f"--{name}", type=kind, help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    load(ns.shared)
    if ns.stage:
        stage(ns)
        return 0
    wanted = set(ns.variants or [c[0] for c in CONFIGS])
    unknown = wanted - {c[0] for c in CONFIGS}
    if unknown:
        raise SystemExit(f"unknown rows {sorted(unknown)}")
    configs = [c for c in CONFIGS if c[0] in wanted]
    if ns.instructions:
        print(table(instructions(configs, ns.scale, ns.shared), "instructions", 1))
        return 0
    rows = {}
    for label, variant, options, games, moves in configs:
        if ns.smoke:
            games, moves, ns.repeat = 1, 40, 2
        rows[label] = measure(variant, options, games, moves, ns.repeat)
    import solrace.shared as package

    accel = getattr(package, "_accel", None)  # shared/accel.py: compiled modules, if any
    built = f" ({accel.summary()})" if accel is not None else ""
    print(f"shared: {Path(package.__path__[0])}{built}")
    print(table(rows, "us", 1000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
