"""The deal PRNG: SHA-256 in counter mode, unbiased integers, Fisher–Yates.

Specified in full in ``docs/deals.md`` so that anyone, in any language, can recompute a deal:

* seed: an unsigned 64-bit integer, written as 8 bytes big-endian (``seed_bytes``).
* context: the UTF-8 bytes of ``"<variant>|<options>"`` (see :mod:`solrace.shared.deal`).
* key = ``b"solrace-deal-v1" || 0x00 || context || 0x00 || seed_bytes``.
* block ``i`` (i = 0, 1, 2, …) = ``SHA-256(key || u64be(i))``; the byte stream is block 0,
  then block 1, …
* ``below(n)``: read 4 bytes as a big-endian u32 ``x``; accept when
  ``x < 2**32 - (2**32 % n)`` and return ``x % n``; otherwise read 4 more (rejection
  sampling: no modulo bias).
* ``shuffle(items)``: for ``i`` from ``len - 1`` down to 1, ``j = below(i + 1)``, swap ``i``
  and ``j``.

A cryptographic hash means that seeing some cards tells nothing about the others short of
finding the 64-bit seed itself. Python's ``random`` is never used: its output is not a
documented, stable contract across versions or languages.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence
from typing import TypeVar

DOMAIN = b"solrace-deal-v1"
SEED_MAX = 2**64 - 1

T = TypeVar("T")


def seed_bytes(seed: int) -> bytes:
    """The 8-byte big-endian form of a seed; rejects anything outside u64."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise ValueError(f"a seed is an integer in 0..2**64-1, not {seed!r}")
    return seed.to_bytes(8, "big")


def commitment(seed: int) -> str:
    """``sha256(seed_bytes)`` in hex: published before play, checked against the seed after."""
    return hashlib.sha256(seed_bytes(seed)).hexdigest()


class DealStream:
    """The byte stream and the unbiased integers drawn from it for one seed."""

    __slots__ = ("_buffer", "_counter", "_pos", "_prefix")

    def __init__(self, seed: int, context: bytes = b"") -> None:
        self._prefix = DOMAIN + b"\x00" + context + b"\x00" + seed_bytes(seed)
        self._counter = 0
        self._buffer = b""
        self._pos = 0

    def _u32(self) -> int:
        if self._pos + 4 > len(self._buffer):
            # 32-byte blocks hold exactly eight u32 words, so no word straddles two blocks.
            self._buffer = hashlib.sha256(
                self._prefix + self._counter.to_bytes(8, "big")
            ).digest()
            self._counter += 1
            self._pos = 0
        x = int.from_bytes(self._buffer[self._pos : self._pos + 4], "big")
        self._pos += 4
        return x

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1`` (``1 <= n <= 2**32``)."""
        if not 1 <= n <= 2**32:
            raise ValueError(f"below() needs 1 <= n <= 2**32, not {n}")
        limit = 2**32 - (2**32 % n)
        while True:
            x = self._u32()
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates in place, from the last position down."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
