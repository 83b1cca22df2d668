"""Name folding: when two names are "the same name" (pure).

A name belongs to one player in every spelling a reader could confuse with it. Two names are
the same when their *folds* are equal; every name key in Redis is built from the fold, so the
check is one key lookup and needs no scan.

The fold, applied in this order to a name that already passed ``NAME_RE`` (ASCII letters,
digits, ``_``, ``.``, ``-``):

1. case folded (``Alice`` = ``alice``);
2. the separators ``_``, ``.`` and ``-`` are dropped, inside the name and at its ends
   (``a.lice`` = ``a_lice`` = ``Alice.`` = ``-alice-`` = ``alice``): on a leaderboard a dot
   or a dash is easy to miss, so it must never make a different name;
3. look-alike digits become the letter they resemble: ``0`` -> ``o``, ``1`` -> ``l``,
   ``5`` -> ``s``, ``8`` -> ``b``, ``2`` -> ``z``;
4. ``i`` becomes ``l`` (``1``, ``l``, ``i`` and ``I`` look alike in many fonts);
5. ``rn`` becomes ``m`` and ``vv`` becomes ``w`` (left to right, non-overlapping).

So ``Alice``, ``ALICE``, ``a1ice``, ``aIice``, ``a.lice`` and ``alice`` are one name; ``bob``
and ``b0b`` too. Folding never changes the *display* name: a player keeps the spelling they
chose.

Until this fold, separators were kept (all three became ``-``): :func:`legacy_fold` is that
fold, for the keys of accounts made before (``solrace-server admin migrate-names`` moves
them; docs/protocol.md section 20.1 says what happens to names that now collide).

Reserved: account names may not fold to something starting with ``guest-`` (generated guest
names, see the CLI) or ``deleted-`` (the anonymised name of a deleted account); guests may
not take ``deleted-`` names.
"""

from __future__ import annotations

_LOOKS = {"0": "o", "1": "l", "5": "s", "8": "b", "2": "z", "i": "l"}
_DIGITS = str.maketrans({"_": None, ".": None, "-": None, **_LOOKS})
_LEGACY = str.maketrans({"_": "-", ".": "-", "-": "-", **_LOOKS})
_PAIRS = (("rn", "m"), ("vv", "w"))

GUEST_PREFIX = "guest-"
DELETED_PREFIX = "deleted-"


def _pairs(out: str) -> str:
    for pair, letter in _PAIRS:
        out = out.replace(pair, letter)
    return out


def fold(name: str) -> str:
    """The canonical form two names share when a reader could take one for the other."""
    return _pairs(name.casefold().translate(_DIGITS))


def legacy_fold(name: str) -> str:
    """The fold before separators were dropped (each became ``-``): the key of an account
    registered then, and still the form the reserved prefixes are checked on (``guest-``
    must not reserve ``guesthouse``)."""
    return _pairs(name.casefold().translate(_LEGACY))


def same_name(a: str, b: str) -> bool:
    return fold(a) == fold(b)


def reserved_for_accounts(name: str) -> bool:
    """True when an account may not take ``name`` (it would pass for a guest or a deleted
    account)."""
    f = legacy_fold(name)
    return f.startswith(legacy_fold(GUEST_PREFIX)) or f.startswith(legacy_fold(DELETED_PREFIX))


def reserved_for_guests(name: str) -> bool:
    """True when a guest may not take ``name`` (it would pass for a deleted account)."""
    return legacy_fold(name).startswith(legacy_fold(DELETED_PREFIX))


__all__ = ["DELETED_PREFIX", "GUEST_PREFIX", "fold", "legacy_fold", "reserved_for_accounts",
           "reserved_for_guests", "same_name"]
