"""No Kafka counterpart: kcat (librdkafka 2.0.2, Debian) reads the broker's metadata.

kcat sends ApiVersions v3 (and falls back to v0 on error 35), then Metadata v4, and then opens a
new connection to each advertised broker, so the advertised host:port must be the real one.
"""

import json
import re
import subprocess

from clients import ConfluentAdmin


def kcat(*args, timeout=30):
    proc = subprocess.run(["kcat", *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"kcat {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}"
    return proc.stdout


def test_kcat_lists_broker_0_at_advertised_address(broker):
    out = kcat("-b", broker.bootstrap, "-L", "-m", "10")
    assert re.search(rf"^ 1 brokers:\n  broker 0 at 127\.0\.0\.1:{broker.port}\b", out, re.M), out
    # kcat marks the controller; one broker elects itself.
    assert re.search(rf"broker 0 at 127\.0\.0\.1:{broker.port} \(controller\)", out), out


def test_kcat_json_metadata_shows_created_topic(broker, unique_topic):
    admin = ConfluentAdmin(broker.bootstrap)
    assert admin.create(unique_topic, 4) is None

    md = json.loads(kcat("-b", broker.bootstrap, "-L", "-J", "-m", "10"))
    assert md["originating_broker"]["id"] == 0
    assert md["controllerid"] == 0
    assert md["brokers"] == [{"id": 0, "name": f"127.0.0.1:{broker.port}"}]
    [topic] = [t for t in md["topics"] if t["topic"] == unique_topic]
    assert "error" not in topic, topic
    assert sorted(p["partition"] for p in topic["partitions"]) == [0, 1, 2, 3]
    for p in topic["partitions"]:
        assert p["leader"] == 0
        assert p["replicas"] == [{"id": 0}]
        assert p["isrs"] == [{"id": 0}]


def test_kcat_asks_for_one_topic(broker, unique_topic):
    assert ConfluentAdmin(broker.bootstrap).create(unique_topic, 2) is None
    md = json.loads(kcat("-b", broker.bootstrap, "-L", "-J", "-t", unique_topic, "-m", "10"))
    assert [t["topic"] for t in md["topics"]] == [unique_topic]
    assert len(md["topics"][0]["partitions"]) == 2
