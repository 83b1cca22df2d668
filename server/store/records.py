"""Plain results the store hands back: script answers and a race read in full.

Compiled (``shared/accel.py``, ``SERVER``): every move's script reply becomes a
:class:`ScriptResult` here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from solrace.server.game.lifecycle import RaceState


@dataclass(frozen=True, slots=True)
class ScriptResult:
    """A script's answer: ``status`` (ok, err, stale, dup, wait, …) and its values."""

    status: str
    values: tuple[Any, ...]

    @classmethod
    def of(cls, raw: Sequence[Any]) -> ScriptResult:
        """The result of a script's reply (every move builds one: the fields are set as the
        frozen dataclass's own ``__init__`` sets them, without its interpreted call)."""
        first = raw[0]
        status = first.decode() if isinstance(first, bytes) else str(first)
        vals = tuple([v.decode() if isinstance(v, bytes) else v for v in raw[1:]])
        res = _new(cls)
        _set_status(res, status)
        _set_values(res, vals)
        return res


_new = object.__new__
_set_status = ScriptResult.status.__set__  # type: ignore[attr-defined]
_set_values = ScriptResult.values.__set__  # type: ignore[attr-defined]


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
    def state(self) -> RaceState:
        """The race's state (:mod:`solrace.server.game.lifecycle` says what each one allows)."""
        return RaceState(self.meta["state"])

    def num(self, field: str, default: int = 0) -> int:
        v = self.meta.get(field)
        return int(v) if v not in (None, "") else default
