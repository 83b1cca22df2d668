"""Config: flag > environment > default for every setting, validation, the secret, masking."""

from __future__ import annotations

import dataclasses
import os
import stat
import sys
from importlib.util import find_spec as _find_spec
from pathlib import Path

import pytest
from solrace.server.ops import config as config_module
from solrace.server.ops.config import (
    DEFAULT_LOOP,
    MASK,
    SETTINGS,
    Config,
    Setting,
    listener_url,
    mask_url,
    parse_duration,
    uvloop_available,
)
from solrace.shared.tournaments.schedule import parse_arenas

SECRET = "s3cret-value-0123456789"

# For each setting: (text for the environment, parsed), (text for the flag, parsed).
SAMPLES: dict[str, tuple[tuple[str, object], tuple[str, object]]] = {
    "host": (("0.0.0.0", "0.0.0.0"), ("::1", "::1")),
    "port": (("9001", 9001), ("9002", 9002)),
    "redis_url": (("redis://env:6379/0", "redis://env:6379/0"),
                  ("redis://flag:6379/1", "redis://flag:6379/1")),
    "data_dir": (("/srv/env", Path("/srv/env")), ("/srv/flag", Path("/srv/flag"))),
    "secret": (("env-secret-0123456789", "env-secret-0123456789"),
               ("flag-secret-0123456789", "flag-secret-0123456789")),
    "max_frame": (("2048", 2048), ("4096", 4096)),
    "rate": (("5", 5.0), ("7.5", 7.5)),
    "burst": (("10", 10), ("20", 20)),
    "idle_timeout": (("2m", 120.0), ("30", 30.0)),
    "ping_interval": (("5s", 5.0), ("10", 10.0)),
    "session_ttl": (("1d", 86400.0), ("12h", 43200.0)),
    "log_level": (("debug", "DEBUG"), ("warning", "WARNING")),
    "loop": (("uvloop", "uvloop"), ("asyncio", "asyncio")),
    "process_id": (("env-proc", "env-proc"), ("flag-proc", "flag-proc")),
    "countdown": (("0", 0.0), ("2.5s", 2.5)),
    "quick_time_limit": (("300", 300), ("120", 120)),
    "send_queue": (("16", 16), ("32", 32)),
    "spectator_delay": (("0", 0.0), ("30s", 30.0)),
    "casual_spectator_delay": (("5", 5.0), ("1m", 60.0)),
    "daily_budget": (("1000", 1000), ("50000", 50000)),
    "daily_prepare": (("-1", -1), ("2", 2)),
    "hint_budget": (("5000", 5000), ("100", 100)),
    "analyses_per_hour": (("5", 5), ("100", 100)),
    "pool_size": (("0", 0), ("5", 5)),
    "pool_budget": (("2000", 2000), ("0", 0)),
    "pool_wait": (("5s", 5.0), ("1m", 60.0)),
    "pool_prepare": (("0", 0), ("1", 1)),
    "verdict_budget": (("0", 0), ("20000", 20000)),
    "bot_delay": (("0", 0.0), ("0.5", 0.5)),
    "bot_lease": (("2s", 2.0), ("1m", 60.0)),
    "knockout_show": (("30s", 30.0), ("2m", 120.0)),
    "fair_play": (("record", "record"), ("HOLD", "hold")),
    "fair_play_budget": (("0", 0), ("5000", 5000)),
    "advertise_url": (("wss://lb.example/p1", "wss://lb.example/p1"), ("off", "")),
    "trusted_proxies": (("10.0.0.1", ("10.0.0.1",)), ("10.0.0.1, ::1", ("10.0.0.1", "::1"))),
    "wait_replicas": (("1", 1), ("2", 2)),
    "wait_timeout": (("0.5", 0.5), ("2s", 2.0)),
    "arenas": (("", ()), ("unlimited | every 1h at :00 for 30m | 300",
                          parse_arenas("unlimited | every 1h at :00 for 30m | 300"))),
}  # fmt: skip


def test_samples_cover_every_setting() -> None:
    assert set(SAMPLES) == {s.name for s in SETTINGS}
    assert {s.name for s in SETTINGS} | {"sources"} == {f.name for f in dataclasses.fields(Config)}


def test_defaults() -> None:
    config = Config.from_args([], {"SOLRACE_SECRET": SECRET})
    assert (config.host, config.port, config.redis_url) == ("127.0.0.1", 8765, None)
    assert config.data_dir == Path("data")
    assert config.max_frame == 64 * 1024
    assert (config.rate, config.burst) == (50.0, 100)
    assert (config.idle_timeout, config.ping_interval) == (60.0, 20.0)
    assert config.session_ttl == 7 * 86400
    assert config.log_level == "INFO"
    assert config.loop == ("uvloop" if uvloop_available() else "asyncio")
    assert config.embedded_redis
    assert config.process_id.endswith(f"-{os.getpid()}")
    assert config.sources["port"] == "default"
    assert config.sources["secret"] == "env SOLRACE_SECRET"


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_env_then_flag_precedence(setting: Setting, tmp_path: Path) -> None:
    (env_text, env_value), (flag_text, flag_value) = SAMPLES[setting.name]
    base = {"SOLRACE_SECRET": SECRET, "SOLRACE_DATA_DIR": str(tmp_path)}
    if setting.name == "data_dir":
        base = {"SOLRACE_SECRET": SECRET}

    from_env = Config.from_args([], {**base, setting.env: env_text})
    assert getattr(from_env, setting.name) == env_value
    assert from_env.sources[setting.name] == f"env {setting.env}"

    both = Config.from_args([setting.flag, flag_text], {**base, setting.env: env_text})
    assert getattr(both, setting.name) == flag_value
    assert both.sources[setting.name] == f"flag {setting.flag}"

    other = next(s for s in SETTINGS if s.name != setting.name and s.name != "secret")
    assert both.sources[other.name] in ("default", f"env {other.env}")


def test_empty_redis_url_means_embedded() -> None:
    config = Config.from_args([], {"SOLRACE_SECRET": SECRET, "SOLRACE_REDIS_URL": ""})
    assert config.redis_url is None and config.embedded_redis


@pytest.mark.parametrize(
    ("argv", "env", "needle"),
    [
        (["--port", "http"], {}, "--port"),
        (["--port", "70000"], {}, "port must be in 0..65535"),
        ([], {"SOLRACE_IDLE_TIMEOUT": "soon"}, "SOLRACE_IDLE_TIMEOUT"),
        ([], {"SOLRACE_LOG_LEVEL": "loud"}, "log level"),
        (["--redis-url", "http://x:pw@h/0"], {}, "redis://"),
        (["--secret", "short"], {}, "at least 16"),
        (["--rate", "0"], {}, "rate must be positive"),
        (["--send-queue", "0"], {}, "send_queue must be at least 1"),
        ([], {"SOLRACE_HINT_BUDGET": "0"}, "hint_budget must be at least 1"),
        (["--analyses-per-hour", "0"], {}, "analyses_per_hour must be at least 1"),
        ([], {"SOLRACE_BOT_DELAY": "-1"}, "bot_delay must be finite and >= 0"),
        ([], {"SOLRACE_BOT_LEASE": "0"}, "bot_lease finite and >= 0.1 s"),
        ([], {"SOLRACE_KNOCKOUT_SHOW": "0"}, "knockout_show must be 1 s to 1 h"),
        ([], {"SOLRACE_COUNTDOWN": "-1"}, "SOLRACE_COUNTDOWN"),
        (["--no-such-flag"], {}, "unrecognized"),
        (["--loop", "tokio"], {}, "loop must be one of asyncio, uvloop"),
        (["--advertise-url", "http://h:1"], {}, "ws://HOST"),
        ([], {"SOLRACE_ADVERTISE_URL": "ws://u:pw@h:1"}, "no user name"),
        (["--advertise-url", "ws://h:1/?x=1"], {}, "query"),
        (["--advertise-url", "ws://h:99999"], {}, "advertise_url"),
    ],
)
def test_bad_values_exit_with_a_message(argv, env, needle, capsys) -> None:
    with pytest.raises(SystemExit) as info:
        Config.from_args(argv, {"SOLRACE_SECRET": SECRET, **env})
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert needle in err
    assert "pw" not in err


def test_the_default_loop_is_uvloop_where_it_can_be_imported() -> None:
    """uvloop is a dependency on Linux (pyproject.toml): here it is the default, and a
    process without it (another system) falls back to asyncio's loop."""
    if sys.platform == "linux":
        assert uvloop_available()
    assert ("uvloop" if uvloop_available() else "asyncio") == DEFAULT_LOOP


def test_uvloop_that_cannot_be_imported_is_refused_by_name(monkeypatch, capsys) -> None:
    monkeypatch.setattr(
        config_module.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "uvloop" else _find_spec(name, *a),
    )
    assert not uvloop_available()
    with pytest.raises(SystemExit) as info:
        Config.from_args(["--loop", "uvloop"], {"SOLRACE_SECRET": SECRET})
    assert info.value.code == 2
    assert "uvloop cannot be imported here" in capsys.readouterr().err
    assert Config.from_args(["--loop", "asyncio"], {"SOLRACE_SECRET": SECRET}).loop == "asyncio"


def test_direct_construction_validates() -> None:
    assert Config(secret=SECRET, port=0).port == 0
    with pytest.raises(ValueError, match="burst"):
        Config(secret=SECRET, burst=0)
    with pytest.raises(TypeError):
        Config()  # type: ignore[call-arg]  # a secret is always required


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90.0), ("1.5", 1.5), ("45s", 45.0), ("10m", 600.0), ("12h", 43200.0), ("7d", 604800.0),
     (" 2 m ", 120.0)],
)  # fmt: skip
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "m", "-5", "1w", "5 minutes", "1e3"])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


# -- the generated secret ----------------------------------------------------------------------


def test_secret_is_generated_once_and_kept(tmp_path: Path) -> None:
    env = {"SOLRACE_DATA_DIR": str(tmp_path / "data")}
    first = Config.from_args([], env)
    path = tmp_path / "data" / "secret"
    assert path.exists()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first.secret) >= 32
    assert first.sources["secret"] == f"file {path} (generated)"
    second = Config.from_args([], env)
    assert second.secret == first.secret
    assert second.sources["secret"] == f"file {path}"
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["secret"], "no temp file left"
    other = Config.from_args([], {"SOLRACE_DATA_DIR": str(tmp_path / "elsewhere")})
    assert other.secret != first.secret


def test_given_secret_writes_no_file(tmp_path: Path) -> None:
    config = Config.from_args(["--secret", SECRET, "--data-dir", str(tmp_path / "d")], {})
    assert config.secret == SECRET and config.secret_key == SECRET.encode()
    assert not (tmp_path / "d").exists()


def test_file_secret_with_external_redis_warns(tmp_path: Path) -> None:
    argv = ["--redis-url", "redis://db:6379/0", "--data-dir", str(tmp_path)]
    assert "SOLRACE_SECRET" in Config.from_args(argv, {}).describe().split("warning:")[1]
    shared = Config.from_args(argv, {"SOLRACE_SECRET": SECRET})
    assert "warning" not in shared.describe()
    embedded = Config.from_args(["--data-dir", str(tmp_path)], {})
    assert "warning" not in embedded.describe()


# -- masking -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        ("redis://h:6379/0", "redis://h:6379/0"),
        ("redis://:pw@h:6379/0", f"redis://:{MASK}@h:6379/0"),
        ("redis://user:pw@h/0", f"redis://user:{MASK}@h/0"),
        ("redis://user@h/0", "redis://user@h/0"),
        ("rediss://u:p%40ss@h/0?password=q&db=2", f"rediss://u:{MASK}@h/0?password={MASK}&db=2"),
        ("unix:///run/redis.sock?password=pw", f"unix:///run/redis.sock?password={MASK}"),
    ],
)
def test_mask_url(url: str, masked: str) -> None:
    assert mask_url(url) == masked


def test_describe_and_repr_never_show_secrets() -> None:
    config = Config.from_args(
        ["--redis-url", "redis://admin:hunter2-password@db:6379/0", "--port", "9100"],
        {"SOLRACE_SECRET": SECRET},
    )
    text = config.describe()
    for shown in (text, repr(config), str(config)):
        assert SECRET not in shown and "hunter2" not in shown
        assert MASK in shown
    lines = {line.split()[0]: line for line in text.splitlines()[1:]}
    assert set(lines) == {s.name for s in SETTINGS}
    assert "9100" in lines["port"] and "(flag --port)" in lines["port"]
    assert "(env SOLRACE_SECRET)" in lines["secret"]
    assert "redis://admin:***@db:6379/0" in lines["redis_url"]


def test_describe_says_embedded(tmp_path: Path) -> None:
    config = Config.from_args(["--data-dir", str(tmp_path)], {"SOLRACE_SECRET": SECRET})
    line = next(x for x in config.describe().splitlines() if x.split()[0] == "redis_url")
    assert "embedded" in line and str(tmp_path) in line


def test_advertise_url_defaults_to_the_listener_and_can_be_turned_off() -> None:
    """Unset (or empty): the listener's own URL, derived once the port is bound; ``off``:
    nothing. A wildcard listen address names no address a client could use."""
    env = {"SOLRACE_SECRET": SECRET}
    assert Config.from_args([], env).advertise_url is None
    assert Config.from_args([], {**env, "SOLRACE_ADVERTISE_URL": ""}).advertise_url is None
    assert Config.from_args(["--advertise-url", "OFF"], env).advertise_url == ""
    config = Config.from_args(["--advertise-url", "wss://lb.example/p2"], env)
    assert config.advertise_url == "wss://lb.example/p2"
    line = next(x for x in config.describe().splitlines() if x.split()[0] == "advertise_url")
    assert "wss://lb.example/p2" in line and "(flag --advertise-url)" in line
    assert listener_url("127.0.0.1", 8765) == "ws://127.0.0.1:8765"
    assert listener_url("::1", 9000) == "ws://[::1]:9000"
    assert listener_url("0.0.0.0", 8765) == listener_url("::", 1) == listener_url("", 1) == ""
    with pytest.raises(ValueError, match="advertise_url"):
        Config(secret=SECRET, advertise_url="ws://")
