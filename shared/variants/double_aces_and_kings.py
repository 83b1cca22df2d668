"""Double Aces and Kings: 4 decks, 8 foundations up from Ace and 8 down from King, any suit."""

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
        decks=4,
        foundations=(
            FoundationGroup(count=8, start_rank=1, step=1, same_suit=False),
            FoundationGroup(count=8, start_rank=13, step=-1, same_suit=False),
        ),
        tableau=Tableau(
            deal=((0, 1),) * 8,
            build=Build.NONE,
            empty=EmptyTableau.ANY,
            auto_fill=AutoFill.STOCK,
        ),
        reserve=(13, 13, 13, 13),
        reserve_to_space=o["reserve_to_space"] == "yes",
        draw=1,
        redeals=0,
        foundation_to_foundation=True,
    )


VARIANT = Variant(
    name="double-aces-and-kings",
    title="Double Aces and Kings",
    summary="4 decks; 8 foundations up from Ace, 8 down from King, regardless of suit; "
    "4 reserves of 13; 8 single-card piles; one pass.",
    options=(
        Option("reserve_to_space", ("no", "yes"),
               "once the stock is empty, may a reserve top go into an empty pile"),
    ),
    make_rules=_rules,
)
