"""The server process: configuration, the listener and its HTTP side, metrics, background
task helpers, the store's fault classification and the Redis servers run as child processes."""

# For one before/after measurement only (bench/server.py, docs/performance.md): with
# METRICS_IMPL=prometheus_client the server's metrics come from metrics_lib.py (the library)
# instead of the hand-written registry. Removed again by the commit that adopts the library.
import os as _os
import sys as _sys

if _os.environ.get("METRICS_IMPL") == "prometheus_client":
    from solrace.server.ops import metrics_lib as metrics

    _sys.modules["solrace.server.ops.metrics"] = metrics
