"""The pure parts of accounts: the name fold, the scrypt KDF and password rules, the
brute-force policy (no Redis, no sockets)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solrace.server.accounts import kdf, policy
from solrace.server.accounts.names import fold, reserved_for_accounts, reserved_for_guests
from solrace.shared.protocol import NAME_RE

# ----------------------------------------------------------------------------- names


@pytest.mark.parametrize("variant", ["Alice", "ALICE", "a1ice", "aIice", "AL1CE", "alIce"])
def test_case_and_look_alikes_fold_together(variant: str) -> None:
    assert fold(variant) == fold("alice")


@pytest.mark.parametrize(("a", "b"), [("b0b", "bob"), ("a.lice", "a_lice"), ("a-lice", "a.lice"),
                                      ("rnary", "mary"), ("vvill", "will"), ("5am", "sam"),
                                      ("8ob", "bob"), ("2oe", "zoe")])
def test_documented_confusables(a: str, b: str) -> None:
    assert fold(a) == fold(b)


@pytest.mark.parametrize(("a", "b"), [("alice", "alicia"), ("bob", "rob"), ("sam", "pam")])
def test_different_names_stay_different(a: str, b: str) -> None:
    assert fold(a) != fold(b)


def test_reserved_prefixes() -> None:
    assert reserved_for_accounts("guest-7f3a") and reserved_for_accounts("GUEST_1")
    assert reserved_for_accounts("de1eted-abc") and reserved_for_guests("deleted-0a1b2c")
    assert not reserved_for_guests("guest-7f3a") and not reserved_for_accounts("guesthouse")


@given(st.from_regex(NAME_RE, fullmatch=True))
def test_fold_is_idempotent_and_case_blind(name: str) -> None:
    assert fold(fold(name)) == fold(name)
    assert fold(name.upper()) == fold(name.lower()) == fold(name)


# ----------------------------------------------------------------------------- KDF


def test_hash_verifies_only_its_password_and_carries_its_parameters() -> None:
    stored = kdf.hash_password("correct horse battery")
    assert stored.startswith("scrypt$15$8$1$") and "correct" not in stored
    assert kdf.verify_password("correct horse battery", stored)
    assert not kdf.verify_password("correct horse batterY", stored)
    assert kdf.hash_password("correct horse battery") != stored, "a fresh salt each time"
    assert not kdf.needs_rehash(stored)


def test_old_parameters_still_verify_and_ask_for_a_rehash() -> None:
    weak = kdf.hash_password("correct horse battery", kdf.Params(10, 8, 1))
    assert kdf.verify_password("correct horse battery", weak)
    assert kdf.needs_rehash(weak)


def test_nfkc_normalised_passwords_match() -> None:
    stored = kdf.hash_password("ﬁre-and-ice")  # the "fi" ligature
    assert kdf.verify_password("fire-and-ice", stored)


def test_corrupt_or_oversized_hashes_are_refused() -> None:
    for bad in ("", "bcrypt$15$8$1$AA==$AA==", "scrypt$30$8$1$AA==$AA==", "scrypt$15$8"):
        with pytest.raises(ValueError):
            kdf.verify_password("whatever1", bad)


@pytest.mark.parametrize(("password", "ok"), [
    ("short", False), ("1234567", False), ("12345678", True), ("x" * 128, True),
    ("x" * 129, False), (" " * 10, False), ("é" * 128, True), ("alice", False),
    ("Alice123", True),
])
def test_password_rules(password: str, ok: bool) -> None:
    assert (kdf.password_problem(password) is None) == ok


def test_password_may_not_be_the_name() -> None:
    assert kdf.password_problem("Alice-Smith", "alice_smith") is not None
    assert kdf.password_problem("Alice-Smith!", "alice_smith") is None


def test_params_repr_shows_no_secret() -> None:
    assert repr(kdf.CURRENT) == "Params(log2_n=15, r=8, p=1)"
    assert kdf.CURRENT.memory == 32 * 1024 * 1024


# ----------------------------------------------------------------------------- policy

M = policy.MINUTE


def test_account_rule_blocks_the_eleventh_failure_and_says_when() -> None:
    now = 100 * M
    fails = [now - 10 * M + i for i in range(10)]
    wait = policy.retry_after(fails, now, policy.ACCOUNT_RULES)
    assert wait == fails[0] + 15 * M - now  # the oldest of the ten leaves the window
    assert policy.retry_after(fails[1:], now, policy.ACCOUNT_RULES) == 0
    assert policy.retry_after(fails, fails[0] + 15 * M, policy.ACCOUNT_RULES) == 0


def test_day_rule_holds_after_the_short_window() -> None:
    now = 48 * 60 * M
    fails = [now - 23 * 60 * M + i * 20 * M for i in range(50)]  # 50 in 23 h, spread out
    assert policy.retry_after(fails, now, policy.ACCOUNT_RULES) > 15 * M


def test_seconds_round_up() -> None:
    assert policy.seconds(0) == 0 and policy.seconds(1) == 1 and policy.seconds(1001) == 2


@settings(max_examples=200)
@given(st.lists(st.integers(0, 30 * 60 * 1000), max_size=60), st.integers(0, 30 * 60 * 1000))
def test_following_the_policy_never_exceeds_a_rule(attempts: list[int], start: int) -> None:
    """An attacker who tries whenever allowed (every attempt failing) never has more than
    ``limit`` failures in any window of a rule."""
    rules = policy.ADDRESS_RULES
    failures: list[int] = []
    for t in sorted(a + start for a in attempts):
        if policy.retry_after(failures, t, rules) == 0:
            failures.append(t)
    for rule in rules:
        for t in failures:
            assert sum(1 for f in failures if t - rule.window < f <= t) <= rule.limit


def test_password_fields_never_show_in_a_repr() -> None:
    from solrace.shared import protocol as P

    for msg in ({"t": "login", "name": "alice", "password": "hunter2-secret"},
                {"t": "register", "password": "hunter2-secret"},
                {"t": "password.change", "old": "hunter2-secret", "new": "hunter2-secret"},
                {"t": "account.delete", "password": "hunter2-secret"}):
        assert "hunter2" not in repr(P.parse_request(msg))
