"""Fair play, sans-I/O: the evidence a ranked game leaves, the solver's view of the player's
line, and the explainable suspicion score that decides whether a result is held for review
(docs/fairplay.md). Nothing here speaks Redis or websockets; the server gathers the inputs
after a game and runs :func:`analyse` in its worker pool."""

from solrace.shared.fairplay.evidence import (
    GameRecord,
    History,
    actions,
    evidence,
    pair_record,
)
from solrace.shared.fairplay.signals import HOLD_THRESHOLD, WEIGHTS, Score, Signal, score

__all__ = ["HOLD_THRESHOLD", "WEIGHTS", "GameRecord", "History", "Score", "Signal", "actions",
           "evidence", "pair_record", "score"]
