"""docker-compose.yml, read (docker is not run here): it parses, and the ``cluster`` profile is
the 6-node Redis Cluster with several server replicas that docs/scaling.md describes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from solrace.server.ops.config import SETTINGS
from solrace.server.store.connect import parse_cluster_url

ROOT = Path(__file__).resolve().parent.parent


def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def in_profile(name: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in compose()["services"].items() if name in (v.get("profiles") or [])}


def test_default_services_are_unchanged_by_the_profile() -> None:
    default = {k for k, v in compose()["services"].items() if not v.get("profiles")}
    assert default == {"redis", "solrace-1", "solrace-2"}


def test_cluster_profile_has_six_cluster_nodes_and_an_init() -> None:
    services = in_profile("cluster")
    nodes = {k: v for k, v in services.items() if "--cluster-enabled" in (v.get("command") or [])}
    assert len(nodes) == 6
    for v in nodes.values():
        cmd = v["command"]
        assert cmd[cmd.index("--cluster-enabled") + 1] == "yes"
        assert cmd[cmd.index("--appendonly") + 1] == "yes"
        assert v["volumes"], "a node without a volume loses its AOF and nodes.conf"
    init = services["redis-cluster-init"]
    script = init["command"][0]
    assert "--cluster-replicas 1" in script and "--cluster-yes" in script
    assert set(init["depends_on"]) == set(nodes)
    assert all(n in script for n in nodes)


def test_cluster_servers_use_the_cluster_with_wait_replicas() -> None:
    services = in_profile("cluster")
    servers = {k: v for k, v in services.items() if v.get("build")}
    assert len(servers) >= 3
    known = {s.env for s in SETTINGS}
    ports = set()
    for v in servers.values():
        env = v["environment"]
        assert set(k for k in env if k.startswith("SOLRACE_")) <= known
        url = parse_cluster_url(env["SOLRACE_REDIS_URL"])
        assert {host for host, _ in url.seeds} <= set(services)
        assert int(env["SOLRACE_WAIT_REPLICAS"]) == 1
        assert "redis-cluster-init" in v["depends_on"]
        ports.update(v["ports"])
    assert len(ports) == len(servers), "two replicas on one host port"


def test_default_servers_advertise_their_own_host_port() -> None:
    """Race homes (docs/protocol.md 8.1): each replica names a URL that reaches it alone."""
    services = compose()["services"]
    seen = set()
    for name in ("solrace-1", "solrace-2"):
        v = services[name]
        url = v["environment"]["SOLRACE_ADVERTISE_URL"]
        host_port = v["ports"][0].split(":")[0]
        assert url.endswith(f":{host_port}}}"), (name, url)
        seen.add(url)
    assert len(seen) == 2
