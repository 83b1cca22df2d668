"""Issue 10, item 10: a second ``dev.py serve`` — a busy port is a one-line error before any
embedded Redis starts, and two Redis processes never share one append-only directory."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from solrace.server.ops.redisproc import RedisProcess, RedisProcessError

pytestmark = pytest.mark.timeout(120)


def test_two_redis_processes_never_share_a_data_directory(tmp_path: Path) -> None:
    first = RedisProcess(data_dir=tmp_path).start()
    try:
        second = RedisProcess(data_dir=tmp_path)
        with pytest.raises(RedisProcessError, match="in use by another Redis"):
            second.start()
        assert not second.running
    finally:
        first.stop()
    second.start()  # free again once the first one stopped
    second.stop()


def test_the_lock_survives_a_restart_and_is_released_after_a_kill(tmp_path: Path) -> None:
    proc = RedisProcess(data_dir=tmp_path).start()
    try:
        proc.restart(kill=True)
        with pytest.raises(RedisProcessError):
            RedisProcess(data_dir=tmp_path).start()
        proc.kill()
        other = RedisProcess(data_dir=tmp_path).start()
        other.stop()
    finally:
        proc.stop()


def test_a_busy_port_is_one_line_and_starts_no_redis(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        data = tmp_path / "data"
        env = {k: v for k, v in os.environ.items() if not k.startswith("SOLRACE_")}
        done = subprocess.run(
            [sys.executable, "-m", "solrace.server", "--host", "127.0.0.1", "--port", str(port),
             "--data-dir", str(data), "--secret", "test-secret-0123456789abcdef"],
            capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and f"127.0.0.1:{port}" in errors[0], done.stderr
    assert not (data / "redis").exists(), "an embedded Redis was started for a busy port"
