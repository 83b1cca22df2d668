"""Recurring tournaments (docs/tournaments.md, "Scheduling"): what they are and when the next
one starts.

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
    """An operator's recurring tournament: its variant and options, when, each deal's time,
    and its format — an arena, or a scheduled event of ``deals`` deals."""

    text: str  # as written: part of each instance's id, so every process agrees on it
    variant: str
    options: tuple[tuple[str, str], ...]
    recurrence: Recurrence
    deal_seconds: int
    fmt: str = "arena"
    deals: int = 0  # an event's deals (0 for an arena)

    def instance_id(self, starts_at: int) -> str:
        """The id of the instance starting at ``starts_at``: the same on every process."""
        import hashlib

        return hashlib.sha256(f"{self.text}|{starts_at}".encode()).hexdigest()[:16]

    @property
    def window_ms(self) -> int:
        """How long an instance runs: the recurrence's duration for an arena, its deals' time
        for an event (which may be shorter)."""
        if self.fmt == "event":
            return self.deals * self.deal_seconds * 1000
        return self.recurrence.duration * MINUTE_MS

    def instances(self, now_ms: int) -> list[int]:
        """The starts of the instance running at ``now_ms`` (if any) and of the next one."""
        period_ms = self.recurrence.period * MINUTE_MS
        nxt = self.recurrence.next_start(now_ms)
        previous = nxt - period_ms
        out = [nxt]
        if previous + self.window_ms > now_ms:
            out.insert(0, previous)
        return out


MAX_EVENT_DEALS = 5


def parse_arena(part: str) -> ArenaSpec:
    """One recurring tournament, ``<variant> [key=value …] | <recurrence> | <deal seconds>``
    with an optional fourth field ``event N`` (a scheduled event of N deals, 1..5, instead of
    an arena). Variants and options are checked when the server creates an instance."""
    fields = [f.strip() for f in part.split("|")]
    if len(fields) not in (3, 4) or not fields[0]:
        raise ScheduleError(f"a tournament is '<variant> [k=v …] | <recurrence> | <deal "
                            f"seconds> [| event N]', not {part!r}")
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
    deal_seconds, fmt, deals = int(fields[2]), "arena", 0
    if len(fields) == 4:
        m = re.fullmatch(r"event (\d+)", " ".join(fields[3].lower().split()))
        if m is None or not 1 <= int(m.group(1)) <= MAX_EVENT_DEALS:
            raise ScheduleError(f"the fourth field is 'event N' (N deals, 1..{MAX_EVENT_DEALS})"
                                f", not {fields[3]!r}")
        fmt, deals = "event", int(m.group(1))
    if deal_seconds * max(1, deals) > rec.duration * 60:
        raise ScheduleError("the deals must fit in the tournament's window")
    return ArenaSpec(" ".join(part.split()), words[0], tuple(options), rec, deal_seconds,
                     fmt, deals)


def parse_arenas(text: str) -> tuple[ArenaSpec, ...]:
    """Operators' recurring tournaments, ``;``-separated, each as :func:`parse_arena` reads
    it, e.g. ``unlimited draw=3 | every 1h at :00 for 30m | 300; forty-and-eight | daily at
    20:00 for 45m | 180 | event 3``."""
    return tuple(parse_arena(p.strip()) for p in text.split(";") if p.strip())
