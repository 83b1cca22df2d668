"""Learning from a finished game: the solver's answers about a player's own line."""
