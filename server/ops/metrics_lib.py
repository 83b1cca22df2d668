"""The server's Prometheus metrics, kept by ``prometheus_client`` and served as text format 0.0.4.

Why the library: it is the reference implementation of the format, and on today's move path its
updates cost no more than a hand-written registry's within what the server bench resolves
(docs/performance.md, "Metrics: prometheus_client"). Each process exposes its own numbers on
``/metrics`` (its own registry: no process or GC collectors); Prometheus sums across processes.
Hot paths cache the child from :meth:`labels` (a lock and a dict lookup skipped per update).

Label values must come from small fixed sets (message types the server knows, error codes,
variant names): every distinct value is a new time series kept forever, so never label with
raw client input — map unknown message types to one value such as ``"unknown"`` first.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.metrics import disable_created_metrics

__all__ = [
    "ACK_BUCKETS",
    "CONNECTIONS",
    "CONTENT_TYPE",
    "ERRORS",
    "HINTS",
    "MESSAGES",
    "MOVES",
    "MOVE_ACK_SECONDS",
    "RACES_CREATED",
    "RACES_FINISHED",
    "REDIS_COMMANDS",
    "REGISTRY",
    "render",
    "sample_value",
]

#: What ``/metrics`` answers with: the library's text format is 0.0.4 (its "latest" content
#: type names 1.0.0, which older scrapers do not know).
CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4

#: Move acknowledgement latency buckets, in seconds: a move is one engine check plus one Redis
#: round trip, so most should land in the low milliseconds.
ACK_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

# no ``*_created`` series: one more gauge per series that nobody here reads
disable_created_metrics()

#: The registry ``/metrics`` serves (the server's metrics only).
REGISTRY = CollectorRegistry(auto_describe=True)


def render(registry: CollectorRegistry = REGISTRY) -> str:
    """Every metric of ``registry`` in Prometheus text exposition format 0.0.4."""
    return generate_latest(registry).decode()


def sample_value(sample_name: str, registry: CollectorRegistry = REGISTRY,
                 **labels: str) -> float | None:
    """The value of one sample (e.g. ``solrace_move_ack_seconds_count``), for tests."""
    return registry.get_sample_value(sample_name, labels)


CONNECTIONS = Gauge("solrace_connections", "Open websocket connections.", registry=REGISTRY)
MESSAGES = Counter("solrace_messages_total", "Messages received from clients, by message type.",
                   ("type",), registry=REGISTRY)
ERRORS = Counter("solrace_errors_total", "Error replies sent, by error code.", ("code",),
                 registry=REGISTRY)
MOVES = Counter("solrace_moves_total", "Moves accepted and logged, by variant.", ("variant",),
                registry=REGISTRY)
MOVE_ACK_SECONDS = Histogram(
    "solrace_move_ack_seconds", "Time from receiving a move to sending its ack, in seconds.",
    buckets=ACK_BUCKETS, registry=REGISTRY,
)
RACES_CREATED = Counter("solrace_races_created_total", "Races created by this process.",
                        registry=REGISTRY)
RACES_FINISHED = Counter("solrace_races_finished_total",
                         "Races this process brought to their end.", registry=REGISTRY)
HINTS = Counter("solrace_hints_total",
                "Hints computed for practice games, by the solver's outcome.", ("outcome",),
                registry=REGISTRY)
REDIS_COMMANDS = Counter("solrace_redis_commands_total",
                         "Redis round trips (commands, pipelines, scripts) issued.",
                         registry=REGISTRY)
