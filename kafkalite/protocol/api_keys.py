"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/protocol/ApiKeys.java

Classes: ApiKeys -- one member per API kafkalite may serve, with its id, the version range the
broker advertises in ApiVersions, where flexible versions start, and whether it is a
cluster action (a controller-to-broker request).

Each member finds its message classes lazily in ``kafkalite.protocol.messages.<snake name>``
(``ApiKeys.LIST_OFFSETS.request_class`` is ``messages.list_offsets.ListOffsetsRequest``), so
a module that has not been written yet simply gives ``None``.

Era notes: the maximums are today's (see DESIGN §2), not 2.4's: e.g. Metadata 0-12 with flexible
versions from 9. The minimums are Kafka 3.9's (issue 19: Kafka 4.0 dropped the oldest versions with
KIP-896, 2.4 through 3.9 accept them), Produce v0-2 and Fetch v0-3 included: their message formats v0/v1
are up-converted on append and down-converted on fetch (docs/message-formats.md).
``min_accepted_version`` (Kafka 4's way of advertising a version it refuses, KAFKA-18659) equals
``min_version`` for every key today. Kafka's ``ApiKeys.name`` (the CamelCase name of metric tags)
is ``api_name`` here, because Python's enum owns ``name`` (the member name, ``LIST_OFFSETS``).
Left out: Kafka's per-key schema arrays (the message classes carry their versions),
``requiresDelayedAllocation``, the minimum record magic, and keys kafkalite never serves.
"""
from __future__ import annotations

import enum
import importlib
import importlib.util

from kafkalite.protocol.errors import InvalidRequestException


class ApiKeys(enum.Enum):
    """Kafka: ApiKeys. Value = (id, min, max, flexible from, cluster action[, min accepted])."""

    PRODUCE = (0, 0, 9, 9, False)
    FETCH = (1, 0, 12, 12, False)
    LIST_OFFSETS = (2, 0, 7, 6, False)
    METADATA = (3, 0, 12, 9, False)
    LEADER_AND_ISR = (4, 0, 4, 4, True)
    STOP_REPLICA = (5, 0, 2, 2, True)
    UPDATE_METADATA = (6, 0, 7, 6, True)
    CONTROLLED_SHUTDOWN = (7, 0, 3, 3, True)
    OFFSET_COMMIT = (8, 0, 9, 8, False)
    OFFSET_FETCH = (9, 0, 7, 6, False)
    FIND_COORDINATOR = (10, 0, 3, 3, False)
    JOIN_GROUP = (11, 0, 7, 6, False)
    HEARTBEAT = (12, 0, 4, 4, False)
    LEAVE_GROUP = (13, 0, 5, 4, False)
    SYNC_GROUP = (14, 0, 5, 4, False)
    DESCRIBE_GROUPS = (15, 0, 5, 5, False)
    LIST_GROUPS = (16, 0, 4, 3, False)
    SASL_HANDSHAKE = (17, 0, 1, None, False)
    API_VERSIONS = (18, 0, 4, 3, False)
    CREATE_TOPICS = (19, 0, 7, 5, False)
    DELETE_TOPICS = (20, 0, 6, 4, False)
    DELETE_RECORDS = (21, 0, 2, 2, False)
    INIT_PRODUCER_ID = (22, 0, 4, 2, False)
    OFFSET_FOR_LEADER_EPOCH = (23, 0, 4, 4, False)
    ADD_PARTITIONS_TO_TXN = (24, 0, 3, 3, False)
    ADD_OFFSETS_TO_TXN = (25, 0, 3, 3, False)
    END_TXN = (26, 0, 3, 3, False)
    WRITE_TXN_MARKERS = (27, 0, 1, 1, True)
    TXN_OFFSET_COMMIT = (28, 0, 3, 3, False)
    DESCRIBE_ACLS = (29, 0, 3, 2, False)
    CREATE_ACLS = (30, 0, 3, 2, False)
    DELETE_ACLS = (31, 0, 3, 2, False)
    DESCRIBE_CONFIGS = (32, 0, 4, 4, False)
    ALTER_CONFIGS = (33, 0, 2, 2, False)
    ALTER_REPLICA_LOG_DIRS = (34, 0, 1, None, False)
    DESCRIBE_LOG_DIRS = (35, 0, 1, None, False)
    SASL_AUTHENTICATE = (36, 0, 2, 2, False)
    CREATE_PARTITIONS = (37, 0, 3, 2, False)
    DELETE_GROUPS = (42, 0, 2, 2, False)
    ELECT_LEADERS = (43, 0, 2, 2, False)
    INCREMENTAL_ALTER_CONFIGS = (44, 0, 1, 1, False)
    ALTER_PARTITION_REASSIGNMENTS = (45, 0, 0, 0, False)
    LIST_PARTITION_REASSIGNMENTS = (46, 0, 0, 0, False)
    OFFSET_DELETE = (47, 0, 0, None, False)
    DESCRIBE_CLIENT_QUOTAS = (48, 0, 1, 1, False)       # KIP-546, Kafka 2.6
    ALTER_CLIENT_QUOTAS = (49, 0, 1, 1, False)          # KIP-546, Kafka 2.6
    DESCRIBE_USER_SCRAM_CREDENTIALS = (50, 0, 0, 0, False)
    ALTER_USER_SCRAM_CREDENTIALS = (51, 0, 0, 0, False)
    DESCRIBE_CLUSTER = (60, 0, 1, 0, False)
    DESCRIBE_PRODUCERS = (61, 0, 0, 0, False)
    DESCRIBE_TRANSACTIONS = (65, 0, 0, 0, False)
    LIST_TRANSACTIONS = (66, 0, 1, 0, False)
    CONSUMER_GROUP_HEARTBEAT = (68, 0, 1, 0, False)    # Kafka 3.7 (KIP-848)
    CONSUMER_GROUP_DESCRIBE = (69, 0, 0, 0, False)     # Kafka 3.7 (KIP-848)
    DESCRIBE_TOPIC_PARTITIONS = (75, 0, 0, 0, False)   # Kafka 3.7 (KIP-966)

    def __new__(cls, id, min_version, max_version, flexible_from, cluster_action, min_accepted=None):
        obj = object.__new__(cls)
        obj._value_ = id
        return obj

    def __init__(self, id, min_version, max_version, flexible_from, cluster_action, min_accepted=None):
        self.id = id
        self.min_version = min_version
        self.max_version = max_version
        self.min_accepted_version = min_version if min_accepted is None else min_accepted
        self.flexible_from = flexible_from
        self.cluster_action = cluster_action
        # Kafka: ApiKeys.name -- "LeaderAndIsr", "ListOffsets", ...
        self.api_name = "".join(part.title() for part in self.name.split("_"))
        self.module_name = self.name.lower()

    # Kafka: ApiKeys.forId
    @classmethod
    def for_id(cls, api_key: int) -> "ApiKeys":
        # the enum's own value table (what ApiKeys(api_key) looks in, without EnumMeta's call): per request
        member = cls._value2member_map_.get(api_key)
        if member is None:
            raise InvalidRequestException(f"Unexpected api key: {api_key}")
        return member

    # Kafka: ApiKeys.hasId
    @classmethod
    def has_id(cls, api_key: int) -> bool:
        return api_key in cls._value2member_map_

    # Kafka: ApiKeys.isVersionSupported
    def is_version_supported(self, version: int) -> bool:
        """True for the versions the broker accepts (``min_accepted_version`` up to the maximum)."""
        return self.min_accepted_version <= version <= self.max_version

    def is_flexible(self, version: int) -> bool:
        return self.flexible_from is not None and version >= self.flexible_from

    # Kafka: ApiKeys.requestHeaderVersion
    def request_header_version(self, version: int) -> int:
        if self is ApiKeys.CONTROLLED_SHUTDOWN and version == 0:
            return 0  # ControlledShutdown v0 was sent without a client id
        return 2 if self.is_flexible(version) else 1

    # Kafka: ApiKeys.responseHeaderVersion
    def response_header_version(self, version: int) -> int:
        if self is ApiKeys.API_VERSIONS:
            return 0  # KIP-511: a client must read this reply before it knows our versions
        return 1 if self.is_flexible(version) else 0

    def _message_class(self, kind: str):
        module_path = f"kafkalite.protocol.messages.{self.module_name}"
        try:
            module = importlib.import_module(module_path)
        except ModuleNotFoundError as e:
            if e.name == module_path:
                return None
            raise
        return getattr(module, f"{self.api_name}{kind}", None)

    @property
    def has_messages(self) -> bool:
        """True when ``kafkalite.protocol.messages`` has this API's module: found on disk, not imported, so
        answering ApiVersions does not load every message module (they load when their API is first used)."""
        found = _modules_found.get(self)
        if found is None:
            found = _modules_found[self] = importlib.util.find_spec(
                f"kafkalite.protocol.messages.{self.module_name}") is not None
        return found

    @property
    def request_class(self):
        """The ``XxxRequest`` message class, or None when it is not written yet."""
        return self._message_class("Request")

    @property
    def response_class(self):
        """The ``XxxResponse`` message class, or None when it is not written yet."""
        return self._message_class("Response")


_modules_found: dict[ApiKeys, bool] = {}   # ApiKeys.has_messages, filled on first ask
