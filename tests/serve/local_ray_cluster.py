"""A Ray cluster of several nodes on this machine, on loopback, for tests and benchmarks:
`ray start --head` and `ray start --address` for the others, each node with its own CPUs, ports
and temp dir. Each `ray start` runs in a session of its own, so that stop() ends exactly the
processes this cluster started (everything in those sessions: the nodes' daemons and the
workers they spawned), by the session ids it recorded, and nothing else on the machine."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

RAY = os.path.join(os.path.dirname(sys.executable), "ray")
# Ray 2.60 turns token authentication on for `ray start --head` wherever ~/.ray/auth_token exists
# (a local ray.init() writes it) but not for `ray start --address`, whose nodes then cannot join:
# a cluster on loopback says its mode, and its drivers must say the same.
AUTH_ENV = {"RAY_AUTH_MODE": "disabled"}


def free_ports(count):
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class LocalRayCluster:
    """nodes: how many Ray nodes; cpus_per_node: the CPUs each offers to Ray's scheduler;
    env: variables for the nodes' processes (Ray's and Serve's settings). A process that joins
    it with ray.init needs AUTH_ENV in its environment."""

    def __init__(self, nodes=2, cpus_per_node=1, env=None):
        self.nodes = nodes
        self.env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", **AUTH_ENV, **(env or {}))
        self.cpus_per_node = cpus_per_node
        self.address = None
        self.sessions = []
        # Short: Ray's unix sockets live under it, and their paths are limited to 107 bytes.
        self.root = tempfile.mkdtemp(prefix="xr-", dir="/tmp")

    def start(self, timeout=180):
        gcs, dashboard, client = free_ports(3)
        self.address = "127.0.0.1:%d" % gcs
        for n in range(self.nodes):
            agent, agent_grpc, env_agent, metrics, manager, objects = free_ports(6)
            command = [RAY, "start", "--node-ip-address=127.0.0.1",
                       "--num-cpus=%s" % self.cpus_per_node,
                       "--temp-dir=%s" % os.path.join(self.root, "n%d" % n),
                       "--dashboard-agent-listen-port=%d" % agent,
                       "--dashboard-agent-grpc-port=%d" % agent_grpc,
                       "--runtime-env-agent-port=%d" % env_agent,
                       "--metrics-export-port=%d" % metrics,
                       "--node-manager-port=%d" % manager, "--object-manager-port=%d" % objects,
                       "--disable-usage-stats"]
            if n == 0:  # the dashboard answers ray.util.state (actors, their pids and nodes)
                command += ["--head", "--port=%d" % gcs, "--include-dashboard=true",
                            "--dashboard-host=127.0.0.1", "--dashboard-port=%d" % dashboard,
                            "--ray-client-server-port=%d" % client]
            else:
                command += ["--address=%s" % self.address]
            log = open(os.path.join(self.root, "ray-start-%d.log" % n), "w")
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True, env=self.env)
            self.sessions.append(process.pid)  # a new session's id is its leader's pid
            if process.wait(timeout) != 0:
                log.close()
                with open(log.name) as f:
                    raise RuntimeError("ray start (node %d) failed:\n%s" % (n, f.read()[-3000:]))
            log.close()
        return self

    def processes(self):
        """The pids of the live processes in this cluster's sessions."""
        pids = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % entry) as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] != "Z" and int(fields[3]) in self.sessions:
                pids.append(int(entry))
        return pids

    def stop(self, grace=5.0):
        """Ends every process of this cluster (SIGTERM, then SIGKILL after `grace` seconds)
        and removes its temp dir."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in self.processes():
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + grace
            while self.processes() and time.monotonic() < deadline:
                time.sleep(0.1)
        left = self.processes()
        shutil.rmtree(self.root, ignore_errors=True)
        if left:
            raise RuntimeError("processes of the Ray cluster still running: %s" % left)
