"""No Kafka counterpart (Kafka's ducktape system tests bounce brokers the same way: ``replication_test`` with
``clean_bounce``/``hard_bounce``/``clean_kill``/``hard_kill``): the fault-injection suite for a 3-broker cluster.

Three broker processes over Debian's ZooKeeper (``tests/integration/cluster_harness.py``), one topic with
replication factor 3 and ``min.insync.replicas=2``, and an idempotent confluent-kafka producer (``acks=all``,
``enable.idempotence=true``) writing numbered records to every partition. Then ``--kills`` times, a seeded RNG
picks a partition and a fault for its leader:

- **sigkill**: ``kill -9``; once the controller has elected another leader (the victim's ZooKeeper session
  expires first), the victim starts again and catches up;
- **sigstop**: SIGSTOP, then SIGCONT -- either a short stall (the pause itself is the fault), or a long one that
  lasts until its session has expired and another leader was elected: the woken ex-leader must not accept or
  expose anything of its own;
- **restart**: a clean restart (SIGTERM: controlled shutdown moves its leaderships first, then start).

After each fault the suite waits (bounded) for every partition's ISR to hold all three brokers again and for
the producer to have new acknowledgements. At the end the topic is read back and checked:

- **lost**: an acknowledged record that is not in the log (must be 0);
- **duplicates**: a record that is in the log twice (must be 0: idempotence survives leader changes);
- **reordered**: a partition whose numbers do not rise strictly (must be 0);
- **replicas**: every broker's segment files hold the same batches (offsets, leader epochs, CRCs) below the
  high watermark (``replica_logs.py``).

The unclean case (``--unclean-rounds``; Kafka 2.4's
``EpochDrivenReplicationProtocolAcceptanceTest.logsShouldNotDivergeOnUncleanLeaderElections``): a partition on
two of the brokers, with the topic config ``unclean.leader.election.enable=true`` and ``min.insync.replicas=1``,
written with ``acks=1``. Each round waits for the follower to catch up, kills it (the ISR shrinks to the leader),
writes to the leader alone, kills the leader, and starts the old follower -- not in the ISR, so only an unclean
election can give the partition a leader. Records the leader acknowledged alone are lost, and reported (losing
any other record is a failure); once both brokers are back, the two replicas' logs must be byte-identical (the old leader truncates to where the new leader's epoch began). A
twin topic on the same two brokers without the override must stay offline (leader -1) meanwhile: the brokers'
default (``unclean.leader.election.enable=false``) applies to it.

Run it (the long variant; CI runs 5 kills and 1 unclean round through
tests/integration/test_cluster_torture.py):

    python tests/torture/cluster_torture.py                 # 100 kills, 3 unclean rounds, seed 14

It prints one line per fault and a summary, and exits 1 when anything above must-be-0 is not 0, when the
replicas differ, or when the twin topic was led uncleanly.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cluster_harness import ClusterProcesses, zookeeper_available  # noqa: E402
from kill9_torture import IdempotentLoad, check, read_back  # noqa: E402
from replica_logs import wait_for_identical_logs  # noqa: E402
from support import wait_until  # noqa: E402

SESSION_TIMEOUT_MS = 4000
FAULTS = ("sigkill", "sigstop", "restart")
# how long a wait for the controller may take: a session expiry plus a margin for a loaded machine
ELECTION_TIMEOUT_S = SESSION_TIMEOUT_MS / 1000 + 30


class PacedLoad(IdempotentLoad):
    """``kill9_torture.IdempotentLoad`` at about ``rate`` records a second: enough to keep every partition busy
    through each fault, few enough that reading the whole topic back stays quick after 100 faults."""

    def __init__(self, bootstrap: str, topic: str, partitions: int, rate: int = 1000):
        super().__init__(bootstrap, topic, partitions)
        self.rate = rate

    def run(self) -> None:
        from confluent_kafka import KafkaException
        n, started = 0, time.monotonic()
        while not self.stopping.is_set() and self.fatal is None:
            if n >= (time.monotonic() - started) * self.rate:
                self.producer.poll(0.005)      # ahead of the pace: serve callbacks meanwhile
                continue
            partition = n % self.partitions
            try:
                self.producer.produce(self.topic, value=b"%d:%d" % (partition, n // self.partitions),
                                      partition=partition, on_delivery=self._delivered)
                n += 1
                self.producer.poll(0)
            except BufferError:
                self.producer.poll(0.05)
            except KafkaException as e:       # a fatal idempotence error surfaces here, too
                self.fatal = str(e)


def start_cluster(workdir: Path) -> ClusterProcesses:
    if not zookeeper_available():
        raise RuntimeError("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    return ClusterProcesses(workdir, 3, overrides={
        "zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS, "replica.fetch.wait.max.ms": 100,
        "min.insync.replicas": 2, "default.replication.factor": 3, "unclean.leader.election.enable": "false",
    }).start()


def create_topic(cluster: ClusterProcesses, topic: str, assignment: dict[int, list[int]],
                 configs: dict | None = None) -> None:
    """A topic with an explicit assignment (kafka-python's admin client), then wait for full ISRs."""
    from kafka.admin import KafkaAdminClient, NewTopic
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=15000)
    try:
        admin.create_topics([NewTopic(topic, -1, -1, replica_assignments=assignment,
                                      topic_configs={k: str(v) for k, v in (configs or {}).items()})])
    finally:
        admin.close()
    for p, replicas in assignment.items():
        cluster.wait_for_isr(topic, p, replicas, 30)


def wait_for_full_isrs(cluster: ClusterProcesses, topic: str, partitions: int, timeout: float = 90) -> None:
    wait_until(lambda: all(len(cluster.partition_state(topic, p)["isr"]) == 3 for p in range(partitions)),
               timeout, f"every partition of {topic} to have all three brokers in its ISR")


def wait_for_new_leader(cluster: ClusterProcesses, topic: str, partition: int, victim: int) -> int:
    def elected():
        leader = cluster.leader(topic, partition)
        return (leader,) if leader not in (victim, -1) else None
    return wait_until(elected, ELECTION_TIMEOUT_S, f"a leader other than broker {victim} for {topic}-{partition}")[0]


def inject(cluster: ClusterProcesses, topic: str, partition: int, fault: str, rng: random.Random) -> str:
    """One fault on the leader of ``topic-partition``; returns a description."""
    victim = cluster.leader(topic, partition)
    broker = cluster.brokers[victim]
    if fault == "sigkill":
        broker.kill9()
        new_leader = wait_for_new_leader(cluster, topic, partition, victim)
        # as in Kafka, a broker cannot register while the ephemeral znode of its killed self is there (a leader may
        # also move before that, by the auto leader rebalance): wait for its session to expire
        wait_until(lambda: not cluster.zk().exists(f"/brokers/ids/{victim}"), ELECTION_TIMEOUT_S,
                   f"the killed broker {victim}'s registration to expire")
        broker.start(60)
        return f"kill -9 of broker {victim} (led {topic}-{partition}; broker {new_leader} took over), restarted"
    if fault == "sigstop":
        long_pause = rng.random() < 0.5
        cluster.pause(victim)
        try:
            if long_pause:
                new_leader = wait_for_new_leader(cluster, topic, partition, victim)
                what = f"until its session expired and broker {new_leader} led {topic}-{partition}"
            else:
                stall = rng.uniform(0.2, 1.5)
                time.sleep(stall)       # the stall is the fault itself, not a wait for anything
                what = f"for {stall:.1f}s"
        finally:
            cluster.resume(victim)
        return f"SIGSTOP of broker {victim} (leader of {topic}-{partition}) {what}, then SIGCONT"
    code = broker.stop()
    broker.start(60)
    return f"clean restart of broker {victim} (leader of {topic}-{partition}; exit code {code})"


def torture(cluster: ClusterProcesses, kills: int, seed: int, partitions: int = 3, acks_per_kill: int = 300,
            say=print) -> dict:
    """The acks=all part: ``kills`` faults under the idempotent load, then the checks. Returns the summary."""
    rng = random.Random(seed)
    topic = "cluster-torture"
    create_topic(cluster, topic, {p: [(p + i) % 3 for i in range(3)] for p in range(partitions)})
    load = PacedLoad(cluster.bootstrap, topic, partitions)
    load.start()
    counts = {fault: 0 for fault in FAULTS}
    on_controller_count = 0
    try:
        for kill in range(1, kills + 1):
            target = len(load.acked) + acks_per_kill
            wait_until(lambda: len(load.acked) >= target or load.fatal, 120, f"{target} acknowledged records")
            assert load.fatal is None, f"the producer hit a fatal error: {load.fatal}"
            fault = rng.choice(FAULTS)
            counts[fault] += 1
            partition = rng.randrange(partitions)
            on_controller = cluster.leader(topic, partition) == cluster.controller_id()
            on_controller_count += on_controller
            what = inject(cluster, topic, partition, fault, rng) + (" -- it was the controller" if on_controller else "")
            wait_for_full_isrs(cluster, topic, partitions)
            say(f"fault {kill}/{kills}: {what}; {len(load.acked)} acks so far")
        target = len(load.acked) + acks_per_kill
        wait_until(lambda: len(load.acked) >= target or load.fatal, 120, "acknowledged records after the last fault")
    finally:
        outstanding = load.stop()
    assert load.fatal is None, f"the producer hit a fatal error: {load.fatal}"
    assert outstanding == 0, f"{outstanding} records still unacknowledged after the final flush"
    result = {f"{fault}s": n for fault, n in counts.items()}
    result["faults_on_the_controller"] = on_controller_count
    result.update(check(load.acked, read_back(cluster.bootstrap, topic, partitions)))
    result["delivery_failures"] = len(load.failed)
    identical = 0
    for p in range(partitions):
        high_watermark = cluster.high_watermark(topic, p)
        wait_for_identical_logs(cluster, topic, p, range(3), high_watermark, timeout=60)
        identical += 1
    result["partitions_with_identical_replicas"] = identical
    return result


class Acks1Writer:
    """Writes ``u:<n>`` with acks=1 and no idempotence (the unclean case); a new producer for each burst, as
    Kafka's test bounces its producer after every broker change."""

    def __init__(self, topics: list[str]):
        self.topics = topics
        self.next = 0
        self.acked: dict[str, set[bytes]] = {t: set() for t in topics}
        self.failed = 0

    def write(self, bootstrap: str, count: int, topics: list[str] | None = None) -> None:
        from confluent_kafka import Producer
        producer = Producer({"bootstrap.servers": bootstrap, "acks": 1, "enable.idempotence": False,
                             "linger.ms": 0, "message.timeout.ms": 30000, "max.in.flight": 1,
                             "message.send.max.retries": 0})   # no retries: a duplicate can only be the broker's

        def delivered(err, msg):
            if err is None:
                self.acked[msg.topic()].add(msg.value())
            else:
                self.failed += 1
        for _ in range(count):
            value = b"u:%d" % self.next
            self.next += 1
            for topic in topics or self.topics:
                producer.produce(topic, value=value, partition=0, on_delivery=delivered)
        assert producer.flush(60) == 0, "records still unacknowledged after 60 s"


def segment_bytes(cluster: ClusterProcesses, i: int, topic: str) -> bytes:
    return b"".join(seg.read_bytes() for seg in sorted(cluster.partition_dir(i, topic, 0).glob("*.log")))


def unclean_rounds(cluster: ClusterProcesses, rounds: int, seed: int, say=print) -> dict:
    """The unclean case. Returns the summary; the replicas' agreement and the twin's staying offline are
    asserted."""
    rng = random.Random(seed)
    a, b = rng.sample(range(3), 2)
    topic, twin = "unclean-torture", "unclean-torture-twin"
    create_topic(cluster, topic, {0: [a, b]}, {"unclean.leader.election.enable": "true", "min.insync.replicas": 1})
    create_topic(cluster, twin, {0: [a, b]}, {"min.insync.replicas": 1})
    writer = Acks1Writer([topic, twin])
    writer.write(cluster.bootstrap, rng.randint(5, 30))
    unclean_elections = alone_total = 0
    for r in range(1, rounds + 1):
        leader = cluster.leader(topic, 0)
        follower = b if leader == a else a
        # acks=1 answers before the follower fetches: let it catch up first, so only the next burst is at risk
        wait_for_identical_logs(cluster, topic, 0, [a, b], cluster.log_end_offset(leader, topic, 0), timeout=30)
        cluster.brokers[follower].kill9()
        cluster.wait_for_isr(topic, 0, [leader], ELECTION_TIMEOUT_S)
        cluster.wait_for_isr(twin, 0, [leader], ELECTION_TIMEOUT_S)
        alone = rng.randint(5, 30)
        writer.write(cluster.bootstrap, alone)              # acknowledged by the leader alone
        alone_total += alone
        cluster.brokers[leader].kill9()
        wait_until(lambda: cluster.leader(topic, 0) == -1 and cluster.leader(twin, 0) == -1, ELECTION_TIMEOUT_S,
                   "both partitions to go offline")
        cluster.brokers[follower].start(60)                # not in the ISR: only an unclean election helps
        state = cluster.wait_for_leader(topic, 0, follower, ELECTION_TIMEOUT_S)
        assert state["isr"] == [follower], state
        unclean_elections += 1
        twin_state = cluster.partition_state(twin, 0)
        assert twin_state["leader"] == -1, f"{twin} was led without unclean election enabled: {twin_state}"
        writer.write(cluster.brokers[follower].bootstrap, rng.randint(5, 30), [topic])   # the twin has no leader
        cluster.brokers[leader].start(60)
        cluster.wait_for_isr(topic, 0, [a, b], 60)
        cluster.wait_for_isr(twin, 0, [a, b], 60)
        say(f"unclean round {r}/{rounds}: broker {follower} led {topic}-0 uncleanly after broker {leader} "
            f"acknowledged {alone} records alone; {twin}-0 waited for broker {leader}")
    result = {"unclean_elections": unclean_elections, "unclean-torture: acknowledged by a leader alone": alone_total}
    for t in (topic, twin):
        high_watermark = cluster.high_watermark(t, 0)
        wait_for_identical_logs(cluster, t, 0, [a, b], high_watermark, timeout=60)
        wait_until(lambda: segment_bytes(cluster, a, t) == segment_bytes(cluster, b, t), 30,
                   f"{t}-0's replicas on brokers {a} and {b} to be byte-identical")
        got = read_back(cluster.bootstrap, t, 1)[0]
        acked = writer.acked[t]
        result[f"{t}: acked"] = len(acked)
        result[f"{t}: lost"] = len(acked - set(got))
        result[f"{t}: duplicates"] = len(got) - len(set(got))
    result["unclean_delivery_failures"] = writer.failed
    # the only records an unclean election may lose are those a leader acknowledged while alone in the ISR
    result["unclean-torture: lost beyond those"] = max(0, result[f"{topic}: lost"] - alone_total)
    return result


def diagnostics(cluster: ClusterProcesses, lines: int = 80) -> str:
    """For a failed run: each broker's last warnings, errors and lines about the suite's topics (a run's tmp
    directory may be gone by the time someone looks)."""
    out = []
    for i, broker in enumerate(cluster.brokers):
        picked = [line for line in broker.log_text().splitlines()
                  if " WARN " in line or " ERROR " in line or "torture" in line or "Controller id" in line]
        out.append(f"--- broker {i} ({broker.log_path}), {len(picked)} lines picked, the last {lines}:")
        out += [line[:400] for line in picked[-lines:]]
    return "\n".join(out)


def run(workdir: Path, kills: int, unclean: int, seed: int, say=print) -> dict:
    cluster = start_cluster(workdir)
    started = time.monotonic()
    try:
        result = torture(cluster, kills, seed, say=say)
        if unclean:
            result.update(unclean_rounds(cluster, unclean, seed, say=say))
        result["seconds"] = round(time.monotonic() - started)
        return result
    except BaseException:
        say(diagnostics(cluster))
        raise
    finally:
        cluster.stop()


def failures(result: dict) -> list[str]:
    """What must be 0 and is not (the unclean topic's losses are reported, not failures)."""
    keys = ["lost", "duplicates", "reordered"] + \
        [k for k in result if k.startswith("unclean-torture-twin:") and not k.endswith("acked")] + \
        [k for k in result if k.startswith("unclean-torture:") and k.endswith(("duplicates", "beyond those"))]
    return [f"{k} {result[k]}" for k in keys if result.get(k)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--unclean-rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cluster-torture-") as tmp:
        result = run(Path(tmp), args.kills, args.unclean_rounds, args.seed)
    print(f"{args.kills} leader faults (seed {args.seed}) in {result['seconds']}s: "
          + ", ".join(f"{k} {v}" for k, v in result.items() if k != "seconds"))
    bad = failures(result)
    if bad:
        print("FAILED: " + ", ".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
