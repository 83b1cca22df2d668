"""Name folding: when two names are "the same name" (pure).

A name belongs to one player in every spelling a reader could confuse with it. Two names are
the same when their *folds* are equal; every name key in Redis is built from the fold, so the
check is one key lookup and needs no scan.

The fold, applied in this order to a name that already passed ``NAME_RE`` (ASCII letters,
digits, ``_``, ``.``, ``-``):

1. case folded (``Alice`` = ``alice``);
2. the separators ``_``, ``.`` and ``-`` become ``-`` (``a.lice`` = ``a_lice`` = ``a-lice``);
3. look-alike digits become the letter they resemble: ``0`` -> ``o``, ``1`` -> ``l``,
   ``5`` -> ``s``, ``8`` -> ``b``, ``2`` -> ``z``;
4. ``i`` becomes ``l`` (``1``, ``l``, ``i`` and ``I`` look alike in many fonts);
5. ``rn`` becomes ``m`` and ``vv`` becomes ``w`` (left to right, non-overlapping).

So ``Alice``, ``ALICE``, ``a1ice``, ``aIice`` and ``alice`` are one name; ``bob`` and ``b0b``
too. Folding never changes the *display* name: a player keeps the spelling they chose.

Reserved: account names may not fold to something starting with ``guest-`` (generated guest
names, see the CLI) or ``deleted-`` (the anonymised name of a deleted account); guests may
not take ``deleted-`` names.
"""

from __future__ import annotations

_DIGITS = str.maketrans({"_": "-", ".": "-", "0": "o", "1": "l", "5": "s", "8": "b",
                         "2": "z", "i": "l"})
_PAIRS = (("rn", "m"), ("vv", "w"))

GUEST_PREFIX = "guest-"
DELETED_PREFIX = "deleted-"


def fold(name: str) -> str:
    """The canonical form two names share when a reader could take one for the other."""
    out = name.casefold().translate(_DIGITS)
    for pair, letter in _PAIRS:
        out = out.replace(pair, letter)
    return out


def same_name(a: str, b: str) -> bool:
    return fold(a) == fold(b)


def reserved_for_accounts(name: str) -> bool:
    """True when an account may not take ``name`` (it would pass for a guest or a deleted
    account)."""
    f = fold(name)
    return f.startswith(fold(GUEST_PREFIX)) or f.startswith(fold(DELETED_PREFIX))


def reserved_for_guests(name: str) -> bool:
    """True when a guest may not take ``name`` (it would pass for a deleted account)."""
    return fold(name).startswith(fold(DELETED_PREFIX))


__all__ = ["DELETED_PREFIX", "GUEST_PREFIX", "fold", "reserved_for_accounts",
           "reserved_for_guests", "same_name"]
