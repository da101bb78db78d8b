"""Mirrors Kafka 2.4: core/src/main/scala/kafka/admin/ConsumerGroupCommand.scala

Classes: PartitionAssignmentState, ConsumerGroupService, and the click command ``kafka-consumer-groups``:
``--list``; ``--describe --group g`` (offsets and lag, Kafka's columns GROUP TOPIC PARTITION
CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID, each at least 15 wide for the group,
topic, consumer id and host columns and widened to the longest value); ``--reset-offsets --group g
--topic t --to-earliest|--to-latest|--to-offset N --dry-run|--execute`` (prints GROUP TOPIC PARTITION
NEW-OFFSET; without either flag it warns and does a dry run, as 2.4 does); ``--delete --group g``;
``--delete-offsets --group g --topic t[:p,p...]`` (KIP-496: OffsetDelete; a topic without partitions means all
its partitions; prints Kafka's top-level line, then TOPIC PARTITION STATUS rows, "Successful" or
"Error: <why>", and "Not Provided" for a topic that could not be described).
A missing value prints "-". Messages for empty, rebalancing and unknown groups are Kafka's.
Differences: a failed partition's "Error: ..." text is kafkalite's own wording, not the Java exception's.
``--describe --members [--verbose]`` (GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS [ASSIGNMENT]) and
``--describe --state`` (GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE #MEMBERS), Kafka 2.4's formats; a
consumer-protocol group (KIP-848) is described through ConsumerGroupDescribe (its assignor is the
ASSIGNMENT-STRATEGY, its states Assigning / Reconciling count as rebalancing).
Left out: ``--all-groups``, ``--export``, ``--to-datetime``, ``--shift-by``, ``--by-duration``.
"""
from __future__ import annotations

import sys

import attrs
import click

from kafkalite.clients.admin.admin_client import KafkaAdminClient
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import ApiException, Errors

MISSING_COLUMN_VALUE = "-"


@attrs.define
class PartitionAssignmentState:
    """Kafka: ConsumerGroupCommand.PartitionAssignmentState."""
    group: str
    topic: str | None
    partition: int | None
    offset: int | None
    lag: int | None
    consumer_id: str | None
    host: str | None
    client_id: str | None
    log_end_offset: int | None


def _v(value) -> str:
    return MISSING_COLUMN_VALUE if value is None else str(value)


class ConsumerGroupService:
    """Kafka: ConsumerGroupCommand.ConsumerGroupService."""

    def __init__(self, admin: KafkaAdminClient):
        self.admin = admin

    # Kafka: ConsumerGroupService.listGroups
    def list_groups(self) -> list[str]:
        return sorted(g.group_id for g in self.admin.list_consumer_groups())

    # Kafka: ConsumerGroupService.deleteOffsets(groupId, topics) -- "t:0,1" names partitions, "t" all of t's;
    # returns (top-level error, {tp: None or its error}); a topic that cannot be described is (t, -1)
    def delete_offsets(self, group_id: str, topics: list[str]):
        partition_results: dict = {}
        partitions = []
        for arg in topics:
            if ":" in arg:
                topic, parts = arg.split(":", 1)
                partitions += [TopicPartition(topic, int(p)) for p in parts.split(",")]
                continue
            try:
                description = self.admin.describe_topics([arg])[arg]
                partitions += [TopicPartition(arg, p.partition) for p in description.partitions]
            except ApiException as e:
                partition_results[TopicPartition(arg, -1)] = e.error
        top_level = Errors.NONE
        try:
            errors = self.admin.delete_consumer_group_offsets(group_id, partitions)
        except ApiException as e:   # a group-level error fails every partition's future with it
            top_level, errors = e.error, {tp: e.error for tp in partitions}
        for tp in partitions:
            error = errors.get(tp, Errors.UNKNOWN_SERVER_ERROR)
            partition_results[tp] = None if error is Errors.NONE else error
            if top_level is Errors.NONE and error is not Errors.NONE:
                top_level = error   # Kafka: DeleteConsumerGroupOffsetsResult.all fails with a partition's error
        return top_level, partition_results

    # Kafka: ConsumerGroupService.collectGroupOffsets -- (state, rows or None)
    def collect_group_offsets(self, group_id: str):
        description = self.admin.describe_consumer_groups([group_id])[group_id]
        if description.state == "Dead":
            return "Dead", None
        committed = self.admin.list_consumer_group_offsets(group_id)
        assigned_tps = [tp for m in description.members for tp in m.assignment]
        all_tps = sorted(set(assigned_tps) | set(committed), key=lambda tp: (tp.topic, tp.partition))
        end_offsets = self.admin.list_offsets({tp: -1 for tp in all_tps}) if all_tps else {}

        def row(tp, member):
            offset = committed[tp].offset if tp in committed else None
            end = end_offsets.get(tp)
            lag = end - offset if end is not None and offset is not None else None
            return PartitionAssignmentState(group_id, tp.topic, tp.partition, offset, lag,
                                            member.member_id if member else MISSING_COLUMN_VALUE,
                                            member.host if member else MISSING_COLUMN_VALUE,
                                            member.client_id if member else MISSING_COLUMN_VALUE, end)

        rows = []
        # members with partitions first, the most partitions first (Kafka sorts them so)
        for member in sorted((m for m in description.members if m.assignment),
                             key=lambda m: -len(m.assignment)):
            for tp in sorted(member.assignment, key=lambda tp: (tp.topic, tp.partition)):
                rows.append(row(tp, member))
        for tp in all_tps:
            if tp not in set(assigned_tps):
                rows.append(row(tp, None))
        if not rows and not description.members:
            return description.state, [] if description.state != "Dead" else None
        return description.state, rows

    # Kafka: ConsumerGroupService.printOffsets (with shouldPrintMemberState)
    def describe_group(self, group_id: str, members: bool = False, state_only: bool = False,
                       verbose: bool = False) -> int:
        try:
            if members or state_only:
                description = self.admin.describe_consumer_groups([group_id])[group_id]
                state, rows = description.state, list(description.members)
            else:
                state, rows = self.collect_group_offsets(group_id)
        except Exception as e:   # noqa: BLE001
            click.echo(f"\nError: Executing consumer group command failed due to {e}")
            return 1
        if rows is None or state == "Dead":
            click.echo(f"\nError: Consumer group '{group_id}' does not exist.")
            return 0
        if state_only:   # Kafka: printStates -- printed for an empty group too
            click.echo("\n".join(format_state(description)))
            return 0
        if state == "Empty":
            click.echo(f"\nConsumer group '{group_id}' has no active members.", err=True)
        elif state in ("PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling"):   # KIP-848 states too
            click.echo(f"\nWarning: Consumer group '{group_id}' is rebalancing.", err=True)
        if not rows:
            return 0
        click.echo("\n".join(format_members(group_id, rows, verbose) if members else format_offsets(rows)))
        return 0

    # Kafka: ConsumerGroupService.resetOffsets
    def reset_offsets(self, group_id: str, topics: list[str], to_earliest: bool, to_latest: bool,
                      to_offset: int | None, execute: bool) -> dict[TopicPartition, int]:
        description = self.admin.describe_consumer_groups([group_id])[group_id]
        if description.state not in ("Empty", "Dead"):
            raise RuntimeError(f"Assignments can only be reset if the group '{group_id}' is inactive, but the "
                               f"current state is {description.state}.")
        partitions = []
        described = self.admin.describe_topics(topics)
        for t in topics:
            partitions += [TopicPartition(t, p.partition) for p in described[t].partitions]
        if to_earliest:
            new = self.admin.list_offsets({tp: -2 for tp in partitions})
        elif to_latest:
            new = self.admin.list_offsets({tp: -1 for tp in partitions})
        else:
            earliest = self.admin.list_offsets({tp: -2 for tp in partitions})
            latest = self.admin.list_offsets({tp: -1 for tp in partitions})
            # Kafka: checkOffsetsRange -- clamp into [log start, log end]
            new = {tp: min(max(to_offset, earliest[tp]), latest[tp]) for tp in partitions}
        if execute:
            self.admin.alter_consumer_group_offsets(group_id, new)
        return new


# the partition-level reasons --delete-offsets prints after "Error: " (kafkalite's words)
DELETE_OFFSETS_REASONS = {
    Errors.GROUP_SUBSCRIBED_TO_TOPIC: "The group's consumers are subscribed to this topic.",
    Errors.UNKNOWN_TOPIC_OR_PARTITION: "No such topic or partition on the broker.",
    Errors.TOPIC_AUTHORIZATION_FAILED: "Not authorized to read this topic.",
    Errors.GROUP_ID_NOT_FOUND: "The group does not exist.",
    Errors.NON_EMPTY_GROUP: "The group is not empty.",
    Errors.GROUP_AUTHORIZATION_FAILED: "Not authorized to delete the group's offsets.",
}


def _reason(error) -> str:
    if isinstance(error, Errors):
        return DELETE_OFFSETS_REASONS.get(error, error.name)
    return str(error)


# Kafka: ConsumerGroupService.deleteOffsets() -- the top-level line, then one row per partition
def format_delete_offsets(group_id: str, topics: list[str], top_level: Errors, partition_results: dict) -> list[str]:
    if top_level is Errors.NONE:
        lines = [f"Request succeed for deleting offsets with topic {', '.join(topics)} group {group_id}"]
    else:
        message = {
            Errors.INVALID_GROUP_ID: f"'{group_id}' is not valid.",
            Errors.GROUP_ID_NOT_FOUND: f"'{group_id}' does not exist.",
            Errors.GROUP_AUTHORIZATION_FAILED: f"Access to '{group_id}' is not authorized.",
            Errors.NON_EMPTY_GROUP: f"Deleting offsets of a consumer group '{group_id}' is forbidden if the group "
                                    f"is not empty.",
            Errors.GROUP_SUBSCRIBED_TO_TOPIC: "Encounter some partition level error, see the follow-up details:",
            Errors.TOPIC_AUTHORIZATION_FAILED: "Encounter some partition level error, see the follow-up details:",
            Errors.UNKNOWN_TOPIC_OR_PARTITION: "Encounter some partition level error, see the follow-up details:",
        }.get(top_level, f"Encounter some unknown error: {top_level.name}")
        lines = [f"\nError: {message}"]
    lines.append("\n%-30s %-15s %-15s" % ("TOPIC", "PARTITION", "STATUS"))
    for tp, error in sorted(partition_results.items(), key=lambda item: item[0].topic + str(item[0].partition)):
        lines.append("%-30s %-15s %-15s" % (tp.topic, tp.partition if tp.partition >= 0 else "Not Provided",
                                            "Successful" if error is None else f"Error: {_reason(error)}"))
    return lines


def format_offsets(rows: list[PartitionAssignmentState]) -> list[str]:
    """Kafka: printOffsets -- the header line (after a blank line) and one line per row."""
    g = max([15] + [len(r.group) for r in rows])
    t = max([15] + [len(_v(r.topic)) for r in rows])
    c = max([15] + [len(_v(r.consumer_id)) for r in rows])
    h = max([15] + [len(_v(r.host)) for r in rows])

    def line(*cols):
        return (f"{cols[0]:<{g}} {cols[1]:<{t}} {cols[2]:<10} {cols[3]:<15} {cols[4]:<15} {cols[5]:<15} "
                f"{cols[6]:<{c}} {cols[7]:<{h}} {cols[8]}")

    out = ["\n" + line("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID",
                       "HOST", "CLIENT-ID")]
    for r in rows:
        out.append(line(r.group, _v(r.topic), _v(r.partition), _v(r.offset), _v(r.log_end_offset), _v(r.lag),
                        _v(r.consumer_id), _v(r.host), _v(r.client_id)))
    return out


def format_members(group_id: str, members, verbose: bool) -> list[str]:
    """Kafka: ConsumerGroupService.printMembers -- one line per member, columns at least 15 wide."""
    widths = [max([15, len(group_id)]), max([15, *(len(m.member_id) for m in members)]),
              max([15, *(len(m.host) for m in members)]), max([15, *(len(m.client_id) for m in members)])]

    def line(cols, last):
        return " ".join(f"%-{w}s" % c for w, c in zip(widths, cols)) + " %-15s " % last

    out = ["", line(("GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID"), "#PARTITIONS") + ("ASSIGNMENT" if verbose else "")]
    for m in members:
        text = line((group_id, m.member_id, m.host, m.client_id), len(m.assignment))
        if verbose:
            by_topic: dict[str, list[int]] = {}
            for tp in m.assignment:
                by_topic.setdefault(tp.topic, []).append(tp.partition)
            text += ", ".join(sorted(f"{t}({','.join(map(str, sorted(ps)))})" for t, ps in by_topic.items())) \
                or MISSING_COLUMN_VALUE
        out.append(text)
    return out


def format_state(description) -> list[str]:
    """Kafka: ConsumerGroupService.printStates."""
    c = description.coordinator
    coordinator = f"{c.host}:{c.port} ({c.id})" if c is not None else MISSING_COLUMN_VALUE
    w = max(25, len(coordinator))
    fmt = f"%-{w}s %-25s %-20s %-15s %s"
    return ["", fmt % ("GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS"),
            fmt % (description.group_id, coordinator, description.partition_assignor or "", description.state,
                   len(description.members))]


def format_offsets_to_reset(group_id: str, offsets: dict[TopicPartition, int]) -> list[str]:
    """Kafka: printOffsetsToReset."""
    out = ["\n%-30s %-30s %-10s %-15s" % ("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET")] if offsets else []
    for tp in sorted(offsets, key=lambda tp: (tp.topic, tp.partition)):
        out.append("%-30s %-30s %-10s %-15s" % (group_id, tp.topic, tp.partition, offsets[tp]))
    return out


@click.command(name="kafka-consumer-groups", context_settings={"help_option_names": ["-h", "--help"]},
               help="This tool helps to list all consumer groups, describe a consumer group, delete consumer "
                    "group info, or reset consumer group offsets.")
@click.option("--bootstrap-server", required=True, help="REQUIRED: The server(s) to connect to.")
@click.option("--list", "list_", is_flag=True, help="List all consumer groups.")
@click.option("--describe", is_flag=True, help="Describe consumer group and list offset lag.")
@click.option("--delete", is_flag=True, help="Pass in groups to delete topic partition offsets.")
@click.option("--reset-offsets", is_flag=True, help="Reset offsets of consumer group.")
@click.option("--delete-offsets", is_flag=True,
              help="Delete offsets of consumer group. One consumer group at a time, and several topics.")
@click.option("--group", "groups", multiple=True, help="The consumer group we wish to act on.")
@click.option("--members", is_flag=True, help="Describe members of the group (with --describe).")
@click.option("--state", "state_", is_flag=True, help="Describe the group state (with --describe).")
@click.option("--verbose", is_flag=True, help="With --describe --members: each member's partitions.")
@click.option("--topic", "topics", multiple=True, help="The topic whose consumer group offsets are reset.")
@click.option("--to-earliest", is_flag=True)
@click.option("--to-latest", is_flag=True)
@click.option("--to-offset", type=int)
@click.option("--dry-run", is_flag=True)
@click.option("--execute", is_flag=True)
@click.option("--timeout", type=int, default=5000)
def main(bootstrap_server, list_, describe, delete, reset_offsets, delete_offsets, groups, members, state_, verbose,
         topics, to_earliest, to_latest, to_offset, dry_run, execute, timeout):
    """Kafka: ConsumerGroupCommand.main / run."""
    if sum([list_, describe, delete, reset_offsets, delete_offsets]) != 1:
        raise click.UsageError("Command must include exactly one action: --list, --describe, --delete, "
                               "--reset-offsets, --delete-offsets")
    if (describe or delete or reset_offsets or delete_offsets) and not groups:
        raise click.UsageError("Option --describe/--delete/--reset-offsets/--delete-offsets takes one of these "
                               "options: --group")
    if delete_offsets and (len(groups) != 1 or not topics):
        raise click.UsageError("Option --delete-offsets takes the following options: --group, --topic "
                               "(one group, one or more topics)")
    admin = KafkaAdminClient({"bootstrap.servers": bootstrap_server, "default.api.timeout.ms": max(timeout, 10000)})
    service = ConsumerGroupService(admin)
    code = 0
    try:
        if list_:
            for g in service.list_groups():
                click.echo(g)
        elif describe:
            if members and state_:
                raise click.UsageError("Option --describe takes at most one of these options: --members, --state")
            for g in groups:
                code |= service.describe_group(g, members, state_, verbose)
        elif delete:
            admin.delete_consumer_groups(list(groups))
            click.echo("Deletion of requested consumer groups (" + ", ".join(f"'{g}'" for g in groups)
                       + ") was successful.")
        elif delete_offsets:
            top_level, results = service.delete_offsets(groups[0], list(topics))
            click.echo("\n".join(format_delete_offsets(groups[0], list(topics), top_level, results)))
            code = 0 if top_level is Errors.NONE else 1
        elif reset_offsets:
            if dry_run and execute:
                raise click.UsageError("Option --reset-offsets only accepts one of --execute and --dry-run")
            if sum([to_earliest, to_latest, to_offset is not None]) != 1:
                raise click.UsageError("Option --reset-offsets takes exactly one of --to-earliest, --to-latest, "
                                       "--to-offset")
            if not topics:
                raise click.UsageError("Option --reset-offsets takes the option: --topic")
            if not dry_run and not execute:
                click.echo("WARN: No action will be performed as the --execute option is missing.In a future "
                           "major release, the default behavior of this command will be to prompt the user "
                           "before executing the reset rather than doing a dry run. You should add the "
                           "--dry-run option explicitly if you are scripting this command and want to keep the "
                           "current default behavior without prompting.", err=True)
            for g in groups:
                offsets = service.reset_offsets(g, list(topics), to_earliest, to_latest, to_offset, execute)
                click.echo("\n".join(format_offsets_to_reset(g, offsets)))
    except click.UsageError:
        raise
    except Exception as e:   # noqa: BLE001 -- Kafka: printError
        click.echo(f"\nError: Executing consumer group command failed due to {e}")
        code = 1
    finally:
        admin.close()
    sys.exit(code)


if __name__ == "__main__":
    main()
