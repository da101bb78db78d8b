"""No Kafka counterpart: S39, the three acks scenarios of seed 002 (figures 6-43, 6-44 and 6-45) run for real.

Three kafkalite broker processes over Debian's ZooKeeper (``tests/integration/cluster_harness.py``), one
partition on all three (the leader is a broker that is not the controller), a confluent-kafka producer,
and for each acks setting the moment the figure shows, built with signals:

- acks=0 (figure 6-43): the followers stopped (SIGSTOP) between two fetches; m1 reaches the leader's
  log, which nobody copies; the leader stopped, m2 is written into its socket and counted as sent;
  ``kill -9`` of the leader. The producer called both successful (with no offset: acks=0 gets no answer).
- acks=1 (figure 6-44): m1 acknowledged and fetched by both followers; the followers stopped between two
  fetches; m2 acknowledged by the leader alone; the leader stopped with m3's request unanswered in its
  socket; ``kill -9``.
- acks=all (figure 6-45): m1 and m2 acknowledged (every ISR member had them); the followers stopped; m3
  appended by the leader and parked in its produce purgatory, waiting for followers that do not fetch;
  ``kill -9``.

Then the followers resume, the controller sees the leader's ZooKeeper session expire and elects a follower
(OfflinePartitionLeaderElection, from the ISR), the records the new leader serves are read back with a
consumer, and the killed broker is started again: it truncates its log to the new leader's
(OffsetsForLeaderEpoch) and rejoins the ISR. Requests still unanswered at the kill are purged from the
producer (``Producer.purge``), as the figures' "not complete" requests: a producer that retried them
would write them again to the new leader.

"Stopped between two fetches" matters: a follower's fetch waits at the leader (replica.fetch.wait.max.ms)
and is answered the moment new records arrive, so a follower stopped while its fetch is parked still
receives m2 in its socket buffer and appends it when resumed. ``pause_followers_between_fetches`` stops
the followers and waits until each has an answered fetch unread in its socket (``/proc/net/tcp``'s
rx_queue on its connection to the leader): with one fetch in flight per connection, the leader then holds
no fetch of theirs, and a stopped follower sends no other. (A follower stopped after reading an answer
but before sending the next fetch shows no unread bytes; it is resumed and stopped again.)

    python bench/acks_survival.py                 # the three scenarios, about a minute
    python bench/acks_survival.py --acks 1        # one of them

``tests/integration/test_acks_survival.py`` runs the same scenarios and asserts the seed's claims.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for _p in (REPO / "tests", REPO / "tests" / "integration", REPO):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from support import wait_until  # noqa: E402

FIGURES = {"0": "6-43", "1": "6-44", "all": "6-45"}
SESSION_TIMEOUT_MS = 6000
CLUSTER_OVERRIDES = {"zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS, "replica.fetch.wait.max.ms": 100}


def start_cluster(workdir):
    """Three broker processes over ZooKeeper, with a control plane (so that a follower's only connection to
    the leader's PLAINTEXT listener is its fetcher's)."""
    from cluster_harness import ClusterProcesses
    return ClusterProcesses(Path(workdir), 3, overrides=dict(CLUSTER_OVERRIDES), control_plane=True).start()


# ------------------------------------------------------------------ sockets of a stopped process

def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def tcp_connections(pid: int) -> list[dict]:
    """The established IPv4 TCP connections of process ``pid``: local and remote port, bytes queued to
    send (tx) and received but not read (rx), from ``/proc/net/tcp``."""
    inodes = _socket_inodes(pid)
    out = []
    with open(f"/proc/{pid}/net/tcp") as f:
        next(f)
        for line in f:
            fields = line.split()
            if fields[3] != "01" or fields[9] not in inodes:   # 01: ESTABLISHED
                continue
            tx, rx = (int(x, 16) for x in fields[4].split(":"))
            out.append({"local_port": int(fields[1].split(":")[1], 16),
                        "remote_port": int(fields[2].split(":")[1], 16), "tx": tx, "rx": rx})
    return out


def fetch_answered(cluster, follower: int, leader: int) -> bool:
    """The (stopped) follower has bytes from the leader's PLAINTEXT listener it has not read: its fetcher's
    last fetch was answered, so the leader holds no fetch of it."""
    port = cluster.brokers[leader].port
    conns = [c for c in tcp_connections(cluster.brokers[follower].proc.pid) if c["remote_port"] == port]
    return bool(conns) and all(c["rx"] > 0 for c in conns)


def pause_followers_between_fetches(cluster, leader: int, followers: list[int], attempts: int = 10) -> None:
    for _ in range(attempts):
        for f in followers:
            cluster.pause(f)
        try:
            wait_until(lambda: all(fetch_answered(cluster, f, leader) for f in followers), 2.0,
                       "an answered fetch in each stopped follower's socket")
            return
        except AssertionError:   # stopped after reading an answer, before fetching again: let it fetch
            for f in followers:
                cluster.resume(f)
            wait_until(lambda: not any(fetch_answered(cluster, f, leader) for f in followers), 10,
                       "the followers to read their answers")
    raise AssertionError(f"could not stop followers {followers} between two fetches in {attempts} attempts")


# ------------------------------------------------------------------ logs on disk

def log_values(cluster, i: int, topic: str) -> list[bytes]:
    """The record values in broker ``i``'s segment files of ``topic``-0, in offset order."""
    from kafkalite.record.file_records import FileRecords
    out = []
    for seg in sorted((cluster.brokers[i].log_dirs / f"{topic}-0").glob("*.log")):
        records = FileRecords.open(str(seg), file_already_exists=True)
        try:
            for batch in records.batches():
                out += [bytes(r.value) for r in batch]
        finally:
            records.close_handlers()   # not close(): its trim() would cut the appends a live broker made since open
    return out


# ------------------------------------------------------------------ the producer

class RecordingProducer:
    """A confluent-kafka producer that keeps each record's delivery report and the per-broker statistics."""

    def __init__(self, bootstrap: str, acks: str):
        from confluent_kafka import Producer
        self.reports: dict[bytes, tuple[str | None, int]] = {}
        self.in_flight_at: dict[int, int] = {}   # broker id -> messages in requests awaiting a response
        self.producer = Producer({"bootstrap.servers": bootstrap, "acks": acks, "linger.ms": 0,
                                  "enable.idempotence": False, "message.timeout.ms": 60000,
                                  "statistics.interval.ms": 50, "stats_cb": self._on_stats, "log_level": 0})

    def _on_stats(self, stats_json: str) -> None:
        for b in json.loads(stats_json)["brokers"].values():
            if b.get("nodeid", -1) >= 0:
                self.in_flight_at[b["nodeid"]] = b.get("waitresp_msg_cnt", 0)

    def _on_delivery(self, err, msg) -> None:
        self.reports[msg.value()] = (err.name() if err else None, msg.offset())

    def send(self, value: bytes) -> None:
        self.in_flight_at = {}   # wait_in_flight reads statistics taken after this send
        self.producer.produce(self.topic, value, partition=0, on_delivery=self._on_delivery)
        self.producer.poll(0)

    def wait_report(self, value: bytes, timeout: float = 30) -> tuple[str | None, int]:
        return wait_until(lambda: self.producer.poll(0.05) is not None and self.reports.get(value), timeout,
                          f"the delivery report of {value!r}")

    def wait_in_flight(self, broker: int, timeout: float = 10) -> None:
        wait_until(lambda: self.producer.poll(0.05) is not None and self.in_flight_at.get(broker, 0) >= 1, timeout,
                   f"a produce request in flight to broker {broker}")

    def purge_unanswered(self) -> None:
        """Give up on the requests the dead leader never answered (the figures' incomplete requests)."""
        self.producer.purge(in_queue=True, in_flight=True, blocking=True)
        self.producer.flush(10)


def acknowledged(producer: RecordingProducer) -> list[bytes]:
    return sorted(v for v, (err, _) in producer.reports.items() if err is None)


# ------------------------------------------------------------------ one scenario

def run_scenario(cluster, acks: str, topic: str) -> dict:
    """One of the three figures on a running 3-broker cluster; returns what was acknowledged and what survived.
    Leaves the cluster with three running brokers."""
    import clients
    controller = cluster.controller_id()
    leader = next(i for i in range(3) if i != controller)
    followers = [i for i in range(3) if i != leader]
    cluster.create_topic(topic, [leader] + followers)
    p = RecordingProducer(cluster.bootstrap, acks)
    p.topic = topic
    # the partition's metadata before any broker is stopped: a Metadata request sent to a stopped follower
    # would wait for an answer that never comes
    p.producer.list_topics(topic, timeout=10)
    m1, m2, m3 = b"m1", b"m2", b"m3"
    resumed = False
    try:
        if acks == "0":
            pause_followers_between_fetches(cluster, leader, followers)
            p.send(m1)
            p.wait_report(m1)
            wait_until(lambda: log_values(cluster, leader, topic) == [m1], 10, "m1 in the leader's log")
            cluster.pause(leader)
            p.send(m2)            # into the stopped leader's socket: counted as sent, never read
            p.wait_report(m2)
        elif acks == "1":
            p.send(m1)
            p.wait_report(m1)
            wait_until(lambda: all(log_values(cluster, f, topic) == [m1] for f in followers), 10,
                       "m1 in both followers' logs")
            pause_followers_between_fetches(cluster, leader, followers)
            p.send(m2)            # acknowledged after the leader's own append
            p.wait_report(m2)
            cluster.pause(leader)
            p.send(m3)            # its request reaches the stopped leader and is never answered
            p.wait_in_flight(leader)
        else:
            for m in (m1, m2):
                p.send(m)
                p.wait_report(m)  # answered once every ISR member fetched it
            pause_followers_between_fetches(cluster, leader, followers)
            p.send(m3)            # appended by the leader, parked in its produce purgatory
            wait_until(lambda: log_values(cluster, leader, topic) == [m1, m2, m3], 10, "m3 in the leader's log")
        old_log = log_values(cluster, leader, topic)
        cluster.brokers[leader].kill9()
        killed_at = time.monotonic()
        for f in followers:
            cluster.resume(f)
        resumed = True
        p.purge_unanswered()
        state = wait_until(lambda: (s := cluster.partition_state(topic, 0))["leader"] not in (leader, -1) and s,
                           SESSION_TIMEOUT_MS / 1000 + 30, "a new leader")
        election_s = time.monotonic() - killed_at
        new_leader = state["leader"]
        hw = wait_until(lambda: (h := cluster.high_watermark(topic, 0)) == len(log_values(cluster, new_leader, topic))
                        and (h, ), 30, "the new leader's high watermark to reach its log end")[0]
        survived = [c.value for c in clients.read_confluent(cluster.bootstrap, topic, [0], hw, timeout=30)]
        cluster.brokers[leader].start(60)
        cluster.wait_for_isr(topic, 0, [0, 1, 2], 60)
        wait_until(lambda: log_values(cluster, leader, topic) == log_values(cluster, new_leader, topic), 30,
                   "the old leader's log to match the new leader's")
        rejoined_log = log_values(cluster, leader, topic)
    finally:
        if not resumed:
            for f in followers:
                cluster.resume(f)
        p.producer.flush(0)
    acked = acknowledged(p)
    return {"acks": acks, "figure": FIGURES[acks], "topic": topic, "leader": leader, "new_leader": new_leader,
            "sent": [m.decode() for m in sorted(p.reports)],
            "acknowledged": [m.decode() for m in acked],
            "offsets": {v.decode(): off for v, (err, off) in sorted(p.reports.items()) if err is None},
            "not_acknowledged": {v.decode(): err for v, (err, _) in sorted(p.reports.items()) if err is not None},
            "survived": [m.decode() for m in survived],
            "lost": [m.decode() for m in acked if m not in survived],
            "old_leader_log_at_kill": [m.decode() for m in old_log],
            "old_leader_log_after_rejoin": [m.decode() for m in rejoined_log],
            "election_s": election_s}


def describe(r: dict) -> list[str]:
    def names(xs):
        return ", ".join(xs) if xs else "none"
    offsets = ", ".join(f"{v}@{'none' if o is None or o < 0 else o}" for v, o in r["offsets"].items())
    return [
        f"acks={r['acks']} (figure {r['figure']}): leader broker {r['leader']} killed, broker {r['new_leader']} "
        f"elected after {r['election_s']:.1f} s",
        f"  acknowledged to the producer: {names(r['acknowledged'])} "
        + ("(counted as sent once written to the socket: no answer, no offset)" if r["acks"] == "0"
           else f"(offsets {offsets or 'none'})"),
        f"  not acknowledged:             "
        f"{names([f'{v} (never answered; purged: {e})' for v, e in r['not_acknowledged'].items()])}",
        f"  the old leader's log:         {names(r['old_leader_log_at_kill'])} when killed, "
        f"{names(r['old_leader_log_after_rejoin'])} after it rejoined",
        f"  read back from the new leader: {names(r['survived'])}",
        f"  acknowledged and lost:        {names(r['lost'])}",
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--acks", default="0,1,all", help="which scenarios, comma-separated (0, 1, all)")
    args = ap.parse_args(argv)
    from cluster_harness import zookeeper_available
    if not zookeeper_available():
        print("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper", file=sys.stderr)
        return 2
    cluster = start_cluster(tempfile.mkdtemp(prefix="kl-acks-survival-"))
    try:
        for acks in args.acks.split(","):
            result = run_scenario(cluster, acks, f"acks-{acks}")
            print("\n".join(describe(result)) + "\n", flush=True)
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
