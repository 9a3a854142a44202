"""A real Redis Cluster for tests and benchmarks: three masters (no replicas) of Debian's
redis-server on free loopback ports, each with its append-only file fsynced on every write, made
into one cluster by `redis-cli --cluster create`."""
from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import redis

from service.localredis import free_port


def _free_ports(count: int) -> list[int]:
    """Distinct free ports (each server needs its own and a cluster bus port)."""
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


class LocalCluster:
    """`masters` redis-server processes in cluster mode, made into one cluster; `stop()` ends them.

    `url` is the service's form, ``redis+cluster://127.0.0.1:p1,127.0.0.1:p2,...``.
    """

    def __init__(self, data_dir: Path, masters: int = 3):
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.cli = shutil.which("redis-cli") or "/usr/bin/redis-cli"
        ports = _free_ports(2 * masters)
        self.ports, bus_ports = ports[:masters], ports[masters:]
        self.args: list[list[str]] = []
        for port, bus in zip(self.ports, bus_ports):
            node_dir = data_dir / f"node-{port}"
            node_dir.mkdir(parents=True, exist_ok=True)
            self.args.append([binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(node_dir),
                              "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                              "--cluster-port", str(bus), "--cluster-node-timeout", "5000",
                              "--appendonly", "yes", "--appendfsync", "always", "--save", ""])
        self.processes: list[subprocess.Popen | None] = [None] * masters
        self.url = "redis+cluster://" + ",".join(f"127.0.0.1:{port}" for port in self.ports)
        try:
            for number in range(masters):
                self.start_node(number)
            created = subprocess.run([self.cli, "--cluster", "create",
                                      *[f"127.0.0.1:{port}" for port in self.ports],
                                      "--cluster-replicas", "0", "--cluster-yes"],
                                     capture_output=True, text=True, timeout=60)
            if created.returncode != 0:
                raise RuntimeError(f"redis-cli --cluster create failed: {created.stdout}{created.stderr}")
            self.wait_ok()
        except BaseException:
            self.stop()
            raise

    def node(self, number: int) -> redis.Redis:
        """A plain client of one node (for CLUSTER and MEMORY commands about that node)."""
        return redis.Redis(host="127.0.0.1", port=self.ports[number], decode_responses=True)

    def start_node(self, number: int) -> None:
        self.processes[number] = subprocess.Popen(self.args[number], stdout=subprocess.DEVNULL,
                                                  stderr=subprocess.STDOUT)
        client = self.node(number)
        for _ in range(500):
            if self.processes[number].poll() is not None:
                raise RuntimeError(f"redis-server on {self.ports[number]} exited with "
                                   f"{self.processes[number].returncode}")
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.02)
        raise RuntimeError(f"redis-server on {self.ports[number]} did not answer")

    def stop_node(self, number: int) -> None:
        process = self.processes[number]
        if process is not None and process.poll() is None:
            process.terminate()
            process.wait(timeout=20)

    def wait_ok(self, seconds: float = 60) -> None:
        """Until every node says cluster_state:ok and knows every master."""
        limit = time.monotonic() + seconds
        while True:
            try:
                infos = [self.node(n).cluster("info") for n in range(len(self.ports))]
                if all(info["cluster_state"] == "ok" and int(info["cluster_known_nodes"]) == len(self.ports)
                       for info in infos):
                    return
            except redis.RedisError:
                pass
            if time.monotonic() > limit:
                raise RuntimeError("the cluster did not reach cluster_state:ok")
            time.sleep(0.1)

    def owner(self, key: str) -> int:
        """The number of the master that holds `key`'s slot."""
        slot = int(self.node(0).execute_command("CLUSTER", "KEYSLOT", key))
        for number in range(len(self.ports)):
            for start, end in self.slot_ranges(number):
                if start <= slot <= end:
                    return number
        raise LookupError(f"no master holds slot {slot}")

    def slot_ranges(self, number: int) -> list[tuple[int, int]]:
        ranges = []
        for start, end, master, *_ in self.node(number).execute_command("CLUSTER", "SLOTS"):
            if int(master[1]) == self.ports[number]:
                ranges.append((int(start), int(end)))
        return ranges

    def flush(self) -> None:
        for number in range(len(self.ports)):
            self.node(number).flushall()

    def stop(self) -> None:
        for number in range(len(self.processes)):
            self.stop_node(number)

    def __enter__(self) -> "LocalCluster":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
