"""One client's session on a server process: the connection (its order, limits and sends),
the synchronous move start, and the request handlers (:mod:`.handlers`, one module per job)."""
