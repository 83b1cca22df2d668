"""py-spy on the server under load: started for one window, its raw stacks summarised by own
time per function and per layer (event loop, server, engine, redis-py, websockets, ...)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

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


