"""The server's metrics (``prometheus_client``): the families, labels and types ``/metrics``
promises, and what the library renders — text format 0.0.4 — parsed back by an independent,
strict parser."""

from __future__ import annotations

import math
import re

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from solrace.server.ops import metrics
from solrace.server.ops.metrics import CONTENT_TYPE, REGISTRY, render, sample_value

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
    reg = CollectorRegistry()
    hits = Counter("app_hits_total", "Hits.\nSecond line with \\ backslash.", ("path",),
                   registry=reg)
    temp = Gauge("app_temperature", "Temperature.", registry=reg)
    plain = Counter("app_plain_total", "Unlabelled.", registry=reg)
    hits.labels(path="/a").inc()
    hits.labels("/a").inc(2)
    weird = 'quote " back \\ newline \n end'
    hits.labels(path=weird).inc()
    temp.set(21.5)
    temp.inc(1)
    temp.dec(0.25)
    plain.inc()
    fam = parse(render(reg))
    assert list(fam) == ["app_hits_total", "app_temperature", "app_plain_total"]
    assert fam["app_hits_total"]["help"] == "Hits.\nSecond line with \\ backslash."
    assert fam["app_hits_total"]["type"] == "counter"
    hit_samples = {s[1]["path"]: (s[0], s[2]) for s in fam["app_hits_total"]["samples"]}
    assert hit_samples == {"/a": ("app_hits_total", 3.0), weird: ("app_hits_total", 1.0)}
    assert fam["app_temperature"]["samples"] == [("app_temperature", {}, 22.25)]
    assert fam["app_temperature"]["type"] == "gauge"
    assert fam["app_plain_total"]["samples"] == [("app_plain_total", {}, 1.0)]


def test_unused_labelled_family_renders_only_its_header() -> None:
    reg = CollectorRegistry()
    Counter("app_errors_total", "Errors.", ("code",), registry=reg)
    fam = parse(render(reg))
    assert fam["app_errors_total"]["samples"] == []


def test_histogram_buckets_are_cumulative_and_inclusive() -> None:
    reg = CollectorRegistry()
    hist = Histogram("app_latency_seconds", "Latency.", buckets=(0.01, 0.1, 1), registry=reg)
    observations = [0.005, 0.01, 0.05, 0.1, 0.5, 3.0, 7.0]
    for value in observations:
        hist.observe(value)
    fam = parse(render(reg))["app_latency_seconds"]
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


def test_labelled_histogram_series_carry_their_labels_and_le() -> None:
    """Label order is not part of the format (the library sorts labels: ``le`` may come
    first); each bucket carries the series' labels plus ``le``, the sum and count only those."""
    reg = CollectorRegistry()
    hist = Histogram("app_op_seconds", "Op.", ("op",), buckets=(1, 2), registry=reg)
    hist.labels(op="read").observe(1.5)
    fam = parse(render(reg))["app_op_seconds"]
    first = fam["samples"][0]
    assert first[0] == "app_op_seconds_bucket" and set(first[1]) == {"op", "le"}
    count = next(s for s in fam["samples"] if s[0] == "app_op_seconds_count")
    assert count[1] == {"op": "read"} and count[2] == 1


def test_special_values_render_in_go_syntax() -> None:
    reg = CollectorRegistry()
    g = Gauge("app_g", "G.", ("k",), registry=reg)
    g.labels("inf").set(math.inf)
    g.labels("ninf").set(-math.inf)
    g.labels("nan").set(math.nan)
    text = render(reg)
    assert 'app_g{k="inf"} +Inf' in text
    assert 'app_g{k="ninf"} -Inf' in text
    assert 'app_g{k="nan"} NaN' in text


def test_misuse_is_rejected() -> None:
    reg = CollectorRegistry()
    c = Counter("app_c_total", "C.", ("a", "b"), registry=reg)
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
        Counter("app_c_total", "again", registry=reg)
    with pytest.raises(ValueError):
        Gauge("app_ok", "bad label", ("__reserved",), registry=reg)
    with pytest.raises(ValueError):
        Histogram("app_h", "le is reserved", ("le",), registry=reg)
    with pytest.raises(ValueError):
        Histogram("app_h2", "unsorted", buckets=(1, 0.5), registry=reg)


def test_a_name_format_0_0_4_forbids_never_reaches_the_output() -> None:
    """The library accepts UTF-8 metric names; rendered as 0.0.4 they are escaped to legal
    ones, so ``/metrics`` stays parseable whatever a future metric is called."""
    reg = CollectorRegistry()
    for name in ("1abc", "a-b"):
        Gauge(name, "odd", registry=reg).set(1)
    assert all(_SAMPLE.match(line) or line.startswith("#")
               for line in render(reg).splitlines())
    parse(render(reg))


def test_cached_child_is_the_same_series() -> None:
    reg = CollectorRegistry()
    moves = Counter("app_moves_total", "Moves.", ("variant",), registry=reg)
    child = moves.labels(variant="klondike")
    for _ in range(5):
        child.inc()
    assert moves.labels("klondike") is child
    assert sample_value("app_moves_total", registry=reg, variant="klondike") == 5
    assert sample_value("app_moves_total", registry=reg, variant="other") is None


def test_default_registry_has_the_server_metrics() -> None:
    fam = parse(render())
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
    }, "only the server's metrics: no *_created series, no process or GC collectors"
    for family, name, label in ((metrics.MESSAGES, "solrace_messages_total", "type"),
                                (metrics.ERRORS, "solrace_errors_total", "code"),
                                (metrics.MOVES, "solrace_moves_total", "variant"),
                                (metrics.HINTS, "solrace_hints_total", "outcome")):
        family.labels(**{label: "test_label"})
        samples = parse(render())[name]["samples"]
        assert any(s[1] == {label: "test_label"} for s in samples), name
    buckets = [s[1]["le"] for s in parse(render())["solrace_move_ack_seconds"]["samples"]
               if s[0].endswith("_bucket")]
    assert [float(le) for le in buckets] == [*metrics.ACK_BUCKETS, math.inf]
    assert "version=0.0.4" in CONTENT_TYPE


def test_default_metrics_update_what_is_rendered() -> None:
    before = sample_value("solrace_move_ack_seconds_count") or 0
    errors_before = sample_value("solrace_errors_total", code="test_code") or 0
    metrics.MOVE_ACK_SECONDS.observe(0.002)
    metrics.ERRORS.labels(code="test_code").inc()
    assert sample_value("solrace_move_ack_seconds_count") == before + 1
    assert sample_value("solrace_errors_total", code="test_code") == errors_before + 1
    samples = parse(render(REGISTRY))["solrace_errors_total"]["samples"]
    assert ("solrace_errors_total", {"code": "test_code"}, errors_before + 1) in samples
