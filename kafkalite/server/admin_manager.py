"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/AdminManager.scala,
DelayedCreatePartitions.scala and DelayedDeleteTopics.scala

Classes: AdminManager, CreatePartitionsMetadata, DelayedCreatePartitions, DelayedDeleteTopics.

CreateTopics and DeleteTopics only write to ZooKeeper; the answer waits in the "topic" purgatory
until the controller's UPDATE_METADATA shows the change in this broker's MetadataCache (every
partition of a new topic has a leader; a deleted topic is gone), or until the request's timeout.
KafkaApis calls ``try_complete_delayed_topic_operations(topic)`` after each UpdateMetadata.

Configs (KafkaApis only validates the request and hands it here, as in 2.4):
- ``describe_configs``: every key of a topic or this broker with its value, where it comes from and,
  when asked, its synonyms, most specific first (topic override, this broker's dynamic config, the
  cluster-wide dynamic default, server.properties, the default);
- ``alter_configs`` / ``incremental_alter_configs`` (KIP-339: SET, DELETE, APPEND, SUBTRACT) write the
  entity's whole override set to ``/config/topics/<t>`` or ``/config/brokers/<id|<default>>`` with a
  change notification; every broker's DynamicConfigManager then applies it (S24), so the response may
  come a moment before the new value takes effect. A bad value or a key that cannot change dynamically
  is INVALID_REQUEST with the reason.
Each entry carries its ConfigDef type and, when asked, a line of documentation (Kafka 2.6, KIP-569:
DescribeConfigs v3+); a PASSWORD key is sensitive, so its value and its synonyms' values are null.
Era notes: IncrementalAlterConfigs APPEND/SUBTRACT on a list key not set yet start from its default (Kafka 2.6;
2.4 failed with a NullPointerException).
Left out: authorization (KafkaApis does it), CreateTopicPolicy/AlterConfigPolicy, BROKER_LOGGER resources.
"""
from __future__ import annotations

import attrs

from kafkalite.common import topic as Topic
from kafkalite.common.config.config_def import config_type_of, convert_to_string, parse_java_integer, type_of
from kafkalite.common.config.config_exception import ConfigException
from kafkalite.log.log_config import SERVER_DEFAULT_CONFIG_NAMES, LogConfig, LogConfigDef
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.protocol.messages import describe_configs
from kafkalite.server.delayed_operation import DelayedOperation, DelayedOperationPurgatory
from kafkalite.server.delayed_operation_key import TopicKey
from kafkalite.server.dynamic_broker_config import (ALL_DYNAMIC_CONFIGS, BROKER_CONFIG_SYNONYMS, DEFAULT_ENTITY,
                                                    DYNAMIC_CONFIG_BROKER_PROPS, dynamic_config_of)
from kafkalite.server.kafka_config import CONFIG_DEF
from kafkalite.utils.logging import Logging
from kafkalite.zk.admin_zk_client import AdminOperationException, AdminZkClient, assign_replicas_to_brokers


TOPIC_RESOURCE, BROKER_RESOURCE = 2, 4        # Kafka: ConfigResource.Type
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3    # Kafka: AlterConfigOp.OpType
# Kafka: DescribeConfigsResponse.ConfigSource
CONFIG_SOURCE = {"UNKNOWN": 0, "TOPIC_CONFIG": 1, "DYNAMIC_TOPIC_CONFIG": 1, "DYNAMIC_BROKER_CONFIG": 2,
                 "DYNAMIC_DEFAULT_BROKER_CONFIG": 3, "STATIC_BROKER_CONFIG": 4, "DEFAULT_CONFIG": 5}


def _java_split_commas(text: str) -> list[str]:
    """Java's ``text.split(",")``: trailing empty strings dropped ("a,," is [a], "," is []), but "" is [""]."""
    if not text:
        return [text]
    parts = text.split(",")
    while parts and not parts[-1]:
        parts.pop()
    return parts


@attrs.define
class CreatePartitionsMetadata:
    """Kafka: CreatePartitionsMetadata(topic, partitions, error)."""

    topic: str
    partitions: list[int]
    error: Errors = Errors.NONE
    message: str | None = None
    replication_factor: int = -1
    configs: dict = attrs.Factory(dict)
    topic_configs: list | None = None   # KIP-525: the created topic's configs (created_topic_configs), if asked


class DelayedCreatePartitions(DelayedOperation):
    """Kafka: DelayedCreatePartitions -- done when every new partition has a leader in the cache."""

    def __init__(self, delay_ms: int, create_metadata: list[CreatePartitionsMetadata], admin_manager, callback):
        super().__init__(delay_ms)
        self.create_metadata = create_metadata
        self.admin_manager = admin_manager
        self.callback = callback

    def _missing_leaders(self, m: CreatePartitionsMetadata) -> bool:
        cache = self.admin_manager.metadata_cache
        for p in m.partitions:
            st = cache.get_partition_info(m.topic, p)
            if st is None or st.leader < 0:
                return True
        return False

    # No Kafka counterpart: a partition whose log this broker could not create (out of file descriptors; see
    # ReplicaManager.log_creation_failures) fails its topic with KAFKA_STORAGE_ERROR at once. Kafka 2.4's
    # controller would mark the replica offline, leave the partition without a leader, and this operation
    # would time out (REQUEST_TIMED_OUT). Only this broker's own failures are known here.
    def _log_creation_error(self, m: CreatePartitionsMetadata) -> str | None:
        lookup = self.admin_manager.log_creation_error
        if lookup is None:
            return None
        for p in m.partitions:
            why = lookup(m.topic, p)
            if why is not None:
                return f"Partition {m.topic}-{p} could not be created: {why}"
        return None

    # Kafka: DelayedCreatePartitions.tryComplete
    def try_complete(self) -> bool:
        if all(m.error is not Errors.NONE or not self._missing_leaders(m) or self._log_creation_error(m)
               for m in self.create_metadata):
            return self.force_complete()
        return False

    # Kafka: DelayedCreatePartitions.onComplete -- a partition still without leader is a timeout (no message).
    def on_complete(self) -> None:
        results = {}
        for m in self.create_metadata:
            failure = self._log_creation_error(m) if m.error is Errors.NONE else None
            if failure is not None:
                results[m.topic] = (Errors.KAFKA_STORAGE_ERROR, failure)
            elif m.error is Errors.NONE and self._missing_leaders(m):
                results[m.topic] = (Errors.REQUEST_TIMED_OUT, None)
            else:
                results[m.topic] = (m.error, m.message)
        self.callback(results)

    def on_expiration(self) -> None:
        pass


class DelayedDeleteTopics(DelayedOperation):
    """Kafka: DelayedDeleteTopics -- done when the deleted topics are gone from the cache."""

    def __init__(self, delay_ms: int, delete_metadata: list[tuple[str, Errors]], admin_manager, callback):
        super().__init__(delay_ms)
        self.delete_metadata = delete_metadata
        self.admin_manager = admin_manager
        self.callback = callback

    def try_complete(self) -> bool:
        cache = self.admin_manager.metadata_cache
        if all(err is not Errors.NONE or not cache.contains(t) for t, err in self.delete_metadata):
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        cache = self.admin_manager.metadata_cache
        self.callback({t: (Errors.REQUEST_TIMED_OUT if err is Errors.NONE and cache.contains(t) else err)
                       for t, err in self.delete_metadata})

    def on_expiration(self) -> None:
        pass


# Kafka: ConfigResource.toString -- how a resource is named in AdminManager's messages
def config_resource_string(resource_type: int, name: str) -> str:
    type_name = {TOPIC_RESOURCE: "TOPIC", BROKER_RESOURCE: "BROKER", 8: "BROKER_LOGGER"}.get(resource_type, "UNKNOWN")
    return f"ConfigResource(type={type_name}, name='{name}')"


class AdminManager(Logging):
    """Kafka: AdminManager(config, metrics, metadataCache, zkClient)."""

    def __init__(self, config, metadata_cache, zk_client, log_config_fn=None):
        self.config = config
        self.log_config_fn = log_config_fn   # topic -> its LogConfig (server defaults + the topic's overrides)
        self.metadata_cache = metadata_cache
        self.zk_client = zk_client
        self.admin_zk_client = AdminZkClient(zk_client)
        self.log_ident = f"[Admin Manager on Broker {config.broker_id}]: "
        self.topic_purgatory = DelayedOperationPurgatory("topic", broker_id=config.broker_id)
        # (topic, partition) -> why this broker could not create its log, or None (ReplicaManager.log_creation_error)
        self.log_creation_error = None

    def has_delayed_topic_operations(self) -> bool:
        return self.topic_purgatory.num_delayed() != 0

    # Kafka: AdminManager.tryCompleteDelayedTopicOperations
    def try_complete_delayed_topic_operations(self, topic: str) -> None:
        self.topic_purgatory.check_and_complete(TopicKey(topic))

    # Kafka: AdminManager.createTopics / createPartitions, "if timeout <= 0, validateOnly or no topics can proceed
    # return immediately": a topic written to ZooKeeper but not waited for answers REQUEST_TIMED_OUT (its leaders
    # are not known yet; librdkafka hides that error when it asked for no wait), a validated one NONE
    @staticmethod
    def immediate_results(metadata: list[CreatePartitionsMetadata], validate_only: bool) -> dict:
        return {m.topic: (Errors.REQUEST_TIMED_OUT, None) if m.error is Errors.NONE and not validate_only
                else (m.error, m.message) for m in metadata}

    # Kafka: AdminManager.createTopics
    def create_topics(self, timeout_ms: int, validate_only: bool, to_create: dict, response_callback,
                      include_configs_and_metadata: set | frozenset = frozenset()) -> None:
        """``to_create``: name -> CreatableTopic. Calls back with {name: (Errors, message)} and metadata (with the
        topic's configs for the names in ``include_configs_and_metadata``)."""
        brokers = self.zk_client.get_sorted_broker_list()
        metadata: list[CreatePartitionsMetadata] = []
        for name, topic in to_create.items():
            try:
                if self.metadata_cache.contains(name):
                    raise Errors.TOPIC_ALREADY_EXISTS.exception(f"Topic '{name}' already exists.")
                configs = {c.name: c.value for c in topic.configs if c.value is not None}
                LogConfig.validate(configs)   # Kafka validates the configs next, before the assignment
                if topic.assignments and (topic.num_partitions != -1 or topic.replication_factor != -1):
                    raise Errors.INVALID_REQUEST.exception(
                        "Both numPartitions or replicationFactor and replicasAssignments were set. "
                        "Both cannot be used at the same time.")
                if topic.assignments:
                    assignment = {a.partition_index: list(a.broker_ids) for a in topic.assignments}
                else:
                    n = self.config.num_partitions if topic.num_partitions == -1 else topic.num_partitions
                    rf = self.config.default_replication_factor if topic.replication_factor == -1 \
                        else topic.replication_factor
                    assignment = assign_replicas_to_brokers(brokers, n, rf)
                self.admin_zk_client.create_topic_with_assignment(name, configs, assignment, validate_only)
                rf = len(next(iter(assignment.values()))) if assignment else 0
                topic_configs = self.created_topic_configs(name, configs) \
                    if name in include_configs_and_metadata else None
                metadata.append(CreatePartitionsMetadata(name, sorted(assignment), Errors.NONE, None, rf, configs,
                                                         topic_configs))
                if not validate_only:
                    self.info(f"Creating topic {name} with configuration {configs} and initial partition "
                              f"assignment {assignment}")
            except ApiException as e:
                self.info(f"Error processing create topic request {name}: {e}")
                metadata.append(CreatePartitionsMetadata(name, [], e.error, str(e)))
            except ConfigException as e:   # a value the topic config does not allow: INVALID_CONFIG here
                self.info(f"Error processing create topic request {name}: {e}")
                metadata.append(CreatePartitionsMetadata(name, [], Errors.INVALID_CONFIG, str(e)))
            except Exception as e:  # noqa: BLE001
                self.error(f"Error processing create topic request {name}: {e}", exc_info=True)
                metadata.append(CreatePartitionsMetadata(name, [], Errors.UNKNOWN_SERVER_ERROR, str(e)))

        def respond(results):
            response_callback(results, {m.topic: m for m in metadata})

        if timeout_ms <= 0 or validate_only or not any(m.error is Errors.NONE for m in metadata):
            respond(self.immediate_results(metadata, validate_only))
        else:
            delayed = DelayedCreatePartitions(timeout_ms, metadata, self, respond)
            self.topic_purgatory.try_complete_else_watch(delayed, [TopicKey(m.topic) for m in metadata])

    # Kafka: AdminManager.createPartitions
    def create_partitions(self, timeout_ms: int, new_partitions: list, validate_only: bool, response_callback) -> None:
        """``new_partitions``: CreatePartitionsTopic requests. Calls back with {topic: (Errors, message)}."""
        brokers = self.zk_client.get_sorted_broker_list()
        metadata: list[CreatePartitionsMetadata] = []
        for req in new_partitions:
            topic = req.name
            try:
                full = self.zk_client.get_full_replica_assignment_for_topics([topic])
                if not full:
                    raise Errors.UNKNOWN_TOPIC_OR_PARTITION.exception(f"The topic '{topic}' does not exist.")
                if any(adding or removing for _replicas, adding, removing in full.values()):
                    # the controller rewrites the topic znode as a reassignment progresses: a partition added now
                    # could be lost in that race
                    raise Errors.REASSIGNMENT_IN_PROGRESS.exception(
                        f"A partition reassignment is in progress for the topic '{topic}'.")
                existing = {tp.partition: replicas for tp, (replicas, _a, _r) in full.items()}
                old = len(existing)
                if req.count < old:
                    raise Errors.INVALID_PARTITIONS.exception(
                        f"Topic currently has {old} partitions, which is higher than the requested {req.count}.")
                if req.count == old:
                    raise Errors.INVALID_PARTITIONS.exception(f"Topic already has {old} partitions.")
                assignment = None
                if req.assignments is not None:
                    # Kafka: brokers the cluster does not have are named first, then the count is checked
                    unknown = [b for b in dict.fromkeys(b for a in req.assignments for b in a.broker_ids)
                               if b not in brokers]
                    if unknown:
                        raise Errors.INVALID_REPLICA_ASSIGNMENT.exception(
                            f"Unknown broker(s) in replica assignment: {', '.join(map(str, unknown))}.")
                    if len(req.assignments) != req.count - old:
                        raise Errors.INVALID_REPLICA_ASSIGNMENT.exception(
                            f"Increasing the number of partitions by {req.count - old} but {len(req.assignments)} "
                            "assignments provided.")
                    assignment = {old + i: list(a.broker_ids) for i, a in enumerate(req.assignments)}
                updated = self.admin_zk_client.add_partitions(topic, existing, brokers, req.count, assignment,
                                                              validate_only)
                metadata.append(CreatePartitionsMetadata(topic, sorted(updated)))
                if not validate_only:
                    self.info(f"Creating {req.count - old} partitions for '{topic}' with the following replica "
                              f"assignment: { {p: r for p, r in updated.items() if p >= old} }.")
            except (AdminOperationException, ApiException) as e:   # as Kafka's ApiError.fromThrowable
                metadata.append(CreatePartitionsMetadata(topic, [], Errors.for_exception(e), str(e)))
            except Exception as e:   # noqa: BLE001 -- Kafka: case e: Throwable => ApiError.fromThrowable(e)
                self.error(f"Error processing create partitions request for topic {topic!r}: {e!r}", exc_info=True)
                metadata.append(CreatePartitionsMetadata(topic, [], Errors.UNKNOWN_SERVER_ERROR, str(e)))

        def respond(results):
            response_callback(results)

        if timeout_ms <= 0 or validate_only or not any(m.error is Errors.NONE for m in metadata):
            respond(self.immediate_results(metadata, validate_only))
        else:
            delayed = DelayedCreatePartitions(timeout_ms, metadata, self, respond)
            self.topic_purgatory.try_complete_else_watch(delayed, [TopicKey(m.topic) for m in metadata])

    # Kafka: AdminManager.deleteTopics
    def delete_topics(self, timeout_ms: int, to_delete: list[str], response_callback) -> None:
        results = []
        for topic in to_delete:
            try:
                self.admin_zk_client.delete_topic(topic)
                self.info(f"Marked topic {topic} for deletion")
                results.append((topic, Errors.NONE))
            except Exception as e:  # noqa: BLE001 -- Kafka: any failure, logged, as Errors.forException
                self.error(f"Error processing delete topic request for topic {topic}", exc_info=True)
                results.append((topic, Errors.for_exception(e)))
        if timeout_ms <= 0 or not any(err is Errors.NONE for _, err in results):
            # Kafka: a marked topic is not gone yet, so with no time to wait its answer is REQUEST_TIMED_OUT
            response_callback({t: Errors.REQUEST_TIMED_OUT if err is Errors.NONE else err for t, err in results})
        else:
            delayed = DelayedDeleteTopics(timeout_ms, results, self, response_callback)
            self.topic_purgatory.try_complete_else_watch(delayed, [TopicKey(t) for t, _ in results])

    # ------------------------------------------------------------------ configs
    # Kafka: AdminManager.describeConfigs
    def describe_configs(self, resources, include_synonyms: bool, include_documentation: bool = False) -> list:
        results = []
        for res in resources:
            result = describe_configs.DescribeConfigsResult(resource_type=res.resource_type,
                                                            resource_name=res.resource_name)
            try:
                entries = self.describe_resource_configs(res.resource_type, res.resource_name, include_synonyms,
                                                         include_documentation)
                keys = res.configuration_keys
                result.configs = [e for e in entries if keys is None or e.name in keys]
            except ApiException as e:   # Kafka: client errors at info, anything else at error with its trace
                self.info(f"Error processing describe configs request for resource "
                          f"{config_resource_string(res.resource_type, res.resource_name)}: {e}")
                # as Kafka's ApiError.fromThrowable: leave out a message that only repeats the error's own
                result.error_code, result.error_message = e.error.code, None if str(e) == e.error.name else str(e)
            except Exception as e:  # noqa: BLE001 -- Kafka: ApiError.fromThrowable, for this resource only
                self.error(f"Error processing describe configs request for resource "
                           f"{config_resource_string(res.resource_type, res.resource_name)}", exc_info=True)
                result.error_code, result.error_message = Errors.for_exception(e).code, str(e)
            results.append(result)
        return results

    # Kafka: AdminManager.describeConfigs (createTopicConfigEntry / createBrokerConfigEntry + configSynonyms);
    # config_type and documentation are Kafka 2.6's (KIP-569), a password's value and synonyms' values are null
    def describe_resource_configs(self, resource_type: int, name: str, include_synonyms: bool = False,
                                  include_documentation: bool = False) -> list:
        dynamic = dynamic_config_of(self.config)
        from kafkalite.server.config_documentation import broker_documentation, topic_documentation  # first DescribeConfigs
        rows = []   # (name, value, source, read_only, sensitive, synonyms, type name, documentation)
        if resource_type == TOPIC_RESOURCE:
            Topic.validate(name)
            if not self.metadata_cache.contains(name):   # as Kafka, no message: ApiError(UNKNOWN_TOPIC_OR_PARTITION, null)
                raise Errors.UNKNOWN_TOPIC_OR_PARTITION.exception(None)
            overrides = self.zk_client.get_entity_configs("topics", name)
            rows = self.topic_config_rows(self.log_config_fn(name), overrides, dynamic,
                                          topic_documentation if include_documentation else None)
        elif resource_type == BROKER_RESOURCE and not name:
            # Kafka: the cluster-wide default resource describes what is set as the dynamic default, each key with
            # only its DYNAMIC_DEFAULT_BROKER_CONFIG synonyms (createBrokerConfigEntry(perBrokerConfig = false))
            for key, value in sorted(dynamic.dynamic_default_configs.items()):
                synonyms = [syn for syn in self.broker_synonyms(key, dynamic) if syn[2] == "DYNAMIC_DEFAULT_BROKER_CONFIG"]
                source = synonyms[0][2] if synonyms else "DEFAULT_CONFIG"
                type_name = CONFIG_DEF[key][0] if key in CONFIG_DEF else "LONG"   # else a replication rate
                sensitive = type_of(type_name).is_sensitive()
                rows.append((key, convert_to_string(value), source, key not in ALL_DYNAMIC_CONFIGS, sensitive, synonyms,
                             type_name, broker_documentation(key) if include_documentation else None))
        elif resource_type == BROKER_RESOURCE:
            if self.resource_name_to_broker_id(name) != self.config.broker_id:
                raise Errors.INVALID_REQUEST.exception(f"Unexpected broker id, expected {self.config.broker_id} or empty "
                                                       f"string, but received {name}")
            for key, value in sorted(self.config.values.items()):
                synonyms = self.broker_synonyms(key, dynamic)
                source = synonyms[0][2] if synonyms else "DEFAULT_CONFIG"
                type_name = CONFIG_DEF[key][0] if key in CONFIG_DEF else None
                sensitive = type_name is not None and type_of(type_name).is_sensitive()   # KafkaConfig.maybeSensitive
                rows.append((key, convert_to_string(value), source, key not in ALL_DYNAMIC_CONFIGS, sensitive, synonyms,
                             type_name, broker_documentation(key) if include_documentation else None))
            # Kafka 2.6 (KAFKA-9625): allConfigs(config) holds the originals, so the dynamic-only keys
            # (DynamicConfig.Broker: the replication rates) show once set, here or as the cluster default; 2.4
            # described them as sensitive and read-only, with no value
            for key in sorted(DYNAMIC_CONFIG_BROKER_PROPS):
                synonyms = self.broker_synonyms(key, dynamic)
                if synonyms:
                    rows.append((key, synonyms[0][1], synonyms[0][2], False, False, synonyms, "LONG",
                                 broker_documentation(key) if include_documentation else None))
        else:
            raise Errors.INVALID_REQUEST.exception(f"Unsupported resource type {resource_type}")
        return [describe_configs.DescribeConfigsResourceResult(
            name=n, value=None if sensitive else v, read_only=ro, config_source=CONFIG_SOURCE[src],
            is_sensitive=sensitive,
            synonyms=[describe_configs.DescribeConfigsSynonym(name=sn, value=None if sensitive else sv,
                                                              source=CONFIG_SOURCE[ss])
                      for sn, sv, ss in synonyms] if include_synonyms else [],
            config_type=config_type_of(type_name), documentation=doc)
            for n, v, src, ro, sensitive, synonyms, type_name, doc in rows]

    # Kafka: AdminManager.createTopicConfigEntry -- each topic config with its value and synonyms: the topic's own
    # setting, then the broker keys that set its default; a key no broker key sets is the topic default
    def topic_config_rows(self, log_config, overrides: dict, dynamic, documentation=None) -> list:
        rows = []   # (name, value, source, read_only, sensitive, synonyms, type name, documentation)
        for e in log_config.describe():
            # Kafka: createTopicConfigEntry -- the TOPIC_CONFIG synonym carries the parsed value (valueAsString)
            synonyms = [(e.name, e.value, "TOPIC_CONFIG")] if e.name in overrides else []
            broker_key = SERVER_DEFAULT_CONFIG_NAMES.get(e.name)
            if broker_key:
                synonyms += self.broker_synonyms(broker_key, dynamic)
            if len(synonyms) == (e.name in overrides):
                synonyms.append((e.name, convert_to_string(LogConfigDef[e.name][1]), "DEFAULT_CONFIG"))
            rows.append((e.name, e.value, synonyms[0][2], False, e.is_sensitive, synonyms,
                         LogConfigDef[e.name][0], documentation(e.name) if documentation else None))
        return rows

    # Kafka: AdminManager.createTopics (its includeConfigsAndMetatadata part, KIP-525) -- the configs a topic
    # created with ``configs`` has: LogConfig.fromProps(the broker's topic defaults, configs), no synonyms;
    # [(name, value, source code, read only, sensitive)], a sensitive value null
    def created_topic_configs(self, name: str, configs: dict) -> list[tuple]:
        current = self.log_config_fn(name)
        defaults = {k: v for k, v in current.originals.items() if k not in current.overridden_configs}
        rows = self.topic_config_rows(LogConfig.from_props(defaults, configs), configs, dynamic_config_of(self.config))
        return [(n, None if sensitive else v, CONFIG_SOURCE[src], ro, sensitive)
                for n, v, src, ro, sensitive, _synonyms, _type, _doc in rows]

    # Kafka: AdminManager.resourceNameToBrokerId
    @staticmethod
    def resource_name_to_broker_id(resource_name: str) -> int:
        # Scala's toInt is Integer.parseInt: ASCII digits and a sign only (no spaces, no underscores)
        broker_id = parse_java_integer(resource_name, trim=False)
        if broker_id is None or not -(1 << 31) <= broker_id < (1 << 31):
            raise Errors.INVALID_REQUEST.exception(f"Broker id must be an integer, but it is: {resource_name}")
        return broker_id

    # Kafka: DynamicBrokerConfig.brokerConfigSynonyms + AdminManager.configSynonyms -- where a broker
    # key's value can come from, most specific first: this broker's dynamic config, the cluster-wide
    # dynamic default, server.properties, the built-in default (for each of its spellings).
    def broker_synonyms(self, key: str, dynamic) -> list:
        synonyms = []
        names = BROKER_CONFIG_SYNONYMS.get(key, (key,))
        for source, store in (("DYNAMIC_BROKER_CONFIG", dynamic.dynamic_broker_configs),
                              ("DYNAMIC_DEFAULT_BROKER_CONFIG", dynamic.dynamic_default_configs),
                              ("STATIC_BROKER_CONFIG", dynamic.static_broker_configs)):
            synonyms += [(n, str(store[n]), source) for n in names if n in store]
        synonyms += [(n, convert_to_string(CONFIG_DEF[n][1]), "DEFAULT_CONFIG") for n in names
                     if n in CONFIG_DEF and CONFIG_DEF[n][1] is not None]
        return synonyms

    # Kafka: AdminManager.alterConfigs -- the resource's overrides become the request's set
    def alter_configs(self, resource_type: int, name: str, new_props: dict, validate_only: bool):
        return self.alter_resource_configs(resource_type, name, lambda current: new_props, validate_only)

    # Kafka: AdminManager.incrementalAlterConfigs -- a key named twice in one resource is refused first
    def incremental_alter_configs(self, resource_type: int, name: str, alter_ops, validate_only: bool):
        names = [op.name for op in alter_ops]
        duplicates = [n for n in dict.fromkeys(names) if names.count(n) > 1]
        if duplicates:
            return Errors.INVALID_REQUEST, f"Error due to duplicate config keys : {','.join(duplicates)}"
        config_keys = {k: (t.upper(), d) for k, (t, d, *_rest) in LogConfigDef.items()} \
            if resource_type == TOPIC_RESOURCE else {k: (v[0], v[1]) for k, v in CONFIG_DEF.items()}
        return self.alter_resource_configs(
            resource_type, name, lambda current: self.prepare_incremental_configs(alter_ops, current, config_keys),
            validate_only)

    # Kafka: AdminManager.prepareIncrementalConfigs -- APPEND and SUBTRACT only for LIST keys (a key the resource
    # does not have is Kafka's Map lookup failure, "key not found", which it answers UNKNOWN_SERVER_ERROR); APPEND
    # adds the given items as they are, SUBTRACT removes one occurrence of each (Scala's List.diff).
    # Kafka 2.6: a list key not set yet starts from its default value (2.4 failed with a NullPointerException).
    @staticmethod
    def prepare_incremental_configs(alter_ops, current: dict, config_keys: dict) -> dict:
        props = dict(current)
        for op in alter_ops:
            if op.config_operation == SET:
                props[op.name] = op.value
            elif op.config_operation == DELETE:
                props.pop(op.name, None)
            elif op.config_operation in (APPEND, SUBTRACT):
                verb = "append" if op.config_operation == APPEND else "subtract"
                if op.name not in config_keys:
                    raise KeyError(f"key not found: {op.name}")
                config_type, default = config_keys[op.name]
                if config_type != "LIST":
                    raise Errors.INVALID_REQUEST.exception(f"Config value {verb} is not allowed for config key: {op.name}")
                old = props.get(op.name)
                old = _java_split_commas(old if old is not None else convert_to_string(default) or "")
                given = _java_split_commas(op.value or "")
                if op.config_operation == APPEND:
                    items = old + given
                else:
                    items = list(old)
                    for v in given:
                        if v in items:
                            items.remove(v)
                props[op.name] = ",".join(items)
            else:
                raise Errors.INVALID_REQUEST.exception(f"Unknown config operation {op.config_operation}")
        return props

    def alter_resource_configs(self, resource_type: int, name: str, new_props_fn, validate_only: bool):
        """Validate and (unless validate_only) persist one resource's new overrides: (Errors, message)."""
        try:
            if resource_type == TOPIC_RESOURCE:
                entity_type, entity = "topics", name
                # Kafka: AdminZkClient.validateTopicConfig's Topic.validate, before anything reads ZooKeeper by
                # that name (2.4's IncrementalAlterConfigs read first, and ZooKeeper refused an empty name:
                # INVALID_REQUEST there; kafkalite answers INVALID_TOPIC_EXCEPTION to both)
                Topic.validate(name)
                current = self.zk_client.get_entity_configs(entity_type, entity)
                props = new_props_fn(current)
                # Kafka 2.7: AdminZkClient.validateTopicConfig -- an unknown topic is UNKNOWN_TOPIC_OR_PARTITION
                # (2.4: an AdminOperationException, "Topic \"x\" does not exist.", UNKNOWN_SERVER_ERROR), checked
                # after the incremental changes were prepared
                if not self.zk_client.topic_exists(name):
                    raise Errors.UNKNOWN_TOPIC_OR_PARTITION.exception(f"Topic '{name}' does not exist.")
                LogConfig.validate(props, previous=current)
            elif resource_type == BROKER_RESOURCE:
                per_broker = bool(name)
                if per_broker and self.resource_name_to_broker_id(name) != self.config.broker_id:   # Kafka: getBrokerId
                    raise Errors.INVALID_REQUEST.exception(
                        f"Unexpected broker id, expected {self.config.broker_id}, but received {name}")
                entity_type, entity = "brokers", name if per_broker else DEFAULT_ENTITY
                props = new_props_fn(self.zk_client.get_entity_configs(entity_type, entity))
                dynamic_config_of(self.config).validate(props, per_broker)
            else:
                raise Errors.INVALID_REQUEST.exception(f"Unsupported resource type {resource_type}")
            if not validate_only:
                self.zk_client.set_or_create_entity_configs(entity_type, entity, props)
                self.zk_client.create_config_change_notification(f"{entity_type}/{entity}")
                self.info(f"Updated {entity_type}/{entity} configs to {props}")
            return Errors.NONE, None
        except ApiException as e:
            return e.error, str(e)
        except (ConfigException, ValueError) as e:
            message = f"Invalid config value for resource {config_resource_string(resource_type, name)}: {e}"
            self.info(message)
            return Errors.INVALID_REQUEST, message
        except Exception as e:  # noqa: BLE001 -- Kafka: logged at error, ApiError.fromThrowable
            self.error(f"Error processing alter configs request for resource "
                       f"{config_resource_string(resource_type, name)}", exc_info=True)
            return Errors.for_exception(e), e.args[0] if isinstance(e, KeyError) else str(e)

    def shutdown(self) -> None:
        self.topic_purgatory.shutdown()
