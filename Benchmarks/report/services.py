"""The servers of the report, each started on loopback in its own temporary directory and
stopped at the end: our `fod serve`, Redis and PostgreSQL with PostGIS (started as the
`postgres` user when run as root: PostgreSQL refuses to run as root)."""
import concurrent.futures
import http.client
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request


# Services started and not stopped yet (stopped by stop_running() if the run fails).
RUNNING = []


def stop_running():
    for service in list(RUNNING):
        try:
            service.stop()
        except Exception as error:  # keep stopping the others
            print(f"stopping {type(service).__name__}: {error}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def memory_bytes(pids):
    """Proportional set size (shared pages split between their processes) summed over `pids`, and
    the largest resident peak (VmHWM) among them."""
    pss = hwm = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                pss += int(re.search(r"^Pss:\s+(\d+) kB", f.read(), re.M).group(1)) * 1024
            with open(f"/proc/{pid}/status") as f:
                hwm = max(hwm, int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1)) * 1024)
        except (OSError, AttributeError):
            pass
    return pss, hwm


def wait_port(port, process, what, seconds=60):
    for _ in range(int(seconds * 20)):
        if process is not None and process.poll() is not None:
            raise SystemExit(f"{what} exited while starting")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{what} did not start on port {port}")


class Fod:
    """`fod serve` on a fresh data directory, and the calls the report makes to it."""

    def __init__(self, binary, data, extra=()):
        self.binary, self.data, self.port = binary, data, free_port()
        self.log = open(data + ".log", "a")
        # /metrics wants a bearer token (not served on the public port otherwise).
        os.environ.setdefault("FOD_METRICS_TOKEN", "benchmark-metrics-token")
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(self.port), "--bind", "127.0.0.1", "--data", data, "--log-level", "warning",
             "--password-cost", "minimal", "--signup", "open", "--device-request-rate", "0", "--sign-up-limit", "1000000",
             "--invitation-limit", "1000000", *extra], stdout=subprocess.DEVNULL, stderr=self.log)
        RUNNING.append(self)
        wait_port(self.port, self.process, "fod serve")
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)

    def call(self, method, path, body=None, token=None, connection=None):
        connection = connection or self.connection
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        payload = json.dumps(body) if body is not None else None
        try:
            connection.request(method, path, payload, headers)
            response = connection.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # The server closed a kept-alive connection that sat idle past its timeout (a long
            # peer phase ran in between): the request never reached a handler, so open a new
            # connection and send it once more.
            connection.close()
            connection.connect()
            connection.request(method, path, payload, headers)
            response = connection.getresponse()
        data = response.read()
        if response.status >= 300:
            raise SystemExit(f"fod {method} {path}: {response.status} {data[:300]!r}")
        return json.loads(data) if data else None

    def group_of(self, members, work):
        """A group of `members` users, each sharing one device (joined on 4 connections at once);
        writes devices.txt ("id token" a line) in `work`; returns (group id, owner token)."""
        owner = self.call("POST", "/v1/users", {"email": "owner@bench.example", "password": "bench-password", "displayName": "Owner"})
        first = self.call("POST", "/v1/devices", {"name": "d0"}, owner["token"])
        group = self.call("POST", "/v1/groups", {"name": "Bench", "deviceId": first["device"]["id"]}, owner["token"])

        def join(indexes):
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
            joined = []
            for i in indexes:
                email = f"m{i}@bench.example"
                user = self.call("POST", "/v1/users", {"email": email, "password": "bench-password", "displayName": f"M{i}"}, connection=connection)
                device = self.call("POST", "/v1/devices", {"name": f"d{i}"}, user["token"], connection=connection)
                self.call("POST", f"/v1/groups/{group['id']}/invitations", {"email": email}, owner["token"], connection=connection)
                self.call("POST", f"/v1/invitations/{group['id']}/accept", {"deviceId": device["device"]["id"]}, user["token"], connection=connection)
                joined.append(device)
            connection.close()
            return joined

        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            devices = [first] + [d for part in pool.map(join, [range(k, members, 4) for k in range(1, 5)]) for d in part]
        with open(os.path.join(work, "devices.txt"), "w") as f:
            f.writelines(f'{d["device"]["id"]} {d["deviceToken"]}\n' for d in devices)
        return group["id"], owner["token"]

    def metrics(self):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/metrics",
                                         headers={"Authorization": "Bearer " + os.environ["FOD_METRICS_TOKEN"]})
        text = urllib.request.urlopen(request, timeout=30).read().decode()
        return {m.group(1): float(m.group(2)) for m in re.finditer(r"^(fod_[a-z_]+) ([0-9.e+-]+)$", text, re.M)}

    def wait_merged(self, timeout=3600):
        began = time.time()
        while time.time() - began < timeout:
            m = self.metrics()
            if m.get("fod_index_unmerged_fixes", 1) == 0 and m.get("fod_index_merge_running", 1) == 0:
                return time.time() - began
            time.sleep(0.2)
        raise SystemExit("the index merge did not finish")

    def memory(self):
        return memory_bytes([self.process.pid])

    def stop(self):
        RUNNING.remove(self)
        self.connection.close()
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=600)


class Redis:
    def __init__(self, work, durable):
        """durable: appendonly with appendfsync always (each write fsynced before the reply);
        otherwise Redis's default persistence (RDB snapshots; here disabled: none at all)."""
        self.port = free_port()
        os.makedirs(work, exist_ok=True)
        flags = ["--appendonly", "yes", "--appendfsync", "always"] if durable else ["--appendonly", "no"]
        self.process = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", work,
                                         "--save", "", "--protected-mode", "yes", *flags],
                                        stdout=open(os.path.join(work, "redis.log"), "w"), stderr=subprocess.STDOUT)
        RUNNING.append(self)
        wait_port(self.port, self.process, "redis-server")

    def memory(self):
        return memory_bytes([self.process.pid])

    def stop(self):
        RUNNING.remove(self)
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=120)


class Database:
    """One database of the cluster, through psql."""

    def __init__(self, conninfo):
        self.conninfo = conninfo

    def sql(self, text):
        result = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", self.conninfo, "-c", text],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"psql: {text[:200]}: {result.stderr.strip()}")
        return result.stdout.strip()


class Postgres:
    """A throwaway PostgreSQL cluster with PostGIS; trust authentication on 127.0.0.1 only."""

    def __init__(self, work, bindir):
        self.work, self.bindir, self.port = work, bindir, free_port()
        self.data = os.path.join(work, "pgdata")
        os.makedirs(work, exist_ok=True)
        self.as_user = []
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            os.chown(work, account.pw_uid, account.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.run(os.path.join(bindir, "initdb"), "-D", self.data, "--auth=trust", "-U", "postgres", "--no-sync", quiet=True)
        options = (f"-p {self.port} -k {work} -c listen_addresses=127.0.0.1 -c shared_buffers=256MB -c max_wal_size=4GB "
                   "-c synchronous_commit=on -c fsync=on -c maintenance_work_mem=512MB")
        self.run(os.path.join(bindir, "pg_ctl"), "-D", self.data, "-o", options, "-l", os.path.join(work, "pg.log"), "-w", "start", quiet=True)
        RUNNING.append(self)
        self.conninfo = f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"

    def database(self, name):
        """A new database with PostGIS; returns a Database handle on it."""
        self.sql(f"CREATE DATABASE {name}")
        db = Database(f"host=127.0.0.1 port={self.port} user=postgres dbname={name}")
        db.sql("CREATE EXTENSION postgis")
        return db

    def drop(self, name):
        self.sql(f"DROP DATABASE {name}")

    def run(self, *argv, quiet=False):
        subprocess.run([*self.as_user, *argv], check=True, stdout=subprocess.DEVNULL if quiet else None)

    def sql(self, text):
        return Database(self.conninfo).sql(text)

    def memory(self):
        """The postmaster and its children (backends, checkpointer, WAL writer, ...)."""
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            postmaster = int(f.readline())
        pids = [postmaster]
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == postmaster:
                        pids.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
        return memory_bytes(pids)

    def stop(self):
        RUNNING.remove(self)
        self.run(os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-m", "fast", "-w", "stop", quiet=True)


def postgres_bindir():
    """The directory of initdb/pg_ctl of the newest installed PostgreSQL with PostGIS, or None."""
    root = "/usr/lib/postgresql"
    for version in sorted(os.listdir(root) if os.path.isdir(root) else [], key=lambda v: int(v) if v.isdigit() else 0, reverse=True):
        if os.path.exists(f"/usr/share/postgresql/{version}/extension/postgis.control"):
            return os.path.join(root, version, "bin")
    return None


def spatialite_available():
    return any(os.path.exists(os.path.join(d, "mod_spatialite.so")) for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"))


def redis_available():
    return shutil.which("redis-server") is not None
