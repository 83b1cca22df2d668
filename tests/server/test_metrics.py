"""The metrics registry: updates, and text format 0.0.4 parsed back by an independent parser."""

from __future__ import annotations

import math
import re

import pytest
from solrace.server.ops import metrics
from solrace.server.ops.metrics import CONTENT_TYPE, REGISTRY, Registry

_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


def parse(text: str) -> dict[str, dict]:
    """Parse exposition text into {family: {help, type, samples: [(name, labels, value)]}}.

    Strict on the points the format requires: a trailing newline, HELP then TYPE before a
    family's samples, every sample belonging to the family last declared, parseable values.
    """
    assert text.endswith("\n")
    families: dict[str, dict] = {}
    current: str | None = None
    for line in text[:-1].split("\n"):
        if line.startswith("# HELP "):
            name, _, help_text = line[7:].partition(" ")
            assert name not in families, f"{name} declared twice"
            families[name] = {"help": _unescape(help_text), "type": None, "samples": []}
            current = name
        elif line.startswith("# TYPE "):
            name, _, kind = line[7:].partition(" ")
            assert name == current and kind in ("counter", "gauge", "histogram")
            families[name]["type"] = kind
        else:
            match = _SAMPLE.match(line)
            assert match, f"not a sample line: {line!r}"
            name, label_text, value_text = match.groups()
            assert current is not None and families[current]["type"] is not None
            assert name == current or (
                families[current]["type"] == "histogram"
                and name in {current + s for s in ("_bucket", "_sum", "_count")}
            ), f"{name} outside its family {current}"
            labels: dict[str, str] = {}
            if label_text:
                pos = 0
                while pos < len(label_text):
                    lm = _LABEL.match(label_text, pos)
                    assert lm, f"bad labels {label_text!r}"
                    labels[lm.group(1)] = _unescape(lm.group(2))
                    pos = lm.end()
            families[current]["samples"].append((name, labels, float(value_text)))
    return families


def test_counter_gauge_and_labels_round_trip() -> None:
    reg = Registry()
    hits = reg.counter("app_hits_total", "Hits.\nSecond line with \\ backslash.", ("path",))
    temp = reg.gauge("app_temperature", "Temperature.")
    plain = reg.counter("app_plain_total", "Unlabelled.")
    hits.labels(path="/a").inc()
    hits.labels("/a").inc(2)
    weird = 'quote " back \\ newline \n end'
    hits.labels(path=weird).inc()
    temp.set(21.5)
    temp.inc(1)
    temp.dec(0.25)
    plain.inc()
    fam = parse(reg.render())
    assert list(fam) == ["app_hits_total", "app_temperature", "app_plain_total"]
    assert fam["app_hits_total"]["help"] == "Hits.\nSecond line with \\ backslash."
    assert fam["app_hits_total"]["type"] == "counter"
    hit_samples = {s[1]["path"]: (s[0], s[2]) for s in fam["app_hits_total"]["samples"]}
    assert hit_samples == {"/a": ("app_hits_total", 3.0), weird: ("app_hits_total", 1.0)}
    assert fam["app_temperature"]["samples"] == [("app_temperature", {}, 22.25)]
    assert fam["app_temperature"]["type"] == "gauge"
    assert fam["app_plain_total"]["samples"] == [("app_plain_total", {}, 1.0)]


def test_unused_labelled_family_renders_only_its_header() -> None:
    reg = Registry()
    reg.counter("app_errors_total", "Errors.", ("code",))
    fam = parse(reg.render())
    assert fam["app_errors_total"]["samples"] == []


def test_histogram_buckets_are_cumulative_and_inclusive() -> None:
    reg = Registry()
    hist = reg.histogram("app_latency_seconds", "Latency.", buckets=(0.01, 0.1, 1))
    observations = [0.005, 0.01, 0.05, 0.1, 0.5, 3.0, 7.0]
    for value in observations:
        hist.observe(value)
    fam = parse(reg.render())["app_latency_seconds"]
    assert fam["type"] == "histogram"
    buckets = {s[1]["le"]: s[2] for s in fam["samples"] if s[0].endswith("_bucket")}
    # le=b counts observations <= b: the boundary values 0.01 and 0.1 fall in their own bucket.
    expected = {
        le: sum(1 for v in observations if v <= float(le)) for le in ("0.01", "0.1", "1.0", "+Inf")
    }
    assert buckets == expected
    assert list(buckets) == ["0.01", "0.1", "1.0", "+Inf"], "buckets in increasing order"
    sums = {s[0]: s[2] for s in fam["samples"] if not s[0].endswith("_bucket")}
    assert sums["app_latency_seconds_count"] == len(observations) == buckets["+Inf"]
    assert math.isclose(sums["app_latency_seconds_sum"], sum(observations))


def test_labelled_histogram_keeps_le_last_after_its_labels() -> None:
    reg = Registry()
    hist = reg.histogram("app_op_seconds", "Op.", ("op",), buckets=(1, 2))
    hist.labels(op="read").observe(1.5)
    fam = parse(reg.render())["app_op_seconds"]
    first = fam["samples"][0]
    assert first[0] == "app_op_seconds_bucket" and list(first[1]) == ["op", "le"]
    count = next(s for s in fam["samples"] if s[0] == "app_op_seconds_count")
    assert count[1] == {"op": "read"} and count[2] == 1


def test_special_values_render_in_go_syntax() -> None:
    reg = Registry()
    g = reg.gauge("app_g", "G.", ("k",))
    g.labels("inf").set(math.inf)
    g.labels("ninf").set(-math.inf)
    g.labels("nan").set(math.nan)
    text = reg.render()
    assert 'app_g{k="inf"} +Inf' in text
    assert 'app_g{k="ninf"} -Inf' in text
    assert 'app_g{k="nan"} NaN' in text


def test_misuse_is_rejected() -> None:
    reg = Registry()
    c = reg.counter("app_c_total", "C.", ("a", "b"))
    with pytest.raises(ValueError):
        c.labels(a="x")  # missing b
    with pytest.raises(ValueError):
        c.labels("x")
    with pytest.raises(ValueError):
        c.labels(a="x", b="y", z="w")
    with pytest.raises(ValueError):
        c.inc()  # labelled: must pick a series
    with pytest.raises(ValueError):
        c.labels("x", "y").inc(-1)
    with pytest.raises(ValueError):
        reg.counter("app_c_total", "again")
    for bad_name in ("1abc", "a-b", ""):
        with pytest.raises(ValueError):
            reg.gauge(bad_name, "bad")
    with pytest.raises(ValueError):
        reg.gauge("app_ok", "bad label", ("__reserved",))
    with pytest.raises(ValueError):
        reg.histogram("app_h", "le is reserved", ("le",))
    with pytest.raises(ValueError):
        reg.histogram("app_h2", "unsorted", buckets=(1, 0.5))


def test_cached_child_is_the_same_series() -> None:
    reg = Registry()
    moves = reg.counter("app_moves_total", "Moves.", ("variant",))
    child = moves.labels(variant="klondike")
    for _ in range(5):
        child.inc()
    assert moves.labels("klondike") is child
    assert reg.sample_value("app_moves_total", variant="klondike") == 5
    assert reg.sample_value("app_moves_total", variant="other") is None


def test_default_registry_has_the_server_metrics() -> None:
    fam = parse(REGISTRY.render())
    kinds = {name: f["type"] for name, f in fam.items()}
    assert kinds == {
        "solrace_connections": "gauge",
        "solrace_messages_total": "counter",
        "solrace_errors_total": "counter",
        "solrace_moves_total": "counter",
        "solrace_move_ack_seconds": "histogram",
        "solrace_races_created_total": "counter",
        "solrace_races_finished_total": "counter",
        "solrace_hints_total": "counter",
        "solrace_redis_commands_total": "counter",
    }
    assert metrics.MESSAGES.labelnames == ("type",)
    assert metrics.ERRORS.labelnames == ("code",)
    assert metrics.MOVES.labelnames == ("variant",)
    assert "version=0.0.4" in CONTENT_TYPE


def test_default_metrics_update_what_is_rendered() -> None:
    before = REGISTRY.sample_value("solrace_move_ack_seconds_count") or 0
    errors_before = REGISTRY.sample_value("solrace_errors_total", code="test_code") or 0
    metrics.MOVE_ACK_SECONDS.observe(0.002)
    metrics.ERRORS.labels(code="test_code").inc()
    assert REGISTRY.sample_value("solrace_move_ack_seconds_count") == before + 1
    assert REGISTRY.sample_value("solrace_errors_total", code="test_code") == errors_before + 1
    samples = parse(REGISTRY.render())["solrace_errors_total"]["samples"]
    assert ("solrace_errors_total", {"code": "test_code"}, errors_before + 1) in samples
