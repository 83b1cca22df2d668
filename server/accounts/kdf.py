"""Password hashing with scrypt (pure: :mod:`hashlib`, no I/O).

Why scrypt from the standard library: it is memory-hard (an attacker's GPU or ASIC needs
``128 * r * N`` bytes per guess in flight), it is in every CPython built against OpenSSL 1.1+,
so no third-party wheel is needed, and its parameters are plain numbers stored with each hash.

Parameters (:data:`CURRENT`): ``N = 2**15``, ``r = 8``, ``p = 1`` — 32 MiB and about 0.16 s of
one core per hash on the development machine (twice the scrypt paper's interactive-login
setting; OWASP's 2024 cheat sheet asks for ``N = 2**17`` where the hardware allows: raise
:data:`CURRENT` and every hash is upgraded at its owner's next successful login, see
:func:`needs_rehash`). Salt: 16 random bytes per hash (``secrets.token_bytes``); key: 32 bytes.

Stored form, one ASCII string: ``scrypt$<log2 N>$<r>$<p>$<salt b64>$<key b64>`` — the
parameters travel with the hash, so old hashes still verify after :data:`CURRENT` changes.

Passwords: NFKC-normalised first (the same password typed on two keyboards gives the same
bytes), then UTF-8. Rules (:func:`password_problem`): 8 to 128 characters after normalising, at
most 512 UTF-8 bytes, not only spaces, and not the name itself (compared by name fold).
Verification compares keys with :func:`hmac.compare_digest` (constant time). Nothing here logs
or returns a password; ``repr`` of a :class:`Params` shows numbers only.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import unicodedata
from dataclasses import dataclass

from solrace.server.accounts.names import fold

MIN_LENGTH = 8
MAX_LENGTH = 128
MAX_BYTES = 512
SALT_BYTES = 16
KEY_BYTES = 32
SCHEME = "scrypt"


@dataclass(frozen=True, slots=True)
class Params:
    log2_n: int
    r: int
    p: int

    @property
    def memory(self) -> int:
        """Bytes scrypt needs for one hash (128 * r * N)."""
        return 128 * self.r * (1 << self.log2_n)


CURRENT = Params(log2_n=15, r=8, p=1)
#: Hashes outside these bounds are refused as corrupt rather than run (a stored hash with a
#: huge N would take the process's memory).
BOUNDS = Params(log2_n=20, r=16, p=16)


def normalise(password: str) -> bytes:
    return unicodedata.normalize("NFKC", password).encode("utf-8")


def password_problem(password: str, name: str | None = None) -> str | None:
    """Why ``password`` may not be used (a sentence for the user), or None when it may."""
    text = unicodedata.normalize("NFKC", password)
    if len(text) < MIN_LENGTH:
        return f"passwords are at least {MIN_LENGTH} characters"
    if len(text) > MAX_LENGTH or len(text.encode("utf-8")) > MAX_BYTES:
        return f"passwords are at most {MAX_LENGTH} characters ({MAX_BYTES} bytes)"
    if not text.strip():
        return "a password cannot be only spaces"
    if name is not None and fold(text) == fold(name):
        return "a password cannot be the name"
    return None


def _scrypt(password: bytes, salt: bytes, params: Params) -> bytes:
    return hashlib.scrypt(password, salt=salt, n=1 << params.log2_n, r=params.r, p=params.p,
                          maxmem=params.memory + (1 << 20), dklen=KEY_BYTES)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_password(password: str, params: Params = CURRENT) -> str:
    """The stored form of ``password`` with a fresh salt (about 0.16 s of CPU: run it off the
    event loop)."""
    salt = secrets.token_bytes(SALT_BYTES)
    key = _scrypt(normalise(password), salt, params)
    return f"{SCHEME}${params.log2_n}${params.r}${params.p}${_b64(salt)}${_b64(key)}"


def parse(stored: str) -> tuple[Params, bytes, bytes]:
    """(params, salt, key) of a stored hash; ValueError when it is not one of ours."""
    scheme, n, r, p, salt, key = stored.split("$")
    params = Params(int(n), int(r), int(p))
    if scheme != SCHEME or not (
        1 <= params.log2_n <= BOUNDS.log2_n and 1 <= params.r <= BOUNDS.r
        and 1 <= params.p <= BOUNDS.p
    ):
        raise ValueError("not a solrace scrypt hash")
    return params, base64.b64decode(salt), base64.b64decode(key)


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches ``stored``, in time independent of where they differ."""
    params, salt, key = parse(stored)
    return hmac.compare_digest(_scrypt(normalise(password), salt, params), key)


def needs_rehash(stored: str, params: Params = CURRENT) -> bool:
    """True when ``stored`` was made with other parameters than ``params`` (upgrade it)."""
    return parse(stored)[0] != params


#: A hash of a random password, verified against when a login names no account, so that a
#: login costs the same whether or not the account exists.
def dummy_hash() -> str:
    return hash_password(secrets.token_urlsafe(16))


__all__ = ["BOUNDS", "CURRENT", "MAX_BYTES", "MAX_LENGTH", "MIN_LENGTH", "Params",
           "dummy_hash", "hash_password", "needs_rehash", "parse", "password_problem",
           "verify_password"]
