"""Which exceptions are an outage of the store, and which are a bug.

A client must only be told ``unavailable`` ("retry later") when retrying can help: the store
is unreachable, timing out, loading, read-only during a failover, or out of memory. A Redis
*command error* (``ResponseError``: "Invalid stream ID", "value is not an integer or out of
range", a Lua error) means a command was built wrong — a number out of range, a bad argument —
and retrying the same request would fail forever. Request validation
(:mod:`solrace.shared.protocol`) is meant to stop every such input first; one that slips
through is reported as ``internal`` (a bug, logged) and never as an outage.
"""

from __future__ import annotations

from redis import exceptions as rx

#: Error replies that describe the store's state, not the command (redis-py raises most of
#: them as their own classes, the reply's first word removed).
OUTAGE_CLASSES = (rx.ConnectionError, rx.TimeoutError, rx.ReadOnlyError, rx.OutOfMemoryError,
                  rx.ClusterError, rx.TryAgainError, rx.AskError, rx.RedisClusterException,
                  OSError)
#: First words of other error replies of that kind.
TRANSIENT_REPLIES = ("LOADING", "BUSY", "READONLY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN",
                     "OOM", "NOREPLICAS", "MOVED", "ASK", "UNBLOCKED")


def is_store_error(exc: BaseException) -> bool:
    """Raised by the store layer at all (an outage or a malformed command)."""
    return isinstance(exc, rx.RedisError | rx.RedisClusterException | OSError)


def is_outage(exc: BaseException) -> bool:
    """True when ``exc`` means the store cannot serve right now (answer ``unavailable``);
    False for a command the store refused (a bug: answer ``internal``)."""
    if isinstance(exc, OUTAGE_CLASSES):
        return True
    if isinstance(exc, rx.ResponseError):
        return str(exc).lstrip().upper().startswith(TRANSIENT_REPLIES)
    return isinstance(exc, rx.RedisError) and not isinstance(exc, rx.DataError)
