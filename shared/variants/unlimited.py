"""Unlimited: Klondike with unlimited redeals."""

from collections.abc import Mapping

from solrace.shared.rules import (
    Build,
    EmptyTableau,
    FoundationGroup,
    LostCheck,
    Option,
    Rules,
    Tableau,
    Variant,
)


def _rules(o: Mapping[str, str]) -> Rules:
    return Rules(
        decks=1,
        foundations=(FoundationGroup(count=4, start_rank=1, step=1, same_suit=True),),
        tableau=Tableau(
            deal=tuple((k, 1) for k in range(7)),
            build=Build.DOWN_ALTERNATE_COLOUR,
            move_groups=True,
            empty=EmptyTableau.KING,
        ),
        draw=int(o["draw"]),
        redeals=None,
        foundation_to_tableau=o["foundation_takeback"] == "yes",
        lost_check=LostCheck.KLONDIKE,
    )


VARIANT = Variant(
    name="unlimited",
    title="Unlimited",
    summary="Klondike: 7 columns with face-down cards, groups move, redeal without limit.",
    options=(
        Option("draw", ("1", "3"), "cards turned from the stock at a time"),
        Option("foundation_takeback", ("yes", "no"), "a foundation top may return to the tableau"),
    ),
    make_rules=_rules,
)
