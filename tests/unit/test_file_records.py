"""Mirrors Kafka's FileRecordsTest: append, slice, search, truncate, and write_to via sendfile."""
import os
import socket
from unittest import mock

import pytest

from kafkalite.network.network_send import NetworkSend
from kafkalite.network.transport_layer import PlaintextTransportLayer
from kafkalite.record.file_records import ClosedChannelException, FileRecords
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord


def batch(base_offset, *values, ts=1000):
    return MemoryRecords.with_records(*[SimpleRecord(ts + i, None, v) for i, v in enumerate(values)],
                                      base_offset=base_offset)


@pytest.fixture
def file_records(tmp_path):
    fr = FileRecords.open(str(tmp_path / "00000000000000000000.log"))
    for i in range(5):
        fr.append(batch(i * 2, b"v%d" % (2 * i), b"v%d" % (2 * i + 1), ts=1000 + 10 * i))
    yield fr
    fr.close()


def test_append_and_iterate(file_records):
    batches = list(file_records.batches())
    assert [b.base_offset for b in batches] == [0, 2, 4, 6, 8]
    assert batches[1].position == batches[0].size_in_bytes
    assert file_records.size_in_bytes() == os.path.getsize(file_records.file)
    assert all(b.is_valid() for b in batches)
    assert [r.value for r in batches[2]] == [b"v4", b"v5"]


def test_slice_shares_descriptor_and_bounds(file_records):
    first = next(file_records.batches())
    s = file_records.slice(first.size_in_bytes, 2 * first.size_in_bytes)
    assert s.fd == file_records.fd and s.start == first.size_in_bytes
    assert s.size_in_bytes() == 2 * first.size_in_bytes
    assert [b.base_offset for b in s.batches()] == [2, 4]
    big = file_records.slice(0, 10**9)
    assert big.size_in_bytes() == file_records.size_in_bytes()
    s.close()  # closing a slice must not close the parent's descriptor
    assert file_records.read_bytes(0, 4) == file_records.read_bytes(0, 4)


def test_search_for_offset_with_size(file_records):
    sizes = [b.size_in_bytes for b in file_records.batches()]
    found = file_records.search_for_offset_with_size(5, 0)
    assert (found.offset, found.position, found.size) == (5, sum(sizes[:2]), sizes[2])
    assert file_records.search_for_offset_with_size(100, 0) is None


def test_search_for_timestamp_and_largest_timestamp(file_records):
    found = file_records.search_for_timestamp(1021, 0, 0)
    assert (found.timestamp, found.offset) == (1021, 5)
    assert file_records.largest_timestamp_after(0).timestamp == 1041
    assert file_records.search_for_timestamp(99999, 0, 0) is None


def test_truncate_to(file_records):
    first = next(file_records.batches())
    removed = file_records.truncate_to(first.size_in_bytes)
    assert removed > 0 and os.path.getsize(file_records.file) == first.size_in_bytes
    assert [b.base_offset for b in file_records.batches()] == [0]
    with pytest.raises(ValueError):
        file_records.truncate_to(10**6)


def test_partial_batch_at_end_is_not_yielded(file_records):
    with open(file_records.file, "ab") as f:
        f.write(bytes(batch(10, b"tail").buffer)[:40])
    reopened = FileRecords.open(file_records.file, file_already_exists=True)
    assert [b.base_offset for b in reopened.batches()] == [0, 2, 4, 6, 8]
    reopened.close_handlers()


def test_write_to_uses_sendfile_into_socketpair(file_records):
    a, b = socket.socketpair()
    try:
        s = file_records.slice(0, file_records.size_in_bytes())
        with mock.patch("kafkalite.record.file_records.os.sendfile", wraps=os.sendfile) as spy:
            sent = 0
            while sent < s.size_in_bytes():
                sent += s.write_to(a, sent, s.size_in_bytes() - sent)
        assert spy.call_count >= 1 and spy.call_args_list[0].args[1] == file_records.fd
        received = bytearray()
        while len(received) < sent:
            received += b.recv(65536)
        assert bytes(received) == file_records.read_bytes()
    finally:
        a.close()
        b.close()


def test_write_to_returns_zero_when_socket_would_block(file_records):
    a, b = socket.socketpair()
    a.setblocking(False)
    try:
        with mock.patch("kafkalite.record.file_records.os.sendfile", side_effect=BlockingIOError):
            assert file_records.write_to(a, 0, 100) == 0
    finally:
        a.close()
        b.close()


def test_slice_fails_cleanly_after_its_file_is_closed(tmp_path, file_records):
    # Kafka: a slice shares the FileChannel; once closed, transferTo throws ClosedChannelException.
    s = file_records.slice(0, file_records.size_in_bytes())
    old_fd = file_records.fd
    file_records.close_handlers()
    other = FileRecords.open(str(tmp_path / "other.log"))   # the OS hands out the freed number again
    other.append(batch(0, b"SECRET" * 20))
    assert other.fd == old_fd   # the number really is reused, so a stale copy would read "other"
    a, b = socket.socketpair()
    b.setblocking(False)
    try:
        with pytest.raises(ClosedChannelException):
            s.read_bytes(0, 16)
        with pytest.raises(ClosedChannelException):
            s.write_to(a, 0, s.size_in_bytes())
        with pytest.raises(ClosedChannelException):
            list(s.batches())
        with pytest.raises(BlockingIOError):
            b.recv(64)   # not one byte of the other file reached the socket
    finally:
        a.close()
        b.close()
        other.close()


def test_network_send_raises_when_its_slice_was_closed(file_records):
    # The Selector closes the connection when a write raises (Kafka: on ClosedChannelException).
    s = file_records.slice(0, file_records.size_in_bytes())
    send = NetworkSend("conn-1", [b"header", s])
    file_records.close_handlers()
    a, b = socket.socketpair()
    try:
        with pytest.raises(ClosedChannelException):
            send.write_to(PlaintextTransportLayer(a, None))
        assert not send.completed()
    finally:
        a.close()
        b.close()


def test_close_during_a_pinned_read_waits_for_it(file_records):
    # A close racing with a read (or sendfile) in flight closes the descriptor when that call ends.
    channel = file_records.channel
    fd = channel.acquire()
    file_records.close_handlers()
    assert file_records.fd == -1 and not channel.is_open()
    assert len(os.pread(fd, 4, 0)) == 4   # still open for the call in flight
    channel.release()
    with pytest.raises(OSError):
        os.fstat(fd)


def _count_fsyncs(monkeypatch):
    calls = []
    real = os.fsync

    def fsync(fd):
        calls.append(fd)
        real(fd)
    monkeypatch.setattr("kafkalite.record.file_records.os.fsync", fsync)
    return calls


def test_close_fsyncs_only_what_was_written_since_the_last_flush(tmp_path, monkeypatch):
    """Kafka's close always fsyncs; an unchanged file is skipped (a clean shutdown of 10,000 partitions)."""
    fsyncs = _count_fsyncs(monkeypatch)
    path = str(tmp_path / "00000000000000000000.log")
    written = FileRecords.open(path)
    written.append(batch(0, b"v"))
    written.close()
    assert len(fsyncs) == 1                     # appended since opened: fsynced at close

    reopened = FileRecords.open(path, file_already_exists=True)
    reopened.close()
    assert len(fsyncs) == 1                     # nothing changed since the previous close's fsync

    flushed = FileRecords.open(path, file_already_exists=True)
    flushed.append(batch(1, b"w"))
    flushed.flush()                             # Log.flush always fsyncs, written or not
    flushed.close()
    assert len(fsyncs) == 2

    cut = FileRecords.open(path, file_already_exists=True)
    cut.truncate_to(cut.size_in_bytes() - 1)
    cut.close()
    assert len(fsyncs) == 3                     # a truncation changes the file too
