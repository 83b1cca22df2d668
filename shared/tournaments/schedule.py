"""Recurring tournaments (docs/tournaments.md, "Scheduling"): when the next one starts.

An operator writes a recurrence in words, UTC:

* ``every 1h at :00 for 30m`` — each hour on the hour, 30 minutes long;
* ``every 2h at :30 for 45m`` — at 00:30, 02:30, 04:30, …;
* ``every 15m for 10m`` — at :00, :15, :30, :45;
* ``daily at 20:00 for 30m`` — each day at 20:00.

The period divides the day (so the times are the same every day) and the tournament ends
before the next one starts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DAY_MIN = 24 * 60
MINUTE_MS = 60_000

_EVERY = re.compile(r"every (\d+)(m|h)(?: at :(\d\d))? for (\d+)m")
_DAILY = re.compile(r"daily at (\d\d):(\d\d) for (\d+)m")


class ScheduleError(ValueError):
    """A recurrence that does not parse or does not fit the rules above."""


@dataclass(frozen=True, slots=True)
class Recurrence:
    """Starts at every minute ``t`` (UTC, since the epoch) with ``t ≡ offset (mod period)``;
    each lasts ``duration`` minutes."""

    period: int
    offset: int
    duration: int

    def __post_init__(self) -> None:
        if self.period <= 0 or DAY_MIN % self.period:
            raise ScheduleError(f"a period must divide the day: {self.period} minutes do not")
        if not 0 <= self.offset < self.period:
            raise ScheduleError("the start must fall within the period")
        if not 1 <= self.duration <= self.period:
            raise ScheduleError("a tournament must end before the next one starts")

    def next_start(self, now_ms: int) -> int:
        """The first start at or after ``now_ms`` (ms since the epoch, UTC)."""
        minute = -(-now_ms // MINUTE_MS)  # the next whole minute (now, if on one)
        ahead = (self.offset - minute) % self.period
        return (minute + ahead) * MINUTE_MS

    def starts(self, from_ms: int, count: int) -> list[int]:
        first = self.next_start(from_ms)
        return [first + i * self.period * MINUTE_MS for i in range(count)]


def parse(text: str) -> Recurrence:
    words = " ".join(text.lower().split())
    m = _EVERY.fullmatch(words)
    if m:
        n, unit, at, duration = m.groups()
        period = int(n) * (60 if unit == "h" else 1)
        offset = int(at) if at is not None else 0
        if at is not None and unit == "m":
            raise ScheduleError("'at :MM' goes with a period in hours")
        if int(offset) >= 60:
            raise ScheduleError("minutes run 00..59")
        return Recurrence(period, offset, int(duration))
    m = _DAILY.fullmatch(words)
    if m:
        hh, mm, duration = (int(g) for g in m.groups())
        if hh > 23 or mm > 59:
            raise ScheduleError("a time of day runs 00:00..23:59")
        return Recurrence(DAY_MIN, hh * 60 + mm, duration)
    raise ScheduleError(f"not a recurrence: {text!r} (e.g. 'every 1h at :00 for 30m', "
                        "'daily at 20:00 for 30m')")


@dataclass(frozen=True, slots=True)
class ArenaSpec:
    """An operator's recurring arena: its variant and options, when, and each deal's time."""

    text: str  # as written: part of each instance's id, so every process agrees on it
    variant: str
    options: tuple[tuple[str, str], ...]
    recurrence: Recurrence
    deal_seconds: int

    def instance_id(self, starts_at: int) -> str:
        """The id of the instance starting at ``starts_at``: the same on every process."""
        import hashlib

        return hashlib.sha256(f"{self.text}|{starts_at}".encode()).hexdigest()[:16]

    def instances(self, now_ms: int) -> list[int]:
        """The starts of the instance running at ``now_ms`` (if any) and of the next one."""
        period_ms = self.recurrence.period * MINUTE_MS
        nxt = self.recurrence.next_start(now_ms)
        previous = nxt - period_ms
        out = [nxt]
        if previous + self.recurrence.duration * MINUTE_MS > now_ms:
            out.insert(0, previous)
        return out


def parse_arenas(text: str) -> tuple[ArenaSpec, ...]:
    """Operators' recurring arenas, ``;``-separated, each
    ``<variant> [key=value …] | <recurrence> | <deal seconds>``, e.g.
    ``unlimited draw=3 | every 1h at :00 for 30m | 300; forty-and-eight | daily at 20:00 for
    45m | 180``. Variants and options are checked when the server creates an instance."""
    specs = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        fields = [f.strip() for f in part.split("|")]
        if len(fields) != 3 or not fields[0]:
            raise ScheduleError(f"an arena is '<variant> [k=v …] | <recurrence> | <deal "
                                f"seconds>', not {part!r}")
        words = fields[0].split()
        options = []
        for word in words[1:]:
            if "=" not in word:
                raise ScheduleError(f"an option is key=value, not {word!r}")
            key, value = word.split("=", 1)
            options.append((key, value))
        if not fields[2].isdigit() or not 30 <= int(fields[2]) <= 1800:
            raise ScheduleError("deal seconds run 30..1800")
        rec = parse(fields[1])
        if int(fields[2]) > rec.duration * 60:
            raise ScheduleError("a deal must fit in the arena's window")
        specs.append(ArenaSpec(" ".join(part.split()), words[0], tuple(options), rec,
                               int(fields[2])))
    return tuple(specs)
