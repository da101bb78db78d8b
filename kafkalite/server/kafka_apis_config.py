"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaApis.scala -- handleDescribeConfigsRequest,
handleAlterConfigsRequest and handleIncrementalAlterConfigsRequest. ``ConfigApis`` is a mixin of
``KafkaApis``; the work is AdminManager's (``describe_configs``, ``alter_configs``,
``incremental_alter_configs``), as in Kafka.
"""
from __future__ import annotations

from kafkalite.protocol.messages import alter_configs, describe_configs, incremental_alter_configs


class ConfigApis:
    """The config handlers of KafkaApis (a mixin: ``self`` is the KafkaApis)."""

    # Kafka: KafkaApis.handleDescribeConfigsRequest -> AdminManager.describeConfigs
    def handle_describe_configs_request(self, request) -> None:
        results = self.admin_manager.describe_configs(request.body.resources, request.body.include_synonyms)
        self.send_response(request, describe_configs.DescribeConfigsResponse(results=results))

    # Kafka: KafkaApis.handleAlterConfigsRequest -> AdminManager.alterConfigs
    def handle_alter_configs_request(self, request) -> None:
        body = request.body
        results = []
        for res in body.resources:
            new_props = {c.name: c.value for c in res.configs if c.value is not None}
            error, message = self.admin_manager.alter_configs(res.resource_type, res.resource_name, new_props,
                                                              body.validate_only)
            results.append(alter_configs.AlterConfigsResourceResponse(
                error_code=error.code, error_message=message, resource_type=res.resource_type,
                resource_name=res.resource_name))
        self.send_response(request, alter_configs.AlterConfigsResponse(responses=results))

    # Kafka: KafkaApis.handleIncrementalAlterConfigsRequest -> AdminManager.incrementalAlterConfigs
    def handle_incremental_alter_configs_request(self, request) -> None:
        body = request.body
        results = []
        for res in body.resources:
            error, message = self.admin_manager.incremental_alter_configs(res.resource_type, res.resource_name,
                                                                          res.configs, body.validate_only)
            results.append(incremental_alter_configs.AlterConfigsResourceResponse(
                error_code=error.code, error_message=message, resource_type=res.resource_type,
                resource_name=res.resource_name))
        self.send_response(request, incremental_alter_configs.IncrementalAlterConfigsResponse(responses=results))
