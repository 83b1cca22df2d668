"""Forty and Eight: 2 decks, 8 piles of 5 building down by suit, two passes through the stock."""

from collections.abc import Mapping

from solrace.shared.rules import (
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
        foundations=(FoundationGroup(count=8, start_rank=1, step=1, same_suit=True),),
        tableau=Tableau(deal=((0, 5),) * 8, build=Build.DOWN_SAME_SUIT, empty=EmptyTableau.ANY),
        draw=1,
        redeals=1,
        foundation_to_tableau=o["foundation_takeback"] == "yes",
    )


VARIANT = Variant(
    name="forty-and-eight",
    title="Forty and Eight",
    summary="2 decks; 8 piles of 5 build down by suit, one card at a time; one redeal.",
    options=(
        Option("foundation_takeback", ("no", "yes"), "a foundation top may return to the tableau"),
    ),
    make_rules=_rules,
)
