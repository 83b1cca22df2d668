"""The account requests: register, login, sessions, password, deletion (sans-I/O)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from solrace.shared.protocol.requests import NAME_RE, Request, check_client
from solrace.shared.protocol.wire import ProtocolError

MAX_PASSWORD = 512  # characters on the wire; the server's rules are stricter (bad_password)
SESSION_ID_RE = re.compile(r"^[0-9a-f]{12}$")


def _check_password(field_name: str, password: str) -> None:
    if len(password) > MAX_PASSWORD:
        raise ProtocolError("bad_password", f"{field_name} is longer than {MAX_PASSWORD}")


def _check_name(name: str) -> None:
    if not NAME_RE.fullmatch(name):
        raise ProtocolError("bad_name", "not a valid player name")


@dataclass(frozen=True, slots=True, kw_only=True)
class Register(Request):
    """Make an account: of the guest this connection is (``name`` defaults to the guest's
    name; the player id, ratings and history are kept), or of a new player on an anonymous
    connection (``name`` required)."""

    TYPE: ClassVar[str] = "register"
    password: str = field(repr=False)  # never in a log line, not even by accident
    name: str | None = None
    client: str | None = None
    bot: bool = False  # a BOT account: never ranked, labelled everywhere (irreversible)

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        if self.name is not None:
            _check_name(self.name)
        _check_password("password", self.password)
        check_client(self.client)


@dataclass(frozen=True, slots=True, kw_only=True)
class Login(Request):
    """A new session of an account, on an anonymous connection (or on one already logged in
    to that account)."""

    TYPE: ClassVar[str] = "login"
    name: str
    password: str = field(repr=False)
    client: str | None = None

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_name(self.name)
        _check_password("password", self.password)
        check_client(self.client)


@dataclass(frozen=True, slots=True, kw_only=True)
class Logout(Request):
    TYPE: ClassVar[str] = "logout"


@dataclass(frozen=True, slots=True, kw_only=True)
class Sessions(Request):
    TYPE: ClassVar[str] = "sessions"


@dataclass(frozen=True, slots=True, kw_only=True)
class RevokeSession(Request):
    TYPE: ClassVar[str] = "session.revoke"
    session: str

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        if not SESSION_ID_RE.fullmatch(self.session):
            raise ProtocolError("session_not_found", f"no session {self.session!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class ChangePassword(Request):
    TYPE: ClassVar[str] = "password.change"
    old: str = field(repr=False)
    new: str = field(repr=False)

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_password("old", self.old)
        _check_password("new", self.new)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteAccount(Request):
    TYPE: ClassVar[str] = "account.delete"
    password: str = field(repr=False)

    def __post_init__(self) -> None:
        Request.__post_init__(self)
        _check_password("password", self.password)


@dataclass(frozen=True, slots=True, kw_only=True)
class BecomeBot(Request):
    """Make this account a BOT account, for good (only before any ranked game)."""

    TYPE: ClassVar[str] = "account.bot"


ACCOUNT_REQUESTS = (BecomeBot, Register, Login, Logout, Sessions, RevokeSession, ChangePassword,
                    DeleteAccount)
