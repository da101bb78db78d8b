"""Tests for the log-dir messages (Kafka: RequestResponseTest's DescribeLogDirs / AlterReplicaLogDirs cases):
hand-built bytes for each of 2.4's versions, as Kafka's Struct schemas lay them out (no flexible versions)."""
from __future__ import annotations

import struct

import pytest

from kafkalite.protocol import schema
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.messages.alter_replica_log_dirs import (
    AlterReplicaLogDir, AlterReplicaLogDirPartitionResult, AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse,
    AlterReplicaLogDirTopic, AlterReplicaLogDirTopicResult)
from kafkalite.protocol.messages.describe_log_dirs import (
    DescribableLogDirTopic, DescribeLogDirsPartition, DescribeLogDirsRequest, DescribeLogDirsResponse,
    DescribeLogDirsResult, DescribeLogDirsTopic)


def string(s: str) -> bytes:
    return struct.pack(">h", len(s)) + s.encode()


def int32s(*values) -> bytes:
    return struct.pack(">i", len(values)) + b"".join(struct.pack(">i", v) for v in values)


def test_api_keys_and_versions_are_24s():
    assert (ApiKeys.ALTER_REPLICA_LOG_DIRS.id, ApiKeys.DESCRIBE_LOG_DIRS.id) == (34, 35)
    for key in (ApiKeys.ALTER_REPLICA_LOG_DIRS, ApiKeys.DESCRIBE_LOG_DIRS):
        assert (key.min_version, key.max_version, key.is_flexible(1)) == (0, 1, False)
        assert key.api_name in ("AlterReplicaLogDirs", "DescribeLogDirs")


@pytest.mark.parametrize("version", [0, 1])
def test_describe_log_dirs_request(version):
    assert schema.write(DescribeLogDirsRequest(topics=None), version) == b"\xff\xff\xff\xff"   # every partition
    request = DescribeLogDirsRequest(topics=[DescribableLogDirTopic(topic="t", partitions=[0, 2])])
    golden = struct.pack(">i", 1) + string("t") + int32s(0, 2)
    assert schema.write(request, version) == golden
    assert schema.read(DescribeLogDirsRequest, version, golden)[0] == request


@pytest.mark.parametrize("version", [0, 1])
def test_describe_log_dirs_response(version):
    response = DescribeLogDirsResponse(throttle_time_ms=5, results=[
        DescribeLogDirsResult(error_code=0, log_dir="/d/a", topics=[DescribeLogDirsTopic(name="t", partitions=[
            DescribeLogDirsPartition(partition_index=1, partition_size=1234, offset_lag=7, is_future_key=True)])]),
        DescribeLogDirsResult(error_code=56, log_dir="/d/b", topics=[])])
    golden = (struct.pack(">i", 5) + struct.pack(">i", 2)
              + struct.pack(">h", 0) + string("/d/a") + struct.pack(">i", 1) + string("t") + struct.pack(">i", 1)
              + struct.pack(">iqq?", 1, 1234, 7, True)
              + struct.pack(">h", 56) + string("/d/b") + struct.pack(">i", 0))
    assert schema.write(response, version) == golden
    assert schema.read(DescribeLogDirsResponse, version, golden)[0] == response


@pytest.mark.parametrize("version", [0, 1])
def test_alter_replica_log_dirs_request_and_response(version):
    request = AlterReplicaLogDirsRequest(dirs=[AlterReplicaLogDir(path="/d/b", topics=[
        AlterReplicaLogDirTopic(name="t", partitions=[0, 1])])])
    golden = struct.pack(">i", 1) + string("/d/b") + struct.pack(">i", 1) + string("t") + int32s(0, 1)
    assert schema.write(request, version) == golden
    assert schema.read(AlterReplicaLogDirsRequest, version, golden)[0] == request
    response = AlterReplicaLogDirsResponse(throttle_time_ms=0, results=[AlterReplicaLogDirTopicResult(
        topic_name="t", partitions=[AlterReplicaLogDirPartitionResult(partition_index=0, error_code=57)])])
    golden = struct.pack(">ii", 0, 1) + string("t") + struct.pack(">i", 1) + struct.pack(">ih", 0, 57)
    assert schema.write(response, version) == golden
    assert schema.read(AlterReplicaLogDirsResponse, version, golden)[0] == response
