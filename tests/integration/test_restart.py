"""No Kafka counterpart as such (Kafka's closest: ServerShutdownTest, ServerStartupTest): topics
created through a real client survive a broker restart on the same log.dirs, with the same
partition count, topic id and cluster id (meta.properties, and the in-process ZooKeeper store
persisted under log.dirs, DESIGN §6), after a clean SIGTERM and after a kill -9.
"""

import re

import pytest

from clients import KafkaPythonAdmin
from harness import wait_until


def snapshot(bootstrap, topics):
    admin = KafkaPythonAdmin(bootstrap)
    try:
        wait_until(lambda: set(topics) <= admin.list(), 15, f"{sorted(topics)} to be listed")
        return {
            "cluster_id": admin.describe_cluster()["cluster_id"],
            "topics": {t: (admin.topic_id(t), admin.describe(t)) for t in topics},
        }
    finally:
        admin.close()


def create(bootstrap, topics):
    admin = KafkaPythonAdmin(bootstrap)
    try:
        for name, partitions in topics.items():
            assert admin.create(name, partitions) is None
    finally:
        admin.close()


TOPICS = {"restart-three": 3, "restart-one": 1}


def test_topics_survive_clean_restart(fresh_broker):
    create(fresh_broker.bootstrap, TOPICS)
    before = snapshot(fresh_broker.bootstrap, TOPICS)
    assert {t: len(p) for t, (_, p) in before["topics"].items()} == TOPICS
    assert all(tid and tid != "00000000-0000-0000-0000-000000000000" for tid, _ in before["topics"].values())

    offset = fresh_broker.log_size()
    assert fresh_broker.stop() == 0, "SIGTERM should stop the broker cleanly with exit code 0"
    assert re.search(r"(?i)shut ?down complete", fresh_broker.log_text(offset)), fresh_broker.log_tail()

    fresh_broker.start()
    assert snapshot(fresh_broker.bootstrap, TOPICS) == before


@pytest.mark.slow
def test_topics_survive_kill_9(fresh_broker):
    create(fresh_broker.bootstrap, TOPICS)
    before = snapshot(fresh_broker.bootstrap, TOPICS)
    fresh_broker.kill9()
    fresh_broker.start()
    assert snapshot(fresh_broker.bootstrap, TOPICS) == before


def test_restart_twice_keeps_one_copy_of_each_topic(fresh_broker):
    create(fresh_broker.bootstrap, TOPICS)
    fresh_broker.restart()
    fresh_broker.restart()
    admin = KafkaPythonAdmin(fresh_broker.bootstrap)
    try:
        assert admin.create("restart-three", 3) == "TOPIC_ALREADY_EXISTS"
        assert set(TOPICS) <= admin.list()
    finally:
        admin.close()
