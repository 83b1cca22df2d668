"""Seven by Five: 52 cards face up in 7 piles, alternate-colour building, optional cells."""

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
        decks=1,
        foundations=(FoundationGroup(count=4, start_rank=1, step=1, same_suit=True),),
        tableau=Tableau(
            deal=((0, 8),) * 3 + ((0, 7),) * 4,
            build=Build.DOWN_ALTERNATE_COLOUR,
            empty=EmptyTableau.KING if o["empty_fill"] == "king" else EmptyTableau.ANY,
        ),
        cells=int(o["cells"]),
    )


VARIANT = Variant(
    name="seven-by-five",
    title="Seven by Five",
    summary="1 deck, all face up in 7 piles; build down in alternate colours, one card at a time.",
    options=(
        Option("cells", ("0", "5"), "free cells holding one card each"),
        Option("empty_fill", ("king", "any"), "what may go into an empty pile"),
    ),
    make_rules=_rules,
    advice="with its default options (no cells, only a King into an empty pile) practically no "
    "deal can be won: the solver won none of 1 000 (docs/solver.md); play -o cells=5 "
    "-o empty_fill=any (the daily's preset), where most deals can be won",
)
