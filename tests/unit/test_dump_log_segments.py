"""Mirrors Kafka's DumpLogSegmentsTest: batch, record and index lines in 2.4's shapes."""
from click.testing import CliRunner

from kafkalite.log.log import Log
from kafkalite.log.log_config import LogConfig
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.tools.dump_log_segments import main


def test_dump_log_and_index(tmp_path):
    log = Log(str(tmp_path / "t-0"), LogConfig({"index.interval.bytes": 1}))
    for i in range(3):
        log.append_as_leader(MemoryRecords.with_records(
            SimpleRecord(1000 + i, b"k%d" % i, b"hello%d" % i, (("h1", b"x"),))), 0)
    log.close()
    seg = tmp_path / "t-0" / "00000000000000000000"
    result = CliRunner().invoke(main, ["--files", f"{seg}.log,{seg}.index,{seg}.timeindex", "--print-data-log"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"Dumping {seg}.log" and lines[1] == "Starting offset: 0"
    assert lines[2].startswith("baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 "
                               "producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false "
                               "isControl: false position: 0 CreateTime: 1000 size: ")
    assert "magic: 2 compresscodec: NONE crc: " in lines[2] and lines[2].endswith("isvalid: true")
    assert lines[3] == ("| offset: 0 CreateTime: 1000 keysize: 2 valuesize: 6 sequence: -1 headerKeys: [h1] "
                        "key: k0 payload: hello0")
    size = int(lines[2].split(" size: ")[1].split()[0])
    assert f"Dumping {seg}.index" in lines
    idx = lines.index(f"Dumping {seg}.index")
    assert lines[idx + 1:idx + 3] == [f"offset: 1 position: {size}", f"offset: 2 position: {2 * size}"]
    tidx = lines.index(f"Dumping {seg}.timeindex")
    assert lines[tidx + 1] == "timestamp: 1001 offset: 1"


def test_shallow_dump_reports_trailing_bytes(tmp_path):
    log = Log(str(tmp_path / "t-0"), LogConfig())
    log.append_as_leader(MemoryRecords.with_records(SimpleRecord(1, None, b"v")), 0)
    log.close()
    path = tmp_path / "t-0" / "00000000000000000000.log"
    with open(path, "ab") as f:
        f.write(b"\x00" * 5)
    result = CliRunner().invoke(main, ["--files", str(path)])
    assert "| offset" not in result.output
    assert result.output.splitlines()[-1] == "Found 5 invalid bytes at the end of 00000000000000000000.log"


def test_dump_markers_and_txn_index(tmp_path):
    from kafkalite.log.producer_state_manager import AppendOrigin
    from kafkalite.record.control_record_type import ControlRecordType
    from kafkalite.record.end_transaction_marker import EndTransactionMarker
    log = Log(str(tmp_path / "t-0"), LogConfig())
    for pid, control in ((4, ControlRecordType.ABORT), (5, ControlRecordType.COMMIT)):
        log.append_as_leader(MemoryRecords.with_records(SimpleRecord(1000, None, b"v"), producer_id=pid, producer_epoch=2,
                                                        base_sequence=0, is_transactional=True), 0)
        log.append_as_leader(MemoryRecords.with_end_transaction_marker(pid, 2, EndTransactionMarker(control, 7), 1001),
                             0, origin=AppendOrigin.COORDINATOR)
    log.close()
    seg = tmp_path / "t-0" / "00000000000000000000"
    result = CliRunner().invoke(main, ["--files", f"{seg}.log,{seg}.txnindex", "--deep-iteration"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "isTransactional: true isControl: true" in lines[4]
    assert lines[5].endswith("endTxnMarker: ABORT coordinatorEpoch: 7")
    assert lines[9].endswith("endTxnMarker: COMMIT coordinatorEpoch: 7")
    assert lines[-2:] == [f"Dumping {seg}.txnindex",
                          "version: 0 producerId: 4 firstOffset: 0 lastOffset: 1 lastStableOffset: 2"]


def test_dump_producer_snapshot(tmp_path):
    from kafkalite.log.producer_state_manager import AppendOrigin
    from kafkalite.record.control_record_type import ControlRecordType
    from kafkalite.record.end_transaction_marker import EndTransactionMarker
    log = Log(str(tmp_path / "t-0"), LogConfig())
    log.append_as_leader(MemoryRecords.with_records(SimpleRecord(1000, None, b"a"), SimpleRecord(1000, None, b"b"),
                                                    producer_id=4, producer_epoch=2, base_sequence=0,
                                                    is_transactional=True), 0)                          # 0-1
    log.append_as_leader(MemoryRecords.with_end_transaction_marker(4, 2, EndTransactionMarker(
        ControlRecordType.COMMIT, 7), 1001), 0, origin=AppendOrigin.COORDINATOR)                       # 2
    log.append_as_leader(MemoryRecords.with_records(SimpleRecord(1002, None, b"c"), producer_id=5, producer_epoch=0,
                                                    base_sequence=0, is_transactional=True), 0)         # 3, open
    log.close()
    snapshot = tmp_path / "t-0" / "00000000000000000004.snapshot"
    result = CliRunner().invoke(main, ["--files", str(snapshot)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1:] == [
        "producerId: 4 producerEpoch: 2 coordinatorEpoch: 7 currentTxnFirstOffset: None firstSequence: 0 "
        "lastSequence: 1 lastOffset: 1 offsetDelta: 1 timestamp: 1001",
        "producerId: 5 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: Some(3) firstSequence: 0 "
        "lastSequence: 0 lastOffset: 3 offsetDelta: 0 timestamp: 1002"]
    snapshot.write_bytes(snapshot.read_bytes()[:-1])
    result = CliRunner().invoke(main, ["--files", str(snapshot)])
    assert result.stdout.splitlines()[1:] == [] and "Snapshot failed schema validation" in result.stderr
