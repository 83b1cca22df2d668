"""Fixtures for the browser tests: Debian's Chromium driven by Playwright, and one real server
process on a real Redis shared by the tests of a module.

Playwright's own browser download is not reachable, so the browser is the system's Chromium
(``/usr/bin/chromium``, or ``SOLRACE_CHROMIUM``). Without one the tests are skipped on a
developer's machine and FAIL in CI (``CI=true``): a browser test that silently skips in CI
tests nothing. Screenshots go to ``tests/web/screenshots/`` (git-ignored).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from harness import ServerProcess

SHOTS = Path(__file__).resolve().parent / "screenshots"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path() -> str | None:
    """``SOLRACE_CHROMIUM`` when set (and only it), else the system's Chromium."""
    wanted = os.environ.get("SOLRACE_CHROMIUM")
    candidates = [wanted] if wanted else [
        "/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")]
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            return candidate
    return None


def no_browser(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests must run in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser_exe() -> str:
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        no_browser("playwright is not installed (pip install -e .[test])")
    exe = chromium_path()
    if exe is None:
        no_browser("no Chromium (apt-get install chromium)")
    return exe  # type: ignore[return-value]


@pytest.fixture
async def browser(browser_exe: str) -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        try:
            b = await pw.chromium.launch(executable_path=browser_exe, args=ARGS)
        except Exception as exc:
            no_browser(f"Chromium does not start: {exc}")
        try:
            yield b
        finally:
            await b.close()


def serve_page(redis_proc: Any, where: Path, name: str, *flags: str) -> Iterator[str]:
    """A server process on the session's Redis (emptied first), with the page tests' settings
    and ``flags``; yields the page's URL and stops the process after."""
    if not redis_proc.running:
        redis_proc.restart()
    client = redis.Redis.from_url(redis_proc.url)
    try:
        client.flushall()
    finally:
        client.close()
    proc = ServerProcess(redis_proc.url, where, "--countdown", "1.5", "--daily-prepare", "-1",
                         "--spectator-delay", "0", *flags, "--log-level", "WARNING", name=name)
    proc.start()
    try:
        yield f"http://{proc.host}:{proc.port}/"
    finally:
        proc.terminate()


@pytest.fixture(scope="module")
def web_server(redis_proc: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server process for the module; yields the page's URL."""
    yield from serve_page(redis_proc, tmp_path_factory.mktemp("web"), "web")


@pytest.fixture(scope="session")
def shots() -> Path:
    SHOTS.mkdir(exist_ok=True)
    return SHOTS
