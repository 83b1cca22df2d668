"""The deal PRNG against its specification (``docs/deals.md`` sections 3–5).

The reference below is written from the document, not from ``shared/prng.py``: ``struct``
instead of ``int.to_bytes``, a generator instead of a buffer. If the two ever disagree, a
published seed no longer gives its published deal.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
import struct
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from solrace.shared.cards import card_text
from solrace.shared.prng import DealStream, commitment, seed_bytes

DEALS_MD = Path(__file__).resolve().parents[2] / "docs" / "deals.md"

SEEDS = (0, 1, 42, 2**32, 2**63, 2**64 - 1)
CONTEXTS = (
    b"",
    b"unlimited|draw=1,foundation_takeback=yes",
    b"seven-by-five|cells=5,empty_fill=any",
    "caf\u00e9|\u2660=\u2665".encode(),
    b"x" * 100,  # a key longer than one SHA-256 input block
)


# ------------------------------------------------------------------ the reference, from the doc


def ref_words(seed: int, context: bytes) -> Iterator[int]:
    key = b"solrace-deal-v1" + b"\x00" + context + b"\x00" + struct.pack(">Q", seed)
    for counter in itertools.count():
        yield from struct.unpack(">8I", hashlib.sha256(key + struct.pack(">Q", counter)).digest())


def ref_below(words: Iterator[int], n: int) -> int:
    limit = (1 << 32) - (1 << 32) % n
    for x in words:
        if x < limit:
            return x % n
    raise AssertionError("the stream is endless")


def ref_shuffle(words: Iterator[int], items: list[int]) -> None:
    for i in reversed(range(1, len(items))):
        j = ref_below(words, i + 1)
        items[i], items[j] = items[j], items[i]


class ScriptedStream(DealStream):
    """A DealStream whose words are given by the test: exercises ``below`` word by word."""

    def __init__(self, words: list[int]) -> None:
        super().__init__(0)
        self.script = list(words)
        self.used = 0

    def _u32(self) -> int:
        self.used += 1
        return self.script.pop(0)


# ------------------------------------------------------------------ stream, below, shuffle


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("context", CONTEXTS)
def test_words_match_the_spec(seed: int, context: bytes) -> None:
    stream = DealStream(seed, context)
    got = [stream._u32() for _ in range(40)]  # five blocks: crosses block boundaries
    assert got == list(itertools.islice(ref_words(seed, context), 40))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("context", CONTEXTS[:3])
def test_below_matches_the_spec(seed: int, context: bytes) -> None:
    # 3 * 2**30 and 2**31 + 1 reject about a quarter and a half of all words: if the
    # implementation skipped or mis-placed the rejection the sequences would drift apart.
    ns = [2, 3, 52, 104, 208, 1000, 2**31 + 1, 3 * 2**30, 2**32, 1]
    stream, words = DealStream(seed, context), ref_words(seed, context)
    for n in ns * 30:
        assert stream.below(n) == ref_below(words, n)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", [0, 1, 2, 52, 88, 104, 208])
def test_shuffle_matches_the_spec(seed: int, size: int) -> None:
    context = b"sixes-and-sevens|empty_fill=auto"
    got, want = list(range(size)), list(range(size))
    DealStream(seed, context).shuffle(got)
    ref_shuffle(ref_words(seed, context), want)
    assert got == want
    assert sorted(got) == list(range(size))


def test_contexts_and_seeds_give_unrelated_streams() -> None:
    firsts = {
        tuple(itertools.islice(ref_words(s, c), 4)) for s in SEEDS for c in CONTEXTS
    }
    assert len(firsts) == len(SEEDS) * len(CONTEXTS)


# ------------------------------------------------------------------ the rejection boundary


@pytest.mark.parametrize("n", [3, 7, 52, 1000, 2**31 + 1, 3 * 2**30, 2**32 - 1])
def test_below_rejects_exactly_the_top_remainder(n: int) -> None:
    limit = 2**32 - 2**32 % n
    assert limit % n == 0 and 2**32 - limit < n

    at_limit = ScriptedStream([limit, limit - 1])
    assert at_limit.below(n) == (limit - 1) % n == n - 1
    assert at_limit.used == 2  # ``limit`` itself was thrown away

    below_limit = ScriptedStream([limit - 1])
    assert below_limit.below(n) == n - 1 and below_limit.used == 1

    rejectable = range(limit, min(2**32, limit + 50))  # all of them when there are few
    s = ScriptedStream([*rejectable, 2**32 - 1, 5])
    assert s.below(n) == 5 % n
    assert s.used == len(rejectable) + 2


def test_below_52_boundary_as_documented() -> None:
    # docs/deals.md: for n = 52 the words 4294967248 … 4294967295 are rejected.
    assert 2**32 % 52 == 48
    s = ScriptedStream([4294967248, 4294967295, 4294967247])
    assert s.below(52) == 4294967247 % 52 == 51
    assert s.used == 3


@pytest.mark.parametrize("n", [1, 2, 64, 2**16, 2**32])
def test_powers_of_two_never_reject(n: int) -> None:
    s = ScriptedStream([2**32 - 1])
    assert s.below(n) == (2**32 - 1) % n
    assert s.used == 1  # below(1) still reads a word, as documented


@pytest.mark.parametrize("n", [0, -1, 2**32 + 1])
def test_below_rejects_bad_ranges(n: int) -> None:
    with pytest.raises(ValueError):
        DealStream(0).below(n)


# ------------------------------------------------------------------ uniformity


def chi_square(counts: Counter[int], buckets: int) -> float:
    total = sum(counts.values())
    expected = total / buckets
    return sum((counts.get(b, 0) - expected) ** 2 / expected for b in range(buckets))


def critical(df: int, z: float = 4.75) -> float:
    """Upper chi-square quantile (Wilson–Hilferty); z = 4.75 is a one-sided p of ~1e-6."""
    k = 2 / (9 * df)
    return df * (1 - k + z * math.sqrt(k)) ** 3


@pytest.mark.parametrize("n", [2, 3, 7, 52, 100])
def test_below_is_uniform(n: int) -> None:
    # Deterministic (fixed seed) and far from the threshold: not flaky, but a stream that
    # favoured some values — a broken modulo, a stuck byte — fails by orders of magnitude.
    stream = DealStream(20240601, f"chi-square|{n}".encode())
    counts = Counter(stream.below(n) for _ in range(300 * n))
    assert chi_square(counts, n) < critical(n - 1)


def test_uniformity_check_catches_modulo_bias() -> None:
    """With n = 3·2^30 a plain ``x % n`` puts half of all values in the lowest third."""
    n, third = 3 * 2**30, 2**30
    stream = DealStream(7, b"bias")
    fair = Counter(stream.below(n) // third for _ in range(6000))
    assert chi_square(fair, 3) < critical(2)

    words = ref_words(7, b"bias")
    biased = Counter((next(words) % n) // third for _ in range(6000))
    assert chi_square(biased, 3) > 10 * critical(2)  # so the check above has teeth


def test_shuffle_positions_are_uniform() -> None:
    """Each of 6 items lands in each slot equally often (a reversed loop or ``below(i)``
    instead of ``below(i + 1)`` would break this)."""
    counts: Counter[tuple[int, int]] = Counter()
    for seed in range(3000):
        items = list(range(6))
        DealStream(seed, b"shuffle-uniformity").shuffle(items)
        counts.update(enumerate(items))
    flat = Counter({slot * 6 + item: c for (slot, item), c in counts.items()})
    assert len(flat) == 36
    # Rows and columns are tied (each sums to 3000), so the true df is 25; 35 is looser.
    assert chi_square(flat, 36) < critical(35)


# ------------------------------------------------------------------ seeds and commitments


@pytest.mark.parametrize("seed", SEEDS)
def test_seed_bytes_and_commitment(seed: int) -> None:
    raw = struct.pack(">Q", seed)
    assert seed_bytes(seed) == raw
    assert commitment(seed) == hashlib.sha256(raw).hexdigest()


@pytest.mark.parametrize("bad", [-1, 2**64, True, False, 1.0, "1", None, 2**200])
def test_bad_seeds_are_rejected(bad: object) -> None:
    for call in (seed_bytes, commitment, DealStream):
        with pytest.raises(ValueError):
            call(bad)  # type: ignore[operator]


# ------------------------------------------------------------------ the worked example


def worked_example() -> dict[str, str]:
    doc = DEALS_MD.read_text()
    m = re.search(r"```prng-example\n(.*?)```", doc, re.DOTALL)
    assert m, "docs/deals.md lacks its prng-example block"
    fields = dict(line.split(None, 1) for line in m.group(1).strip().splitlines())
    assert {"seed", "context", "key", "block0", "block1", "u32", "below", "shuffled"} <= set(
        fields
    ), "the worked example in docs/deals.md is incomplete"
    return fields


def test_worked_example_in_the_doc() -> None:
    ex = worked_example()
    seed, context = int(ex["seed"]), ex["context"].encode()
    key = b"solrace-deal-v1\x00" + context + b"\x00" + struct.pack(">Q", seed)
    assert ex["key"] == key.hex()
    assert ex["block0"] == hashlib.sha256(key + bytes(8)).hexdigest()
    assert ex["block1"] == hashlib.sha256(key + struct.pack(">Q", 1)).hexdigest()
    words = [int(w) for w in ex["u32"].split()]
    assert words == list(struct.unpack(">8I", bytes.fromhex(ex["block0"])))

    stream = DealStream(seed, context)
    pairs = [tuple(map(int, p.split(":"))) for p in ex["below"].split()]
    assert [n for n, _ in pairs] == list(range(52, 52 - len(pairs), -1))
    words += struct.unpack(">8I", bytes.fromhex(ex["block1"]))
    assert len(pairs) <= len(words)
    for k, (n, value) in enumerate(pairs):
        assert stream.below(n) == value
        assert words[k] % n == value and words[k] < 2**32 - 2**32 % n  # "none is rejected"

    cards = list(range(52))
    DealStream(seed, context).shuffle(cards)
    assert ex["shuffled"].split() == [card_text(c) for c in cards]
