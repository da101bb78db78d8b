"""Mirrors Kafka 2.4: core/src/main/scala/kafka/admin/TopicCommand.scala

Classes: TopicCommandOptions (the click command), AdminClientTopicService, TopicDescription,
PartitionDescription -- ``kafka-topics --bootstrap-server``, its output as Kafka 2.4 prints it:

    Created topic t.
    Topic: t	PartitionCount: 3	ReplicationFactor: 1	Configs: segment.bytes=1073741824
    	Topic: t	Partition: 0	Leader: 0	Replicas: 0	Isr: 0

``--describe`` asks through the admin client's describe_topics, which uses DescribeTopicPartitions (KIP-966)
when the broker has it, as Kafka 3.7+'s TopicCommand does (``--partition-size-limit-per-response`` sets the
page size); then the lines are Kafka 3.7's: ``TopicId:`` after the name and ``Elr:`` / ``LastKnownElr:`` at the
end of each partition line (empty lists: kafkalite has no ELR). Against a broker without it (Metadata),
the lines are 2.4's, as above.
``Configs:`` lists the entries whose source is not DEFAULT_CONFIG (Kafka: ``!isDefault``), so broker-wide
settings from server.properties show up as they do in Kafka. ``--list`` prints one name per line,
internal topics included unless ``--exclude-internal``. ``--alter --partitions N`` adds partitions.
Era notes: the DescribeTopicPartitions path and its output are Kafka 3.7's.
Left out: ``--zookeeper`` mode, ``--replica-assignment``, the under-replicated/unavailable filters.
"""
from __future__ import annotations

import base64
import re
import sys

import click

from kafkalite.clients.admin.admin_client import KafkaAdminClient
from kafkalite.clients.admin.admin_types import ConfigResource, ConfigResourceType, NewTopic


def parse_configs(pairs) -> dict[str, str]:
    """Kafka: TopicCommand.parseTopicConfigsToBeAdded -- each ``--config`` is ``k=v``."""
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.UsageError(f"Invalid topic config: all configs to be added must be in the format "
                                   f"\"key=val\": {pair}")
        k, v = pair.split("=", 1)
        out[k.strip()] = v.strip()
    return out


class AdminClientTopicService:
    """Kafka: TopicCommand.AdminClientTopicService."""

    def __init__(self, admin: KafkaAdminClient):
        self.admin = admin

    # Kafka: AdminClientTopicService.getTopics -- a topic name may be a regular expression
    def get_topics(self, topic_whitelist: str | None, exclude_internal_topics: bool = False) -> list[str]:
        listing = self.admin.list_topics(list_internal=not exclude_internal_topics)
        names = sorted(listing)
        if topic_whitelist is None:
            return names
        pattern = re.compile(topic_whitelist.replace(",", "|"))
        return [n for n in names if pattern.fullmatch(n)]

    # Kafka: AdminClientTopicService.createTopic
    def create_topic(self, name: str, partitions: int | None, replication_factor: int | None,
                     configs: dict[str, str], if_not_exists: bool) -> None:
        if replication_factor is not None and not 1 <= replication_factor <= 32767:
            raise ValueError("The replication factor must be between 1 and 32767 inclusive")
        if partitions is not None and partitions < 1:
            raise ValueError("The partitions must be greater than 0")
        if "." in name or "_" in name:
            click.echo("WARNING: Due to limitations in metric names, topics with a period ('.') or underscore "
                       "('_') could collide. To avoid issues it is best to use either, but not both.")
        if name in self.admin.list_topics(list_internal=True):
            if if_not_exists:
                return
            raise ValueError(f"Topic {name} already exists")
        self.admin.create_topics([NewTopic(name, partitions if partitions is not None else -1,
                                           replication_factor if replication_factor is not None else -1,
                                           configs=configs)])
        click.echo(f"Created topic {name}.")

    # Kafka: AdminClientTopicService.listTopics
    def list_topics(self, topic: str | None, exclude_internal: bool) -> None:
        topics = self.get_topics(topic, exclude_internal)
        if topics:
            click.echo("\n".join(topics))

    # Kafka: AdminClientTopicService.alterTopic
    def alter_topic(self, topic: str, partitions: int | None, if_exists: bool) -> None:
        topics = self.get_topics(topic)
        ensure_topic_exists(topics, topic, if_exists)
        if partitions is not None:
            self.admin.create_partitions({t: partitions for t in topics})

    # Kafka: AdminClientTopicService.describeTopic
    def describe_topic(self, topic: str | None, exclude_internal: bool, if_exists: bool,
                       partition_size_limit_per_response: int = 2000) -> None:
        topics = self.get_topics(topic, exclude_internal)
        if topic is not None:
            ensure_topic_exists(topics, topic, if_exists)
        descriptions = self.admin.describe_topics(topics, partition_size_limit_per_response)
        for name in topics:
            td = descriptions[name]
            resource = ConfigResource(ConfigResourceType.TOPIC, name)
            config = self.admin.describe_configs([resource])[resource]
            partitions = sorted(td.partitions, key=lambda p: p.partition)
            replication_factor = len(partitions[0].replicas) if partitions else 0
            # Kafka 3.7's lines when the description came from DescribeTopicPartitions (it carries the ELR lists)
            kip_966 = any(p.elr is not None for p in partitions)
            click.echo(TopicDescription(name, len(partitions), replication_factor, config,
                                        topic_id=td.topic_id if kip_966 else None).description())
            for p in partitions:
                click.echo(PartitionDescription(name, p, show_elr=kip_966).description())

    # Kafka: AdminClientTopicService.deleteTopic
    def delete_topic(self, topic: str, if_exists: bool) -> None:
        topics = self.get_topics(topic, exclude_internal_topics=True)
        ensure_topic_exists(topics, topic, if_exists)
        self.admin.delete_topics(topics)


def uuid_to_base64(topic_id) -> str:
    """Kafka 2.8: Uuid.toString -- the 16 bytes as url-safe base64 without padding."""
    return base64.urlsafe_b64encode(topic_id.bytes).decode().rstrip("=")


def ensure_topic_exists(found: list[str], requested: str | None, if_exists: bool) -> None:
    """Kafka: TopicCommand.ensureTopicExists."""
    if not found and not if_exists:
        raise ValueError(f"Topic '{requested}' does not exist as expected")


class TopicDescription:
    """Kafka: TopicCommand.TopicDescription."""

    def __init__(self, topic: str, num_partitions: int, replication_factor: int, config, marked_for_deletion=False,
                 topic_id=None):
        self.topic, self.num_partitions, self.replication_factor = topic, num_partitions, replication_factor
        self.config, self.marked_for_deletion, self.topic_id = config, marked_for_deletion, topic_id

    # Kafka: TopicDescription.printDescription (Kafka 3.7: "TopicId:" unless the id is zero)
    def description(self) -> str:
        configs = ",".join(f"{c.name}={c.value}" for c in self.config if not c.is_default())
        topic_id = f"\tTopicId: {uuid_to_base64(self.topic_id)}" if self.topic_id and self.topic_id.int else ""
        return (f"Topic: {self.topic}{topic_id}\tPartitionCount: {self.num_partitions}\t"
                f"ReplicationFactor: {self.replication_factor}\tConfigs: {configs}"
                + ("\tMarkedForDeletion: true" if self.marked_for_deletion else ""))


class PartitionDescription:
    """Kafka: TopicCommand.PartitionDescription."""

    def __init__(self, topic: str, info, marked_for_deletion: bool = False, show_elr: bool = False):
        self.topic, self.info, self.marked_for_deletion, self.show_elr = topic, info, marked_for_deletion, show_elr

    @staticmethod
    def _ids(nodes) -> str:
        return "N/A" if nodes is None else ",".join(str(n.id) for n in nodes)

    # Kafka: PartitionDescription.printDescription
    def description(self) -> str:
        leader = self.info.leader.id if self.info.leader is not None and self.info.leader.id >= 0 else "none"
        return (f"\tTopic: {self.topic}\tPartition: {self.info.partition}\tLeader: {leader}\t"
                f"Replicas: {','.join(str(n.id) for n in self.info.replicas)}\t"
                f"Isr: {','.join(str(n.id) for n in self.info.isr)}"
                # Kafka 3.7: PartitionDescription.printDescription's Elr / LastKnownElr columns
                + (f"\tElr: {self._ids(self.info.elr)}\tLastKnownElr: {self._ids(self.info.last_known_elr)}"
                   if self.show_elr else "")
                + ("\tMarkedForDeletion: true" if self.marked_for_deletion else ""))


@click.command(name="kafka-topics", context_settings={"help_option_names": ["-h", "--help"]},
               help="This tool helps to create, delete, describe, or change a topic.")
@click.option("--bootstrap-server", required=True, help="REQUIRED: The Kafka server to connect to.")
@click.option("--create", is_flag=True, help="Create a new topic.")
@click.option("--list", "list_", is_flag=True, help="List all available topics.")
@click.option("--describe", is_flag=True, help="List details for the given topics.")
@click.option("--delete", is_flag=True, help="Delete a topic")
@click.option("--alter", is_flag=True, help="Alter the number of partitions of a topic.")
@click.option("--topic", help="The topic to create, alter, describe or delete. Accepts a regular expression.")
@click.option("--partitions", type=int, help="The number of partitions for the topic being created or altered.")
@click.option("--replication-factor", type=int, help="The replication factor for each partition.")
@click.option("--config", multiple=True, help="A topic configuration override: key=value.")
@click.option("--if-exists", is_flag=True, help="Only execute if the topic exists.")
@click.option("--if-not-exists", is_flag=True, help="Only create the topic if it does not exist.")
@click.option("--exclude-internal", is_flag=True, help="Exclude internal topics when listing or describing.")
@click.option("--command-config", type=click.Path(), help="Accepted for compatibility; ignored.")
@click.option("--partition-size-limit-per-response", type=int, default=2000,
              help="The maximum partition size to be included in one DescribeTopicPartitions response.")
def main(bootstrap_server, create, list_, describe, delete, alter, topic, partitions, replication_factor, config,
         if_exists, if_not_exists, exclude_internal, command_config, partition_size_limit_per_response):
    """Kafka: TopicCommand.main."""
    actions = sum([create, list_, describe, delete, alter])
    if actions != 1:
        raise click.UsageError("Command must include exactly one action: --list, --describe, --create, --alter "
                               "or --delete")
    if (create or delete or alter) and not topic:
        raise click.UsageError("Missing required argument \"[topic]\"")
    admin = KafkaAdminClient({"bootstrap.servers": bootstrap_server, "default.api.timeout.ms": 30000})
    service = AdminClientTopicService(admin)
    exit_code = 0
    try:
        if create:
            service.create_topic(topic, partitions, replication_factor, parse_configs(config), if_not_exists)
        elif list_:
            service.list_topics(topic, exclude_internal)
        elif alter:
            service.alter_topic(topic, partitions, if_exists)
        elif describe:
            service.describe_topic(topic, exclude_internal, if_exists, partition_size_limit_per_response)
        elif delete:
            service.delete_topic(topic, if_exists)
    except Exception as e:   # noqa: BLE001 -- Kafka prints the message and exits 1
        click.echo(f"Error while executing topic command : {e}")
        exit_code = 1
    finally:
        admin.close()
    sys.exit(exit_code)


if __name__ == "__main__":
    main()
