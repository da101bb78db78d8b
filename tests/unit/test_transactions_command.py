"""Mirrors Kafka 3.0: tools/src/test/java/org/apache/kafka/tools/TransactionsCommandTest.java -- ``kafka-transactions``
against a fake admin client: argument checks, the tables each subcommand prints (Kafka's padded, tab-terminated
columns, "None" for absent values), how ``abort`` finds the transaction to end, and the one-line errors on
stderr with exit code 1."""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from kafkalite.clients.admin.admin_types import (
    AbortTransactionSpec, PartitionProducerState, ProducerState, TopicDescription, TopicListing, TopicPartitionInfo, TransactionDescription,
    TransactionListing, TransactionState,
)
from kafkalite.clients.node import Node
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.tools import transactions_command as tc

NOW = 1_700_000_000_000


class FakeAdmin:
    """Answers from dictionaries; records each call; raises what ``fail`` names for a method."""

    def __init__(self, listings=None, descriptions=None, producers=None, topics=None, fail=None):
        self.listings, self.descriptions = listings or {}, descriptions or {}
        self.producers, self.topics, self.fail = producers or {}, topics or {}, fail or {}
        self.calls, self.closed, self.aborted = [], False, []

    def _maybe_fail(self, name):
        if name in self.fail:
            raise self.fail[name]

    def list_transactions(self, state_filters=(), producer_id_filters=()):
        self.calls.append(("list_transactions", tuple(producer_id_filters)))
        self._maybe_fail("list_transactions")
        if not producer_id_filters:
            return self.listings
        return {b: [t for t in ts if t.producer_id in producer_id_filters] for b, ts in self.listings.items()}

    def describe_transactions(self, ids):
        self.calls.append(("describe_transactions", tuple(ids)))
        self._maybe_fail("describe_transactions")
        for i in ids:
            if i not in self.descriptions:
                raise Errors.TRANSACTIONAL_ID_NOT_FOUND.exception(
                    f"DescribeTransactions request for transactionalId `{i}` failed because the ID could not be found")
        return {i: self.descriptions[i] for i in ids}

    def describe_producers(self, partitions, broker_id=None):
        self.calls.append(("describe_producers", tuple(partitions), broker_id))
        self._maybe_fail("describe_producers")
        return {tp: self.producers.get(tp, PartitionProducerState(())) for tp in partitions}

    def list_topics(self):
        return {t: TopicListing(t, False) for t in self.topics}

    def describe_topics(self, names):
        return {n: self.topics[n] for n in names}

    def abort_transaction(self, spec):
        self._maybe_fail("abort_transaction")
        self.aborted.append(spec)

    def close(self):
        self.closed = True


def lines_of(fn, *args, **kwargs) -> list[str]:
    out = []
    fn(*args, out=out.append, **kwargs)
    return out


def run_cli(admin: FakeAdmin, *args, monkeypatch):
    monkeypatch.setattr(tc._Context, "admin", lambda self: admin)
    monkeypatch.setattr(tc, "_now_ms", lambda: NOW)
    return CliRunner().invoke(tc.main, ["--bootstrap-server", "127.0.0.1:9", *args])


def test_pretty_print_table_pads_every_column_to_its_widest_value_and_ends_each_with_a_tab():
    out = lines_of(tc.pretty_print_table, ("A", "Longer"), [("wide value", "x"), ("y", "z")])
    assert out == ["A         \tLonger\t", "wide value\tx     \t", "y         \tz     \t"]


def test_list_prints_one_row_per_transactional_id_with_its_coordinator():
    admin = FakeAdmin(listings={0: [TransactionListing("app-1", 1000, TransactionState.ONGOING)],
                                2: [TransactionListing("app-2", 1001, TransactionState.COMPLETE_COMMIT)]})
    out = lines_of(tc.list_transactions, admin)
    assert [line.split("\t")[:-1] for line in out] == [
        ["TransactionalId", "Coordinator", "ProducerId", "TransactionState"],
        ["app-1          ", "0          ", "1000      ", "Ongoing         "],
        ["app-2          ", "2          ", "1001      ", "CompleteCommit  "]]


def test_describe_prints_start_time_duration_and_sorted_partitions():
    d = TransactionDescription(1, TransactionState.ONGOING, 4000, 3, 60000, NOW - 2500,
                               frozenset({TopicPartition("t", 1), TopicPartition("s", 0)}))
    out = lines_of(tc.describe_transaction, FakeAdmin(descriptions={"app": d}), "app", now_ms=lambda: NOW)
    assert out[0].split() == list(tc.DESCRIBE_HEADERS)
    assert out[1].split() == ["1", "app", "4000", "3", "Ongoing", "60000", str(NOW - 2500), "2500", "s-0,t-1"]


def test_describe_of_an_empty_transaction_prints_none_for_its_times():
    d = TransactionDescription(0, TransactionState.EMPTY, 4000, 0, 60000, None, frozenset())
    out = lines_of(tc.describe_transaction, FakeAdmin(descriptions={"app": d}), "app", now_ms=lambda: NOW)
    assert out[1].split("\t")[:-1] == ["0            ", "app            ", "4000      ", "0            ",
                                       "Empty           ", "60000               ", "None                         ",
                                       "None                 ", "               "]


def test_describe_producers_prints_none_and_minus_one_for_what_the_leader_does_not_know():
    tp = TopicPartition("t", 0)
    state = PartitionProducerState((ProducerState(4000, 2, 9, NOW - 10, 5, 120),
                                    ProducerState(4001, 0, 4, NOW - 20, None, None)))
    admin = FakeAdmin(producers={tp: state})
    out = lines_of(tc.describe_producers, admin, "t", 0, 2)
    assert admin.calls == [("describe_producers", (tp,), 2)]
    assert [line.split() for line in out] == [list(tc.DESCRIBE_PRODUCERS_HEADERS),
                                              ["4000", "2", "5", "9", str(NOW - 10), "120"],
                                              ["4001", "0", "-1", "4", str(NOW - 20), "None"]]


def test_find_hanging_reports_open_transactions_the_coordinator_does_not_hold():
    tp0, tp1, tp2 = TopicPartition("t", 0), TopicPartition("t", 1), TopicPartition("t", 2)
    old = NOW - 20 * 60_000
    admin = FakeAdmin(
        topics={"t": TopicDescription("t", False, tuple(TopicPartitionInfo(p, Node(0, "h", 1), (Node(0, "h", 1),), ())
                                                        for p in range(3)))},
        producers={tp0: PartitionProducerState((ProducerState(1, 0, 3, old, 0, 10),)),     # coordinator holds t-0
                   tp1: PartitionProducerState((ProducerState(1, 0, 5, old, 0, 40),)),     # ... but not t-1
                   tp2: PartitionProducerState((ProducerState(2, 0, 1, NOW - 1000, 0, 7),  # too young to hang
                                                ProducerState(3, 1, 1, old, -1, 9)))},     # no transactional id
        listings={0: [TransactionListing("app", 1, TransactionState.ONGOING)]},
        descriptions={"app": TransactionDescription(0, TransactionState.ONGOING, 1, 0, 60000, old, frozenset({tp0}))})
    out = lines_of(tc.find_hanging, admin, "t", None, None, 15, now_ms=lambda: NOW)
    assert [line.split() for line in out] == [list(tc.FIND_HANGING_HEADERS),
                                              ["t", "1", "1", "0", "0", "40", str(old), "20"],
                                              ["t", "2", "3", "1", "-1", "9", str(old), "20"]]
    assert ("list_transactions", (1, 3)) in admin.calls


def test_find_hanging_needs_a_topic_or_a_broker():
    with pytest.raises(tc.CommandFailed, match="requires either --topic or --broker-id"):
        tc.find_hanging(FakeAdmin(), None, None, None)
    with pytest.raises(tc.CommandFailed, match="--partition argument requires --topic"):
        tc.find_hanging(FakeAdmin(), None, 0, 1)


def test_cli_runs_the_subcommand_and_closes_the_admin(monkeypatch):
    admin = FakeAdmin(listings={0: [TransactionListing("app", 7, TransactionState.ONGOING)]})
    result = run_cli(admin, "list", monkeypatch=monkeypatch)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1].split() == ["app", "0", "7", "Ongoing"]
    assert admin.closed


def test_cli_unknown_transactional_id_prints_kafkas_error_line_and_exits_1(monkeypatch):
    result = run_cli(FakeAdmin(), "describe", "--transactional-id", "nope", monkeypatch=monkeypatch)
    assert result.exit_code == 1
    assert result.output.strip() == (
        "Failed to describe transaction state of transactional-id `nope`: DescribeTransactions request for "
        "transactionalId `nope` failed because the ID could not be found. Enable debug logging for additional detail.")


def test_cli_describe_producers_failure_names_the_leader_or_the_broker(monkeypatch):
    admin = FakeAdmin(fail={"describe_producers": Errors.NOT_LEADER_FOR_PARTITION.exception("not here")})
    result = run_cli(admin, "describe-producers", "--topic", "t", "--partition", "0", "--broker-id", "3",
                     monkeypatch=monkeypatch)
    assert result.exit_code == 1
    assert result.output.startswith("Failed to describe producers for partition t-0 on broker 3: not here.")
    result = run_cli(admin, "describe-producers", "--topic", "t", "--partition", "0", monkeypatch=monkeypatch)
    assert "for partition t-0 on leader: not here." in result.output


@pytest.mark.parametrize("args,message", [
    (["describe"], "Missing option '--transactional-id'"),
    (["describe-producers", "--topic", "t"], "Missing option '--partition'"),
    (["describe-producers", "--partition", "x", "--topic", "t"], "'x' is not a valid integer"),
])
def test_cli_argument_errors(monkeypatch, args, message):
    result = run_cli(FakeAdmin(), *args, monkeypatch=monkeypatch)
    assert result.exit_code == 2
    assert message in result.output


def test_cli_needs_a_bootstrap_server():
    result = CliRunner().invoke(tc.main, ["list"])
    assert result.exit_code == 2 and "Missing option '--bootstrap-server'" in result.output


def test_abort_by_start_offset_finds_the_producer_with_describe_producers(monkeypatch):
    tp = TopicPartition("t", 0)
    admin = FakeAdmin(producers={tp: PartitionProducerState((ProducerState(7, 1, 3, NOW, None, 40),
                                                             ProducerState(8, 2, 5, NOW, 4, 12)))})
    result = run_cli(admin, "abort", "--topic", "t", "--partition", "0", "--start-offset", "12",
                     monkeypatch=monkeypatch)
    assert result.exit_code == 0 and result.output == ""
    assert admin.aborted == [AbortTransactionSpec(tp, 8, 2, 4)]


def test_abort_by_producer_id_takes_a_coordinator_epoch_of_minus_one_as_zero():
    admin = FakeAdmin()
    tc.abort_transaction(admin, "t", 1, producer_id=9, producer_epoch=0, coordinator_epoch=-1)
    assert admin.aborted == [AbortTransactionSpec(TopicPartition("t", 1), 9, 0, 0)]


@pytest.mark.parametrize("kwargs,message", [
    ({}, "must be identified either with --start-offset (for brokers on 3.0 or above) or with --producer-id"),
    ({"producer_id": 9}, "Missing required argument --producer-epoch"),
    ({"producer_id": 9, "producer_epoch": 0}, "Missing required argument --coordinator-epoch"),
    ({"start_offset": 5}, "Could not find any open transactions starting at offset 5 on partition t-0"),
])
def test_abort_argument_and_lookup_errors(kwargs, message):
    admin = FakeAdmin()
    with pytest.raises(tc.CommandFailed, match=re.escape(message)):
        tc.abort_transaction(admin, "t", 0, **kwargs)
    assert admin.aborted == []


def test_cli_abort_failure_names_the_spec(monkeypatch):
    admin = FakeAdmin(fail={"abort_transaction": Errors.INVALID_PRODUCER_EPOCH.exception("bad epoch")})
    result = run_cli(admin, "abort", "--topic", "t", "--partition", "0", "--producer-id", "9", "--producer-epoch",
                     "1", "--coordinator-epoch", "2", monkeypatch=monkeypatch)
    assert result.exit_code == 1
    assert result.output.strip() == (
        "Failed to abort transaction AbortTransactionSpec(topicPartition=t-0, producerId=9, producerEpoch=1, "
        "coordinatorEpoch=2): bad epoch. Enable debug logging for additional detail.")
