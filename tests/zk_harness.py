"""No Kafka counterpart (plays the role of Kafka's EmbeddedZookeeper): starts Debian's ZooKeeper for tests.

``ZooKeeperServer(tmp_dir).start()`` writes a ``zoo.cfg`` (127.0.0.1, a free port, ``tickTime=100``, no AdminServer,
dataDir in ``tmp_dir``), runs ``java ... QuorumPeerMain zoo.cfg`` as a plain process and waits for ``ruok`` → ``imok``;
``stop()`` kills that one process by PID. ``connect_string(chroot)`` gives ``127.0.0.1:<port>/<chroot>``.
``zookeeper_jar()`` is None when the ``zookeeper`` package is not installed (``apt-get install -y zookeeper``).
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time

from support import free_port

ZK_JAR_CANDIDATES = ("/usr/share/java/zookeeper.jar",)
SLF4J_SIMPLE = "/usr/share/java/slf4j-simple.jar"


def zookeeper_jar() -> str | None:
    for jar in ZK_JAR_CANDIDATES:
        if os.path.exists(jar) and shutil.which("java"):
            return jar
    return None


def four_letter_word(port: int, word: bytes, timeout: float = 1.0) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(word)
        chunks = []
        while True:
            chunk = s.recv(4096)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


class ZooKeeperServer:
    def __init__(self, work_dir: str, tick_time_ms: int = 100):
        self.work_dir = str(work_dir)
        self.tick_time_ms = tick_time_ms
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.log_path = os.path.join(self.work_dir, "zookeeper.log")

    def connect_string(self, chroot: str = "") -> str:
        return f"127.0.0.1:{self.port}" + (f"/{chroot.strip('/')}" if chroot else "")

    def start(self, timeout_s: float = 30.0) -> "ZooKeeperServer":
        jar = zookeeper_jar()
        if jar is None:
            raise RuntimeError("ZooKeeper is not installed (apt-get install -y zookeeper)")
        data_dir = os.path.join(self.work_dir, "data")
        os.makedirs(data_dir, exist_ok=True)
        cfg = os.path.join(self.work_dir, "zoo.cfg")
        with open(cfg, "w") as f:
            f.write(f"tickTime={self.tick_time_ms}\ndataDir={data_dir}\nclientPort={self.port}\n"
                    "clientPortAddress=127.0.0.1\nadmin.enableServer=false\n"
                    "4lw.commands.whitelist=ruok,srvr\nmaxSessionTimeout=40000\n")
        classpath = os.pathsep.join([self.work_dir, jar] + ([SLF4J_SIMPLE] if os.path.exists(SLF4J_SIMPLE) else []))
        cmd = ["java", "-Xmx64m", "-Xms16m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath,
               "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfg]
        log = open(self.log_path, "wb")
        self.process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"ZooKeeper exited with {self.process.returncode}: {self.log_tail()}")
            try:
                if four_letter_word(self.port, b"ruok") == b"imok":
                    return self
            except OSError:
                pass
            time.sleep(0.05)  # polling for the server to accept connections (bounded by the deadline)
        self.stop()
        raise RuntimeError(f"ZooKeeper did not answer ruok within {timeout_s}s: {self.log_tail()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def log_tail(self, lines: int = 30) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""
