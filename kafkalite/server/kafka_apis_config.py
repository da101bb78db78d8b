"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaApis.scala -- handleAlterConfigsRequest and
handleIncrementalAlterConfigsRequest, with the parts of AdminManager.scala they call (alterConfigs,
incrementalAlterConfigs, prepareIncrementalConfigs), split out of kafka_apis.py. ``ConfigApis`` is a
mixin of ``KafkaApis``.

A config change is written to ZooKeeper, never applied here: the entity's whole override set goes to
``/config/topics/<t>`` or ``/config/brokers/<id>`` (``<default>`` for the cluster-wide default, when
the resource name is empty), followed by a change notification; every broker's
DynamicConfigManager then applies it (S24). So the response can come back a moment before the new
value takes effect.
- AlterConfigs (the old API) replaces the entity's overrides with the request's set.
- IncrementalAlterConfigs (KIP-339) edits them: 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT (lists).
Errors as Kafka's: a bad value or a key that cannot change dynamically → INVALID_REQUEST with the
reason; an unknown topic → UNKNOWN_TOPIC_OR_PARTITION; another broker's id → INVALID_REQUEST.
Left out: authorization, CreateTopicPolicy/AlterConfigPolicy, sensitive (password) values.
"""
from __future__ import annotations

from kafkalite.common import topic as Topic
from kafkalite.log.log_config import LogConfig
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.protocol.messages import alter_configs, incremental_alter_configs
from kafkalite.server.dynamic_broker_config import DEFAULT_ENTITY, dynamic_config_of
from kafkalite.server.kafka_config import ConfigException

TOPIC_RESOURCE, BROKER_RESOURCE = 2, 4
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


class ConfigApis:
    """The config-changing handlers of KafkaApis (a mixin: ``self`` is the KafkaApis)."""

    # Kafka: KafkaApis.handleAlterConfigsRequest -> AdminManager.alterConfigs
    def handle_alter_configs_request(self, request) -> None:
        body = request.body
        results = []
        for res in body.resources:
            new_props = {c.name: c.value for c in res.configs if c.value is not None}
            error, message = self.alter_resource_configs(res.resource_type, res.resource_name,
                                                         lambda current: new_props, body.validate_only)
            results.append(alter_configs.AlterConfigsResourceResponse(
                error_code=error.code, error_message=message, resource_type=res.resource_type,
                resource_name=res.resource_name))
        self.send_response(request, alter_configs.AlterConfigsResponse(responses=results))

    # Kafka: KafkaApis.handleIncrementalAlterConfigsRequest -> AdminManager.incrementalAlterConfigs
    def handle_incremental_alter_configs_request(self, request) -> None:
        body = request.body
        results = []
        for res in body.resources:
            error, message = self.alter_resource_configs(
                res.resource_type, res.resource_name,
                lambda current, res=res: self.prepare_incremental_configs(res.configs, current), body.validate_only)
            results.append(incremental_alter_configs.AlterConfigsResourceResponse(
                error_code=error.code, error_message=message, resource_type=res.resource_type,
                resource_name=res.resource_name))
        self.send_response(request, incremental_alter_configs.IncrementalAlterConfigsResponse(responses=results))

    # Kafka: AdminManager.prepareIncrementalConfigs
    @staticmethod
    def prepare_incremental_configs(alter_ops, current: dict) -> dict:
        props = dict(current)
        for op in alter_ops:
            if op.config_operation == SET:
                props[op.name] = op.value
            elif op.config_operation == DELETE:
                props.pop(op.name, None)
            elif op.config_operation in (APPEND, SUBTRACT):
                items = [v for v in (props.get(op.name) or "").split(",") if v]
                given = [v.strip() for v in (op.value or "").split(",") if v.strip()]
                if op.config_operation == APPEND:
                    items += [v for v in given if v not in items]
                else:
                    items = [v for v in items if v not in given]
                props[op.name] = ",".join(items)
            else:
                raise Errors.INVALID_REQUEST.exception(f"Unknown config operation {op.config_operation}")
        return props

    def alter_resource_configs(self, resource_type: int, name: str, new_props_fn, validate_only: bool):
        """Validate and (unless validate_only) persist one resource's new overrides: (Errors, message)."""
        try:
            if resource_type == TOPIC_RESOURCE:
                Topic.validate(name)
                if not self.zk_client.topic_exists(name):
                    raise Errors.UNKNOWN_TOPIC_OR_PARTITION.exception(f"Topic {name} does not exist")
                entity_type, entity = "topics", name
                props = new_props_fn(self.zk_client.get_entity_configs(entity_type, entity))
                LogConfig.validate(props)
            elif resource_type == BROKER_RESOURCE:
                per_broker = bool(name)
                if per_broker and name != str(self.broker_id):
                    raise Errors.INVALID_REQUEST.exception(
                        f"Unexpected broker id, expected {self.broker_id} or empty string, but received {name}")
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
            message = f"Invalid config value for resource {name}: {e}"
            self.info(message)
            return Errors.INVALID_REQUEST, message
