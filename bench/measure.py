"""One measured window (:class:`Measure`) and the arithmetic around it: percentiles, ratios,
players split over load generators."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

# ----------------------------------------------------------------------------- one window


def pct(sorted_us: Sequence[int], q: float) -> float:
    """Nearest-rank percentile of sorted microseconds, in milliseconds (nan when empty)."""
    if not sorted_us:
        return math.nan
    return sorted_us[min(len(sorted_us) - 1, max(0, math.ceil(q * len(sorted_us)) - 1))] / 1000


@dataclass
class Measure:
    """One measured window against one target."""

    target: str  # "echo" or "solrace"
    n: int
    servers: int
    window: float
    count: int
    p50: float
    p99: float
    max: float
    server_cpu: list[float]  # seconds per server process
    loadgen_cpu: float
    loadgens: int
    sampled: float = 0.0  # wall seconds between the two CPU samples (≈ window)
    machine_cpu: float = 0.0  # every process on the machine, the benchmark's included
    redis_cpu: float = 0.0
    redis_cmds: int = 0
    cmd_mix: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    finished: int = 0
    endings: dict[str, int] = field(default_factory=dict)
    exhausted: int = 0
    inline: int = 0
    affine: bool = False  # joiners followed the race's home (docs/protocol.md 8.1)
    moved: int = 0  # joiners that moved to their race's home during set-up
    frames_per: float = math.nan  # frames the clients received per reply (race events too)
    msgs_per: float = math.nan  # messages in those frames per reply (batch frames carry several)
    setup_s: float = 0.0

    @property
    def rate(self) -> float:
        return self.count / self.window

    @property
    def server_us(self) -> float:
        return sum(self.server_cpu) / self.count * 1e6 if self.count else math.nan

    @property
    def redis_us(self) -> float:
        return self.redis_cpu / self.count * 1e6 if self.count else math.nan

    @property
    def cmds_per(self) -> float:
        return self.redis_cmds / self.count if self.count else math.nan

    @property
    def others_cpu(self) -> float:
        """CPU seconds of processes outside the benchmark (another job on a shared machine)."""
        ours = sum(self.server_cpu) + self.redis_cpu + self.loadgen_cpu
        return max(0.0, self.machine_cpu - ours)

    def busy(self, seconds: float) -> float:
        """CPU seconds as % of one core over the sampled window."""
        return 100 * seconds / (self.sampled or self.window)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(rate=self.rate, server_us=self.server_us, redis_us=self.redis_us,
                   cmds_per=self.cmds_per, others_cpu=self.others_cpu)
        return out


def split_players(n: int, procs: int) -> list[int]:
    """Active players per load generator, whole races in each (an odd one only in the last)."""
    pairs = (n + 1) // 2
    procs = max(1, min(procs, pairs))
    per = [pairs // procs + (1 if i < pairs % procs else 0) for i in range(procs)]
    counts = [2 * p for p in per]
    counts[-1] -= 2 * pairs - n
    return [c for c in counts if c > 0]



def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


def split_even(n: int, procs: int) -> list[int]:
    procs = max(1, min(procs, n))
    return [n // procs + (1 if i < n % procs else 0) for i in range(procs)]


_T0 = time.monotonic()

