"""solrace.server — the race server (asyncio, websockets, Redis)."""

# the import hook for the compiled hot modules, before any of them (shared/accel.py)
from solrace.shared import accel as _accel  # noqa: F401
