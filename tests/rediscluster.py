"""A real Redis Cluster (masters + replicas) run as child processes: test support (the tests and
bench/cluster.py), not part of the server.

Why: the service claims to run on Redis Cluster; the only honest proof is a real cluster —
``redis-server --cluster-enabled yes`` nodes joined by ``redis-cli --cluster create`` — on
private loopback ports, with the faults a production cluster sees (a master killed and its
replica promoted, a slot migrated, every node restarted from its AOF).

Every node is a :class:`~solrace.server.ops.redisproc.RedisProcess` (same binary search, same
``PR_SET_PDEATHSIG`` safety). A node's cluster bus listens on ``port + 10000``, so ports are
chosen with both free. ``redis-cli`` (or ``valkey-cli``) is looked up beside the server binary
first, then on ``PATH``.

Synchronous, like :mod:`redisproc`: creating a 6-node cluster takes about a second.
"""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import redis
from solrace.server.ops.redisproc import BIND, RedisProcess, RedisProcessError, find_redis_server

__all__ = ["ClusterNodeInfo", "RedisClusterProcess", "find_redis_cli"]

BUS_OFFSET = 10000


def find_redis_cli() -> str:
    """``redis-cli``/``valkey-cli`` beside the server binary, else on ``PATH``."""
    server = Path(find_redis_server())
    for name in ("redis-cli", "valkey-cli"):
        beside = server.with_name(name)
        if beside.is_file():
            return str(beside)
        found = shutil.which(name)
        if found:
            return found
    raise RedisProcessError("no redis-cli or valkey-cli found to create a cluster")


def _free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((BIND, port))
        except OSError:
            return False
    return True


def pick_cluster_ports(n: int) -> list[int]:
    """``n`` ports whose cluster-bus twins (``+10000``) are free too. Both stay below the
    kernel's ephemeral range (usually 32768-60999), so a port the OS hands to someone else's
    ``bind(0)`` or outgoing connection cannot take a bus port between this check and the
    node's start."""
    low = _ephemeral_low()
    out: list[int] = []
    while len(out) < n:
        port = random.randint(10000, max(10001, low - BUS_OFFSET - 1))
        if port not in out and _free(port) and _free(port + BUS_OFFSET):
            out.append(port)
    return out


def _ephemeral_low() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as fh:
            return int(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


class ClusterNodeInfo:
    """One line of ``CLUSTER NODES``: id, port, role, master id, slots."""

    def __init__(self, line: str) -> None:
        parts = line.split()
        self.id = parts[0]
        self.port = int(parts[1].split("@")[0].rsplit(":", 1)[1])
        flags = parts[2].split(",")
        self.master = "master" in flags
        self.failed = "fail" in flags or "fail?" in flags
        self.master_id = None if parts[3] == "-" else parts[3]
        self.slots: list[tuple[int, int]] = []
        for item in parts[8:]:
            if item.startswith("["):
                continue  # a slot being migrated or imported
            lo, _, hi = item.partition("-")
            self.slots.append((int(lo), int(hi or lo)))

    def owns(self, slot: int) -> bool:
        return any(lo <= slot <= hi for lo, hi in self.slots)


class RedisClusterProcess:
    """``masters`` masters with ``replicas`` replicas each, on loopback.

    ``url`` is ``redis+cluster://127.0.0.1:P1,127.0.0.1:P2,…`` (every node a seed), the form
    :mod:`solrace.server.store.connect` understands.
    """

    def __init__(self, *, masters: int = 3, replicas: int = 1, data_dir: Path | None = None,
                 appendfsync: str = "everysec", node_timeout_ms: int = 1000) -> None:
        self.masters = masters
        self.replicas = replicas
        self._dir_given = data_dir is not None
        self.data_dir = Path(data_dir) if data_dir else Path(tempfile.mkdtemp(prefix="solrace-rc-"))
        self.node_timeout_ms = node_timeout_ms
        self.appendfsync = appendfsync
        self.nodes = self._make_nodes()

    def _make_nodes(self) -> list[RedisProcess]:
        ports = pick_cluster_ports(self.masters * (1 + self.replicas))
        return [
            RedisProcess(
                port=port, data_dir=self.data_dir / f"node-{port}", appendonly=True,
                appendfsync=self.appendfsync,
                extra_args=("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                            "--cluster-node-timeout", str(self.node_timeout_ms),
                            # a replica may be promoted however long its master was gone
                            "--cluster-replica-validity-factor", "0",
                            "--appendfilename", "appendonly.aof",
                            # a rejoining replica syncs at once (the default waits 5 s for
                            # more replicas to share the transfer)
                            "--repl-diskless-sync-delay", "0"),
            )
            for port in ports
        ]

    @property
    def ports(self) -> list[int]:
        return [n.port for n in self.nodes]

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"{BIND}:{p}" for p in self.ports)

    # -- lifecycle -----------------------------------------------------------------------

    def start(self, timeout: float = 30.0) -> RedisClusterProcess:
        for attempt in range(3):
            try:
                for node in self.nodes:
                    node.data_dir.mkdir(parents=True, exist_ok=True)
                    node.start()
                break
            except RedisProcessError:  # a port was taken meanwhile: others, elsewhere
                for node in self.nodes:
                    node.stop()
                if attempt == 2:
                    raise
                self.nodes = self._make_nodes()
        if self.masters < 3:  # redis-cli refuses fewer than 3 masters
            self._create_small()
            self.wait_ok(timeout)
            return self
        argv = [find_redis_cli(), "--cluster", "create",
                *(f"{BIND}:{p}" for p in self.ports),
                "--cluster-replicas", str(self.replicas), "--cluster-yes"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            self.stop()
            raise RedisProcessError(f"redis-cli --cluster create failed:\n{done.stdout}\n"
                                    f"{done.stderr}")
        self.wait_ok(timeout)
        return self

    def _create_small(self) -> None:
        """What ``--cluster create`` does, by hand: slots split over the masters, every node
        meets the first, replicas replicate their master (for 1 or 2 masters)."""
        masters, rest = self.nodes[: self.masters], self.nodes[self.masters :]
        per = 16384 // self.masters
        for i, node in enumerate(masters):
            hi = 16383 if i == self.masters - 1 else (i + 1) * per - 1
            with self.client(node.port) as r:
                r.execute_command("CLUSTER ADDSLOTSRANGE", i * per, hi)
                r.execute_command("CLUSTER SET-CONFIG-EPOCH", i + 1)
        for node in self.nodes[1:]:
            with self.client(node.port) as r:
                r.execute_command("CLUSTER MEET", BIND, self.nodes[0].port)
        ids = {}
        deadline = time.monotonic() + 20
        while len(ids) < len(self.nodes):
            ids = {i.port: i.id for i in self.topology(self.nodes[0].port)}
            if time.monotonic() > deadline:
                raise RedisProcessError("the nodes did not meet")
            time.sleep(0.1)
        for k, node in enumerate(rest):
            master = masters[k % self.masters]
            deadline = time.monotonic() + 20
            while True:  # the replica must know its master first
                try:
                    with self.client(node.port) as r:
                        r.execute_command("CLUSTER REPLICATE", ids[master.port])
                    break
                except redis.ResponseError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        if not self._dir_given:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def restart_all(self, timeout: float = 30.0) -> None:
        """Stop every node (SIGTERM flushes the AOF) and start them all again on the same ports
        and data: the cluster comes back from its AOF files and ``nodes.conf``."""
        for node in self.nodes:
            node.stop()
        for node in self.nodes:
            node.restart()
        self.wait_ok(timeout)

    def __enter__(self) -> RedisClusterProcess:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- inspection ------------------------------------------------------------------------

    def client(self, port: int) -> redis.Redis:
        """A plain client of one node whose CLUSTER replies stay raw text."""
        r = redis.Redis(host=BIND, port=port, socket_timeout=5)
        for name in ("CLUSTER NODES", "CLUSTER INFO"):
            r.response_callbacks.pop(name, None)
        return r

    def node(self, port: int) -> RedisProcess:
        return next(n for n in self.nodes if n.port == port)

    def topology(self, via: int | None = None) -> list[ClusterNodeInfo]:
        """``CLUSTER NODES`` as seen by one running node."""
        ports = [via] if via else [n.port for n in self.nodes if n.running]
        last: Exception | None = None
        for port in ports:
            try:
                with self.client(port) as r:
                    text = r.execute_command("CLUSTER NODES").decode()
                return [ClusterNodeInfo(line) for line in text.splitlines() if line.strip()]
            except redis.RedisError as exc:
                last = exc
        raise RedisProcessError(f"no node answers CLUSTER NODES: {last}")

    def master_of(self, slot: int) -> ClusterNodeInfo:
        for info in self.topology():
            if info.master and not info.failed and info.owns(slot):
                return info
        raise RedisProcessError(f"no master owns slot {slot}")

    def replicas_of(self, master_id: str) -> list[ClusterNodeInfo]:
        return [i for i in self.topology() if i.master_id == master_id]

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Until every running node says ``cluster_state:ok``, every slot is served by a live
        master, and every live master has its replicas (a replica is attached and in sync)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self._healthy():
                    return
            except (redis.RedisError, OSError, RedisProcessError):
                pass
            if time.monotonic() > deadline:
                raise RedisProcessError("the cluster did not become healthy:\n"
                                        + "\n".join(self._states()))
            time.sleep(0.1)

    def _states(self) -> list[str]:
        out = []
        for n in self.nodes:
            if not n.running:
                out.append(f"{n.port}: down")
                continue
            try:
                with self.client(n.port) as r:
                    info = r.execute_command("CLUSTER INFO").decode()
                out.append(f"{n.port}: {info.splitlines()[0]}")
            except redis.RedisError as exc:
                out.append(f"{n.port}: {exc}")
        return out

    def _healthy(self) -> bool:
        running = [n for n in self.nodes if n.running]
        for n in running:
            with self.client(n.port) as r:
                if b"cluster_state:ok" not in r.execute_command("CLUSTER INFO"):
                    return False
        topo = self.topology()
        live = {i.port for i in topo if not i.failed}
        covered = sum(hi - lo + 1 for i in topo if i.master and not i.failed for lo, hi in i.slots)
        if covered != 16384:
            return False
        if self.replicas and any(i.master and not i.slots and i.port in live for i in topo):
            return False  # a node not yet turned into a replica
        for i in topo:
            if i.master and i.slots and i.port in live:
                with self.client(i.port) as r:
                    info = r.info("replication")
                want = min(self.replicas, sum(1 for j in topo if j.master_id == i.id
                                              and j.port in live
                                              and self.node(j.port).running))
                if int(info.get("connected_slaves", 0)) < want:
                    return False
                for k in range(int(info.get("connected_slaves", 0))):
                    if info[f"slave{k}"]["state"] != "online":
                        return False
        return True

    # -- faults ----------------------------------------------------------------------------

    def flushall(self) -> None:
        for info in self.topology():
            if info.master and not info.failed and self.node(info.port).running:
                with self.client(info.port) as r:
                    r.flushall()

    def kill_master(self, slot: int, timeout: float = 30.0) -> int:
        """SIGKILL the master serving ``slot`` and wait until its replica is promoted and the
        cluster is healthy again. Returns the killed node's port (restart it with
        ``node(port).restart()``: it rejoins as a replica)."""
        victim = self.master_of(slot)
        self.node(victim.port).kill()
        deadline = time.monotonic() + timeout
        while True:
            try:
                info = self.master_of(slot)
                if info.port != victim.port:
                    break
            except (RedisProcessError, redis.RedisError):
                pass
            if time.monotonic() > deadline:
                raise RedisProcessError(f"no replica took over slot {slot}")
            time.sleep(0.05)
        return victim.port

    def migrate_slot(self, slot: int, to_port: int | None = None) -> int:
        """Move ``slot`` (and its keys) to another master, the way ``redis-cli --cluster
        reshard`` does: IMPORTING/MIGRATING, MIGRATE key batches, SETSLOT NODE everywhere.
        Returns the new owner's port."""
        topo = self.topology()
        src = next(i for i in topo if i.master and not i.failed and i.owns(slot))
        dst = next(i for i in topo if i.master and not i.failed and i.id != src.id
                   and (to_port is None or i.port == to_port))
        with self.client(src.port) as s, self.client(dst.port) as d:
            d.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", src.id)
            s.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", dst.id)
            while True:
                keys = s.execute_command("CLUSTER GETKEYSINSLOT", slot, 50)
                if not keys:
                    break
                s.execute_command("MIGRATE", BIND, dst.port, "", 0, 5000, "KEYS", *keys)
            d.execute_command("CLUSTER SETSLOT", slot, "NODE", dst.id)
            s.execute_command("CLUSTER SETSLOT", slot, "NODE", dst.id)
        for info in topo:
            if info.master and not info.failed and info.id not in (src.id, dst.id):
                with self.client(info.port) as r:
                    r.execute_command("CLUSTER SETSLOT", slot, "NODE", dst.id)
        return dst.port
