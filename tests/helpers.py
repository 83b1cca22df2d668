"""Small helpers shared by the test suites.

Imported as ``helpers`` (``from helpers import free_port``): ``tests/`` has no ``__init__.py``,
so pytest puts ``tests/`` on ``sys.path`` when it loads ``tests/conftest.py``.
"""

from __future__ import annotations

import socket


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that was free a moment ago (the OS picks it; never 6379 by intent).

    There is a window between this call and the caller binding the port; callers that start a
    child on it should retry on "address already in use".
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])
