"""A tiny Prometheus registry: counters, gauges and histograms rendered as text format 0.0.4.

Why not ``prometheus_client``: we need three metric types and one text format, and updates sit
on the hot path of every message. Here an update is a dict lookup (for labelled metrics; cache
the child from :meth:`labels` to skip it) and an attribute increment, with no locks: the server
is one asyncio thread per process. Each process exposes its own numbers on ``/metrics``;
Prometheus sums across processes.

Label values must come from small fixed sets (message types the server knows, error codes,
variant names): every distinct value is a new time series kept forever, so never label with
raw client input — map unknown message types to one value such as ``"unknown"`` first.

Format reference: https://prometheus.io/docs/instrumenting/exposition_formats/ (0.0.4).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence

__all__ = [
    "CONNECTIONS",
    "CONTENT_TYPE",
    "ERRORS",
    "MESSAGES",
    "MOVES",
    "MOVE_ACK_SECONDS",
    "RACES_CREATED",
    "RACES_FINISHED",
    "REDIS_COMMANDS",
    "REGISTRY",
    "Counter",
    "Gauge",
    "Histogram",
    "Registry",
]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

_METRIC_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
_LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")

#: Move acknowledgement latency buckets, in seconds: a move is one engine check plus one Redis
#: round trip, so most should land in the low milliseconds.
ACK_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

Sample = tuple[str, dict[str, str], float]


def _format_value(value: float) -> str:
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value))


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


# -- children: the objects actually updated on the hot path ------------------------------


class CounterChild:
    """One counter time series."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: float = 0

    def inc(self, amount: float = 1) -> None:
        """Add ``amount`` (never negative: a counter only goes up)."""
        if amount < 0:
            raise ValueError("a counter cannot decrease")
        self.value += amount


class GaugeChild:
    """One gauge time series."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: float = 0

    def inc(self, amount: float = 1) -> None:
        self.value += amount

    def dec(self, amount: float = 1) -> None:
        self.value -= amount

    def set(self, value: float) -> None:
        self.value = value


class HistogramChild:
    """One histogram: per-bucket counts (made cumulative only when rendered), sum and count."""

    __slots__ = ("bounds", "count", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last one is the +Inf bucket
        self.count = 0
        self.sum: float = 0

    def observe(self, value: float) -> None:
        """Record one observation (bucket ``le=b`` counts values ``<= b``)."""
        self.counts[bisect_left(self.bounds, value)] += 1
        self.count += 1
        self.sum += value


# -- families: a metric name, its help, its label names and its children ----------------


class _Metric:
    kind = ""

    def __init__(self, name: str, help: str, labelnames: Sequence[str] = ()) -> None:
        if not _METRIC_NAME.match(name):
            raise ValueError(f"invalid metric name {name!r}")
        for label in labelnames:
            if not _LABEL_NAME.match(label) or label.startswith("__"):
                raise ValueError(f"invalid label name {label!r} for {name}")
        if len(set(labelnames)) != len(labelnames):
            raise ValueError(f"duplicate label names for {name}: {labelnames}")
        self.name = name
        self.help = help
        self.labelnames = tuple(labelnames)
        self._children: dict[tuple[str, ...], object] = {}
        if not self.labelnames:
            self._children[()] = self._new_child()

    def _new_child(self) -> object:
        raise NotImplementedError

    def _labels(self, values: tuple[object, ...], named: dict[str, object]) -> object:
        if not named:  # the hot path: string values already seen (they are their own key)
            child = self._children.get(values)  # type: ignore[call-overload]
            if child is not None:
                return child
        if named:
            if values or set(named) != set(self.labelnames):
                raise ValueError(f"{self.name} takes labels {self.labelnames}, got {named}")
            values = tuple(named[label] for label in self.labelnames)
        elif len(values) != len(self.labelnames):
            raise ValueError(f"{self.name} takes labels {self.labelnames}, got {values}")
        key = tuple(str(v) for v in values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = self._new_child()
        return child

    def _only(self) -> object:
        if self.labelnames:
            raise ValueError(f"{self.name} has labels {self.labelnames}: use .labels(...)")
        return self._children[()]

    def _series(self) -> Iterator[tuple[dict[str, str], object]]:
        for key in sorted(self._children):
            yield dict(zip(self.labelnames, key)), self._children[key]

    def samples(self) -> Iterator[Sample]:
        """Every (sample name, labels, value) of this metric, in rendering order."""
        for labels, child in self._series():
            yield self.name, labels, child.value  # type: ignore[attr-defined]


class Counter(_Metric):
    """A monotonically increasing count; name it ``..._total``."""

    kind = "counter"

    def _new_child(self) -> CounterChild:
        return CounterChild()

    def labels(self, *values: object, **named: object) -> CounterChild:
        """The series for these label values (positional in label order, or by name)."""
        return self._labels(values, named)  # type: ignore[return-value]

    def inc(self, amount: float = 1) -> None:
        """Increment an unlabelled counter."""
        self._only().inc(amount)  # type: ignore[attr-defined]


class Gauge(_Metric):
    """A value that goes up and down."""

    kind = "gauge"

    def _new_child(self) -> GaugeChild:
        return GaugeChild()

    def labels(self, *values: object, **named: object) -> GaugeChild:
        """The series for these label values (positional in label order, or by name)."""
        return self._labels(values, named)  # type: ignore[return-value]

    def inc(self, amount: float = 1) -> None:
        self._only().inc(amount)  # type: ignore[attr-defined]

    def dec(self, amount: float = 1) -> None:
        self._only().dec(amount)  # type: ignore[attr-defined]

    def set(self, value: float) -> None:
        self._only().set(value)  # type: ignore[attr-defined]


class Histogram(_Metric):
    """Observations counted into fixed buckets, plus their sum and count."""

    kind = "histogram"

    def __init__(
        self,
        name: str,
        help: str,
        labelnames: Sequence[str] = (),
        buckets: Sequence[float] = ACK_BUCKETS,
    ) -> None:
        bounds = tuple(float(b) for b in buckets if not math.isinf(b))
        if not bounds or list(bounds) != sorted(set(bounds)):
            raise ValueError(f"histogram buckets must be increasing and non-empty: {buckets}")
        if "le" in labelnames:
            raise ValueError("'le' is reserved for histogram buckets")
        self.bounds = bounds
        super().__init__(name, help, labelnames)

    def _new_child(self) -> HistogramChild:
        return HistogramChild(self.bounds)

    def labels(self, *values: object, **named: object) -> HistogramChild:
        """The series for these label values (positional in label order, or by name)."""
        return self._labels(values, named)  # type: ignore[return-value]

    def observe(self, value: float) -> None:
        """Record one observation on an unlabelled histogram."""
        self._only().observe(value)  # type: ignore[attr-defined]

    def samples(self) -> Iterator[Sample]:
        for labels, child in self._series():
            assert isinstance(child, HistogramChild)
            cumulative = 0
            for bound, count in zip((*self.bounds, math.inf), child.counts):
                cumulative += count
                le = "+Inf" if math.isinf(bound) else _format_value(bound)
                yield f"{self.name}_bucket", {**labels, "le": le}, cumulative
            yield f"{self.name}_sum", labels, child.sum
            yield f"{self.name}_count", labels, child.count


class Registry:
    """A set of uniquely named metrics, rendered together."""

    def __init__(self) -> None:
        self._metrics: dict[str, _Metric] = {}

    def register(self, metric: _Metric) -> None:
        if metric.name in self._metrics:
            raise ValueError(f"metric {metric.name} is already registered")
        self._metrics[metric.name] = metric

    def counter(self, name: str, help: str, labelnames: Sequence[str] = ()) -> Counter:
        metric = Counter(name, help, labelnames)
        self.register(metric)
        return metric

    def gauge(self, name: str, help: str, labelnames: Sequence[str] = ()) -> Gauge:
        metric = Gauge(name, help, labelnames)
        self.register(metric)
        return metric

    def histogram(
        self,
        name: str,
        help: str,
        labelnames: Sequence[str] = (),
        buckets: Sequence[float] = ACK_BUCKETS,
    ) -> Histogram:
        metric = Histogram(name, help, labelnames, buckets)
        self.register(metric)
        return metric

    def sample_value(self, sample_name: str, **labels: str) -> float | None:
        """The value of one sample (e.g. ``solrace_move_ack_seconds_count``), for tests."""
        for metric in self._metrics.values():
            for name, sample_labels, value in metric.samples():
                if name == sample_name and sample_labels == labels:
                    return value
        return None

    def render(self) -> str:
        """All metrics in Prometheus text exposition format 0.0.4 (ends with a newline)."""
        lines: list[str] = []
        for metric in self._metrics.values():
            lines.append(f"# HELP {metric.name} {_escape_help(metric.help)}")
            lines.append(f"# TYPE {metric.name} {metric.kind}")
            for name, labels, value in metric.samples():
                if labels:
                    inner = ",".join(f'{k}="{_escape_label(v)}"' for k, v in labels.items())
                    lines.append(f"{name}{{{inner}}} {_format_value(value)}")
                else:
                    lines.append(f"{name} {_format_value(value)}")
        return "\n".join(lines) + "\n"


#: The registry ``/metrics`` serves.
REGISTRY = Registry()

CONNECTIONS = REGISTRY.gauge("solrace_connections", "Open websocket connections.")
MESSAGES = REGISTRY.counter(
    "solrace_messages_total", "Messages received from clients, by message type.", ("type",)
)
ERRORS = REGISTRY.counter("solrace_errors_total", "Error replies sent, by error code.", ("code",))
MOVES = REGISTRY.counter(
    "solrace_moves_total", "Moves accepted and logged, by variant.", ("variant",)
)
MOVE_ACK_SECONDS = REGISTRY.histogram(
    "solrace_move_ack_seconds", "Time from receiving a move to sending its ack, in seconds."
)
RACES_CREATED = REGISTRY.counter("solrace_races_created_total", "Races created by this process.")
RACES_FINISHED = REGISTRY.counter(
    "solrace_races_finished_total", "Races this process brought to their end."
)
HINTS = REGISTRY.counter(
    "solrace_hints_total", "Hints computed for practice games, by the solver's outcome.",
    ("outcome",),
)
REDIS_COMMANDS = REGISTRY.counter(
    "solrace_redis_commands_total", "Redis round trips (commands, pipelines, scripts) issued."
)
