"""Mirrors Kafka 3.0: tools/src/main/java/org/apache/kafka/tools/TransactionsCommand.java (not in 2.4: KIP-664)

The click command ``kafka-transactions --bootstrap-server host:port <subcommand>``, which looks at
transactions from outside, through the admin client (``KafkaAdminClient.list_transactions``,
``describe_transactions``, ``describe_producers``, ``abort_transaction``):

    list
        TransactionalId  Coordinator  ProducerId  TransactionState    -- every coordinator's transactional ids
    describe --transactional-id ID
        CoordinatorId  TransactionalId  ProducerId  ProducerEpoch  TransactionState  TransactionTimeoutMs
        CurrentTransactionStartTimeMs  TransactionDurationMs  TopicPartitions
    describe-producers --topic T --partition P [--broker-id B]
        ProducerId  ProducerEpoch  LatestCoordinatorEpoch  LastSequence  LastTimestamp
        CurrentTransactionStartOffset                               -- what the partition's leader (or B) knows
    find-hanging (--topic T [--partition P] | --broker-id B) [--max-transaction-timeout MINUTES]
        Topic  Partition  ProducerId  ProducerEpoch  CoordinatorEpoch  StartOffset  LastTimestamp  Duration(min)
        -- transactions open on a partition for longer than the timeout that no coordinator will finish
    abort --topic T --partition P (--start-offset O | --producer-id I --producer-epoch E --coordinator-epoch C)
        -- writes an ABORT marker for that transaction on that partition (WriteTxnMarkers to its leader); silent

Tables are printed as Kafka's ``prettyPrintTable`` prints them: each column padded to its widest value and
followed by a tab. A failure prints ``<what failed>: <the error's message>. Enable debug logging for additional
detail.`` on stderr and exits 1, as Kafka's ``printErrorAndExit``.

Era notes: the whole tool is Kafka 3.0's; kafkalite's broker is 2.4 with the three KIP-664 APIs added.
Transactions are printed in coordinator order and partitions sorted (Kafka prints Java hash sets).
Left out: ``-v/--version``.
"""
from __future__ import annotations

import sys
import time

import click

from kafkalite.clients.admin.admin_client import KafkaAdminClient
from kafkalite.clients.admin.admin_types import AbortTransactionSpec
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.tools.leader_election_command import load_props

MAX_BATCH_SIZE = 500   # Kafka 3.0: FindHangingTransactionsCommand.MAX_BATCH_SIZE
LIST_HEADERS = ("TransactionalId", "Coordinator", "ProducerId", "TransactionState")
DESCRIBE_HEADERS = ("CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState",
                    "TransactionTimeoutMs", "CurrentTransactionStartTimeMs", "TransactionDurationMs",
                    "TopicPartitions")
DESCRIBE_PRODUCERS_HEADERS = ("ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence",
                              "LastTimestamp", "CurrentTransactionStartOffset")
FIND_HANGING_HEADERS = ("Topic", "Partition", "ProducerId", "ProducerEpoch", "CoordinatorEpoch", "StartOffset",
                        "LastTimestamp", "Duration(min)")


class CommandFailed(Exception):
    """Kafka 3.0: TransactionsCommand.printErrorAndExit -- its message goes to stderr, the exit code is 1."""


def _now_ms() -> int:
    return int(time.time() * 1000)


def _fail(message: str, cause: BaseException) -> CommandFailed:
    """Kafka 3.0: TransactionsCommand.printErrorAndExit(message, throwable)."""
    return CommandFailed(f"{message}: {cause}. Enable debug logging for additional detail.")


# Kafka 3.0: TransactionsCommand.prettyPrintTable
def pretty_print_table(headers, rows, out=click.echo) -> None:
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(headers)]
    for row in [list(headers)] + [list(r) for r in rows]:
        out("".join(value.ljust(width) + "\t" for value, width in zip(row, widths)))   # Kafka 3.0: printRow


# Kafka 3.0: ListTransactionsCommand.execute
def list_transactions(admin, out=click.echo) -> None:
    try:
        result = admin.list_transactions()
    except Exception as e:   # noqa: BLE001 -- any failure of the call ends the tool with its message
        raise _fail("Failed to list transactions", e) from e
    rows = [(listing.transactional_id, str(broker_id), str(listing.producer_id), str(listing.state))
            for broker_id, listings in sorted(result.items()) for listing in listings]
    pretty_print_table(LIST_HEADERS, rows, out)


# Kafka 3.0: DescribeTransactionsCommand.execute
def describe_transaction(admin, transactional_id: str, out=click.echo, now_ms=_now_ms) -> None:
    try:
        d = admin.describe_transactions([transactional_id])[transactional_id]
    except Exception as e:   # noqa: BLE001
        raise _fail(f"Failed to describe transaction state of transactional-id `{transactional_id}`", e) from e
    if d.transaction_start_time_ms is None:
        start, duration = "None", "None"
    else:
        start, duration = str(d.transaction_start_time_ms), str(now_ms() - d.transaction_start_time_ms)
    partitions = ",".join(str(tp) for tp in sorted(d.topic_partitions))
    pretty_print_table(DESCRIBE_HEADERS, [(str(d.coordinator_id), transactional_id, str(d.producer_id),
                                           str(d.producer_epoch), str(d.state), str(d.transaction_timeout_ms),
                                           start, duration, partitions)], out)


# Kafka 3.0: DescribeProducersCommand.execute
def describe_producers(admin, topic: str, partition: int, broker_id: int | None = None, out=click.echo) -> None:
    tp = TopicPartition(topic, partition)
    try:
        result = admin.describe_producers([tp], broker_id=broker_id)[tp]
    except Exception as e:   # noqa: BLE001
        where = f"broker {broker_id}" if broker_id is not None else "leader"
        raise _fail(f"Failed to describe producers for partition {tp} on {where}", e) from e
    rows = [(str(p.producer_id), str(p.producer_epoch),
             str(p.coordinator_epoch if p.coordinator_epoch is not None else -1), str(p.last_sequence),
             str(p.last_timestamp),
             "None" if p.current_transaction_start_offset is None else str(p.current_transaction_start_offset))
            for p in result.active_producers]
    pretty_print_table(DESCRIBE_PRODUCERS_HEADERS, rows, out)


def _batches(items: list, size: int = MAX_BATCH_SIZE):
    """Kafka 3.0: FindHangingTransactionsCommand.consumeInBatches -- the search asks in slices of 500."""
    for start in range(0, len(items), size):
        yield items[start:start + size]


# Kafka 3.0: FindHangingTransactionsCommand.execute
def find_hanging(admin, topic: str | None, partition: int | None, broker_id: int | None,
                 max_transaction_timeout_minutes: int = 15, out=click.echo, now_ms=_now_ms) -> None:
    if topic is None and broker_id is None:
        raise CommandFailed("The `find-hanging` command requires either --topic or --broker-id to limit the scope "
                            "of the search")
    if partition is not None and topic is None:
        raise CommandFailed("The --partition argument requires --topic to be provided")
    max_timeout_ms = max_transaction_timeout_minutes * 60_000
    # Kafka 3.0: FindHangingTransactionsCommand.collectTopicPartitionsToSearch
    if topic is not None and partition is not None:
        partitions = [TopicPartition(topic, partition)]
    else:
        try:
            topics = [topic] if topic is not None else sorted(admin.list_topics())
        except Exception as e:   # noqa: BLE001
            raise _fail("Failed to list topics", e) from e
        partitions = []
        for batch in _batches(topics):
            try:
                descriptions = admin.describe_topics(batch)
            except Exception as e:   # noqa: BLE001
                raise _fail(f"Failed to describe {len(batch)} topics", e) from e
            for name, description in descriptions.items():
                partitions += [TopicPartition(name, p.partition) for p in description.partitions
                               if broker_id is None or any(r.id == broker_id for r in p.replicas)]
    # Kafka 3.0: FindHangingTransactionsCommand.collectCandidateOpenTransactions
    candidates = []
    for batch in _batches(partitions):
        try:
            states = admin.describe_producers(batch, broker_id=broker_id)
        except Exception as e:   # noqa: BLE001
            raise _fail(f"Failed to describe producers for {len(batch)} partitions on broker "
                        f"{'Optional.empty' if broker_id is None else f'Optional[{broker_id}]'}", e) from e
        now = now_ms()
        candidates += [(tp, p) for tp in batch if tp in states for p in states[tp].active_producers
                       if p.current_transaction_start_offset is not None and now - p.last_timestamp > max_timeout_ms]
    hanging = []
    if candidates:
        producer_ids = {p.producer_id for _, p in candidates}
        # Kafka 3.0: FindHangingTransactionsCommand.lookupTransactionalIds
        try:
            listings = admin.list_transactions(producer_id_filters=sorted(producer_ids))
        except Exception as e:   # noqa: BLE001
            raise _fail(f"Failed to list transactions for {len(producer_ids)} producers", e) from e
        transactional_ids = {t.producer_id: t.transactional_id for ts in listings.values() for t in ts
                             if t.producer_id in producer_ids}
        descriptions = {}
        for transactional_id in set(transactional_ids.values()):
            try:
                descriptions[transactional_id] = admin.describe_transactions([transactional_id])[transactional_id]
            except Exception as e:   # noqa: BLE001
                if Errors.for_exception(e) is not Errors.TRANSACTIONAL_ID_NOT_FOUND:
                    raise _fail(f"Failed to describe {len(set(transactional_ids.values()))} transactions", e) from e
                descriptions[transactional_id] = None
        # Kafka 3.0: FindHangingTransactionsCommand.filterHangingTransactions -- hanging unless the coordinator
        # still holds the partition in the producer's transaction (and so will write its marker)
        for tp, p in candidates:
            description = descriptions.get(transactional_ids.get(p.producer_id))
            if description is None or tp not in description.topic_partitions:
                hanging.append((tp, p))
    now = now_ms()
    pretty_print_table(FIND_HANGING_HEADERS, [
        (tp.topic, str(tp.partition), str(p.producer_id), str(p.producer_epoch),
         str(p.coordinator_epoch if p.coordinator_epoch is not None else -1),
         str(p.current_transaction_start_offset), str(p.last_timestamp), str((now - p.last_timestamp) // 60_000))
        for tp, p in hanging], out)


# Kafka 3.0: AbortTransactionCommand.execute -- the transaction by its start offset (looked up with
# DescribeProducers) or by producer id, epoch and coordinator epoch; silent on success
def abort_transaction(admin, topic: str, partition: int, start_offset: int | None = None,
                      producer_id: int | None = None, producer_epoch: int | None = None,
                      coordinator_epoch: int | None = None) -> None:
    tp = TopicPartition(topic, partition)
    if start_offset is None and producer_id is None:
        raise CommandFailed("The transaction to abort must be identified either with --start-offset (for brokers on "
                            "3.0 or above) or with --producer-id, --producer-epoch, and --coordinator-epoch (for "
                            "older brokers)")
    if start_offset is None:
        if producer_epoch is None:
            raise CommandFailed("Missing required argument --producer-epoch")
        if coordinator_epoch is None:
            raise CommandFailed("Missing required argument --coordinator-epoch")
        # a producer that never saw a marker reports coordinator epoch -1; 0 is no newer than any real one
        spec = AbortTransactionSpec(tp, producer_id, producer_epoch, max(coordinator_epoch, 0))
    else:
        # Kafka 3.0: AbortTransactionCommand.buildAbortSpec
        try:
            producers = admin.describe_producers([tp])[tp].active_producers
        except Exception as e:   # noqa: BLE001
            raise _fail(f"Failed to validate producer state for partition {tp}", e) from e
        found = next((p for p in producers if p.current_transaction_start_offset == start_offset), None)
        if found is None:
            raise CommandFailed(f"Could not find any open transactions starting at offset {start_offset} on "
                                f"partition {tp}")
        spec = AbortTransactionSpec(tp, found.producer_id, found.producer_epoch, found.coordinator_epoch or 0)
    try:
        admin.abort_transaction(spec)
    except Exception as e:   # noqa: BLE001
        raise _fail(f"Failed to abort transaction {spec}", e) from e


class _Context:
    def __init__(self, bootstrap_server: str, command_config: str | None):
        self.bootstrap_server, self.command_config = bootstrap_server, command_config

    def admin(self) -> KafkaAdminClient:
        """Kafka 3.0: TransactionsCommand.buildAdminClient -- the --command-config file, then the bootstrap."""
        try:
            props = load_props(self.command_config) if self.command_config else {}
        except OSError as e:
            raise _fail("Failed to load admin client properties", e) from e
        props["bootstrap.servers"] = self.bootstrap_server
        props.setdefault("client.id", "transactions-tool")
        return KafkaAdminClient(props)


def _run(ctx: click.Context, action) -> None:
    """Kafka 3.0: TransactionsCommand.execute -- build the admin client, run one subcommand, close it."""
    try:
        admin = ctx.obj.admin()
        try:
            action(admin)
        finally:
            admin.close()
    except CommandFailed as e:
        click.echo(str(e), err=True)
        sys.exit(1)


@click.group(name="kafka-transactions", context_settings={"help_option_names": ["-h", "--help"]},
             help="This tool is used to analyze the transactional state of producers in the cluster. It can be "
                  "used to detect and recover from hanging transactions.")
@click.option("--command-config", metavar="FILE", help="property file containing configs to be passed to admin client")
@click.option("--bootstrap-server", required=True, metavar="host:port",
              help="hostname and port for the broker to connect to, in the form `host:port`  (multiple comma-separated "
                   "entries can be given)")
@click.pass_context
def main(ctx, command_config, bootstrap_server):
    """Kafka 3.0: TransactionsCommand.main."""
    ctx.obj = _Context(bootstrap_server, command_config)


@main.command(name="list", help="list transactions")
@click.pass_context
def list_command(ctx):
    _run(ctx, list_transactions)


@main.command(name="describe", help="describe the state of an active transactional-id")
@click.option("--transactional-id", required=True, help="transactional id")
@click.pass_context
def describe_command(ctx, transactional_id):
    _run(ctx, lambda admin: describe_transaction(admin, transactional_id))


@main.command(name="describe-producers", help="describe the states of active producers for a topic partition")
@click.option("--broker-id", type=int, help="optional broker id to describe the producer state on a specific replica")
@click.option("--topic", required=True, help="topic name")
@click.option("--partition", type=int, required=True, help="partition number")
@click.pass_context
def describe_producers_command(ctx, broker_id, topic, partition):
    _run(ctx, lambda admin: describe_producers(admin, topic, partition, broker_id))


@main.command(name="find-hanging", help="find hanging transactions")
@click.option("--broker-id", type=int, help="broker id to search for hanging transactions")
@click.option("--max-transaction-timeout", type=int, default=15, show_default=True,
              help="maximum transaction timeout in minutes to limit the scope of the search")
@click.option("--topic", help="topic name to limit search to (required if --partition is specified)")
@click.option("--partition", type=int, help="partition number")
@click.pass_context
def find_hanging_command(ctx, broker_id, max_transaction_timeout, topic, partition):
    _run(ctx, lambda admin: find_hanging(admin, topic, partition, broker_id, max_transaction_timeout))


@main.command(name="abort", help="abort a hanging transaction (requires administrative privileges)")
@click.option("--topic", required=True, help="topic name")
@click.option("--partition", type=int, required=True, help="partition number")
@click.option("--start-offset", type=int, help="start offset of the transaction to abort (brokers on 3.0 and above: "
                                               "only this is required)")
@click.option("--producer-id", type=int, help="producer id (brokers older than 3.0: give all three)")
@click.option("--producer-epoch", type=int, help="producer epoch")
@click.option("--coordinator-epoch", type=int, help="coordinator epoch")
@click.pass_context
def abort_command(ctx, topic, partition, start_offset, producer_id, producer_epoch, coordinator_epoch):
    _run(ctx, lambda admin: abort_transaction(admin, topic, partition, start_offset, producer_id, producer_epoch,
                                              coordinator_epoch))


if __name__ == "__main__":
    main(prog_name="kafka-transactions")
