"""Sixes and Sevens: 16 prefilled foundations, 9 one-card piles filled from waste or stock."""

from collections.abc import Mapping

from solrace.shared.rules import (
    AutoFill,
    Build,
    EmptyTableau,
    FoundationGroup,
    Option,
    Rules,
    Tableau,
    Variant,
)


def _rules(o: Mapping[str, str]) -> Rules:
    return Rules(
        decks=2,
        foundations=(
            FoundationGroup(count=8, start_rank=6, step=-1, same_suit=True, prefilled=True),
            FoundationGroup(count=8, start_rank=7, step=1, same_suit=True, prefilled=True),
        ),
        tableau=Tableau(
            deal=((0, 1),) * 9,
            build=Build.NONE,
            empty=EmptyTableau.ANY,
            auto_fill=AutoFill.WASTE_THEN_STOCK if o["empty_fill"] == "auto" else AutoFill.NONE,
        ),
        draw=1,
        redeals=0,
    )


VARIANT = Variant(
    name="sixes-and-sevens",
    title="Sixes and Sevens",
    summary="2 decks; Sixes build down and Sevens up by suit; 9 single-card piles; one pass.",
    options=(
        Option("empty_fill", ("auto", "manual"), "auto: a space fills from waste, else stock; "
               "manual: the player puts any available card into a space"),
    ),
    make_rules=_rules,
)
