"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/Log.scala (the file-name helpers of ``object Log``;
Kafka 3.x moved them to storage/.../internals/log/LogFileUtils.java)

They live in their own module so that LogSegment (which Log imports) can use them too.
Segment files are named with the 20-digit zero-padded base offset: ``00000000000000000042.log``.
"""
from __future__ import annotations

import os

LOG_FILE_SUFFIX = ".log"
INDEX_FILE_SUFFIX = ".index"
TIME_INDEX_FILE_SUFFIX = ".timeindex"
TXN_INDEX_FILE_SUFFIX = ".txnindex"
DELETED_FILE_SUFFIX = ".deleted"
CLEANED_FILE_SUFFIX = ".cleaned"
SWAP_FILE_SUFFIX = ".swap"
DELETE_DIR_SUFFIX = "-delete"
FUTURE_DIR_SUFFIX = "-future"   # a replica being moved to this log dir (KIP-113): topic-0.<uniqueId>-future
CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown"
PRODUCER_SNAPSHOT_FILE_SUFFIX = ".snapshot"   # producer state as of the offset in its name (ProducerStateManager)


# Kafka: Log.filenamePrefixFromOffset
def filename_prefix_from_offset(offset: int) -> str:
    return f"{offset:020d}"


# Kafka: Log.logFile / offsetIndexFile / timeIndexFile
def log_file(dir_: str, offset: int, suffix: str = "") -> str:
    return os.path.join(dir_, filename_prefix_from_offset(offset) + LOG_FILE_SUFFIX + suffix)


def offset_index_file(dir_: str, offset: int, suffix: str = "") -> str:
    return os.path.join(dir_, filename_prefix_from_offset(offset) + INDEX_FILE_SUFFIX + suffix)


def time_index_file(dir_: str, offset: int, suffix: str = "") -> str:
    return os.path.join(dir_, filename_prefix_from_offset(offset) + TIME_INDEX_FILE_SUFFIX + suffix)


# Kafka: Log.transactionIndexFile
def transaction_index_file(dir_: str, offset: int, suffix: str = "") -> str:
    return os.path.join(dir_, filename_prefix_from_offset(offset) + TXN_INDEX_FILE_SUFFIX + suffix)


# Kafka: Log.producerSnapshotFile -- the producer state of every offset below ``offset``
def producer_snapshot_file(dir_: str, offset: int) -> str:
    return os.path.join(dir_, filename_prefix_from_offset(offset) + PRODUCER_SNAPSHOT_FILE_SUFFIX)


# Kafka: Log.offsetFromFileName
def offset_from_file_name(filename: str) -> int:
    return int(os.path.basename(filename).split(".")[0])


# Kafka: Log.logDirName
def log_dir_name(topic_partition) -> str:
    return f"{topic_partition.topic}-{topic_partition.partition}"


# Kafka: Log.parseTopicPartitionName
def parse_topic_partition_name(dir_: str):
    from kafkalite.common.topic_partition import TopicPartition
    name = os.path.basename(os.path.normpath(dir_))
    if name.endswith((DELETE_DIR_SUFFIX, FUTURE_DIR_SUFFIX)):  # topic-0.<uuid>-delete, topic-0.<uuid>-future
        if "." not in name:
            raise ValueError(f"Found directory {dir_}, '{name}' is not in the form of topic-partition.uniqueId-delete "
                             "or topic-partition.uniqueId-future")
        name = name[: name.rindex(".")]
    topic, sep, partition = name.rpartition("-")
    if not sep or not topic or not partition.isdigit():
        raise ValueError(f"Found directory {dir_}, '{name}' is not in the form of topic-partition")
    return TopicPartition(topic, int(partition))
