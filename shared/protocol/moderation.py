"""The moderators' requests: the review queue, a case, and the decisions (sans-I/O).

Every decision carries a ``reason``: it goes into the append-only audit log with who made
it, so a decision can always be explained later. Who may send these is the server's check
(the account's roles, docs/protocol.md section 21); here only the shapes are checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from solrace.shared.protocol.requests import NAME_RE, RACE_ID_RE, Request, check_int
from solrace.shared.protocol.wire import ProtocolError

MAX_REASON = 500  # characters of a moderator's reason
MAX_QUEUE = 200  # cases one mod.queue reply lists at most
MAX_AUDIT = 200  # audit entries one mod.audit reply lists at most
CASE_RE = re.compile(r"^[a-z0-9]{8,32}:[A-Za-z0-9_-]{1,64}$")
AUDIT_ID_RE = re.compile(r"^\d{1,20}-\d{1,20}$")


def _check_reason(kind: str, reason: str) -> None:
    if not reason.strip() or len(reason) > MAX_REASON:
        raise ProtocolError("bad_message", f"{kind}: reason is required, 1-{MAX_REASON} "
                            "characters (it goes into the audit log)")


def _check_case(case: str) -> None:
    if not CASE_RE.fullmatch(case):
        raise ProtocolError("case_not_found", f"no case {case!r}")


def _check_player(player: str) -> None:
    if not NAME_RE.fullmatch(player):
        raise ProtocolError("player_not_found", f"no player {player!r}")


REPORT_CATEGORIES = ("cheating", "sandbagging", "boosting", "abuse", "other")
MAX_NOTE = 500  # characters of a report's note


@dataclass(frozen=True, slots=True, kw_only=True)
class Report(Request):
    """A player reports another (accounts only; the server limits how many and how often)."""

    TYPE: ClassVar[str] = "report"
    player: str  # the reported account's name
    category: str
    note: str = ""
    race: str | None = None  # the race it happened in, if any

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_player(self.player)
        if self.category not in REPORT_CATEGORIES:
            raise ProtocolError("bad_message", "report: category is one of "
                                + ", ".join(REPORT_CATEGORIES))
        if len(self.note) > MAX_NOTE:
            raise ProtocolError("bad_message", f"report: note is at most {MAX_NOTE} characters")
        if self.race is not None and not RACE_ID_RE.fullmatch(self.race):
            raise ProtocolError("race_not_found", f"no race {self.race!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class ModReports(Request):
    """Players with open reports, most reported first (or, with ``player``, the reports on
    one player)."""

    TYPE: ClassVar[str] = "mod.reports"
    limit: int = 50
    player: str | None = None

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        check_int(self.TYPE, "limit", self.limit, 1, MAX_QUEUE)
        if self.player is not None:
            _check_player(self.player)


@dataclass(frozen=True, slots=True, kw_only=True)
class ModQueue(Request):
    """The held results, highest suspicion first."""

    TYPE: ClassVar[str] = "mod.queue"
    limit: int = 50

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        check_int(self.TYPE, "limit", self.limit, 1, MAX_QUEUE)


@dataclass(frozen=True, slots=True, kw_only=True)
class ModCase(Request):
    """One case with all its evidence."""

    TYPE: ClassVar[str] = "mod.case"
    case: str

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_case(self.case)


@dataclass(frozen=True, slots=True, kw_only=True)
class ModClear(Request):
    """Clear a held result: it is listed at the rank its time earns."""

    TYPE: ClassVar[str] = "mod.clear"
    case: str
    reason: str

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_case(self.case)
        _check_reason(self.TYPE, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerDecision(Request):
    """A decision about an account, named by its name (or a look-alike of it)."""

    player: str
    reason: str

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_player(self.player)
        _check_reason(self.TYPE, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class ModBan(PlayerDecision):
    """Ban an account: every session ends, logins are refused, its results leave the boards."""

    TYPE: ClassVar[str] = "mod.ban"


@dataclass(frozen=True, slots=True, kw_only=True)
class ModUnban(PlayerDecision):
    """Lift a ban: the account may log in again and its removed results are listed again."""

    TYPE: ClassVar[str] = "mod.unban"


@dataclass(frozen=True, slots=True, kw_only=True)
class ModWarn(PlayerDecision):
    """Warn a player: the text reaches its open connections and stays on record."""

    TYPE: ClassVar[str] = "mod.warn"


@dataclass(frozen=True, slots=True, kw_only=True)
class ModAnnul(Request):
    """Annul a finished ranked race: a daily attempt leaves its board, a rated race counts in
    nobody's rating."""

    TYPE: ClassVar[str] = "mod.annul"
    race: str
    reason: str

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        if not RACE_ID_RE.fullmatch(self.race):
            raise ProtocolError("race_not_found", f"no race {self.race!r}")
        _check_reason(self.TYPE, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class ModRename(Request):
    """Force a rename (an offensive or impersonating name): the account keeps its player id,
    ratings and results; the old name stays reserved."""

    TYPE: ClassVar[str] = "mod.rename"
    player: str
    name: str  # the new name
    reason: str

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_player(self.player)
        if not NAME_RE.fullmatch(self.name):
            raise ProtocolError("bad_name", "not a valid player name")
        _check_reason(self.TYPE, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class ModAudit(Request):
    """The audit log, newest first (admins only)."""

    TYPE: ClassVar[str] = "mod.audit"
    limit: int = 50
    before: str | None = None  # an entry id: the page older than it

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        check_int(self.TYPE, "limit", self.limit, 1, MAX_AUDIT)
        if self.before is not None and not AUDIT_ID_RE.fullmatch(self.before):
            raise ProtocolError("bad_message", "mod.audit: before is an audit entry id")


MODERATION_REQUESTS = (Report, ModReports, ModQueue, ModCase, ModClear, ModBan, ModUnban,
                       ModWarn, ModAnnul, ModRename, ModAudit)

__all__ = [
    "MAX_AUDIT",
    "MAX_NOTE",
    "MAX_QUEUE",
    "MAX_REASON",
    "MODERATION_REQUESTS",
    "REPORT_CATEGORIES",
    "ModAnnul",
    "ModAudit",
    "ModBan",
    "ModCase",
    "ModClear",
    "ModQueue",
    "ModRename",
    "ModReports",
    "ModUnban",
    "ModWarn",
    "PlayerDecision",
    "Report",
]
