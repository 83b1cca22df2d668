"""Brute-force limits on password checks (pure: numbers in, a decision out).

Every failed password check is recorded with its time (the Redis clock, ms) under the keys it
counts against; before a password is checked, :func:`retry_after` looks at those recorded
failures and says whether the check may run now or in how many milliseconds. A refused
attempt is not checked and not recorded, so hammering a locked key does not extend its lock.

The limits (a sliding window each: no more than ``limit`` failures in any ``window``):

* ``login`` against one **account**: 10 failures per 15 minutes, 50 per 24 hours;
* ``login`` from one **client address**: 20 failures per 15 minutes, 200 per 24 hours
  (whatever the accounts named);
* a password check inside a **session** (``password.change``, ``account.delete``, and a
  ``login`` to the account the connection is already logged in to): 5 failures per 15 minutes
  for that session only.

A lockout cannot lock a victim out: sessions that are already logged in are never refused by
the account or address limits (a ``hello`` with a token checks no password), and a password
check made from a session of the account counts only against that session — so an attacker
who makes 100 wrong guesses from elsewhere leaves the owner's sessions able to resume, play,
change the password and log in again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MINUTE = 60_000
HOUR = 60 * MINUTE


@dataclass(frozen=True, slots=True)
class Rule:
    limit: int  # failures allowed within the window
    window: int  # milliseconds


ACCOUNT_RULES = (Rule(10, 15 * MINUTE), Rule(50, 24 * HOUR))
ADDRESS_RULES = (Rule(20, 15 * MINUTE), Rule(200, 24 * HOUR))
SESSION_RULES = (Rule(5, 15 * MINUTE),)


def horizon(rules: Sequence[Rule]) -> int:
    """How long failures must be remembered (ms) for ``rules``."""
    return max(r.window for r in rules)


def capacity(rules: Sequence[Rule]) -> int:
    """How many failures must be remembered for ``rules`` (older ones can be dropped)."""
    return max(r.limit for r in rules)


def retry_after(failures: Iterable[int], now: int, rules: Sequence[Rule]) -> int:
    """0 when a password check may run at ``now``; otherwise the milliseconds until it may.

    ``failures`` are the times of recorded failures (any order). A rule blocks when ``limit``
    failures lie in ``(now - window, now]``; it unblocks when the oldest of the newest
    ``limit`` of them leaves the window."""
    stamps = sorted((t for t in failures if t <= now), reverse=True)
    wait = 0
    for rule in rules:
        recent = [t for t in stamps if t > now - rule.window]
        if len(recent) >= rule.limit:
            wait = max(wait, recent[rule.limit - 1] + rule.window - now)
    return wait


def seconds(ms: int) -> int:
    """``retry_after`` for the wire: whole seconds, rounded up, at least 1 when blocked."""
    return 0 if ms <= 0 else max(1, -(-ms // 1000))


__all__ = ["ACCOUNT_RULES", "ADDRESS_RULES", "SESSION_RULES", "Rule", "capacity", "horizon",
           "retry_after", "seconds"]
