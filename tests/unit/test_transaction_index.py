"""Mirrors Kafka's TransactionIndexTest: append, collect for a fetch range, truncate, sanity check,
reopen, delete and rename of a segment's ``.txnindex``."""
import os

import pytest

from kafkalite.log.abstract_index import CorruptIndexException
from kafkalite.log.transaction_index import ABORTED_TXN_TOTAL_SIZE, AbortedTxn, TransactionIndex


@pytest.fixture
def index(tmp_path):
    idx = TransactionIndex(0, str(tmp_path / "00000000000000000000.txnindex"))
    yield idx
    idx.close()


def test_file_is_created_on_first_append_only(index):
    assert not os.path.exists(index.file)
    assert index.all_aborted_txns() == []
    index.append(AbortedTxn(0, 0, 10, 11))
    assert os.path.getsize(index.file) == ABORTED_TXN_TOTAL_SIZE == 34


def test_positional_write_and_read(index, tmp_path):
    txns = [AbortedTxn(0, 0, 10, 11), AbortedTxn(1, 5, 15, 13), AbortedTxn(2, 18, 35, 25), AbortedTxn(3, 32, 50, 40)]
    for t in txns:
        index.append(t)
    assert index.all_aborted_txns() == txns
    index.close()
    reopened = TransactionIndex(0, index.file)
    assert reopened.all_aborted_txns() == txns
    with pytest.raises(ValueError):      # the last offset must keep growing, also after a reopen
        reopened.append(AbortedTxn(9, 40, 50, 51))
    reopened.close()


def test_collect_aborted_txns_stops_at_the_lso(index):
    txns = [AbortedTxn(0, 0, 10, 11), AbortedTxn(1, 5, 15, 13), AbortedTxn(2, 18, 35, 25), AbortedTxn(3, 32, 50, 40)]
    for t in txns:
        index.append(t)
    r = index.collect_aborted_txns(0, 32)
    assert r.aborted_transactions == txns[:3] and r.is_complete
    r = index.collect_aborted_txns(0, 70)
    assert r.aborted_transactions == txns and not r.is_complete
    r = index.collect_aborted_txns(16, 20)      # only the one overlapping [16, 20)
    assert r.aborted_transactions == [txns[2]]
    assert index.collect_aborted_txns(51, 60).aborted_transactions == []


def test_truncate_to(index):
    txns = [AbortedTxn(0, 0, 2, 3), AbortedTxn(1, 5, 6, 7), AbortedTxn(2, 8, 10, 11), AbortedTxn(3, 12, 13, 14)]
    for t in txns:
        index.append(t)
    index.truncate_to(11)
    assert index.all_aborted_txns() == txns[:3]
    index.truncate_to(10)          # the marker at 10 goes too
    assert index.all_aborted_txns() == txns[:2]
    index.append(AbortedTxn(5, 8, 9, 10))   # the last offset is 6 again
    index.truncate_to(0)
    assert index.all_aborted_txns() == []


def test_abort_before_start_offset_fails_sanity_check(tmp_path):
    idx = TransactionIndex(100, str(tmp_path / "00000000000000000100.txnindex"))
    idx.append(AbortedTxn(0, 0, 90, 91))
    with pytest.raises(CorruptIndexException):
        idx.sanity_check()
    idx.close()


def test_partial_entry_fails_sanity_check(index):
    index.append(AbortedTxn(0, 0, 10, 11))
    with open(index.file, "ab") as f:
        f.write(b"\x00" * 5)
    index.close()
    again = TransactionIndex(0, index.file)
    with pytest.raises(CorruptIndexException):
        again.sanity_check()
    again.reset()
    again.sanity_check()
    assert again.all_aborted_txns() == []
    again.close()


def test_rename_and_delete(index, tmp_path):
    index.append(AbortedTxn(0, 0, 10, 11))
    new = str(tmp_path / "00000000000000000000.txnindex.deleted")
    index.rename_to(new)
    assert index.file == new and os.path.exists(new)
    assert index.all_aborted_txns() == [AbortedTxn(0, 0, 10, 11)]
    assert index.delete_if_exists()
    assert not os.path.exists(new)
    assert not index.delete_if_exists()
