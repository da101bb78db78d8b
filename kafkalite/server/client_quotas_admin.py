"""Mirrors Kafka 2.6: core/src/main/scala/kafka/server/AdminManager.scala (describeClientQuotas,
alterClientQuotas, the client-quota half; KIP-546)

Classes: ClientQuotasAdmin. Constants: QUOTA_KEYS, USER, CLIENT_ID.

The broker's half of DescribeClientQuotas and AlterClientQuotas. Quotas live where Kafka 2.4's
``kafka-configs --zookeeper --entity-type users|clients`` put them: entity configs under
``/config/users/<user>``, ``/config/users/<user>/clients/<client-id>`` and ``/config/clients/<client-id>``
(names sanitized, ``<default>`` for a default entity), beside a user's SCRAM credentials. An alteration
rewrites the entity's config and writes a ``/config/changes`` notification, so every broker's
UserConfigHandler / ClientIdConfigHandler updates its quota managers without a restart.
Rules, as 2.6's: an entity is a user, a client id or both, each at most once (else INVALID_REQUEST);
the keys are ``producer_byte_rate`` and ``consumer_byte_rate`` (whole numbers) and ``request_percentage``
(else INVALID_REQUEST); a describe filter's match types are 0 exact name, 1 the default, 2 any named entity.
Era notes: 2.4 had no such APIs; AdminManager was renamed ZkAdminManager in 2.8. This lives beside
admin_manager.py rather than in it, to keep that module small.
"""
from __future__ import annotations

from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import alter_client_quotas as acq
from kafkalite.protocol.messages import describe_client_quotas as dcq
from kafkalite.server.client_quota_manager import DEFAULT_ENTITY
from kafkalite.server.user_scram_credentials_manager import desanitize, sanitize
from kafkalite.utils.logging import Logging
from kafkalite.zk.zk_data import ConfigType

USER, CLIENT_ID = "user", "client-id"          # Kafka 2.6: ClientQuotaEntity.USER / CLIENT_ID
QUOTA_KEYS = {"producer_byte_rate": int, "consumer_byte_rate": int, "request_percentage": float}
MATCH_EXACT, MATCH_DEFAULT, MATCH_SPECIFIED = 0, 1, 2


class ClientQuotasAdmin(Logging):
    """Kafka 2.6: AdminManager's client-quota half."""

    def __init__(self, zk_client):
        self.zk_client = zk_client

    # Kafka 2.6: AdminManager.entityToSanitizedUserClientId -- {type: name or None} -> ZooKeeper entity path
    @staticmethod
    def entity_path(entity: dict) -> tuple[str, str]:
        def name(n):
            return DEFAULT_ENTITY if n is None else sanitize(n)
        if USER in entity:
            path = name(entity[USER])
            if CLIENT_ID in entity:
                path += f"/clients/{name(entity[CLIENT_ID])}"
            return ConfigType.USER, path
        return ConfigType.CLIENT, name(entity[CLIENT_ID])

    def _all_quota_entities(self):
        """(entity {type: name or None}, quota values) for every entity with a quota in ZooKeeper."""
        def name(n):
            return None if n == DEFAULT_ENTITY else desanitize(n)
        zk = self.zk_client
        for user in zk.get_all_entities_with_config(ConfigType.USER):
            yield {USER: name(user)}, zk.get_entity_configs(ConfigType.USER, user)
            for client in zk.get_all_entities_with_config(f"{ConfigType.USER}/{user}/clients"):
                yield ({USER: name(user), CLIENT_ID: name(client)},
                       zk.get_entity_configs(ConfigType.USER, f"{user}/clients/{client}"))
        for client in zk.get_all_entities_with_config(ConfigType.CLIENT):
            yield {CLIENT_ID: name(client)}, zk.get_entity_configs(ConfigType.CLIENT, client)

    # Kafka 2.6: AdminManager.describeClientQuotas
    def describe_client_quotas(self, request) -> dcq.DescribeClientQuotasResponse:
        wanted = {}
        for c in request.components:
            if c.entity_type not in (USER, CLIENT_ID):
                return self._describe_error(Errors.INVALID_REQUEST, f"Custom entity type '{c.entity_type}' not supported")
            if c.entity_type in wanted:
                return self._describe_error(Errors.INVALID_REQUEST, f"Duplicate {c.entity_type} filter component entity type")
            if c.match_type not in (MATCH_EXACT, MATCH_DEFAULT, MATCH_SPECIFIED) or \
                    (c.match_type == MATCH_EXACT and c.match is None):
                return self._describe_error(Errors.INVALID_REQUEST, f"Invalid match type for {c.entity_type}")
            wanted[c.entity_type] = c
        entries = []
        try:
            for entity, config in self._all_quota_entities():
                if request.strict and set(entity) != set(wanted):
                    continue
                if not all(t in entity and self._matches(wanted[t], entity[t]) for t in wanted):
                    continue
                values = [dcq.ValueData(key=k, value=float(v)) for k, v in sorted(config.items()) if k in QUOTA_KEYS]
                if values:
                    entries.append(dcq.EntryData(
                        entity=[dcq.EntityData(entity_type=t, entity_name=n) for t, n in entity.items()], values=values))
        except Exception as e:   # noqa: BLE001 -- ZooKeeper trouble: the message-level error
            return self._describe_error(Errors.for_exception(e), str(e))
        return dcq.DescribeClientQuotasResponse(error_code=0, entries=entries)

    @staticmethod
    def _matches(component, name) -> bool:
        if component.match_type == MATCH_EXACT:
            return name == component.match
        if component.match_type == MATCH_DEFAULT:
            return name is None
        return name is not None

    @staticmethod
    def _describe_error(error: Errors, message: str) -> dcq.DescribeClientQuotasResponse:
        return dcq.DescribeClientQuotasResponse(error_code=error.code, error_message=message, entries=None)

    # Kafka 2.6: AdminManager.alterClientQuotas -- each entity on its own: validate, then write and notify
    def alter_client_quotas(self, request) -> acq.AlterClientQuotasResponse:
        results = []
        for entry in request.entries:
            result = acq.EntryResult(entity=[acq.EntityData(entity_type=e.entity_type, entity_name=e.entity_name)
                                             for e in entry.entity])
            try:
                entity = {}
                for e in entry.entity:
                    if e.entity_type not in (USER, CLIENT_ID):
                        raise Errors.INVALID_REQUEST.exception(f"Unhandled client quota entity type: {e.entity_type}")
                    if e.entity_type in entity:
                        raise Errors.INVALID_REQUEST.exception(f"Duplicate {e.entity_type} entity type")
                    if e.entity_name == "":
                        raise Errors.INVALID_REQUEST.exception(f"Empty {e.entity_type} not supported")
                    entity[e.entity_type] = e.entity_name
                if not entity:
                    raise Errors.INVALID_REQUEST.exception("Invalid empty client quota entity")
                entity_type, path = self.entity_path(entity)
                config = dict(self.zk_client.get_entity_configs(entity_type, path))
                for op in entry.ops:
                    parse = QUOTA_KEYS.get(op.key)
                    if parse is None:
                        raise Errors.INVALID_REQUEST.exception(f"Invalid configuration key {op.key}")
                    if op.remove:
                        config.pop(op.key, None)
                        continue
                    if parse is int and op.value != int(op.value):
                        raise Errors.INVALID_REQUEST.exception(f"Configuration {op.key} must be a Long value")
                    if op.value <= 0:
                        raise Errors.INVALID_REQUEST.exception(f"Configuration {op.key} must be positive")
                    config[op.key] = str(parse(op.value))
                if not request.validate_only:
                    # Kafka: AdminZkClient.changeConfigs -- write the config, then notify every broker
                    self.zk_client.set_or_create_entity_configs(entity_type, path, config)
                    self.zk_client.create_config_change_notification(f"{entity_type}/{path}")
            except Exception as e:   # noqa: BLE001
                error = Errors.for_exception(e)
                result.error_code, result.error_message = error.code, str(e)
                self.info(f"Error encountered while altering client quotas: {e}")
            results.append(result)
        return acq.AlterClientQuotasResponse(entries=results)
