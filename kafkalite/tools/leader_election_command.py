"""Mirrors Kafka 2.4: core/src/main/scala/kafka/admin/LeaderElectionCommand.scala

The click command ``kafka-leader-election`` (KIP-460): asks the controller, through the admin client's
ElectLeaders (api key 43), to elect the preferred replica (``--election-type PREFERRED``) or any live
replica of a leaderless partition (``UNCLEAN``) for

- one partition: ``--topic t --partition 0``;
- the partitions of a JSON file: ``--path-to-json-file f`` holding ``{"partitions": [{"topic": "t",
  "partition": 0}, ...]}``;
- every partition of the cluster: ``--all-topic-partitions`` (the request's partition list is null, and
  the controller answers only for the partitions that needed an election).

``--admin.config`` names a properties file for the admin client; ``--bootstrap-server`` and a request
timeout of 30 s are set on top of it, as Kafka does. Output, as Kafka prints it:

    Successfully completed leader election (PREFERRED) for partitions t-0, t-2
    Valid replica already elected for partitions t-1
    Error completing leader election (PREFERRED) for partition: nope-0: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: ...

and, when some partition failed, ``kafka.common.AdminCommandFailedException: 1 replica(s) could not be
elected`` on stderr with exit status 1 (the JVM's "Exception in thread "main"" line, without the stack
frames). Bad flags end the same way with Kafka's messages ("Missing required option(s): ...", "One and
only one of the following options is required: ...").

Era notes: 2.4 prints the *succeeded* set on the "Valid replica already elected" line too, a slip Kafka
fixed in 3.0 (KAFKA-12684); kafkalite prints the partitions the line is about. Partitions are listed sorted
(Kafka prints a Scala set, in hash order). Left out: joptsimple's ``--help`` layout (click prints its own).
"""
from __future__ import annotations

import json
import sys

import click

from kafkalite.clients.admin.admin_client import KafkaAdminClient
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import ElectionNotNeededException, Errors
from kafkalite.protocol.messages.elect_leaders import PREFERRED, UNCLEAN

ELECTION_TYPES = {"PREFERRED": PREFERRED, "UNCLEAN": UNCLEAN}   # Kafka: ElectionType
TIMEOUT_MS = 30000   # Kafka: LeaderElectionCommand.main -- run(args, 30.second)


class AdminCommandFailedException(Exception):
    """Kafka: kafka.common.AdminCommandFailedException."""


class AdminOperationException(Exception):
    """Kafka: kafka.admin.AdminOperationException."""


def _sorted(partitions) -> list[TopicPartition]:
    return sorted(partitions, key=lambda tp: (tp.topic, tp.partition))


def _java_exception(e: Exception) -> str:
    """What Java's Throwable.toString prints for a client exception: its class name, then its message."""
    return f"org.apache.kafka.common.errors.{type(e).__name__}: {e}"


def load_props(path: str) -> dict[str, str]:
    """Kafka: Utils.loadProps -- ``key=value`` (or ``key: value``) lines, ``#`` and ``!`` comments."""
    props = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith(("#", "!")):
                continue
            seps = [i for i in (line.find("="), line.find(":")) if i >= 0]
            if not seps:
                props[line] = ""
                continue
            props[line[:min(seps)].strip()] = line[min(seps) + 1:].strip()
    return props


# Kafka: LeaderElectionCommand.parseReplicaElectionData
def parse_replica_election_data(json_string: str) -> set[TopicPartition]:
    try:
        js = json.loads(json_string) if json_string.strip() else None
    except ValueError:
        js = None
    if js is None:
        raise AdminOperationException("Replica election data is empty")
    if not isinstance(js, dict) or "partitions" not in js:
        raise AdminOperationException('Replica election data is missing "partitions" field')
    partitions = [TopicPartition(str(p["topic"]), int(p["partition"])) for p in js["partitions"]]
    duplicates = _sorted({tp for tp in partitions if partitions.count(tp) > 1})
    if duplicates:
        raise AdminOperationException(
            f"Replica election data contains duplicate partitions: {','.join(map(str, duplicates))}")
    return set(partitions)


# Kafka: LeaderElectionCommand.validate
def validate(bootstrap_server, election_type, topic, partition, all_topic_partitions, path_to_json_file) -> None:
    missing = [name for name, value in (("election-type", election_type), ("bootstrap-server", bootstrap_server))
               if value is None]
    if missing:
        raise AdminCommandFailedException(f"Missing required option(s): {', '.join(missing)}")
    given = sum(1 for v in (topic is not None, all_topic_partitions, path_to_json_file is not None) if v)
    if given != 1:
        raise AdminCommandFailedException("One and only one of the following options is required: "
                                          "topic, all-topic-partitions, path-to-json-file")
    if topic is not None and partition is None:
        raise AdminCommandFailedException("Missing required option(s): partition")
    if topic is None and partition is not None:
        raise AdminCommandFailedException("Option partition is only allowed if topic is used")


# Kafka: LeaderElectionCommand.electLeaders
def elect_leaders(client: KafkaAdminClient, election_type: str, topic_partitions: set[TopicPartition] | None,
                  echo=click.echo) -> None:
    try:
        results = client.elect_leaders(ELECTION_TYPES[election_type], topic_partitions, TIMEOUT_MS)
    except Exception as e:   # noqa: BLE001 -- Kafka distinguishes a timeout and a refused authorization
        error = Errors.for_exception(e)
        if error is Errors.REQUEST_TIMED_OUT:
            echo("Timeout waiting for election results")
            raise AdminCommandFailedException("Timeout waiting for election results") from e
        if error is Errors.CLUSTER_AUTHORIZATION_FAILED:
            echo("Not authorized to perform leader election")
            raise AdminCommandFailedException("Not authorized to perform leader election") from e
        echo("Error while making request")
        raise
    succeeded = [tp for tp, error in results.items() if error is None]
    noop = [tp for tp, error in results.items() if isinstance(error, ElectionNotNeededException)]
    failed = {tp: error for tp, error in results.items() if error is not None and tp not in set(noop)}
    if succeeded:
        echo(f"Successfully completed leader election ({election_type}) for partitions "
             f"{', '.join(map(str, _sorted(succeeded)))}")
    if noop:
        echo(f"Valid replica already elected for partitions {', '.join(map(str, _sorted(noop)))}")
    if failed:
        for tp in _sorted(failed):
            echo(f"Error completing leader election ({election_type}) for partition: {tp}: "
                 f"{_java_exception(failed[tp])}")
        raise AdminCommandFailedException(f"{len(failed)} replica(s) could not be elected")


@click.command(name="kafka-leader-election", context_settings={"help_option_names": ["-h", "--help"]},
               help="This tool attempts to elect a new leader for a set of topic partitions. The type of elections "
                    "supported are preferred replicas and unclean replicas.")
@click.option("--bootstrap-server", metavar="host:port",
              help="A hostname and port for the broker to connect to, in the form host:port. Multiple comma "
                   "separated URLs can be given. REQUIRED.")
@click.option("--admin.config", "admin_config", metavar="config file",
              help="Configuration properties files to pass to the admin client")
@click.option("--path-to-json-file", metavar="Path to JSON file",
              help="The JSON file with the list of partition for which leader elections should be performed. "
                   'Example: {"partitions": [{"topic": "foo", "partition": 1}]}. Not allowed if '
                   "--all-topic-partitions or --topic flags are specified.")
@click.option("--topic", metavar="topic name",
              help="Name of topic for which to perform an election. Not allowed if --path-to-json-file or "
                   "--all-topic-partitions is specified.")
@click.option("--partition", type=int, metavar="partition id",
              help="Partition id for which to perform an election. REQUIRED if --topic is specified.")
@click.option("--all-topic-partitions", is_flag=True,
              help="Perform election on all of the eligible topic partitions based on the type of election (see "
                   "the --election-type flag). Not allowed if --topic or --path-to-json-file is specified.")
@click.option("--election-type", type=click.Choice(sorted(ELECTION_TYPES), case_sensitive=False),
              help='Type of election to attempt: "preferred" elects the preferred replica where it does not lead; '
                   '"unclean" elects a live replica where the partition has no leader. REQUIRED.')
def main(bootstrap_server, admin_config, path_to_json_file, topic, partition, all_topic_partitions, election_type):
    """Kafka: LeaderElectionCommand.run."""
    try:
        validate(bootstrap_server, election_type, topic, partition, all_topic_partitions, path_to_json_file)
        election_type = election_type.upper()
        topic_partitions = None   # --all-topic-partitions: every partition
        if path_to_json_file is not None:
            with open(path_to_json_file, encoding="utf-8") as f:
                topic_partitions = parse_replica_election_data(f.read())
        elif topic is not None:
            topic_partitions = {TopicPartition(topic, partition)}
        props = load_props(admin_config) if admin_config else {}
        props.update({"bootstrap.servers": bootstrap_server, "request.timeout.ms": TIMEOUT_MS})
        client = KafkaAdminClient(props)
        try:
            elect_leaders(client, election_type, topic_partitions)
        finally:
            client.close()
    except (AdminCommandFailedException, AdminOperationException) as e:
        package = "kafka.common" if isinstance(e, AdminCommandFailedException) else "kafka.admin"
        click.echo(f'Exception in thread "main" {package}.{type(e).__name__}: {e}', err=True)
        sys.exit(1)
    except Exception as e:   # noqa: BLE001 -- any other failure ends the JVM the same way
        click.echo(f'Exception in thread "main" {type(e).__name__}: {e}', err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
