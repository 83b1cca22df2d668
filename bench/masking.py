"""Spectator masking cost, per variant: folding a race's events into masked spectator forms.

Run ``python bench/masking.py [--racers N] [--events N] [--repeat N]``. A race of ``--racers``
racers is played at random (seeded, so every run folds the same events) up to ``--events``
progress events, the way the server logs them (``move`` + the view ``delta``); then each race
is folded ``--repeat`` times, and the fastest fold counts:

- ``plain``: the boards folded from the deltas (what spectating cost before masking, and the
  baseline measured in the same run);
- ``masked``: :class:`~solrace.shared.masking.Masker`, which replays every move on the deal
  with its cards as objects and masks each delta — the work a server process does once per
  watched race and event (all its spectators share it).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from solrace.server.fanout.spectate import fold_boards
from solrace.shared.engine import Game
from solrace.shared.masking import Masker
from solrace.shared.variants import VARIANTS
from solrace.shared.views import advance, view_of


def race_events(variant: str, racers: int, events: int, seed: int) -> list[dict[str, Any]]:
    names = [f"p{i}" for i in range(racers)]
    games = {p: Game(variant, None, seed) for p in names}
    views = {p: view_of(g).wire() for p, g in games.items()}
    out: list[dict[str, Any]] = [{"k": "join", "player": p} for p in names]
    out.append({"k": "start", "view": view_of(Game(variant, None, seed)).wire()})
    rnd = random.Random(seed)
    playing = list(names)
    while playing and len(out) < events + racers + 1:
        p = rnd.choice(playing)
        g = games[p]
        legal = g.legal_moves()
        if not legal or g.is_over():
            playing.remove(p)
            continue
        move = rnd.choice(legal)
        g.push(move)
        views[p], change = advance(g, views[p])
        out.append({"k": "progress", "player": p, "moves": len(g.moves), "home": g.cards_home,
                    "move": move.text(), "delta": change})
    for v, ev in enumerate(out, 1):
        ev["v"] = v
    return out


def fastest(fn: Any, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--racers", type=int, default=3)
    ap.add_argument("--events", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{args.racers} racers, up to {args.events} progress events, fastest of {args.repeat}")
    print(f"{'variant':24} {'events':>6} {'plain µs/ev':>12} {'masked µs/ev':>13} {'ratio':>6}")
    for name in sorted(VARIANTS):
        events = race_events(name, args.racers, args.events, seed=20261201)

        def masked(events: list[dict[str, Any]] = events, name: str = name) -> None:
            m = Masker(name, None, 20261201)
            for ev in events:
                m.push(ev)

        plain = fastest(lambda events=events: fold_boards(events), args.repeat)
        mask = fastest(masked, args.repeat)
        n = len(events)
        print(f"{name:24} {n:6} {plain / n * 1e6:12.1f} {mask / n * 1e6:13.1f} "
              f"{mask / plain:6.1f}")


if __name__ == "__main__":
    main()
