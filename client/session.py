"""Sessions kept between runs: who you are on each server, and the race you were in.

The server identifies a player by a session token (``docs/protocol.md``: ``hello {token}``
restores the identity and every race in progress). A terminal client that forgets its token
on exit would come back as a stranger, unable to finish the race it was in. So the token is
written to ``session.json`` as soon as the server hands it out, keyed by server URL and then
by display name (one machine may play as several names on one server, e.g. two terminals).

Where: ``$SOLRACE_HOME/session.json`` when ``SOLRACE_HOME`` is set, else
``$XDG_CONFIG_HOME/solrace/session.json`` (``~/.config/solrace/session.json``). The token is a
credential, so the file is created mode 0600 and replaced atomically (write a temporary file,
then rename) so that a crash mid-write never leaves half a file. An unreadable or corrupt file
counts as empty: losing a token costs a resume, never a crash.

:func:`login` is the one way the commands connect as a player: resume with the saved token
when there is one, fall back to a fresh ``hello {name}`` when the server no longer knows it,
save whatever token results, and turn connection failures into one-line
:class:`~solrace.client.commands.CommandError` messages.

Who you are on a server (no silent default to the OS user name):

* each server URL has a **current** session: the account of the last ``solrace login`` or
  ``solrace register``, or the guest the CLI made there; commands without ``--name`` use it
  and say who it is (``you: NAME``);
* ``--name NAME`` (or ``$SOLRACE_NAME``) plays as the guest NAME (its own saved session);
* with neither, the CLI asks for a guest name at a terminal (enter takes the offered
  ``guest-XXXX``), or elsewhere takes a generated ``guest-XXXX`` (4 random hex digits) and says
  so on stderr. Guests race casually and watch; ranked play (rated races, the ranked daily)
  needs an account: ``solrace register`` turns the current guest into one, keeping its
  ratings and history.

Passwords are read with :func:`getpass.getpass` at a terminal, else from the first line of
standard input (for scripts), or from ``$SOLRACE_PASSWORD`` when set. They are sent to the
server once and never written anywhere.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import platform
import secrets
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from solrace.client.commands import CommandError
from solrace.client.library import Client, ClientError

FILE_NAME = "session.json"
HOME_ENV = "SOLRACE_HOME"


def config_dir() -> Path:
    """The directory holding ``session.json`` (see the module docstring)."""
    home = os.environ.get(HOME_ENV)
    if home:
        return Path(home).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
    return base / "solrace"


def server_key(url: str) -> str:
    """``ws://127.0.0.1:8765/`` and ``ws://127.0.0.1:8765`` are one server."""
    return url.strip().rstrip("/")


@dataclass(frozen=True, slots=True)
class SavedSession:
    token: str
    name: str
    player: str | None = None
    account: bool = False


class SessionStore:
    """Tokens per (server URL, display name) in one small JSON file."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else config_dir() / FILE_NAME

    def _file(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _read(self) -> dict[str, Any]:
        servers = self._file().get("servers")
        return servers if isinstance(servers, dict) else {}

    def _current_map(self) -> dict[str, Any]:
        current = self._file().get("current")
        return current if isinstance(current, dict) else {}

    def current(self, url: str) -> SavedSession | None:
        """The server's current session (last login, register or CLI-made guest)."""
        name = self._current_map().get(server_key(url))
        return self.load(url, name) if isinstance(name, str) else None

    def set_current(self, url: str, name: str | None) -> None:
        current = self._current_map()
        if name is None:
            current.pop(server_key(url), None)
        else:
            current[server_key(url)] = name.lower()
        self._write(self._read(), current)

    def _write(self, servers: dict[str, Any], current: dict[str, Any] | None = None) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if current is None:
            current = self._current_map()
        text = json.dumps({"version": 2, "servers": servers, "current": current}, indent=2,
                          sort_keys=True)
        fd, tmp = tempfile.mkstemp(prefix=".session.", dir=self.path.parent)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text + "\n")
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def load(self, url: str, name: str) -> SavedSession | None:
        entry = self._read().get(server_key(url), {}).get(name.lower())
        if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
            return None
        return SavedSession(entry["token"], str(entry.get("name") or name), entry.get("player"),
                            bool(entry.get("account")))

    def save(self, url: str, session: SavedSession) -> None:
        servers = self._read()
        names = servers.setdefault(server_key(url), {})
        if not isinstance(names, dict):
            names = servers[server_key(url)] = {}
        names[session.name.lower()] = {
            "token": session.token, "name": session.name, "player": session.player,
            "account": session.account, "saved_at": int(time.time()),
        }
        self._write(servers)

    def forget(self, url: str, name: str) -> None:
        servers = self._read()
        names = servers.get(server_key(url))
        if isinstance(names, dict) and names.pop(name.lower(), None) is not None:
            if not names:
                del servers[server_key(url)]
            current = self._current_map()
            if current.get(server_key(url)) == name.lower():
                del current[server_key(url)]
            self._write(servers, current)


# ------------------------------------------------------------------------------ connecting

#: What a failed connection attempt raises (refused, unreachable, bad handshake, timeout).
CONNECT_ERRORS: tuple[type[BaseException], ...] = (OSError, TimeoutError, ConnectionError)
try:  # websockets' own handshake/URI errors are not OSErrors
    from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

    CONNECT_ERRORS += (ConnectionClosed, InvalidHandshake, InvalidURI)
except ImportError:  # pragma: no cover - every supported websockets has them
    pass


#: ``0``/``no``/``off``/``false``: CLI clients stay on the server process they connected to
#: even when a race's home is another (``--no-follow-home``; docs/protocol.md section 8.1).
FOLLOW_HOME_ENV = "SOLRACE_FOLLOW_HOME"


def follow_home() -> bool:
    return os.environ.get(FOLLOW_HOME_ENV, "1").strip().lower() not in ("0", "no", "off",
                                                                          "false")


async def open_client(client: Client, url: str) -> None:
    client.follow_home = follow_home()
    try:
        await client.connect()
    except CONNECT_ERRORS as exc:
        await client.close()
        raise CommandError(f"cannot reach a solrace server at {url}: {exc or type(exc).__name__}"
                           ) from None
    except ClientError:
        await client.close()
        raise


CLIENT_NAME = "solrace-cli"


def client_label() -> str:
    """What the server lists for this client's sessions: ``solrace-cli <version> on <host>``."""
    try:
        from importlib.metadata import version

        ver = version("solrace")
    except Exception:
        ver = "?"
    host = "".join(c for c in platform.node() if 32 <= ord(c) < 127)[:30] or "?"
    return f"{CLIENT_NAME} {ver} on {host}"


def saved_of(client: Client) -> SavedSession:
    assert client.token is not None
    return SavedSession(client.token, client.name or "?", client.player, client.account)


async def resume(url: str, saved: SavedSession, store: SessionStore) -> Client | None:
    """The saved session resumed, or None (forgotten) when the server no longer knows it."""
    client = Client(url, token=saved.token, client=client_label())
    try:
        await open_client(client, url)
    except ClientError as exc:
        if exc.code != "bad_token":
            raise CommandError(f"the server refused the saved session: {exc}") from None
        store.forget(url, saved.name)
        if saved.account:
            print(f"your session as {saved.name} on {url} has ended (logged out, revoked or "
                  f"expired): 'solrace login {saved.name}' logs in again", file=sys.stderr)
        return None
    return client


def guest_name(prompt: bool) -> str:
    """A generated ``guest-XXXX`` name, or the one the user types at the prompt."""
    offered = f"guest-{secrets.token_hex(2)}"
    if not prompt:
        return offered
    print("no session on this server yet. Play as a guest (casual races and watching), or "
          "Ctrl-C and run 'solrace register' / 'solrace login NAME' for ranked play.",
          file=sys.stderr)
    typed = input(f"guest name [{offered}]: ").strip()
    return typed or offered


async def login(url: str, name: str | None, store: SessionStore | None = None) -> Client:
    """A connected client: the server's current session (``name`` None), or the guest
    ``name``'s saved session, or a new guest session (see the module docstring)."""
    store = store if store is not None else SessionStore()
    if name is None:
        current = store.current(url)
        if current is not None:
            client = await resume(url, current, store)
            if client is not None:
                return client
        env = os.environ.get("SOLRACE_NAME")
        if env:
            name = env
        else:
            return await _new_guest(url, store, interactive_terminal())
    saved = store.load(url, name)
    if saved is not None:
        client = await resume(url, saved, store)
        if client is not None:
            return client
    client = await _guest(url, name)
    store.save(url, saved_of(client))
    if store.current(url) is None:
        store.set_current(url, client.name)
    return client


async def _guest(url: str, name: str) -> Client:
    client = Client(url, name=name, client=client_label())
    try:
        await open_client(client, url)
    except ClientError as exc:
        if exc.code == "name_taken":
            raise CommandError(
                f"the name {name} (or one that looks like it) is taken on {url}: it is an "
                "account's or another guest's; pick another with --name, or "
                f"'solrace login {name}' if it is your account"
            ) from None
        raise CommandError(f"the server refused hello: {exc}") from None
    return client


async def _new_guest(url: str, store: SessionStore, prompt: bool) -> Client:
    for _ in range(5):
        name = guest_name(prompt)
        try:
            client = await _guest(url, name)
        except CommandError as exc:
            if prompt or "is taken" not in str(exc):
                raise
            continue
        store.save(url, saved_of(client))
        store.set_current(url, client.name)
        print(f"playing as guest {client.name} on {url} (saved; 'solrace register' makes it "
              "an account and keeps its history)", file=sys.stderr)
        return client
    raise CommandError("could not find a free guest name; pass --name")


def interactive_terminal() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def read_password(prompt: str = "password: ", confirm: bool = False) -> str:
    """A password from ``$SOLRACE_PASSWORD``, the terminal (not echoed) or stdin's first
    line."""
    env = os.environ.get("SOLRACE_PASSWORD")
    if env:
        return env
    if interactive_terminal():
        password = getpass.getpass(prompt)
        if confirm and getpass.getpass("again: ") != password:
            raise CommandError("the two passwords differ")
        return password
    line = sys.stdin.readline()
    if not line:
        raise CommandError("no password: type it at a terminal, pipe it on stdin or set "
                           "$SOLRACE_PASSWORD")
    return line.rstrip("\r\n")


def who(client: Client) -> str:
    """Who the client plays as, for screens: ``alice`` (an account) or ``bob (guest)``."""
    name = client.welcome.get("name") or client.name or "?"
    return name if client.account else f"{name} (guest)"


def refusal(exc: ClientError) -> str:
    """A server refusal as one line for the user, with what to do for the account ones."""
    text = f"{exc.code}: {exc.reason}"
    if exc.code == "account_required":
        return (f"{text}\nranked play needs an account: 'solrace register' turns this guest "
                "into one (ratings and history kept); 'solrace login NAME' uses yours")
    if exc.code == "already_queued":
        return (f"{text}\nthis player already waits (another terminal on this machine shares "
                "its session); to play as a second player there, pass --name OTHER")
    if exc.code == "rate_limited" and "retry_after" in exc.extra:
        return f"{text} (retry after {exc.extra['retry_after']} s)"
    return text


async def spectate(url: str) -> Client:
    """A connected anonymous client (``hello`` with neither name nor token): may watch and
    list races, not race."""
    client = Client(url)
    try:
        await open_client(client, url)
    except ClientError as exc:
        raise CommandError(f"the server refused hello: {exc}") from None
    return client


__all__ = [
    "CONNECT_ERRORS",
    "SavedSession",
    "SessionStore",
    "client_label",
    "config_dir",
    "login",
    "read_password",
    "refusal",
    "saved_of",
    "server_key",
    "spectate",
    "who",
]


async def account_client(args: Any, what: str) -> tuple[Client, str]:
    """A connection of the current session on ``args``' server, which must be an account's
    (commands such as ``report`` and ``mod``)."""
    from solrace.client.tui import resolve_server

    url, store = resolve_server(args), SessionStore()
    current = store.current(url)
    if current is None or not current.account:
        raise CommandError(f"{what} needs an account: 'solrace login NAME' on {url}")
    client = await resume(url, current, store)
    if client is None:
        raise CommandError(f"your session on {url} has ended: 'solrace login NAME'")
    return client, url
