"""The server's Prometheus metrics, kept by ``prometheus_client`` and served as text format 0.0.4.

Why the library, not a registry of our own: it is the format's reference implementation, and its
price on the move path is below what the server bench resolves. A move makes three updates (two
cached counter children, the ack histogram): about 13k instructions and 1.3 µs more than the
hand-written, compiled registry this module replaced, some 1.5 % of a move's server CPU, while
``bench/server.py`` run alternately with each gave 74 against 79 µs of server CPU per move at
N=100 and 96 against 96 at N=1000, inside its run-to-run spread (docs/performance.md, "Metrics:
prometheus_client"). Each process exposes its own numbers on ``/metrics`` (a registry of its
own: no process or GC collectors, no ``_created`` series); Prometheus sums across processes.
Hot paths cache the child from ``labels()``: that skips a lock and a dict lookup per update.

Label values must come from small fixed sets (message types the server knows, error codes,
variant names): every distinct value is a new time series kept forever, so never label with
raw client input — map unknown message types to one value such as ``"unknown"`` first.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
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

#: What ``/metrics`` answers with: ``generate_latest`` writes text format 0.0.4 (the library's
#: own "latest" content type names 1.0.0 in recent releases).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

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
