"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/admin/LogDirsCommandTest.scala -- the JSON
``kafka-log-dirs --describe`` prints: Kafka's key order, ``error`` null or the exception's name, partitions
as ``topic-partition``, filtered by ``--topic-list``."""
import json

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.describe_log_dirs import LogDirInfo, ReplicaInfo
from kafkalite.tools.log_dirs_command import format_as_json


def test_format_as_json():
    infos = {1: {"/d/a": LogDirInfo(Errors.NONE, {TopicPartition("t", 0): ReplicaInfo(120, 0, False),
                                                    TopicPartition("u", 3): ReplicaInfo(7, 2, True)}),
                 "/d/b": LogDirInfo(Errors.KAFKA_STORAGE_ERROR, {})}}
    assert format_as_json(infos, {"t"}) == (
        '{"version":1,"brokers":[{"broker":1,"logDirs":['
        '{"logDir":"/d/a","error":null,"partitions":[{"partition":"t-0","size":120,"offsetLag":0,"isFuture":false}]},'
        '{"logDir":"/d/b","error":"KafkaStorageException","partitions":[]}]}]}')
    everything = json.loads(format_as_json(infos, set()))
    assert [p["partition"] for p in everything["brokers"][0]["logDirs"][0]["partitions"]] == ["t-0", "u-3"]
    assert everything["brokers"][0]["logDirs"][0]["partitions"][1]["isFuture"] is True
