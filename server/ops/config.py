"""Server configuration: one table of settings, read from flags, then ``SOLRACE_*``, then defaults.

Why one table (:data:`SETTINGS`): the argparse flags, the environment variable names, the
defaults, the validation and the start-up printout (:meth:`Config.describe`) are all derived
from it, so they cannot drift apart. Precedence is flag > environment > default, and the
printout says which one each value came from.

The secret (the HMAC key for daily seeds) is never printed. When neither ``--secret`` nor
``SOLRACE_SECRET`` gives one, a random one is generated once and kept in
``DATA_DIR/secret`` so that restarts agree. That is only right for a single process: every
process sharing a Redis must use the same secret, so with ``--redis-url`` set the printout warns
to set ``SOLRACE_SECRET`` instead.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import secrets
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from solrace.server.ops.urls import ADVERTISE_OFF, MASK, advertise_problem, listener_url, mask_url
from solrace.shared.protocol import MAX_POOL_WAIT
from solrace.shared.tournaments.schedule import ArenaSpec, parse_arenas

__all__ = ["SETTINGS", "Config", "Setting", "listener_url", "mask_url", "parse_duration"]

ENV_PREFIX = "SOLRACE_"
SECRET_FILE = "secret"
MIN_SECRET_LENGTH = 16
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([smhd]?)\s*$")
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(text: str) -> float:
    """Seconds from ``"90"``, ``"1.5"``, ``"45s"``, ``"10m"``, ``"12h"`` or ``"7d"``."""
    match = _DURATION.match(text)
    if match is None:
        raise ValueError(f"not a duration (e.g. 30, 45s, 10m, 12h, 7d): {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def _log_level(text: str) -> str:
    level = text.strip().upper()
    if level not in LOG_LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LOG_LEVELS)}, not {text!r}")
    return level


LOOPS = ("asyncio", "uvloop")


def uvloop_available() -> bool:
    """Whether uvloop can be imported here (a dependency on Linux, pyproject.toml; it has no
    Windows build). Looked up without importing it: the printout must not pay for it."""
    return importlib.util.find_spec("uvloop") is not None


#: The server's event loop unless told otherwise: uvloop where it can be imported — fewer
#: instructions per move for the same work (docs/performance.md, "uvloop") —
#: else asyncio's own.
DEFAULT_LOOP = "uvloop" if uvloop_available() else "asyncio"


def _loop(text: str) -> str:
    loop = text.strip().lower()
    if loop not in LOOPS:
        raise ValueError(f"loop must be one of {', '.join(LOOPS)}, not {text!r}")
    if loop == "uvloop" and not uvloop_available():
        raise ValueError("loop uvloop: uvloop cannot be imported here (pip install uvloop), "
                         "choose asyncio")
    return loop


FAIR_PLAY_MODES = ("hold", "record")


def _fair_play(text: str) -> str:
    mode = text.strip().lower()
    if mode not in FAIR_PLAY_MODES:
        raise ValueError(f"fair play must be one of {', '.join(FAIR_PLAY_MODES)}, not {text!r}")
    return mode


def _optional_str(text: str) -> str | None:
    return text or None


def _advertise_url(text: str) -> str | None:
    """``--advertise-url``: a ws:// or wss:// URL; ``off`` -> "" (advertise nothing); empty ->
    None (the listener's own URL, when it has a meaningful address)."""
    text = text.strip()
    if not text:
        return None
    if text.lower() in ADVERTISE_OFF:
        return ""
    problem = advertise_problem(text)
    if problem:
        raise ValueError(problem)
    return text


@dataclass(frozen=True)
class Setting:
    """One configurable value: the :class:`Config` field it sets (whose default applies when
    neither flag nor environment gives it) and how to parse its text; flag and env are derived.
    """

    name: str
    parse: Callable[[str], Any]
    help: str
    secret: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()


def parse_addresses(text: str) -> tuple[str, ...]:
    """``10.0.0.1, 10.0.0.2`` -> ("10.0.0.1", "10.0.0.2"); empty text -> ()."""
    return tuple(x.strip() for x in text.split(",") if x.strip())


def _default_process_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


SETTINGS: tuple[Setting, ...] = (
    Setting("host", str, "address to listen on"),
    Setting("port", int, "TCP port for websockets, /healthz and /metrics (0: any free port)"),
    Setting("redis_url", _optional_str,
            "Redis URL (redis://, rediss://, unix://), or a Redis Cluster by seed nodes "
            "(redis+cluster://HOST:PORT,HOST:PORT); unset: start an embedded Redis"),
    Setting("data_dir", Path, "directory for the embedded Redis AOF and the generated secret"),
    Setting("secret", _optional_str,
            "server secret (HMAC key for daily seeds); unset: generated into DATA_DIR/secret",
            secret=True),
    Setting("max_frame", int, "largest websocket frame accepted, in bytes"),
    Setting("rate", float, "messages per second allowed per connection (sustained)"),
    Setting("burst", int, "messages allowed in a burst per connection"),
    Setting("idle_timeout", parse_duration, "close a connection silent this long (30, 45s, 2m)"),
    Setting("ping_interval", parse_duration, "websocket ping interval"),
    Setting("session_ttl", parse_duration, "session token lifetime since last use (e.g. 7d)"),
    Setting("log_level", _log_level, "logging level"),
    Setting("loop", _loop,
            "event loop: uvloop (the default where it can be imported) or asyncio (the stock "
            "one)"),
    Setting("process_id", str, "name of this process in logs and Redis"),
    Setting("countdown", parse_duration, "countdown between all-ready and the start"),
    Setting("quick_time_limit", int, "time limit in seconds of quick-paired races"),
    Setting("send_queue", int, "frames queued per connection before it is dropped as too slow"),
    Setting("spectator_delay", parse_duration, "how far spectators of rated races run behind"),
    Setting("casual_spectator_delay", parse_duration,
            "how far spectators of unrated races run behind"),
    Setting("daily_budget", int,
            "solver node budget per daily candidate deal (0: per-variant defaults)"),
    Setting("daily_prepare", int,
            "days ahead to certify dailies in the background (-1: only on demand)"),
    Setting("hint_budget", int, "solver node budget of one hint in a practice game"),
    Setting("analyses_per_hour", int,
            "fresh analyses (the move that lost it) one player may start per hour, counted "
            "in Redis across processes (an analysis already stored is not counted)"),
    Setting("pool_size", int,
            "certified seeds kept ready per configuration for winnable races (0: no "
            "winnable races)"),
    Setting("pool_budget", int,
            "solver node budget per candidate seed of the winnable pool (0: the default, 10000)"),
    Setting("pool_wait", parse_duration,
            "how long a winnable race.create waits for a certification when the pool is "
            "empty, before it answers pool_empty (0..60 s)"),
    Setting("pool_prepare", int,
            "1: keep every variant's pool and every one asked for this week topped up in the "
            "background; 0: fill a pool only once a player asked for it"),
    Setting("verdict_budget", int,
            "solver node budget of the verdict on a race's deal after its end (0: no verdicts "
            "but the certified ones)"),
    Setting("fair_play_budget", int,
            "solver node budget per sampled position of the fair-play analysis of a ranked "
            "line (hold mode; 0: timing and history only)"),
    Setting("bot_delay", float,
            "scale of practice bots' think time per move (1: weak 4 s, medium 3 s, "
            "strong 2 s, a person's pace; 0: no wait)"),
    Setting("wait_replicas", int,
            "acknowledge a move only once this many replicas hold it (Redis WAIT, or WAITAOF "
            "on 7.2+); 0: asynchronous replication, a failover may lose acknowledged moves"),
    Setting("wait_timeout", parse_duration,
            "how long a move waits for --wait-replicas before it is answered 'unavailable'"),
    Setting("fair_play", _fair_play,
            "hold: a ranked result whose fair-play score reaches the threshold is held for "
            "review; record: scores are kept but nothing is held (test suites only)"),
    Setting("bot_lease", parse_duration,
            "how long a process's hold on a practice race's bots lasts unrenewed; another "
            "process takes the bots over after it (renewed every third of it)"),
    Setting("advertise_url", _advertise_url,
            "the websocket URL clients can reach this very process at (past any load "
            "balancer), told to racers of the races it creates (their 'home', "
            "docs/protocol.md section 8.1); unset: ws://HOST:PORT of the listener (nothing "
            "when HOST is a wildcard); off: advertise nothing"),
    Setting("arenas", parse_arenas,
            "recurring public tournaments, ';'-separated, each '<variant> [k=v ...] | "
            "<recurrence> | <deal seconds> [| event N]', e.g. 'unlimited draw=3 | every 1h at "
            ":00 for 30m | 300' (docs/tournaments.md; 'solrace-server admin schedule' stores "
            "more in Redis); empty: none"),
    Setting("knockout_show", parse_duration,
            "a knockout match's start window: an entrant not ready this long after the round "
            "opened loses by walkover (docs/tournaments.md); a knockout keeps the window it "
            "was created with"),
    Setting("trusted_proxies", parse_addresses,
            "comma-separated addresses of reverse proxies: for a connection from one of them "
            "the client address (login limits) is the last X-Forwarded-For entry; empty: the "
            "TCP peer"),
)  # fmt: skip

_BY_NAME = {s.name: s for s in SETTINGS}


@dataclass(frozen=True, kw_only=True, repr=False)
class Config:
    """The validated settings of one server process (see :data:`SETTINGS` for each field).

    Construct directly in tests (``Config(secret=..., port=0, redis_url=url)``) or from the
    command line and environment with :meth:`from_args`.
    """

    secret: str
    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: str | None = None
    data_dir: Path = Path("data")
    max_frame: int = 64 * 1024
    rate: float = 50.0
    burst: int = 100
    idle_timeout: float = 60.0
    ping_interval: float = 20.0
    session_ttl: float = 7 * 86400.0
    log_level: str = "INFO"
    loop: str = DEFAULT_LOOP
    process_id: str = field(default_factory=_default_process_id)
    countdown: float = 3.0
    quick_time_limit: int = 600
    send_queue: int = 256
    # Every racer has the same deal, so a rival's board shows cards of one's own game (the
    # waste shows the stock order): a delay shorter than the race helps a racer who watches.
    spectator_delay: float = 600.0
    casual_spectator_delay: float = 0.0
    daily_budget: int = 0
    daily_prepare: int = 1
    hint_budget: int = 20_000
    analyses_per_hour: int = 20
    pool_size: int = 3
    pool_budget: int = 0
    pool_wait: float = 20.0
    pool_prepare: int = 1
    verdict_budget: int = 50_000
    bot_delay: float = 1.0
    bot_lease: float = 10.0
    fair_play: str = "hold"
    fair_play_budget: int = 20_000
    trusted_proxies: tuple[str, ...] = ()
    arenas: tuple[ArenaSpec, ...] = ()
    knockout_show: float = 60.0
    #: None: the listener's own URL (:func:`listener_url`); "": advertise nothing.
    advertise_url: str | None = None
    wait_replicas: int = 0
    wait_timeout: float = 1.0
    #: Where each value came from ("flag --port", "env SOLRACE_PORT", "default", ...).
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        problems = []
        if len(self.secret) < MIN_SECRET_LENGTH:
            problems.append(f"secret must be at least {MIN_SECRET_LENGTH} characters")
        if not 0 <= self.port <= 65535:
            problems.append(f"port must be in 0..65535, not {self.port}")
        if self.redis_url is not None and urlsplit(self.redis_url).scheme not in (
            "redis", "rediss", "unix", "redis+cluster", "rediss+cluster",
        ):  # fmt: skip
            problems.append(f"redis_url must be redis://, rediss://, unix:// or "
                            f"redis+cluster://: {mask_url(self.redis_url)}")
        elif self.redis_url is not None and "+cluster" in urlsplit(self.redis_url).scheme:
            from solrace.server.store.connect import parse_cluster_url

            try:
                parse_cluster_url(self.redis_url)
            except ValueError as exc:
                problems.append(f"redis_url: {exc}")
        if self.wait_replicas < 0 or not 0 < self.wait_timeout < float("inf"):
            problems.append("wait_replicas must be >= 0 and wait_timeout positive")
        if self.max_frame < 1024:
            problems.append(f"max_frame must be at least 1024 bytes, not {self.max_frame}")
        if not self.rate > 0:
            problems.append(f"rate must be positive, not {self.rate}")
        if self.burst < 1:
            problems.append(f"burst must be at least 1, not {self.burst}")
        for name in ("idle_timeout", "ping_interval", "session_ttl"):
            if not getattr(self, name) > 0:
                problems.append(f"{name} must be positive, not {getattr(self, name)}")
        if not self.countdown >= 0:
            problems.append(f"countdown must not be negative, not {self.countdown}")
        if not (self.spectator_delay >= 0 and self.casual_spectator_delay >= 0):
            problems.append("spectator delays must not be negative")
        if self.daily_budget < 0 or self.daily_prepare < -1:
            problems.append("daily_budget must be >= 0 and daily_prepare >= -1")
        if not 1 <= self.knockout_show <= 3600:
            problems.append("knockout_show must be 1 s to 1 h")
        if not (0 <= self.bot_delay < float("inf") and 0.1 <= self.bot_lease < float("inf")):
            problems.append("bot_delay must be finite and >= 0, bot_lease finite and >= 0.1 s")
        if min(self.pool_size, self.pool_budget, self.verdict_budget,
               self.fair_play_budget) < 0:
            problems.append("pool_size, pool_budget, verdict_budget and fair_play_budget must "
                            "be >= 0")
        if not 0 <= self.pool_wait <= MAX_POOL_WAIT or self.pool_prepare not in (0, 1):
            problems.append(f"pool_wait must be 0..{MAX_POOL_WAIT} seconds and pool_prepare "
                            "0 or 1")
        if self.hint_budget < 1:
            problems.append(f"hint_budget must be at least 1, not {self.hint_budget}")
        if self.analyses_per_hour < 1:
            problems.append(f"analyses_per_hour must be at least 1, not "
                            f"{self.analyses_per_hour}")
        for name in ("quick_time_limit", "send_queue"):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.log_level not in LOG_LEVELS:
            problems.append(f"log_level must be one of {', '.join(LOG_LEVELS)}")
        if not self.process_id:
            problems.append("process_id must not be empty")
        if self.advertise_url:
            problem = advertise_problem(self.advertise_url)
            if problem:
                problems.append(problem)
        if problems:
            raise ValueError("invalid configuration: " + "; ".join(problems))

    @property
    def secret_key(self) -> bytes:
        """The secret as HMAC key bytes."""
        return self.secret.encode()

    @property
    def embedded_redis(self) -> bool:
        """Whether the server must start its own Redis (no ``redis_url``)."""
        return self.redis_url is None

    @classmethod
    def parser(cls) -> argparse.ArgumentParser:
        """The argparse parser; every flag defaults to None so that env and defaults apply."""
        parser = argparse.ArgumentParser(
            prog="solrace-server",
            description="The solrace race server. Every flag can also be set with the "
            "environment variable named in its help; flags win.",
        )
        defaults = {f.name: f for f in fields(cls)}
        for s in SETTINGS:
            default = defaults[s.name].default
            if s.name == "process_id":
                shown = "; default HOSTNAME-PID"
            elif s.secret or default is MISSING or default is None:
                shown = ""
            else:
                shown = f"; default {default}"
            parser.add_argument(
                s.flag, dest=s.name, default=None, metavar=s.name.upper(),
                help=f"{s.help} (env {s.env}{shown})",
            )  # fmt: skip
        return parser

    @classmethod
    def from_args(
        cls, argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None
    ) -> Config:
        """Parse ``argv`` (default ``sys.argv[1:]``) over ``environ`` (default ``os.environ``).

        A bad value exits through argparse with a message naming the flag or variable. May
        create ``DATA_DIR/secret`` (see the module docstring).
        """
        env = os.environ if environ is None else environ
        parser = cls.parser()
        args = parser.parse_args(argv)
        values: dict[str, Any] = {}
        sources: dict[str, str] = {}
        for s in SETTINGS:
            raw: str | None = getattr(args, s.name)
            if raw is not None:
                origin = f"flag {s.flag}"
            elif s.env in env:
                raw, origin = env[s.env], f"env {s.env}"
            else:
                sources[s.name] = "default"
                continue
            try:
                values[s.name] = s.parse(raw)
            except ValueError as exc:
                parser.error(f"{origin}: {exc}")
            sources[s.name] = origin
        if values.get("secret") is None:
            data_dir = Path(values.get("data_dir", cls.__dataclass_fields__["data_dir"].default))
            values["secret"], sources["secret"] = _file_secret(data_dir)
        try:
            return cls(**values, sources=sources)
        except ValueError as exc:
            parser.error(str(exc))
        raise AssertionError("unreachable")  # parser.error exits

    def describe(self) -> str:
        """A multi-line printout of every setting and its source, secrets masked."""
        lines = ["solrace server configuration:"]
        name_width = max(len(s.name) for s in SETTINGS)  # one column, however long a name
        for s in SETTINGS:
            value = getattr(self, s.name)
            if s.secret:
                shown = MASK
            elif s.name == "advertise_url" and not value:
                shown = "the listener's URL" if value is None else "off"
            elif s.name == "redis_url":
                shown = mask_url(value) if value else f"embedded (AOF in {self.data_dir / 'redis'})"
            else:
                shown = str(value)
            lines.append(f"  {s.name:<{name_width}} {shown:<32} "
                         f"({self.sources.get(s.name, 'given')})")
        if self.redis_url is not None and self.sources.get("secret", "").startswith("file"):
            lines.append(
                "  warning: the secret comes from a local file; every process sharing this "
                f"Redis must use the same one: set {_BY_NAME['secret'].env}"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        shown = []
        for f in fields(self):
            if f.name == "sources":
                continue
            value = getattr(self, f.name)
            if f.name == "secret":
                value = MASK
            elif f.name == "redis_url" and value:
                value = mask_url(value)
            shown.append(f"{f.name}={value!r}")
        return f"Config({', '.join(shown)})"


def _file_secret(data_dir: Path) -> tuple[str, str]:
    """The secret kept in ``data_dir/secret``, created (atomically, mode 0600) if missing.

    Creation writes a temporary file and hard-links it into place, so two processes starting
    together on one data directory both end up with the one secret that won.
    """
    path = data_dir / SECRET_FILE
    generated = False
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        tmp = data_dir / f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_urlsafe(32) + "\n")
            try:
                os.link(tmp, path)
                generated = True
            except FileExistsError:
                pass
        finally:
            tmp.unlink(missing_ok=True)
    secret = path.read_text().strip()
    return secret, f"file {path}{' (generated)' if generated else ''}"
