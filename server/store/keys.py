"""Every Redis key and channel name of solrace, built in one place, and their lifetimes.

The schema (types, contents, TTLs) is listed in the package docstring of
:mod:`solrace.server.store`; keys of one race share the hash tag ``{<race id>}``, so one race
lives in one Redis Cluster slot.
"""

from __future__ import annotations

import hashlib

RETENTION = 30 * 24 * 3600  # seconds finished races (and their replays) are kept
CODE_TTL = 24 * 3600
DAILY_TTL = 40 * 24 * 3600  # daily deals, attempts and leaderboards: kept at least 30 days
PROFILE_TTL = 365 * 24 * 3600
QUICK_TTL = 300


class Keys:
    """Every key and channel name, built in one place."""

    @staticmethod
    def session(token: str) -> str:
        return f"sr:session:{{{hashlib.sha256(token.encode()).hexdigest()}}}"

    @staticmethod
    def name(name: str) -> str:
        return f"sr:name:{{{name.lower()}}}"

    @staticmethod
    def player_races(pid: str) -> str:
        return f"sr:player:{{{pid}}}:races"

    @staticmethod
    def player_channel(pid: str) -> str:
        return f"sr:player:{{{pid}}}"

    @staticmethod
    def race(rid: str) -> str:
        return f"sr:race:{{{rid}}}"

    @staticmethod
    def rematch(rid: str) -> str:
        """str: the race id of the rematch of finished race ``rid`` (set once, NX); kept as
        long as the race (30 days). Same hash tag as the race."""
        return f"sr:rematch:{{{rid}}}"

    @staticmethod
    def race_channel(rid: str) -> str:
        return f"sr:race:{{{rid}}}"

    @staticmethod
    def racers(rid: str) -> str:
        return f"sr:race:{{{rid}}}:racers"

    @staticmethod
    def order(rid: str) -> str:
        return f"sr:race:{{{rid}}}:order"

    @staticmethod
    def ready(rid: str) -> str:
        return f"sr:race:{{{rid}}}:ready"

    @staticmethod
    def pstate(rid: str, pid: str) -> str:
        return f"sr:race:{{{rid}}}:p:{pid}"

    @staticmethod
    def log(rid: str, pid: str) -> str:
        return f"sr:race:{{{rid}}}:log:{pid}"

    @staticmethod
    def events(rid: str) -> str:
        return f"sr:race:{{{rid}}}:ev"

    @staticmethod
    def result(rid: str) -> str:
        return f"sr:race:{{{rid}}}:result"

    @staticmethod
    def watchers(rid: str) -> str:
        return f"sr:race:{{{rid}}}:watchers"

    @staticmethod
    def bot_lease(rid: str) -> str:
        return f"sr:race:{{{rid}}}:botlease"

    LIVE = "sr:live"
    DEADLINES = "sr:deadlines"
    BOT_RACES = "sr:bots"

    @staticmethod
    def daily(day: str, variant: str) -> str:
        return f"sr:daily:{{{day}|{variant}}}"

    @staticmethod
    def daily_lock(day: str, variant: str) -> str:
        return f"sr:daily:{{{day}|{variant}}}:lock"

    @staticmethod
    def daily_attempts(day: str, variant: str) -> str:
        return f"sr:daily:{{{day}|{variant}}}:attempts"

    @staticmethod
    def leaderboard(day: str, variant: str) -> str:
        return f"sr:lb:{{{day}|{variant}}}"

    @staticmethod
    def leaderboard_entries(day: str, variant: str) -> str:
        return f"sr:lb:{{{day}|{variant}}}:entries"

    @staticmethod
    def stats(pid: str) -> str:
        return f"sr:stats:{{{pid}}}"

    @staticmethod
    def rating(pid: str) -> str:
        return f"sr:rating:{{{pid}}}"

    @staticmethod
    def profile(name: str) -> str:
        return f"sr:profile:{{{name.lower()}}}"

    @staticmethod
    def code(code: str) -> str:
        return f"sr:code:{{{code}}}"

    @staticmethod
    def quick(queue: str) -> str:
        return f"sr:quick:{{{queue}}}"

    @staticmethod
    def alive(process: str) -> str:
        return f"sr:alive:{{{process}}}"
