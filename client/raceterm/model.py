"""What the race terminal knows and says without I/O: one racer's line of the race, the words
it reads, and the texts it builds from the server's replies (a hint, the pile ids, a variant's
advice)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solrace.shared.variants import VARIANTS

DEFAULT_VARIANT = "unlimited"
RECONNECT_FOR = 60.0  # seconds of retrying before giving up on a lost connection
MESSAGES = 5  # message lines shown on the terminal frame ('log' shows more)
HISTORY = 50  # message lines kept for 'log'
LOG_WORDS = frozenset({"log", "messages"})
QUIT_WORDS = frozenset({"quit", "exit", "q"})
HELP_WORDS = frozenset({"help", "h", "?"})
BOARD_WORDS = frozenset({"board", "b"})
HINT_WORDS = frozenset({"hint"})
READY_WORDS = frozenset({"", "ready", "r"})
PILE_KINDS = {"f": "foundations", "t": "tableau", "r": "reserve", "c": "cells", "s": "stock",
              "w": "waste"}


@dataclass(slots=True)
class Racer:
    """What this client knows of one racer: from the lobby summary and progress events."""

    pid: str
    name: str
    ready: bool = False
    home: int | None = None
    moves: int = 0
    result: str | None = None
    elapsed: int = 0
    online: bool = True  # connected to the server (``presence`` frames)


def default_options_advice(summary: dict[str, Any]) -> str | None:
    """The variant's advice (``Variant.advice``) when the race plays its default options."""
    variant = VARIANTS.get(str(summary.get("variant")))
    if variant is None or not variant.advice:
        return None
    if dict(summary.get("options") or {}) != variant.normalize({}):
        return None
    return f"note: {variant.title} {variant.advice}"


def hint_text(reply: dict[str, Any], board: dict[str, Any] | None = None) -> str:
    """One line for a ``hint`` reply: the move to type, or why there is none."""
    when = ""
    if board is not None and int(board["seq"]) != int(reply["seq"]):
        when = f" (for the position after {reply['seq']} moves)"
    if reply.get("move"):
        par = reply.get("par")
        line = f" — a win in {par} moves from here" if par is not None else ""
        return f"hint: {reply['move']}{line}{when}"
    if reply.get("outcome") == "lost":
        return f"no hint: the solver proved this position lost (no line wins){when}"
    return f"no hint: no winning line found within the budget{when}"


def pile_summary(view: dict[str, Any]) -> str:
    """``f1-f8 foundations · t1-t10 tableau · s stock · w waste``, from a view's pile ids."""
    groups: dict[str, list[str]] = {}
    for pid in view["piles"]:
        groups.setdefault(pid[0], []).append(pid)
    parts = []
    for kind, label in PILE_KINDS.items():
        ids = sorted(groups.get(kind, []), key=lambda p: int(p[1:] or 0))
        if ids:
            span = ids[0] if len(ids) == 1 else f"{ids[0]}-{ids[-1]}"
            parts.append(f"{span} {label}")
    return " · ".join(parts)

