"""What a client is told when the store cannot answer: the ``unavailable`` reasons.

Every one of them means "nothing you asked for was half done; retry the same request" — the
scripts are idempotent (a retried move is answered as a duplicate), so retrying is safe.
"""

from __future__ import annotations

from redis.exceptions import (
    ClusterDownError,
    ClusterError,
    RedisClusterException,
    TryAgainError,
)
from solrace.server.store.replication import ReplicationLag

__all__ = ["unavailable_reason"]


def unavailable_reason(exc: BaseException) -> str:
    """The human reason of an ``unavailable`` error, with the retry advice."""
    if isinstance(exc, ReplicationLag):
        return "the move is not yet on enough replicas; retry in a second (it is idempotent)"
    if isinstance(exc, ClusterDownError | ClusterError | RedisClusterException | TryAgainError):
        return "the store is failing over or resharding; retry in a second"
    return "the store is unreachable; retry"
