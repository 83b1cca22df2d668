"""Plain results the store hands back: script answers and a race read in full."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ScriptResult:
    """A script's answer: ``status`` (ok, err, stale, dup, wait, …) and its values."""

    status: str
    values: tuple[Any, ...]

    @classmethod
    def of(cls, raw: Sequence[Any]) -> ScriptResult:
        status = raw[0].decode() if isinstance(raw[0], bytes) else str(raw[0])
        vals = tuple(v.decode() if isinstance(v, bytes) else v for v in raw[1:])
        return cls(status, vals)


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def decode_map(raw: dict[Any, Any]) -> dict[str, str]:
    return {_s(k): _s(v) for k, v in raw.items()}


@dataclass(slots=True)
class RaceRecord:
    rid: str
    meta: dict[str, str]
    order: list[str]
    names: dict[str, str]
    ready: set[str]
    players: dict[str, dict[str, str]]

    @property
    def state(self) -> str:
        return self.meta["state"]

    def num(self, field: str, default: int = 0) -> int:
        v = self.meta.get(field)
        return int(v) if v not in (None, "") else default
