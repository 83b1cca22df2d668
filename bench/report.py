"""The report of a bench run as Markdown on stdout: the tables, the targets, the command mix,
the processes' CPU and the profile summary (docs/performance.md, "Reading the tables")."""

from __future__ import annotations

import argparse
import math
import os
from typing import Any

import loadgen  # bench/loadgen.py: this script's directory is on sys.path
from measure import Measure  # bench/measure.py: a sibling on sys.path

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


