"""Mirrors Kafka 2.4: core/src/main/scala/kafka/admin/ReassignPartitionsCommand.scala (its admin-client form,
which arrived in Kafka 2.6: see the era notes)

Classes: PartitionReassignmentState, ReassignmentFailure and the click command -- ``kafka-reassign-partitions
--bootstrap-server``, with Kafka's JSON files and output:

    --generate --topics-to-move-json-file topics.json --broker-list 1,2
        Current partition replica assignment / Proposed partition reassignment configuration (JSON, version 1)
    --execute --reassignment-json-file plan.json [--throttle <B/s>] [--replica-alter-log-dirs-throttle <B/s>]
        the current assignment of the partitions in the plan (to roll back with), then
        "Successfully started partition reassignment for t-0"; with --throttle, first the replication
        quotas: the topic configs leader.replication.throttled.replicas (each moving partition's current
        replicas, "p:b") and follower.replication.throttled.replicas (its new replicas), and the rates
        leader.replication.throttled.rate / follower.replication.throttled.rate on every broker involved
    --verify --reassignment-json-file plan.json [--preserve-throttles]
        "Status of partition reassignment:" and, per partition, "... is complete." / "... is still in progress.";
        once nothing is in progress, "Clearing broker-level throttles on brokers 0,1,2" and "Clearing
        topic-level throttles on topic t" (the rates deleted on every broker, the lists on the plan's topics)
    --list      "Current partition reassignments:" and "t-0: replicas: 1,2,0. adding: 2. removing: 0."
    --cancel --reassignment-json-file plan.json
        "Successfully cancelled partition reassignment for: t-0"

A plan file is ``{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]}`` (``log_dirs``
may follow, "any" for each replica). The controller does the moving (``KafkaController.onPartitionReassignment``);
the tool only asks (AlterPartitionReassignments) and reads (ListPartitionReassignments, Metadata).

Era notes: Kafka 2.4's tool wrote the plan to ZooKeeper (``--zookeeper``, ``/admin/reassign_partitions``);
kafkalite's default broker has no ZooKeeper to point at, so this is 2.6's tool (KIP-455 through the admin
client), flags and messages included. ``--replica-alter-log-dirs-throttle`` sets
``replica.alter.log.dirs.io.max.bytes.per.second`` on the brokers of the plan's log dir moves, which kafkalite's
tool does not make (below): so, as Kafka's tool with no such move, it sets nothing. Left out: log dir moves
(``log_dirs`` other than "any": use ``kafka-log-dirs``' AlterReplicaLogDirs), ``--zookeeper``,
``--disable-rack-aware`` (no racks).
"""
from __future__ import annotations

import json
import sys

import attrs
import click

from kafkalite.clients.admin.admin_client import KafkaAdminClient
from kafkalite.clients.admin.admin_types import AlterConfigOp, ConfigResource, ConfigResourceType, OpType
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.zk.admin_zk_client import assign_replicas_to_brokers

ANY_LOG_DIR = "any"   # Kafka: ReassignPartitionsCommand.AnyLogDir
CANNOT_EXECUTE_BECAUSE_OF_EXISTING_MESSAGE = (
    "Cannot execute because there is an existing partition assignment.  Use --additional to override this and "
    "create a new partition assignment in addition to the existing one.")


# Kafka 2.6: ReassignPartitionsCommand.brokerLevelThrottles / topicLevelThrottles
BROKER_LEVEL_LEADER_THROTTLE = "leader.replication.throttled.rate"
BROKER_LEVEL_FOLLOWER_THROTTLE = "follower.replication.throttled.rate"
BROKER_LEVEL_LOG_DIR_THROTTLE = "replica.alter.log.dirs.io.max.bytes.per.second"
BROKER_LEVEL_THROTTLES = (BROKER_LEVEL_LEADER_THROTTLE, BROKER_LEVEL_FOLLOWER_THROTTLE, BROKER_LEVEL_LOG_DIR_THROTTLE)
TOPIC_LEVEL_LEADER_THROTTLE = "leader.replication.throttled.replicas"
TOPIC_LEVEL_FOLLOWER_THROTTLE = "follower.replication.throttled.replicas"
TOPIC_LEVEL_THROTTLES = (TOPIC_LEVEL_LEADER_THROTTLE, TOPIC_LEVEL_FOLLOWER_THROTTLE)
YOU_MUST_RUN_VERIFY_PERIODICALLY_MESSAGE = ("Warning: You must run --verify periodically, until the reassignment "
                                            "completes, to ensure the throttle is removed.")


class ReassignmentFailure(Exception):
    """Kafka: TerseReassignmentFailureException / AdminCommandFailedException -- printed as is, exit code 1."""


@attrs.frozen
class PartitionReassignmentState:
    """Kafka: PartitionReassignmentState(currentReplicas, targetReplicas, done)."""
    current_replicas: tuple[int, ...]
    target_replicas: tuple[int, ...]
    done: bool


def _tp_key(tp: TopicPartition):
    return tp.topic, tp.partition


# Kafka: ReassignPartitionsCommand.formatAsReassignmentJson -- compact, partitions sorted, "any" log dirs
def format_as_reassignment_json(assignment: dict[TopicPartition, list[int]]) -> str:
    return json.dumps({"version": 1, "partitions": [
        {"topic": tp.topic, "partition": tp.partition, "replicas": list(assignment[tp]),
         "log_dirs": [ANY_LOG_DIR] * len(assignment[tp])}
        for tp in sorted(assignment, key=_tp_key)]}, separators=(",", ":"))


def _parse_json(text: str) -> dict:
    try:
        js = json.loads(text)
    except ValueError:
        raise ReassignmentFailure("The input string is not a valid JSON") from None
    version = js.get("version", 1)
    if version != 1:
        raise ReassignmentFailure(f"Not supported version field value {version}")
    return js


# Kafka: ReassignPartitionsCommand.parseTopicsData
def parse_topics_data(text: str) -> list[str]:
    return [t["topic"] for t in _parse_json(text).get("topics", [])]


# Kafka: ReassignPartitionsCommand.parsePartitionReassignmentData -- (tp, replicas) in file order, duplicates kept
def parse_partition_reassignment_data(text: str) -> list[tuple[TopicPartition, list[int]]]:
    out = []
    for p in _parse_json(text).get("partitions", []):
        tp, replicas = TopicPartition(p["topic"], int(p["partition"])), [int(r) for r in p["replicas"]]
        log_dirs = p.get("log_dirs", [ANY_LOG_DIR] * len(replicas))
        if len(log_dirs) != len(replicas):
            raise ReassignmentFailure(f"Size of replicas list {replicas} is different from size of log dirs list "
                                      f"{log_dirs} for partition {tp}")
        if any(d != ANY_LOG_DIR for d in log_dirs):
            raise ReassignmentFailure(f"Moving replicas of {tp} between log directories is not supported by this "
                                      f"tool in kafkalite; use kafka-log-dirs")
        out.append((tp, replicas))
    return out


def _duplicates(items) -> list:
    seen, dup = set(), []
    for i in items:
        if i in seen and i not in dup:
            dup.append(i)
        seen.add(i)
    return dup


# Kafka 2.6: ReassignPartitionsCommand.parseExecuteAssignmentArgs
def parse_execute_assignment_args(text: str) -> dict[TopicPartition, list[int]]:
    parts = parse_partition_reassignment_data(text)
    if not parts:
        raise ReassignmentFailure("Partition reassignment list cannot be empty")
    if any(not replicas for _, replicas in parts):
        raise ReassignmentFailure("Partition replica list cannot be empty")
    dup_parts = _duplicates(tp for tp, _ in parts)
    if dup_parts:
        raise ReassignmentFailure(f"Partition reassignment contains duplicate topic partitions: "
                                  f"{','.join(map(str, dup_parts))}")
    dup_entries = [(tp, _duplicates(replicas)) for tp, replicas in parts if _duplicates(replicas)]
    if dup_entries:
        raise ReassignmentFailure("Partition replica lists may not contain duplicate entries: " + ". ".join(
            f"{tp} contains multiple entries for {','.join(map(str, d))}" for tp, d in dup_entries))
    return dict(parts)


def current_replicas(admin: KafkaAdminClient, topics) -> dict[TopicPartition, list[int]]:
    """Kafka: ReassignPartitionsCommand.getReplicaAssignmentForTopics (describeTopics)."""
    out = {}
    for name, description in admin.describe_topics(sorted(set(topics))).items():
        for info in description.partitions:
            out[TopicPartition(name, info.partition)] = [n.id for n in info.replicas]
    return out


# Kafka: ReassignPartitionsCommand.generateAssignment / calculateAssignment -- each topic spread over the
# brokers with AdminUtils' round robin from a random start, keeping its partition count and replication factor
def generate_assignment(admin: KafkaAdminClient, topics_json: str, broker_list: str
                        ) -> tuple[dict[TopicPartition, list[int]], dict[TopicPartition, list[int]]]:
    brokers = [int(b) for b in broker_list.split(",")]
    if _duplicates(brokers):
        raise ReassignmentFailure(f"Broker list contains duplicate entries: {','.join(map(str, _duplicates(brokers)))}")
    topics = parse_topics_data(topics_json)
    if _duplicates(topics):
        raise ReassignmentFailure(f"List of topics to reassign contains duplicate entries: "
                                  f"{','.join(_duplicates(topics))}")
    current = current_replicas(admin, topics)
    proposed = {}
    for topic in topics:
        parts = sorted((tp for tp in current if tp.topic == topic), key=_tp_key)
        for p, replicas in assign_replicas_to_brokers(brokers, len(parts), len(current[parts[0]])).items():
            proposed[TopicPartition(topic, p)] = replicas
    click.echo(f"Current partition replica assignment\n{format_as_reassignment_json(current)}\n")
    click.echo(f"Proposed partition reassignment configuration\n{format_as_reassignment_json(proposed)}")
    return proposed, current


@attrs.define
class PartitionMove:
    """Kafka 2.6: PartitionMove(sources, destinations) -- where a partition's data is and where it goes."""
    sources: set
    destinations: set


# Kafka 2.6: ReassignPartitionsCommand.calculateMoveMap -- topic -> partition -> PartitionMove: the moves in
# progress and the proposed ones (which replace them), sources the current replicas, destinations the new ones
def calculate_move_map(current_reassignments: dict, proposed: dict, current_parts: dict) -> dict:
    move_map: dict[str, dict[int, PartitionMove]] = {}
    for tp, r in current_reassignments.items():
        move = PartitionMove(set(r.replicas), (set(r.replicas) | set(r.adding_replicas)) - set(r.removing_replicas))
        move_map.setdefault(tp.topic, {})[tp.partition] = move
    for tp, replicas in proposed.items():
        move_map.setdefault(tp.topic, {})[tp.partition] = PartitionMove(set(), set(replicas))
    for topic, moves in move_map.items():
        for partition, move in moves.items():
            move.sources |= set(current_parts.get(TopicPartition(topic, partition), ()))
            move.destinations -= move.sources   # a source already has the data: no follower throttle for it
    return move_map


# Kafka 2.6: ReassignPartitionsCommand.calculateLeaderThrottles -- "p:b" for every source, sorted as strings
def calculate_leader_throttles(move_map: dict) -> dict[str, str]:
    return {topic: ",".join(sorted({f"{p}:{b}" for p, move in moves.items() for b in move.sources}))
            for topic, moves in move_map.items()}


# Kafka 2.6: ReassignPartitionsCommand.calculateFollowerThrottles -- "p:b" for every destination
def calculate_follower_throttles(move_map: dict) -> dict[str, str]:
    return {topic: ",".join(sorted({f"{p}:{b}" for p, move in moves.items() for b in move.destinations
                                    if b not in move.sources}))
            for topic, moves in move_map.items()}


# Kafka 2.6: ReassignPartitionsCommand.calculateReassigningBrokers
def calculate_reassigning_brokers(move_map: dict) -> set[int]:
    return {b for moves in move_map.values() for move in moves.values() for b in move.sources | move.destinations}


# Kafka 2.6: ReassignPartitionsCommand.modifyTopicThrottles
def modify_topic_throttles(admin: KafkaAdminClient, leader_throttles: dict, follower_throttles: dict) -> None:
    configs = {}
    for topic in sorted(set(leader_throttles) | set(follower_throttles)):
        ops = [AlterConfigOp(name, throttles[topic], OpType.SET)
               for name, throttles in ((TOPIC_LEVEL_LEADER_THROTTLE, leader_throttles),
                                       (TOPIC_LEVEL_FOLLOWER_THROTTLE, follower_throttles)) if topic in throttles]
        if ops:
            configs[ConfigResource(ConfigResourceType.TOPIC, topic)] = ops
    admin.incremental_alter_configs(configs)


# Kafka 2.6: ReassignPartitionsCommand.modifyBrokerThrottles -- the inter-broker rate (leader and follower) on
# the reassigning brokers, the log dir rate on the brokers moving replicas between their dirs
def modify_broker_throttles(admin: KafkaAdminClient, reassigning_brokers: set, inter_broker_throttle: int,
                            moving_brokers: set, log_dir_throttle: int) -> None:
    configs = {}
    for broker_id in sorted(reassigning_brokers | moving_brokers):
        ops = []
        if inter_broker_throttle >= 0 and broker_id in reassigning_brokers:
            ops += [AlterConfigOp(BROKER_LEVEL_LEADER_THROTTLE, str(inter_broker_throttle), OpType.SET),
                    AlterConfigOp(BROKER_LEVEL_FOLLOWER_THROTTLE, str(inter_broker_throttle), OpType.SET)]
        if log_dir_throttle >= 0 and broker_id in moving_brokers:
            ops.append(AlterConfigOp(BROKER_LEVEL_LOG_DIR_THROTTLE, str(log_dir_throttle), OpType.SET))
        if ops:
            configs[ConfigResource(ConfigResourceType.BROKER, str(broker_id))] = ops
    admin.incremental_alter_configs(configs)


# Kafka 2.6: ReassignPartitionsCommand.clearAllThrottles -- every live broker's rates and the plan's brokers',
# the plan's topics' throttled-replica lists
def clear_all_throttles(admin: KafkaAdminClient, target_parts: list) -> None:
    brokers = {n.id for n in admin.describe_cluster().nodes} | {b for _, replicas in target_parts for b in replicas}
    click.echo(f"Clearing broker-level throttles on broker{'' if len(brokers) == 1 else 's'} "
               f"{','.join(map(str, sorted(brokers)))}")
    admin.incremental_alter_configs({ConfigResource(ConfigResourceType.BROKER, str(b)): [
        AlterConfigOp(name, None, OpType.DELETE) for name in BROKER_LEVEL_THROTTLES] for b in sorted(brokers)})
    topics = sorted({tp.topic for tp, _ in target_parts})
    click.echo(f"Clearing topic-level throttles on topic{'' if len(topics) == 1 else 's'} {','.join(topics)}")
    admin.incremental_alter_configs({ConfigResource(ConfigResourceType.TOPIC, t): [
        AlterConfigOp(name, None, OpType.DELETE) for name in TOPIC_LEVEL_THROTTLES] for t in topics})


# Kafka: ReassignPartitionsCommand.executeAssignment
def execute_assignment(admin: KafkaAdminClient, additional: bool, plan_json: str, inter_broker_throttle: int = -1,
                       log_dir_throttle: int = -1) -> None:
    proposed = parse_execute_assignment_args(plan_json)
    current_reassignments = admin.list_partition_reassignments()
    if not additional and current_reassignments:
        raise ReassignmentFailure(CANNOT_EXECUTE_BECAUSE_OF_EXISTING_MESSAGE)
    known = {n.id for n in admin.describe_cluster().nodes}
    unknown = next((b for replicas in proposed.values() for b in replicas if b not in known), None)
    if unknown is not None:
        raise ReassignmentFailure(f"Unknown broker id {unknown}")
    current = {tp: r for tp, r in current_replicas(admin, {tp.topic for tp in proposed}).items() if tp in proposed}
    click.echo(f"Current partition replica assignment\n\n{format_as_reassignment_json(current)}\n\n"
               f"Save this to use as the --reassignment-json-file option during rollback")
    if inter_broker_throttle >= 0 or log_dir_throttle >= 0:
        click.echo(YOU_MUST_RUN_VERIFY_PERIODICALLY_MESSAGE)
        move_map = calculate_move_map(current_reassignments, proposed, current)
        modify_topic_throttles(admin, calculate_leader_throttles(move_map), calculate_follower_throttles(move_map))
        # no log dir moves in kafkalite's tool (Kafka: calculateMovingBrokers of the plan's log_dirs)
        modify_broker_throttles(admin, calculate_reassigning_brokers(move_map), inter_broker_throttle, set(),
                                log_dir_throttle)
        if inter_broker_throttle >= 0:
            click.echo(f"The inter-broker throttle limit was set to {inter_broker_throttle} B/s")
        if log_dir_throttle >= 0:
            click.echo(f"The replica-alter-dir throttle limit was set to {log_dir_throttle} B/s")
    errors = {tp: e for tp, e in admin.alter_partition_reassignments(proposed).items() if e is not None}
    if errors:
        raise ReassignmentFailure("Error reassigning partition(s):\n" + "\n".join(
            f"{tp}: {errors[tp]}" for tp in sorted(errors, key=_tp_key)))
    click.echo(f"Successfully started partition reassignment{'' if len(proposed) == 1 else 's'} for "
               f"{','.join(str(tp) for tp in sorted(proposed, key=_tp_key))}")


# Kafka 2.6: ReassignPartitionsCommand.findPartitionReassignmentStates -- done unless the controller lists it
def find_partition_reassignment_states(admin: KafkaAdminClient, targets: list[tuple[TopicPartition, list[int]]]
                                       ) -> tuple[dict[TopicPartition, PartitionReassignmentState], bool]:
    ongoing = admin.list_partition_reassignments()
    current = current_replicas(admin, {tp.topic for tp, _ in targets if tp not in ongoing})
    states = {}
    for tp, target in targets:
        if tp in ongoing:
            states[tp] = PartitionReassignmentState(ongoing[tp].replicas, tuple(target), False)
        else:
            states[tp] = PartitionReassignmentState(tuple(current.get(tp, ())), tuple(target), True)
    return states, bool(ongoing)


# Kafka 2.6: ReassignPartitionsCommand.partitionReassignmentStatesToString
def partition_reassignment_states_to_string(states: dict[TopicPartition, PartitionReassignmentState]) -> str:
    lines = ["Status of partition reassignment:"]
    for tp in sorted(states, key=_tp_key):
        state = states[tp]
        if not state.done:
            lines.append(f"Reassignment of partition {tp} is still in progress.")
        elif state.current_replicas == state.target_replicas:
            lines.append(f"Reassignment of partition {tp} is complete.")
        else:
            lines.append(f"There is no active reassignment of partition {tp}, but replica set is "
                         f"{','.join(map(str, state.current_replicas))} rather than "
                         f"{','.join(map(str, state.target_replicas))}.")
    return "\n".join(lines)


# Kafka: ReassignPartitionsCommand.verifyAssignment -- once nothing is in progress, the throttles go (Kafka's
# comment: all of them, "because we don't have enough information to know what to clear")
def verify_assignment(admin: KafkaAdminClient, plan_json: str, preserve_throttles: bool = False
                      ) -> tuple[dict, bool]:
    target_parts = parse_partition_reassignment_data(plan_json)
    states, ongoing = find_partition_reassignment_states(admin, target_parts)
    click.echo(partition_reassignment_states_to_string(states))
    if not ongoing and not preserve_throttles:
        clear_all_throttles(admin, target_parts)
    return states, ongoing


# Kafka 2.6: ReassignPartitionsCommand.curReassignmentsToString
def cur_reassignments_to_string(admin: KafkaAdminClient) -> str:
    ongoing = admin.list_partition_reassignments()
    lines = []
    for tp in sorted(ongoing, key=_tp_key):
        r = ongoing[tp]
        lines.append(f"{tp}: replicas: {','.join(map(str, r.replicas))}."
                     + (f" adding: {','.join(map(str, r.adding_replicas))}." if r.adding_replicas else "")
                     + (f" removing: {','.join(map(str, r.removing_replicas))}." if r.removing_replicas else ""))
    return "Current partition reassignments:\n" + "\n".join(lines) if lines else "No partition reassignments found."


# Kafka 2.6: ReassignPartitionsCommand.cancelAssignment -- then the throttles go, as after --verify
def cancel_assignment(admin: KafkaAdminClient, plan_json: str, preserve_throttles: bool = False
                      ) -> set[TopicPartition]:
    target_parts = parse_partition_reassignment_data(plan_json)
    targets = [tp for tp, _ in target_parts]
    reassigning = {tp for tp, r in admin.list_partition_reassignments(targets).items()
                   if r.adding_replicas or r.removing_replicas}
    if not reassigning:
        click.echo("None of the specified partition reassignments are active.")
        if not preserve_throttles:
            clear_all_throttles(admin, target_parts)
        return reassigning
    errors = {tp: e for tp, e in admin.alter_partition_reassignments({tp: None for tp in reassigning}).items()
              if e is not None}
    if errors:
        raise ReassignmentFailure(f"Error cancelling partition reassignment{'' if len(errors) == 1 else 's'} for:\n"
                                  + "\n".join(f"{tp}: {errors[tp]}" for tp in sorted(errors, key=_tp_key)))
    click.echo(f"Successfully cancelled partition reassignment{'' if len(reassigning) == 1 else 's'} for: "
               f"{','.join(str(tp) for tp in sorted(reassigning, key=_tp_key))}")
    if not preserve_throttles:
        clear_all_throttles(admin, target_parts)
    return reassigning


def _read(path: str | None, flag: str) -> str:
    if path is None:
        raise click.UsageError(f"Missing required argument \"[{flag}]\"")
    with open(path) as f:
        return f.read()


@click.command(name="kafka-reassign-partitions", context_settings={"help_option_names": ["-h", "--help"]},
               help="This tool helps to move topic partitions between replicas.")
@click.option("--bootstrap-server", required=True, help="REQUIRED: the server(s) to use for bootstrapping.")
@click.option("--command-config", type=click.Path(), help="Accepted for compatibility; ignored.")
@click.option("--generate", is_flag=True, help="Generate a candidate partition reassignment configuration.")
@click.option("--execute", is_flag=True, help="Kick off the reassignment as specified by --reassignment-json-file.")
@click.option("--verify", is_flag=True, help="Verify if the reassignment completed as specified by "
                                             "--reassignment-json-file.")
@click.option("--cancel", is_flag=True, help="Cancel an active reassignment.")
@click.option("--list", "list_", is_flag=True, help="List all active partition reassignments.")
@click.option("--reassignment-json-file", help="The JSON file with the partition reassignment configuration.")
@click.option("--topics-to-move-json-file", help="Generate a reassignment configuration to move the partitions of "
                                                 "the specified topics to the list of brokers given.")
@click.option("--broker-list", help="The list of brokers to which the partitions need to be reassigned, "
                                    "in the form \"0,1,2\".")
@click.option("--additional", is_flag=True, help="Execute this reassignment in addition to any other ongoing ones.")
@click.option("--preserve-throttles", is_flag=True, help="Do not modify broker or topic throttles.")
@click.option("--throttle", type=int, default=-1,
              help="The movement of partitions between brokers will be throttled to this value (bytes/sec).")
@click.option("--replica-alter-log-dirs-throttle", type=int, default=-1,
              help="The movement of replicas between log directories on the same broker will be throttled to this "
                   "value (bytes/sec).")
@click.option("--timeout", type=int, default=10000, help="Accepted for compatibility (log dir moves).")
def main(bootstrap_server, command_config, generate, execute, verify, cancel, list_, reassignment_json_file,
         topics_to_move_json_file, broker_list, additional, preserve_throttles, throttle,
         replica_alter_log_dirs_throttle, timeout):
    """Kafka: ReassignPartitionsCommand.main -- errors print one message and exit 1."""
    if sum([generate, execute, verify, cancel, list_]) != 1:
        raise click.UsageError("Command must include exactly one action: --generate, --execute, --verify, "
                               "--cancel, --list")
    admin = KafkaAdminClient({"bootstrap.servers": bootstrap_server, "client.id": "reassign-partitions-tool",
                              "default.api.timeout.ms": 30000})
    exit_code = 0
    try:
        if generate:
            if broker_list is None:
                raise click.UsageError("Missing required argument \"[broker-list]\"")
            generate_assignment(admin, _read(topics_to_move_json_file, "topics-to-move-json-file"), broker_list)
        elif execute:
            execute_assignment(admin, additional, _read(reassignment_json_file, "reassignment-json-file"),
                               throttle, replica_alter_log_dirs_throttle)
        elif verify:
            verify_assignment(admin, _read(reassignment_json_file, "reassignment-json-file"), preserve_throttles)
        elif cancel:
            cancel_assignment(admin, _read(reassignment_json_file, "reassignment-json-file"), preserve_throttles)
        else:
            click.echo(cur_reassignments_to_string(admin))
    except click.UsageError:
        raise
    except ReassignmentFailure as e:
        click.echo(str(e))
        exit_code = 1
    except Exception as e:   # noqa: BLE001 -- Kafka prints "Error: <message>" and exits 1
        click.echo(f"Error: {e}")
        exit_code = 1
    finally:
        admin.close()
    sys.exit(exit_code)


if __name__ == "__main__":
    main()
