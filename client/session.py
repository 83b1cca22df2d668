"""Session tokens kept between runs, so ``solrace play`` after a crash picks the race up again.

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
"""

from __future__ import annotations

import contextlib
import json
import os
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


class SessionStore:
    """Tokens per (server URL, display name) in one small JSON file."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else config_dir() / FILE_NAME

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        servers = data.get("servers") if isinstance(data, dict) else None
        return servers if isinstance(servers, dict) else {}

    def _write(self, servers: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"version": 1, "servers": servers}, indent=2, sort_keys=True)
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
        return SavedSession(entry["token"], str(entry.get("name") or name), entry.get("player"))

    def save(self, url: str, session: SavedSession) -> None:
        servers = self._read()
        names = servers.setdefault(server_key(url), {})
        if not isinstance(names, dict):
            names = servers[server_key(url)] = {}
        names[session.name.lower()] = {
            "token": session.token, "name": session.name, "player": session.player,
            "saved_at": int(time.time()),
        }
        self._write(servers)

    def forget(self, url: str, name: str) -> None:
        servers = self._read()
        names = servers.get(server_key(url))
        if isinstance(names, dict) and names.pop(name.lower(), None) is not None:
            if not names:
                del servers[server_key(url)]
            self._write(servers)


# ------------------------------------------------------------------------------ connecting

#: What a failed connection attempt raises (refused, unreachable, bad handshake, timeout).
CONNECT_ERRORS: tuple[type[BaseException], ...] = (OSError, TimeoutError, ConnectionError)
try:  # websockets' own handshake/URI errors are not OSErrors
    from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

    CONNECT_ERRORS += (ConnectionClosed, InvalidHandshake, InvalidURI)
except ImportError:  # pragma: no cover - every supported websockets has them
    pass


async def _open(client: Client, url: str) -> None:
    try:
        await client.connect()
    except CONNECT_ERRORS as exc:
        await client.close()
        raise CommandError(f"cannot reach a solrace server at {url}: {exc or type(exc).__name__}"
                           ) from None
    except ClientError:
        await client.close()
        raise


async def login(url: str, name: str, store: SessionStore | None = None) -> Client:
    """A connected client for player ``name``: the saved session resumed, or a new one."""
    store = store if store is not None else SessionStore()
    saved = store.load(url, name)
    if saved is not None:
        client = Client(url, token=saved.token)
        try:
            await _open(client, url)
        except ClientError as exc:
            if exc.code != "bad_token":
                raise CommandError(f"the server refused the saved session: {exc}") from None
            store.forget(url, name)  # expired: start afresh below
        else:
            return client
    client = Client(url, name=name)
    try:
        await _open(client, url)
    except ClientError as exc:
        if exc.code == "name_taken":
            raise CommandError(
                f"the name {name} is held by another live session on {url}; "
                "pick another with --name"
            ) from None
        raise CommandError(f"the server refused hello: {exc}") from None
    assert client.token is not None
    store.save(url, SavedSession(client.token, client.welcome.get("name") or name,
                                 client.player))
    return client


async def spectate(url: str) -> Client:
    """A connected anonymous client (``hello`` with neither name nor token): may watch and
    list races, not race."""
    client = Client(url)
    try:
        await _open(client, url)
    except ClientError as exc:
        raise CommandError(f"the server refused hello: {exc}") from None
    return client


__all__ = [
    "CONNECT_ERRORS",
    "SavedSession",
    "SessionStore",
    "config_dir",
    "login",
    "server_key",
    "spectate",
]
