"""The browser client's files, served by the server itself on its websocket port.

The page and its ES modules live in ``client/web/`` (installed as package data of
``solrace.client``). They are read once, at start-up, into a table path -> (bytes, content
type): a request can only ever get one of those files, never a path it built itself, and
serving costs no disk access. The folder is found without importing ``solrace.client`` (the
server does not depend on the client library; it only ships its files). ``/variants.json``
is generated from the variant registry, so the lobby lists exactly the variants and options
the server plays.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from solrace.shared.variants import VARIANTS

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json",
}


def web_dir() -> Path | None:
    """``client/web`` of the installed (or editable) ``solrace.client`` package."""
    spec = importlib.util.find_spec("solrace.client")
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        path = Path(base) / "web"
        if (path / "index.html").is_file():
            return path
    return None


def variants_json() -> bytes:
    rows = [
        {
            "name": v.name,
            "title": v.title,
            "summary": v.summary,
            "options": [
                {"name": o.name, "values": list(o.values), "default": o.default, "help": o.help}
                for o in v.options
            ],
        }
        for v in VARIANTS.values()
    ]
    return json.dumps(rows).encode()


def load_assets() -> dict[str, tuple[bytes, str]]:
    """URL path -> (body, content type) for every file of the browser client."""
    table: dict[str, tuple[bytes, str]] = {
        "/variants.json": (variants_json(), TYPES[".json"]),
    }
    root = web_dir()
    if root is None:
        return table
    for path in sorted(root.rglob("*")):
        kind = TYPES.get(path.suffix)
        if kind is None or not path.is_file() or path.name == "package.json":
            continue
        table["/" + path.relative_to(root).as_posix()] = (path.read_bytes(), kind)
    if "/index.html" in table:
        table["/"] = table["/index.html"]
    return table
