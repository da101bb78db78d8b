"""No Kafka counterpart (Kafka's LogDirFailureTest, run against a really full disk): a broker whose log dir
fills up acknowledges nothing it could not write, and after space returns and it restarts, every
acknowledged record reads back byte for byte, with nothing else in the log but whole, valid records.

The log dir is a small tmpfs mounted for the test (the machine must let root mount one; where it
cannot, tests/unit/test_log_dir_failure.py still covers the same path with ENOSPC injected at the
``os.write``). The in-process ZooKeeper store lives outside it (``zookeeper.connect=embedded:<dir>``).

- one log dir: when it fails the broker has nothing left to serve and halts (exit 1), as Kafka does;
  it is restarted after the tmpfs is enlarged;
- two log dirs (the tmpfs first, so the first topic lands there): the full dir goes offline, its
  partition answers KAFKA_STORAGE_ERROR, a topic in the other dir keeps working; the broker is then
  stopped cleanly (SIGTERM) or with kill -9, space returns, and it restarts.
"""
import subprocess
import threading

import pytest

import clients
from harness import BrokerProcess, wait_until
from support import mounted_tmpfs

RECORD = 1000   # bytes per value: "<n>:" then padding


def resize_tmpfs(path, size_mb: int) -> None:
    subprocess.run(["mount", "-o", f"remount,size={size_mb}m", str(path)], check=True, stdin=subprocess.DEVNULL)


@pytest.fixture
def small_fs(tmp_path):
    with mounted_tmpfs(tmp_path / "small-fs", "4m",
                       "cannot mount a tmpfs here; tests/unit/test_log_dir_failure.py covers ENOSPC by injection") as mnt:
        yield mnt


def value(n: int) -> bytes:
    head = b"%d:" % n
    return head + b"x" * (RECORD - len(head))


class Filler:
    """Produces numbered values to one partition with acks=all until told to stop or the broker
    keeps failing; keeps {offset: value} of what was acknowledged and counts the errors."""

    def __init__(self, bootstrap, topic):
        from confluent_kafka import Producer
        self.topic = topic
        self.producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5,
                                  "enable.idempotence": False, "retries": 0, "message.timeout.ms": 10000,
                                  "reconnect.backoff.max.ms": 500})
        self.acked, self.errors = {}, []

    def _done(self, err, msg):
        if err is None:
            self.acked[msg.offset()] = msg.value()
        else:
            self.errors.append(err)

    def run(self, count: int) -> None:
        for n in range(count):
            while True:
                try:
                    self.producer.produce(self.topic, value=value(n), partition=0, on_delivery=self._done)
                    break
                except BufferError:
                    self.producer.poll(0.05)
            self.producer.poll(0)
            if len(self.errors) > 20:
                break
        self.producer.flush(30)


def read_all(bootstrap, topic):
    from confluent_kafka import Consumer, TopicPartition
    clients.wait_for_leaders(bootstrap, topic, 1, timeout=30)   # a restarted broker learns its partitions anew
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "disk-full-check", "enable.auto.commit": False})
    try:
        end = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=15)[1]
        got = clients.read_confluent(bootstrap, topic, [0], end, timeout=60)
        assert len(got) >= end, f"read {len(got)} of {end} records"
        return len(got), {c.offset: c.value for c in got}
    finally:
        consumer.close()


def check_read_back(acked: dict, in_log: dict) -> None:
    print(f"acknowledged {len(acked)}, in the log after restart {len(in_log)}")
    missing = [o for o in acked if in_log.get(o) != acked[o]]
    assert not missing, f"{len(missing)} acknowledged records lost or changed, first at offset {missing[0]}"
    garbage = [o for o, v in in_log.items() if v != value(int(v.split(b":")[0]))]
    assert not garbage, f"records that were never produced, at offsets {garbage[:5]}"


@pytest.mark.timeout(180)
def test_single_full_log_dir_halts_then_keeps_every_ack(small_fs, tmp_path):
    b = BrokerProcess(tmp_path / "broker", {"log.dirs": str(small_fs),
                                            "zookeeper.connect": f"embedded:{tmp_path / 'zk'}"})
    b.start()
    clients.create_topic(b.bootstrap, "full", 1)
    filler = Filler(b.bootstrap, "full")
    producing = threading.Thread(target=filler.run, args=(8000,), daemon=True)   # 8 MB into 4 MB
    producing.start()
    wait_until(lambda: not b.running, 90, "the broker to halt when its only log dir fails")
    producing.join(60)   # every record acknowledged, failed or timed out
    assert not producing.is_alive()
    assert b.proc.returncode == 1
    assert "Shutdown broker because all log dirs" in b.log_text()
    assert filler.acked, "nothing was acknowledged before the disk filled"
    b.proc = None
    resize_tmpfs(small_fs, 64)
    b.start()
    end, in_log = read_all(b.bootstrap, "full")
    check_read_back(filler.acked, in_log)
    clients.produce_confluent(b.bootstrap, "full", [clients.Produced(0, None, value(99999))])
    assert read_all(b.bootstrap, "full")[0] == end + 1
    b.stop()


@pytest.mark.timeout(180)
@pytest.mark.parametrize("how", ["sigterm", "kill9"])
def test_full_log_dir_goes_offline_and_the_other_serves(small_fs, tmp_path, how):
    other = tmp_path / "other-dir"
    b = BrokerProcess(tmp_path / "broker", {"log.dirs": f"{small_fs},{other}",
                                            "zookeeper.connect": f"embedded:{tmp_path / 'zk'}"})
    b.start()
    clients.create_topic(b.bootstrap, "full", 1)        # the first partition goes to the first dir
    clients.create_topic(b.bootstrap, "elsewhere", 1)   # the next to the emptier one
    assert (small_fs / "full-0").is_dir() and (other / "elsewhere-0").is_dir()
    filler = Filler(b.bootstrap, "full")
    filler.run(8000)
    names = {e.name() for e in filler.errors}
    assert filler.errors and filler.acked, (len(filler.acked), names)
    assert "KAFKA_STORAGE_ERROR" in names, names
    assert b.running, "the broker must keep serving its other log dir"
    clients.produce_confluent(b.bootstrap, "elsewhere", [clients.Produced(0, None, value(1))], {"acks": "all"})
    if how == "sigterm":
        assert b.stop() == 0
    else:
        b.kill9()
    resize_tmpfs(small_fs, 64)
    b.start()
    _, in_log = read_all(b.bootstrap, "full")
    check_read_back(filler.acked, in_log)
    assert read_all(b.bootstrap, "elsewhere")[1] == {0: value(1)}
    b.stop()
