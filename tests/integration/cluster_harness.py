"""No Kafka counterpart (Kafka's integration tests use KafkaServerTestHarness over an EmbeddedZookeeper):
a cluster of broker *processes* over a real ZooKeeper, started the way the README tells a user to.

``ClusterProcesses(workdir, num_brokers, overrides).start()`` starts Debian's ZooKeeper (``zk_harness``,
127.0.0.1, a free port) and then ``num_brokers`` brokers, each ``bin/kafka-server-start
config/server-<i>.properties`` with ``--override`` for its port, ``log.dirs`` and the ZooKeeper address
(a chroot of its own, as ``config/`` uses). ``brokers[i]`` is a ``harness.BrokerProcess``;
``bootstrap`` lists every running broker; ``stop()`` stops the brokers, then ZooKeeper, each by PID.
``broker_overrides(i)`` adds settings for broker ``i`` alone (a metrics port, say; ``{port}`` in its ``listeners``
is the broker's PLAINTEXT port, for extra listeners such as an SSL inter-broker one); ``control_plane=True`` gives each
broker a second listener, CONTROLLER, named by ``control.plane.listener.name`` (KIP-291), so the controller's
requests never share a connection with replication or clients (``control_port(i)``); ``extra_listeners={"SSL":
"SSL"}`` gives each broker further listeners (name: security protocol) on ports of their own (``listener_port(name,
i)``), e.g. a mutual-TLS inter-broker listener for the ACL tests. For replication
tests: ``partition_state(topic, p)`` reads the partition's state znode (leader, ISR) from ZooKeeper,
``log_batches(i, topic, p)`` the batches in broker ``i``'s segment files, ``pause(i)`` / ``resume(i)``
SIGSTOP and SIGCONT a broker. For the failure tests (``test_replication_failures.py``): ``partition_dir(i, …)``
(broker ``i``'s directory of a partition), ``leader(…)``, ``wait_for_isr(…)`` (as the state znode says),
``create_topic(name, replicas)`` with an explicit assignment, ``high_watermark(…)`` (ListOffsets on the leader),
``leader_epoch_entries(i, …)`` (its ``leader-epoch-checkpoint``) and ``log_end_offset(i, …)`` (from its
segment files); ``replica_logs.py`` compares replicas' logs.
"""
from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from harness import REPO_ROOT, BrokerProcess, free_port

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import zk_harness  # noqa: E402


def zookeeper_available() -> bool:
    return zk_harness.zookeeper_jar() is not None


def _stopped(pid: int) -> bool:
    """Is every thread of the process stopped by a signal (state T in /proc/<pid>/task/*/stat)? A paused broker
    answers nothing; a SIGSTOP reaches each thread on its own, so the main thread alone does not tell."""
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] not in ("T", "t"):
                    return False
        return True
    except (OSError, IndexError):
        return False


class ClusterProcesses:
    def __init__(self, workdir: Path, num_brokers: int = 3, overrides: dict | None = None,
                 broker_overrides=lambda i: {}, control_plane: bool = False,
                 extra_listeners: dict[str, str] | None = None):
        self.broker_overrides = broker_overrides
        self.control_plane = control_plane
        self.extra_listeners = extra_listeners or {}
        self.extra_ports: dict[str, list[int]] = {name: [] for name in self.extra_listeners}
        self.control_ports: list[int] = []
        self._zk = None
        self.workdir = Path(workdir)
        self.zookeeper = zk_harness.ZooKeeperServer(str(self.workdir / "zookeeper"))
        os.makedirs(self.zookeeper.work_dir, exist_ok=True)
        self.num_brokers = num_brokers
        self.overrides = overrides or {}
        self.brokers: list[BrokerProcess] = []

    def start(self) -> "ClusterProcesses":
        self.zookeeper.start()
        try:
            for i in range(self.num_brokers):
                properties = REPO_ROOT / "config" / f"server-{i % 3}.properties"
                port, listeners = free_port(), {}
                if self.control_plane:
                    self.control_ports.append(free_port())
                    listeners = {"listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{self.control_ports[i]}",
                                 "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                                 "control.plane.listener.name": "CONTROLLER"}
                if self.extra_listeners:
                    extra = []
                    for name, protocol in self.extra_listeners.items():
                        self.extra_ports[name].append(free_port())
                        extra.append(f"{name}://127.0.0.1:{self.extra_ports[name][i]}")
                    listeners = {"listeners": ",".join([f"PLAINTEXT://127.0.0.1:{port}", *extra]),
                                 "listener.security.protocol.map": ",".join(
                                     ["PLAINTEXT:PLAINTEXT", *(f"{n}:{p}" for n, p in self.extra_listeners.items())])}
                own = dict(self.broker_overrides(i))
                if "{port}" in str(own.get("listeners", "")):   # the PLAINTEXT port the harness picked
                    own["listeners"] = own["listeners"].replace("{port}", str(port))
                broker = BrokerProcess(self.workdir / f"broker-{i}", {
                    "broker.id": str(i),
                    "zookeeper.connect": self.zookeeper.connect_string("kafkalite"),
                    # the last broker to stop cannot hand its leaderships over: retry quickly, then stop
                    "controlled.shutdown.retry.backoff.ms": 200,
                    **listeners,
                    **self.overrides,
                    **own,
                }, port=port, properties=properties)
                self.brokers.append(broker)
                broker.start()
        except BaseException:
            self.stop()
            raise
        return self

    def listener_port(self, name: str, i: int) -> int:
        """Broker ``i``'s port for the extra listener ``name``."""
        return self.extra_ports[name][i]

    def control_port(self, i: int) -> int:
        """Broker ``i``'s CONTROLLER listener port (``control_plane=True`` only)."""
        return self.control_ports[i]

    @property
    def bootstrap(self) -> str:
        return ",".join(b.bootstrap for b in self.brokers if b.running)

    def log_tails(self, lines: int = 30) -> str:
        return "\n".join(f"--- broker {i} ({b.log_path}):\n{b.log_tail(lines)}" for i, b in enumerate(self.brokers))

    def zk(self):
        """A kazoo client on the cluster's ZooKeeper (its chroot), made on first use."""
        if self._zk is None:
            from kazoo.client import KazooClient
            self._zk = KazooClient(hosts=self.zookeeper.connect_string("kafkalite"), timeout=10)
            self._zk.start(timeout=10)
        return self._zk

    def partition_state(self, topic: str, partition: int) -> dict:
        """``{"leader": …, "leader_epoch": …, "isr": […], …}`` as the state znode holds it."""
        import json
        data, _ = self.zk().get(f"/brokers/topics/{topic}/partitions/{partition}/state")
        return json.loads(data)

    def controller_id(self) -> int:
        """The broker ``/controller`` names."""
        import json
        data, _ = self.zk().get("/controller")
        return json.loads(data)["brokerid"]

    def log_batches(self, i: int, topic: str, partition: int) -> list[tuple[int, int, int, int]]:
        """(base offset, last offset, partition leader epoch, CRC) of each batch in broker ``i``'s log."""
        from kafkalite.record.file_records import FileRecords
        out = []
        for seg in sorted((self.brokers[i].log_dirs / f"{topic}-{partition}").glob("*.log")):
            records = FileRecords.open(str(seg), file_already_exists=True)
            try:
                out += [(b.base_offset, b.last_offset, b.partition_leader_epoch, b.checksum) for b in records.batches()]
            finally:
                records.close_handlers()   # not close(): its trim() would cut a live broker's appends since open
        return out

    def partition_dir(self, i: int, topic: str, partition: int) -> Path:
        """Broker ``i``'s directory of ``topic-partition`` (its ``log.dirs`` has one directory)."""
        return self.brokers[i].log_dirs / f"{topic}-{partition}"

    def leader(self, topic: str, partition: int) -> int:
        """The leader the state znode names (-1 while the partition is offline)."""
        return self.partition_state(topic, partition)["leader"]

    def wait_for_isr(self, topic: str, partition: int, isr, timeout: float = 30) -> dict:
        """Wait until the state znode's ISR is the set ``isr``; return the state."""
        from support import wait_until
        want = set(isr)

        def reached():
            state = self.partition_state(topic, partition)
            return state if set(state["isr"]) == want else None
        return wait_until(reached, timeout, f"the ISR of {topic}-{partition} to be {sorted(want)}")

    def wait_for_leader(self, topic: str, partition: int, leader: int, timeout: float = 30) -> dict:
        """Wait until the state znode names ``leader``; return the state."""
        from support import wait_until

        def elected():
            state = self.partition_state(topic, partition)
            return state if state["leader"] == leader else None
        return wait_until(elected, timeout, f"broker {leader} to lead {topic}-{partition}")

    def create_topic(self, name: str, replicas: list[int], configs: dict | None = None) -> dict:
        """One partition on ``replicas`` (the first is the preferred leader), through kafka-python's admin
        client (librdkafka refuses an assignment without a replication factor); waits for a full ISR and for the
        running brokers' metadata to name its leader."""
        from kafka.admin import KafkaAdminClient, NewTopic
        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap, request_timeout_ms=15000)
        try:
            admin.create_topics([NewTopic(name, -1, -1, replica_assignments={0: list(replicas)},
                                          topic_configs={k: str(v) for k, v in (configs or {}).items()})])
        finally:
            admin.close()
        state = self.wait_for_isr(name, 0, replicas)
        return self.wait_for_metadata(name, 0, state)

    def wait_for_metadata(self, topic: str, partition: int, state: dict, timeout: float = 30) -> dict:
        """Wait until every running broker's metadata cache names the leader and leader epoch the state znode
        names (Kafka's TestUtils.waitUntilMetadataIsPropagated; here also the epoch, and the znode read again
        each round in case the leadership moved on). The controller writes the znode before it sends
        LeaderAndIsr, and sends UpdateMetadata after it on each broker's own channel, so a broker that answers
        with this epoch has also taken its LeaderAndIsr: the leader leads, the followers fetch. Without it a
        test can produce to a leader that does not lead yet (acks=0 then loses the record with no error).
        Brokers stopped with SIGSTOP are left out: they answer nothing. Returns the state it agreed on."""
        from harness import RawConnection
        from support import wait_until
        from clients import raw_request
        from kafkalite.protocol.messages import metadata as MD

        def answered(b) -> tuple[int, int] | None:
            with RawConnection(b.port) as conn:
                r = raw_request(conn, 3, 7, MD.MetadataRequest(topics=[MD.MetadataRequestTopic(name=topic)],
                                                               allow_auto_topic_creation=False))
            parts = [p for t in r.topics if t.name == topic and t.error_code == 0 for p in t.partitions
                     if p.partition_index == partition]
            return (parts[0].leader_id, parts[0].leader_epoch) if parts else None

        def propagated():
            current = self.partition_state(topic, partition)
            want = (current["leader"], current["leader_epoch"])
            running = [b for b in self.brokers if b.running and not _stopped(b.proc.pid)]
            return current if all(answered(b) == want for b in running) else None
        return wait_until(propagated, timeout, f"every running broker's metadata of {topic}-{partition} to name "
                          f"the leader and epoch of its state znode (first read: {state})", interval=0.1)

    def high_watermark(self, topic: str, partition: int) -> int:
        """The leader's high watermark: the latest offset a read-uncommitted ListOffsets returns."""
        from confluent_kafka import Consumer, TopicPartition
        consumer = Consumer({"bootstrap.servers": self.bootstrap, "group.id": "kafkalite-watermarks"})
        try:
            return consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10, cached=False)[1]
        finally:
            consumer.close()

    def leader_epoch_entries(self, i: int, topic: str, partition: int) -> list[tuple[int, int]]:
        """(epoch, start offset) of each entry in broker ``i``'s ``leader-epoch-checkpoint`` of the partition."""
        from kafkalite.log.checkpoint_file import read_checkpoint
        path = self.partition_dir(i, topic, partition) / "leader-epoch-checkpoint"
        if not path.exists():
            return []
        return [(int(epoch), int(offset)) for epoch, offset in read_checkpoint(str(path))]

    def log_end_offset(self, i: int, topic: str, partition: int) -> int:
        """One past the last offset in broker ``i``'s segment files (0 for an empty log)."""
        batches = self.log_batches(i, topic, partition)
        return batches[-1][1] + 1 if batches else 0

    def pause(self, i: int) -> None:
        """SIGSTOP, and wait until the process is stopped: the signal is delivered asynchronously, and a test
        that looks at the broker's sockets right after kill() could see a state its threads then change (a
        follower reading the answer it had and sending the next fetch before it stops)."""
        if self.brokers[i].proc is not None:
            from support import wait_until
            self.brokers[i]._signal(signal.SIGSTOP)
            pid = self.brokers[i].proc.pid
            try:
                wait_until(lambda: _stopped(pid) or self.brokers[i].proc.poll() is not None, 5,
                           f"broker {i} (pid {pid}) to stop on SIGSTOP", interval=0.001)
            except AssertionError:   # not stopped in time: do not leave it half stopped for the next test
                self.brokers[i]._signal(signal.SIGCONT)
                raise

    def resume(self, i: int) -> None:
        """SIGCONT (nothing if the broker is not running: a test may have stopped it)."""
        if self.brokers[i].proc is not None:
            self.brokers[i]._signal(signal.SIGCONT)

    def stop(self) -> None:
        if self._zk is not None:
            self._zk.stop()
            self._zk.close()
            self._zk = None
        for broker in reversed(self.brokers):
            if broker.running and _stopped(broker.proc.pid):   # a SIGTERM waits while the process is stopped
                broker._signal(signal.SIGCONT)
            broker.stop()
        self.zookeeper.stop()
