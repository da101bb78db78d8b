"""Mirrors Kafka 2.4: core/src/main/scala/kafka/tools/DumpLogSegments.scala

``kafka-dump-log --files 00000000000000000000.log[,00000000000000000000.index] [--print-data-log]
[--deep-iteration]`` prints a segment's batches (and with --deep-iteration its records; a transaction
marker's record as ``endTxnMarker: COMMIT coordinatorEpoch: N``), or the entries of an offset, time
or transaction index (``.txnindex``: ``version: 0 producerId: .. firstOffset: .. lastOffset: ..
lastStableOffset: ..``) or a producer snapshot (``.snapshot``: ``producerId: .. producerEpoch: ..
coordinatorEpoch: .. currentTxnFirstOffset: Some(..)|None firstSequence: .. lastSequence: .. lastOffset: ..
offsetDelta: .. timestamp: ..``, 2.4 printing a Scala Option), in the line shapes of Kafka 2.4 (e.g. ``compresscodec: NONE``,
``keysize:``; later Kafka prints ``none`` and ``keySize:``).

Left out: --verify-index-only, --index-sanity-check, custom decoders, the offsets/transaction
log decoders. Keys and values print as UTF-8 text.
"""
from __future__ import annotations

import os
import sys

import click

from kafkalite.log.offset_index import OffsetIndex
from kafkalite.log.producer_state_manager import CorruptSnapshotException, read_snapshot
from kafkalite.log.time_index import TimeIndex
from kafkalite.log.transaction_index import TransactionIndex
from kafkalite.protocol.errors import InvalidRecordException
from kafkalite.record.control_record_type import ControlRecordType
from kafkalite.record.end_transaction_marker import EndTransactionMarker
from kafkalite.record.file_records import FileRecords

RECORD_INDENT = "|"


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


# Kafka: DumpLogSegments.dumpIndex
def dump_index(path: str, out) -> None:
    base = int(os.path.basename(path).split(".")[0])
    index = OffsetIndex(path, base, writable=False)
    try:
        if index.entries == 0:
            print(f"{path} is empty.", file=out)
            return
        for i in range(index.entries):
            entry = index.entry(i)
            if entry.offset == index.base_offset and i > 0:
                return  # the zero-filled tail of an index that was never trimmed
            print(f"offset: {entry.offset} position: {entry.position}", file=out)
    finally:
        index.close_handler()


# Kafka: DumpLogSegments.dumpTimeIndex
def dump_time_index(path: str, out) -> None:
    base = int(os.path.basename(path).split(".")[0])
    index = TimeIndex(path, base, writable=False)
    try:
        for i in range(index.entries):
            entry = index.entry(i)
            if entry.offset == index.base_offset and i > 0:
                return
            print(f"timestamp: {entry.timestamp} offset: {entry.offset}", file=out)
    finally:
        index.close_handler()


# Kafka: DumpLogSegments.dumpTxnIndex
def dump_txn_index(path: str, out) -> None:
    index = TransactionIndex(int(os.path.basename(path).split(".")[0]), path)
    try:
        for txn in index.all_aborted_txns():
            print(f"version: {txn.version} producerId: {txn.producer_id} firstOffset: {txn.first_offset} "
                  f"lastOffset: {txn.last_offset} lastStableOffset: {txn.last_stable_offset}", file=out)
    finally:
        index.close()


# Kafka: DumpLogSegments.dumpProducerIdSnapshot
def dump_producer_id_snapshot(path: str, out) -> None:
    try:
        entries = read_snapshot(path)
    except CorruptSnapshotException as e:
        print(e, file=sys.stderr)
        return
    for entry in entries:
        first_offset = entry.current_txn_first_offset
        line = (f"producerId: {entry.producer_id} producerEpoch: {entry.producer_epoch} "
                f"coordinatorEpoch: {entry.coordinator_epoch} "
                f"currentTxnFirstOffset: {'None' if first_offset is None else f'Some({first_offset})'} ")
        if entry.batch_metadata:
            m = entry.batch_metadata[0]
            line += (f"firstSequence: {m.first_seq} lastSequence: {m.last_seq} lastOffset: {m.last_offset} "
                     f"offsetDelta: {m.offset_delta} timestamp: {m.timestamp}")
        print(line, file=out)


def _control_record_text(record) -> str:
    """What 2.4 prints after a control record: the marker, or the control type and its id."""
    try:
        control_type = ControlRecordType.parse(record.key)
        if control_type in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
            marker = EndTransactionMarker.deserialize(record.key, record.value)
            return f" endTxnMarker: {marker.control_type.name} coordinatorEpoch: {marker.coordinator_epoch}"
        type_id = int.from_bytes(bytes(record.key[2:4]), "big", signed=True)
        return f" controlType: {control_type.name}({type_id})"
    except InvalidRecordException as e:
        return f" invalid control record: {e}"


# Kafka: DumpLogSegments.printBatchLevel
def _print_batch_level(batch, position: int, out) -> None:
    print(f"baseOffset: {batch.base_offset} lastOffset: {batch.last_offset} count: {batch.count} "
          f"baseSequence: {batch.base_sequence} lastSequence: {batch.last_sequence} "
          f"producerId: {batch.producer_id} producerEpoch: {batch.producer_epoch} "
          f"partitionLeaderEpoch: {batch.partition_leader_epoch} "
          f"isTransactional: {str(batch.is_transactional).lower()} isControl: {str(batch.is_control_batch).lower()} "
          f"position: {position} {batch.timestamp_type}: {batch.max_timestamp} size: {batch.size_in_bytes} "
          f"magic: {batch.magic} compresscodec: {batch.compression_type} crc: {batch.checksum} "
          f"isvalid: {str(batch.is_valid()).lower()}", file=out)


# Kafka: DumpLogSegments.dumpLog
def dump_log(path: str, print_contents: bool, deep: bool, out) -> None:
    start_offset = int(os.path.basename(path).split(".")[0])
    print(f"Starting offset: {start_offset}", file=out)
    fd = os.open(path, os.O_RDONLY)
    records = FileRecords(path, fd, 0, 0x7FFFFFFF, False)
    try:
        valid_bytes = 0
        for batch in records.batches():
            _print_batch_level(batch, valid_bytes, out)
            if deep:
                for record in batch:
                    line = (f"{RECORD_INDENT} offset: {record.offset} {batch.timestamp_type}: {record.timestamp} "
                            f"keysize: {record.key_size} valuesize: {record.value_size} sequence: {record.sequence} "
                            f"headerKeys: [{','.join(k for k, _ in record.headers)}]")
                    if batch.is_control_batch:
                        line += _control_record_text(record)
                    elif print_contents:
                        if record.key is not None:
                            line += f" key: {_text(record.key)}"
                        if record.value is not None:
                            line += f" payload: {_text(record.value)}"
                    print(line, file=out)
            valid_bytes += batch.size_in_bytes
        trailing = records.size_in_bytes() - valid_bytes
        if trailing > 0:
            print(f"Found {trailing} invalid bytes at the end of {os.path.basename(path)}", file=out)
    finally:
        records.close_handlers()


def dump_files(files: list[str], print_data_log: bool, deep_iteration: bool, out=None) -> None:
    out = out or sys.stdout
    for path in files:
        print(f"Dumping {path}", file=out)
        if path.endswith(".log"):
            dump_log(path, print_data_log, deep_iteration or print_data_log, out)
        elif path.endswith(".index"):
            dump_index(path, out)
        elif path.endswith(".timeindex"):
            dump_time_index(path, out)
        elif path.endswith(".txnindex"):
            dump_txn_index(path, out)
        elif path.endswith(".snapshot"):
            dump_producer_id_snapshot(path, out)
        else:
            print(f"Ignoring unknown file {path}", file=sys.stderr)


@click.command(name="kafka-dump-log", help="This tool helps to parse a log file and dump its contents to the "
                                           "console, useful for debugging a seemingly corrupt log segment.")
@click.option("--files", required=True, help="The comma separated list of data and index log files to be dumped.")
@click.option("--print-data-log", is_flag=True, help="if set, printing the messages content when dumping data logs. "
                                                     "Automatically sets --deep-iteration.")
@click.option("--deep-iteration", is_flag=True, help="if set, uses deep instead of shallow iteration.")
def main(files: str, print_data_log: bool, deep_iteration: bool) -> None:
    dump_files([f for f in files.split(",") if f], print_data_log, deep_iteration)


if __name__ == "__main__":
    main()
