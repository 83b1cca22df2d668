"""The product's rules over the store: races and their moves, the race state machine
(:mod:`.lifecycle`), dailies, the winnable pool, bots, hints, verdicts and ratings."""
