"""Fair play on the server: evidence gathered after every ranked game, results held for
review, and what clearing or banning does to boards and ratings (docs/fairplay.md)."""
