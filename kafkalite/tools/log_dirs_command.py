"""Mirrors Kafka 2.4: core/src/main/scala/kafka/admin/LogDirsCommand.scala

The command ``kafka-log-dirs --bootstrap-server host:port --describe [--broker-list 0,1] [--topic-list t1,t2]
[--command-config admin.properties]``: which log dirs each broker has and which replicas each dir holds
(KIP-113), through the admin client's DescribeLogDirs. Output, as Kafka prints it:

    Querying brokers for log directories information
    Received log directory information from brokers 0
    {"version":1,"brokers":[{"broker":0,"logDirs":[{"logDir":"/data/a","error":null,"partitions":[
        {"partition":"orders-0","size":1234,"offsetLag":0,"isFuture":false}]}]}]}

(the JSON on one line). ``error`` is the name of the log dir's exception (``KafkaStorageException`` for an
offline dir) or null; ``isFuture`` marks a replica being moved into the dir. Without ``--broker-list`` every
broker of the cluster is asked; ``--topic-list`` keeps those topics' partitions only.
"""
from __future__ import annotations

import json
import sys

import click

from kafkalite.clients.admin.admin_client import KafkaAdminClient
from kafkalite.protocol.errors import Errors
from kafkalite.server.kafka_config import load_properties


# Kafka: LogDirsCommand.formatAsJson
def format_as_json(log_dir_infos_by_broker: dict, topic_set: set) -> str:
    return json.dumps({
        "version": 1,
        "brokers": [{
            "broker": broker,
            "logDirs": [{
                "logDir": log_dir,
                # Kafka: Errors.exceptionName -- null for NONE
                "error": None if info.error is Errors.NONE else info.error.exception_class.__name__,
                "partitions": [{
                    "partition": f"{tp.topic}-{tp.partition}",
                    "size": replica.size,
                    "offsetLag": replica.offset_lag,
                    "isFuture": replica.is_future,
                } for tp, replica in info.replica_infos.items() if not topic_set or tp.topic in topic_set],
            } for log_dir, info in log_dir_infos.items()],
        } for broker, log_dir_infos in log_dir_infos_by_broker.items()],
    }, separators=(",", ":"))


# Kafka: LogDirsCommand.createAdminClient
def create_admin_client(bootstrap_server: str, command_config: str | None) -> KafkaAdminClient:
    props = load_properties(command_config) if command_config else {}
    props["bootstrap.servers"] = bootstrap_server
    props.setdefault("client.id", "log-dirs-tool")
    return KafkaAdminClient(props)


@click.command(name="kafka-log-dirs", context_settings={"help_option_names": ["-h", "--help"]},
               help="This tool helps to query log directory usage on the specified brokers.")
@click.option("--bootstrap-server", help="REQUIRED: the server(s) to use for bootstrapping")
@click.option("--command-config", type=click.Path(exists=True, dir_okay=False),
              help="Property file containing configs to be passed to Admin Client.")
@click.option("--describe", is_flag=True, help="Describe the specified log directories on the specified brokers.")
@click.option("--topic-list", default="", help='The list of topics to be queried in the form "topic1,topic2,topic3". '
                                               "All topics will be queried if no topic list is specified")
@click.option("--broker-list", help='The list of brokers to be queried in the form "0,1,2". All brokers in the '
                                    "cluster will be queried if no broker list is specified")
def main(bootstrap_server, command_config, describe, topic_list, broker_list):
    """Kafka: LogDirsCommand.main / describe."""
    # Kafka: CommandLineUtils.checkRequiredArgs
    for name, value in (("bootstrap-server", bootstrap_server), ("describe", describe)):
        if not value:
            click.echo(f'Missing required argument "[{name}]"', err=True)
            click.echo(click.get_current_context().get_help(), err=True)
            sys.exit(1)
    admin = create_admin_client(bootstrap_server, command_config)
    try:
        topics = {t for t in topic_list.split(",") if t}
        if broker_list is not None:
            brokers = [int(b) for b in broker_list.split(",") if b]
        else:
            brokers = [node.id for node in admin.describe_cluster().nodes]
        click.echo("Querying brokers for log directories information")
        log_dir_infos_by_broker = admin.describe_log_dirs(brokers)
        click.echo(f"Received log directory information from brokers {','.join(map(str, brokers))}")
        click.echo(format_as_json(log_dir_infos_by_broker, topics))
    finally:
        admin.close()


if __name__ == "__main__":
    main()
