"""What a solve is allowed to spend (:class:`Budget`) and what it answers (:class:`SolveResult`).

A budget in nodes is deterministic: the same deal and the same node budget give the same answer
and the same move list on every machine, which is what certifying a daily deal needs. A budget
in seconds is for people at a terminal; its answer depends on the machine's speed.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Any

from solrace.shared.notation import Move


class Outcome(enum.Enum):
    WON = "won"  # the moves replay to a win through Game.push
    LOST = "lost"  # every reachable position was searched: no win exists
    UNKNOWN = "unknown"  # the budget ran out first


_BUDGET_RE = re.compile(r"^(?:(\d+(?:\.\d+)?)s|(\d+)([km]?))$")


@dataclass(frozen=True, slots=True)
class Budget:
    """Stop after ``nodes`` distinct positions or ``seconds`` of wall time, whichever comes
    first; ``None`` means no limit of that kind (at least one must be set)."""

    nodes: int | None = 200_000
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.nodes is None and self.seconds is None:
            raise ValueError("a budget needs a node limit, a time limit or both")
        if self.nodes is not None and self.nodes < 0:
            raise ValueError("the node budget must not be negative")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError("the time budget must be positive")

    @classmethod
    def parse(cls, text: str) -> Budget:
        """``"50000"``, ``"50k"``, ``"2m"`` (nodes) or ``"10s"``, ``"2.5s"`` (seconds)."""
        m = _BUDGET_RE.match(text.strip().lower().replace("_", ""))
        if m is None:
            raise ValueError(f"not a budget: {text!r} (expected e.g. 50000, 50k or 10s)")
        secs, count, unit = m.groups()
        if secs is not None:
            return cls(nodes=None, seconds=float(secs))
        return cls(nodes=int(count) * {"": 1, "k": 1_000, "m": 1_000_000}[unit], seconds=None)

    def text(self) -> str:
        parts = []
        if self.nodes is not None:
            parts.append(f"{self.nodes} nodes")
        if self.seconds is not None:
            parts.append(f"{self.seconds:g} s")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class SolveResult:
    """The answer for one position: ``moves`` is empty unless the outcome is ``WON``."""

    outcome: Outcome
    moves: tuple[Move, ...] = ()
    nodes: int = 0
    seconds: float = 0.0
    budget: Budget = field(default_factory=Budget)

    @property
    def won(self) -> bool:
        return self.outcome is Outcome.WON

    @property
    def par(self) -> int | None:
        """The solver's move count (every draw and redeal counts as one move), or ``None``
        when no win was found. An upper bound on the shortest win, not the shortest."""
        return len(self.moves) if self.won else None

    def move_texts(self) -> list[str]:
        return [m.text() for m in self.moves]

    def wire(self) -> dict[str, Any]:
        """Plain data for JSON (the ``solve --json`` document's core)."""
        return {
            "result": self.outcome.value,
            "moves": self.move_texts(),
            "par": self.par,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 4),
            "budget": {"nodes": self.budget.nodes, "seconds": self.budget.seconds},
        }
