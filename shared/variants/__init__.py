"""The variant registry: every game solrace plays, found by name.

Adding a game is one short file that returns :class:`~solrace.shared.rules.Rules` from its
options, plus one line here.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from solrace.shared.errors import OptionError
from solrace.shared.rules import Rules, Variant, options_text
from solrace.shared.variants import (
    double_aces_and_kings,
    forty_and_eight,
    seven_by_five,
    sixes_and_sevens,
    unlimited,
)

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        sixes_and_sevens.VARIANT,
        seven_by_five.VARIANT,
        double_aces_and_kings.VARIANT,
        unlimited.VARIANT,
        forty_and_eight.VARIANT,
    )
}


def get_variant(name: str) -> Variant:
    """The variant called ``name``; ``KeyError`` with the known names otherwise."""
    try:
        return VARIANTS[name]
    except KeyError:
        raise KeyError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})") from None


@lru_cache(maxsize=256)
def _rules_for(name: str, opts: str) -> Rules:
    return VARIANTS[name].make_rules(dict(kv.split("=", 1) for kv in opts.split(",") if kv))


def resolve(
    variant: str | Variant, options: Mapping[str, object] | None = None
) -> tuple[Variant, dict[str, str], Rules]:
    """Variant, normalized options and (cached) rules; :class:`OptionError` for anything
    unknown."""
    try:
        v = get_variant(variant) if isinstance(variant, str) else variant
        opts = v.normalize(options)
    except (KeyError, ValueError) as exc:
        raise OptionError(str(exc.args[0])) from None
    if VARIANTS.get(v.name) is v:
        return v, opts, _rules_for(v.name, options_text(opts))
    return v, opts, v.make_rules(opts)


__all__ = ["VARIANTS", "get_variant", "resolve"]
