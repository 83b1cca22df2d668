"""Accounts: names owned for good, passwords, sessions, and the guests beside them.

* :mod:`.names` — the name fold (when two names are "the same name"): pure.
* :mod:`.kdf` — scrypt password hashing and the password rules: pure.
* :mod:`.policy` — brute-force limits on password checks: pure.
* :mod:`.service` — the operations (register, login, sessions, password change, deletion),
  tying the pure parts to the store (:mod:`solrace.server.store.accounts`).

The request handlers are in :mod:`solrace.server.session.handlers.accounts`; the protocol in
``docs/protocol.md`` ("Accounts and sessions"). This package imports nothing at import time
so that :mod:`solrace.server.store.keys` can use :mod:`.names`.
"""
