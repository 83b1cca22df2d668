"""A tournament's deals from one committed master seed (docs/tournaments.md, "Verifying the
deals").

Before a tournament starts the server publishes ``commitment(master)`` (the same SHA-256 of
the seed's 8 bytes as a race's commitment, :func:`solrace.shared.prng.commitment`); when it
ends it reveals ``master``. Deal *k* (k = 1, 2, …) is dealt from

    seed_k = u64be(SHA-256(b"solrace-tournament-v1" || 0x00 || u64be(master) || u32be(k))[:8])

through the ordinary deal function (docs/deals.md) with the tournament's variant and options,
so every entrant gets the identical deal *k*, and anyone holding the revealed master seed can
recompute every deal and check it against the commitment. One commitment covers any number
of deals: an arena does not know in advance how many deals its fastest entrant will play.
"""

from __future__ import annotations

import hashlib

from solrace.shared.prng import commitment, seed_bytes

DOMAIN = b"solrace-tournament-v1"
MAX_DEALS = 2**32 - 1


def deal_seed(master: int, k: int) -> int:
    """The seed of deal ``k`` (1-based) of the tournament whose master seed is ``master``."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_DEALS:
        raise ValueError(f"deal numbers run 1..{MAX_DEALS}, not {k!r}")
    digest = hashlib.sha256(DOMAIN + b"\x00" + seed_bytes(master) + k.to_bytes(4, "big"))
    return int.from_bytes(digest.digest()[:8], "big")


def verify(master: int, published: str) -> bool:
    """Whether the revealed ``master`` seed is the one committed to as ``published``."""
    return commitment(master) == published
