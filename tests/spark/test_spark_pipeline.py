"""No Kafka counterpart: the README's pipeline command, run as a user runs it (its own Spark, the broker it is
pointed at) -- on one broker (its own, started by the command), then on three broker processes over Debian's
ZooKeeper while the leader of a partition of its input topic is killed (kill -9) in the middle of the
streaming query. Both runs must print the same window counts: the data source follows the new leader and
reads every acknowledged page view exactly once."""
import re
import subprocess
import sys
import threading
from datetime import datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))   # the cluster harness

from cluster_harness import ClusterProcesses, zookeeper_available  # noqa: E402
from support import wait_until  # noqa: E402

pytestmark = pytest.mark.spark

EVENTS, PER_TRIGGER = 1200, 100
COUNT_LINE = re.compile(r"^(\S+ \S+)\s+(\S+ \S+)\s+(/\S*)\s+(\d+)$", re.M)


def pipeline_command(checkpoint, *extra) -> list[str]:
    return [sys.executable, "-m", "kafkalite.spark.pipeline", "--events", str(EVENTS),
            "--max-offsets-per-trigger", str(PER_TRIGGER), "--checkpoint", str(checkpoint), *extra]


def window_counts(stdout: str) -> list[tuple]:
    """The printed counts with window times relative to the first window (each run produces its events
    relative to its own start minute, so the two runs' windows differ by whole minutes only)."""
    lines = COUNT_LINE.findall(stdout)
    summary = re.search(r"^(\d+) window counts in topic page-view-counts$", stdout, re.M)
    assert summary and int(summary.group(1)) == len(lines) > 0, stdout
    fmt = "%Y-%m-%d %H:%M:%S"
    first = min(datetime.strptime(start, fmt) for start, *_ in lines)
    return sorted(((datetime.strptime(start, fmt) - first).total_seconds(),
                   (datetime.strptime(end, fmt) - first).total_seconds(), page, int(count))
                  for start, end, page, count in lines)


@pytest.fixture(scope="module")
def one_broker_run(tmp_path_factory, spark_requirements) -> str:
    """The README's command with no --bootstrap-server: it starts a broker of its own."""
    done = subprocess.run(pipeline_command(tmp_path_factory.mktemp("ck")), capture_output=True, text=True,
                          timeout=400)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_pipeline_command_prints_windowed_counts(one_broker_run):
    assert f"Produced {EVENTS} page views" in one_broker_run
    counts = window_counts(one_broker_run)
    assert all(c > 0 for *_, c in counts) and sum(c for *_, c in counts) <= EVENTS
    assert len({(start, end) for start, end, _, _ in counts}) >= 2   # the closed windows are printed


@pytest.fixture
def cluster(tmp_path):
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    c = ClusterProcesses(tmp_path / "cluster", 3, overrides={"zookeeper.session.timeout.ms": 6000}).start()
    yield c
    c.stop()


def output_records(bootstrap: str) -> int:
    from confluent_kafka import Consumer, TopicPartition
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "kafkalite-pipeline-watch"})
    try:
        return sum(consumer.get_watermark_offsets(TopicPartition("page-view-counts", p), timeout=5, cached=False)[1]
                   for p in range(3))
    except Exception:   # noqa: BLE001 -- the topic does not exist before the first window closes
        return 0
    finally:
        consumer.close()


@pytest.mark.cluster
def test_pipeline_on_three_brokers_survives_a_leader_kill(tmp_path, one_broker_run, cluster):
    proc = subprocess.Popen(pipeline_command(tmp_path / "ck", "--bootstrap-server", cluster.bootstrap),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        wait_until(lambda: any(line.startswith(f"Produced {EVENTS}") for line in out), 120, "the page views")
        # the streaming query has written its first closed windows: it is mid-way through the input
        wait_until(lambda: output_records(cluster.bootstrap) > 0 or proc.poll() is not None, 240,
                   "the first window counts")
        assert proc.poll() is None, "the query finished before a leader could be killed:\n" + "".join(out)
        victim = cluster.leader("page-views", 0)
        cluster.brokers[victim].kill9()
        proc.wait(timeout=400)
    finally:
        if proc.poll() is None:
            proc.kill()
        reader.join(10)
    stdout = "".join(out)
    assert proc.returncode == 0, stdout[-4000:]
    assert cluster.leader("page-views", 0) != victim
    assert window_counts(stdout) == window_counts(one_broker_run)
