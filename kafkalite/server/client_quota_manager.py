"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/ClientQuotaManager.scala
(with server/ThrottledChannel.scala and the DefaultQuotaCallback inside ClientQuotaManager)

Classes: QuotaType, ClientQuotaManagerConfig, QuotaTypes, KafkaQuotaEntity, ClientSensors, ThrottledChannel,
ThrottledChannelReaper, DefaultQuotaCallback, ClientQuotaManager. Constant: DEFAULT_ENTITY ("<default>").

One ClientQuotaManager per quota type (Produce, Fetch; Request is the subclass in
client_request_quota_manager.py). Each client is a quota entity, found as Kafka 2.4 finds it: with quotas
for (user, client-id) pairs, users and client ids, the most specific of the 8 levels wins --
/config/users/<user>/clients/<client-id>, /config/users/<user>/clients/<default>, /config/users/<user>,
/config/users/<default>/clients/<client-id>, /config/users/<default>/clients/<default>, /config/users/<default>,
/config/clients/<client-id>, /config/clients/<default> -- and below them the static ``quota.producer.default``
/ ``quota.consumer.default``. All clients of one entity share one ``Rate`` sensor (``byte-rate`` with tags
user and client-id, in ``quota.window.num`` windows of ``quota.window.size.seconds``).
A request's bytes are recorded in the sensor; if the rate is then over the quota, the throttle time is the
time that brings it back: X = (O - T) / T * W for observed rate O, quota T and window W (Rate.window_size).
Throttling is KIP-219's (Kafka 2.0+): the response goes out at once carrying ``throttle_time_ms``, and a
ThrottledChannel in the delay queue has the Processor keep the channel muted (THROTTLE_STARTED) until the
``ThrottledChannelReaper-<type>`` thread sees its time is up (THROTTLE_ENDED).
Left out: custom ClientQuotaCallback classes (``client.quota.callback.class``), replication quotas,
expiring idle sensors, the delay-queue metric.
"""
from __future__ import annotations

import enum
import heapq
import itertools
import threading

import attrs

from kafkalite.common.metrics.metrics import MetricConfig, Metrics, Quota, QuotaViolationException
from kafkalite.common.metrics.stats import Avg, Rate
from kafkalite.network.request_channel import EndThrottlingAction, Response, StartThrottlingAction
from kafkalite.server.user_scram_credentials_manager import sanitize
from kafkalite.utils.logging import Logging
from kafkalite.utils.shutdownable_thread import ShutdownableThread

DEFAULT_ENTITY = "<default>"          # Kafka: ConfigEntityName.Default
LONG_MAX = 2 ** 63 - 1
INACTIVE_SENSOR_EXPIRATION_TIME_SECONDS = 3600   # Kafka: ClientQuotaManagerConfig.InactiveSensorExpirationTimeSeconds


class QuotaType(enum.Enum):
    """Kafka: QuotaType -- the client quotas' three and the replication quotas' three
    (ReplicationQuotaManager)."""

    Fetch = "Fetch"
    Produce = "Produce"
    Request = "Request"
    LeaderReplication = "LeaderReplication"
    FollowerReplication = "FollowerReplication"
    AlterLogDirsReplication = "AlterLogDirsReplication"

    def __str__(self) -> str:
        return self.value


@attrs.frozen
class ClientQuotaManagerConfig:
    """Kafka: ClientQuotaManagerConfig(quotaBytesPerSecondDefault, numQuotaSamples, quotaWindowSizeSeconds)."""

    quota_bytes_per_second_default: int = LONG_MAX
    num_quota_samples: int = 11
    quota_window_size_seconds: int = 1


class QuotaTypes:
    """Kafka: ClientQuotaManager.QuotaTypes -- bit flags of the levels that have ever had a quota."""

    NoQuotas = 0
    ClientIdQuotaEnabled = 1
    UserQuotaEnabled = 2
    UserClientIdQuotaEnabled = 4
    CustomQuotas = 8


@attrs.frozen
class KafkaQuotaEntity:
    """Kafka: ClientQuotaManager.KafkaQuotaEntity(userEntity, clientIdEntity) -- None: not part of the
    entity; DEFAULT_ENTITY: the default user / client id."""

    sanitized_user: str | None = None
    client_id: str | None = None


@attrs.define
class ClientSensors:
    """Kafka: ClientSensors(metricTags, quotaSensor, throttleTimeSensor)."""

    metric_tags: dict
    quota_sensor: object
    throttle_time_sensor: object


class ThrottledChannel:
    """Kafka: ThrottledChannel(request, time, throttleTimeMs, channelThrottlingCallback) -- a Delayed: tells
    the Processor to start throttling now, and to end it when the reaper takes it from the queue."""

    def __init__(self, request, time, throttle_time_ms: int, channel_throttling_callback):
        self.request = request
        self.time = time
        self.throttle_time_ms = throttle_time_ms
        self.channel_throttling_callback = channel_throttling_callback
        self.end_time_ms = time.milliseconds() + throttle_time_ms
        # Kafka: "Notify the socket server that throttling has started for this channel."
        channel_throttling_callback(Response(request, None, StartThrottlingAction))

    # Kafka: ThrottledChannel.notifyThrottlingDone
    def notify_throttling_done(self) -> None:
        self.channel_throttling_callback(Response(self.request, None, EndThrottlingAction))

    # Kafka: ThrottledChannel.getDelay
    def get_delay_ms(self) -> int:
        return self.end_time_ms - self.time.milliseconds()


class _DelayQueue:
    """java.util.concurrent.DelayQueue: poll(timeout) gives an element whose delay has run out."""

    def __init__(self):
        self._heap: list = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._closed = False

    def add(self, item: ThrottledChannel) -> None:
        with self._cond:
            heapq.heappush(self._heap, (item.end_time_ms, next(self._seq), item))
            self._cond.notify()

    def poll(self, timeout_ms: int):
        with self._cond:
            deadline = None
            while not self._closed:
                if self._heap:
                    delay = self._heap[0][2].get_delay_ms()
                    if delay <= 0:
                        return heapq.heappop(self._heap)[2]
                else:
                    delay = timeout_ms
                if deadline is None:
                    deadline = timeout_ms
                wait = min(delay, deadline)
                if wait <= 0:
                    return None
                self._cond.wait(wait / 1000.0)
                deadline -= wait
            return None

    def size(self) -> int:
        return len(self._heap)

    def close(self) -> None:
        """Wake the reaper for good: ``poll`` answers None from now on (Kafka interrupts the thread)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()


class ThrottledChannelReaper(ShutdownableThread):
    """Kafka: ClientQuotaManager.ThrottledChannelReaper -- thread ``<prefix>ThrottledChannelReaper-<type>``."""

    def __init__(self, delay_queue: _DelayQueue, prefix: str, quota_type: QuotaType):
        super().__init__(f"{prefix}ThrottledChannelReaper-{quota_type}", is_interruptible=False)
        self.daemon = True
        self.delay_queue = delay_queue

    # Kafka: ThrottledChannelReaper.doWork -- unmute channels whose throttle time is over
    def do_work(self) -> None:
        throttled_channel = self.delay_queue.poll(1000)
        if throttled_channel is not None:
            throttled_channel.notify_throttling_done()


class DefaultQuotaCallback(Logging):
    """Kafka: ClientQuotaManager.DefaultQuotaCallback -- quota overrides from ZooKeeper, and the resolution."""

    def __init__(self, manager: "ClientQuotaManager"):
        self.manager = manager
        self.overridden_quotas: dict[KafkaQuotaEntity, Quota] = {}

    # Kafka: DefaultQuotaCallback.quotaLimit -- the quota of the entity these metric tags name, or None
    def quota_limit(self, metric_tags: dict) -> float | None:
        user, client_id = metric_tags.get("user"), metric_tags.get("client-id")
        q = self.overridden_quotas.get
        quota = None
        if user is not None and client_id is not None:
            if user and client_id:
                quota = (q(KafkaQuotaEntity(user, client_id)) or q(KafkaQuotaEntity(user, DEFAULT_ENTITY))
                         or q(KafkaQuotaEntity(DEFAULT_ENTITY, client_id))
                         or q(KafkaQuotaEntity(DEFAULT_ENTITY, DEFAULT_ENTITY)))
            elif user:
                quota = q(KafkaQuotaEntity(user, None)) or q(KafkaQuotaEntity(DEFAULT_ENTITY, None))
            elif client_id:
                quota = (q(KafkaQuotaEntity(None, client_id)) or q(KafkaQuotaEntity(None, DEFAULT_ENTITY))
                         or self.manager.static_config_client_id_quota)
        return None if quota is None else quota.bound

    # Kafka: DefaultQuotaCallback.updateQuota
    def update_quota(self, entity: KafkaQuotaEntity, new_value: float) -> None:
        self.info(f"Changing {self.manager.quota_type} quota for {entity} to {new_value}")
        self.overridden_quotas[entity] = Quota(new_value, True)

    # Kafka: DefaultQuotaCallback.removeQuota
    def remove_quota(self, entity: KafkaQuotaEntity) -> None:
        self.info(f"Removing {self.manager.quota_type} quota for {entity}")
        self.overridden_quotas.pop(entity, None)

    # Kafka: DefaultQuotaCallback.quotaMetricTags -- which entity's sensor a (user, client-id) shares
    def quota_metric_tags(self, sanitized_user: str, client_id: str) -> dict:
        enabled = self.manager.quota_types_enabled
        if enabled in (QuotaTypes.NoQuotas, QuotaTypes.ClientIdQuotaEnabled):
            user_tag, client_tag = "", client_id
        elif enabled == QuotaTypes.UserQuotaEnabled:
            user_tag, client_tag = sanitized_user, ""
        elif enabled == QuotaTypes.UserClientIdQuotaEnabled:
            user_tag, client_tag = sanitized_user, client_id
        else:
            has = self.overridden_quotas.__contains__
            u, c, d = sanitized_user, client_id, DEFAULT_ENTITY
            if has(KafkaQuotaEntity(u, c)) or has(KafkaQuotaEntity(u, d)):      # levels 1, 2
                user_tag, client_tag = u, c
            elif has(KafkaQuotaEntity(u, None)):                                 # level 3
                user_tag, client_tag = u, ""
            elif has(KafkaQuotaEntity(d, c)) or has(KafkaQuotaEntity(d, d)):    # levels 4, 5
                user_tag, client_tag = u, c
            elif has(KafkaQuotaEntity(d, None)):                                 # level 6
                user_tag, client_tag = u, ""
            else:                                                                # levels 7, 8, static
                user_tag, client_tag = "", c
        return {"user": user_tag, "client-id": client_tag}


class ClientQuotaManager(Logging):
    """Kafka: ClientQuotaManager(config, metrics, quotaType, time, threadNamePrefix, clientQuotaCallback)."""

    def __init__(self, config: ClientQuotaManagerConfig, metrics: Metrics, quota_type: QuotaType, time,
                 thread_name_prefix: str = ""):
        self.config = config
        self.metrics = metrics
        self.quota_type = quota_type
        self.time = time
        self.static_config_client_id_quota = Quota.upper_bound(config.quota_bytes_per_second_default)
        self.quota_types_enabled = QuotaTypes.NoQuotas if config.quota_bytes_per_second_default == LONG_MAX \
            else QuotaTypes.ClientIdQuotaEnabled
        self.lock = threading.RLock()
        self.delay_queue = _DelayQueue()
        self.quota_callback = DefaultQuotaCallback(self)
        self.throttled_channel_reaper = ThrottledChannelReaper(self.delay_queue, thread_name_prefix, quota_type)
        self.throttled_channel_reaper.start()

    # Kafka: ClientQuotaManager.quotasEnabled
    @property
    def quotas_enabled(self) -> bool:
        return self.quota_types_enabled != QuotaTypes.NoQuotas

    # Kafka: ClientQuotaManager.maybeRecordAndGetThrottleTimeMs
    def maybe_record_and_get_throttle_time_ms(self, request, value: float, time_ms: int) -> int:
        if not self.quotas_enabled:
            return 0
        return self.record_and_get_throttle_time_ms(request.context.principal, request.header.client_id or "",
                                                    value, time_ms)

    # Kafka: ClientQuotaManager.recordAndGetThrottleTimeMs
    def record_and_get_throttle_time_ms(self, principal, client_id: str, value: float, time_ms: int) -> int:
        client_sensors = self.get_or_create_quota_sensors(principal, client_id)
        try:
            client_sensors.quota_sensor.record(value, time_ms)
            return 0
        except QuotaViolationException:
            metric = self.metrics.metric(self.client_rate_metric_name(client_sensors.metric_tags))
            throttle_time_ms = int(self.throttle_time(metric))
            self.debug(f"Quota violated for sensor ({client_sensors.quota_sensor.name}). "
                       f"Delay time: ({throttle_time_ms})")
            return throttle_time_ms

    # Kafka: ClientQuotaManager.unrecordQuotaSensor
    def unrecord_quota_sensor(self, request, value: float, time_ms: int) -> None:
        sensors = self.get_or_create_quota_sensors(request.context.principal, request.header.client_id or "")
        sensors.quota_sensor.record(-value, time_ms, False)

    # Kafka: ClientQuotaManager.recordNoThrottle
    def record_no_throttle(self, client_sensors: ClientSensors, value: float) -> None:
        client_sensors.quota_sensor.record(value, self.time.milliseconds(), False)

    # Kafka: ClientQuotaManager.throttle -- mute the channel for throttle_time_ms (KIP-219)
    def throttle(self, request, throttle_time_ms: int, channel_throttling_callback) -> None:
        if throttle_time_ms > 0:
            sensors = self.get_or_create_quota_sensors(request.context.principal, request.header.client_id or "")
            sensors.throttle_time_sensor.record(throttle_time_ms)
            self.delay_queue.add(ThrottledChannel(request, self.time, throttle_time_ms, channel_throttling_callback))
            self.debug(f"Channel throttled for sensor ({sensors.quota_sensor.name}). Delay time: ({throttle_time_ms})")

    # Kafka: ClientQuotaManager.quota(user, clientId) -- for tests and describe tools
    def quota(self, user: str, client_id: str) -> Quota:
        tags = self.quota_callback.quota_metric_tags(sanitize(user), client_id)
        return Quota.upper_bound(self.quota_limit(tags))

    # Kafka: ClientQuotaManager.quotaLimit
    def quota_limit(self, metric_tags: dict) -> float:
        limit = self.quota_callback.quota_limit(metric_tags)
        return float(LONG_MAX) if limit is None else limit

    # Kafka: ClientQuotaManager.throttleTime -- X = (O - T) / T * W
    def throttle_time(self, client_metric) -> int:
        config = client_metric.config
        rate_metric: Rate = client_metric.measurable
        quota = config.quota
        difference = client_metric.metric_value() - quota.bound
        return round(difference / quota.bound * rate_metric.window_size(config, self.time.milliseconds()))

    # Kafka: ClientQuotaManager.getOrCreateQuotaSensors
    def get_or_create_quota_sensors(self, principal, client_id: str) -> ClientSensors:
        metric_tags = self.quota_callback.quota_metric_tags(sanitize(principal.name), client_id)
        suffix = ":".join(metric_tags.values())
        with self.lock:
            quota_sensor = self.metrics.get_sensor(f"{self.quota_type}-{suffix}")
            if quota_sensor is None:
                quota_sensor = self.metrics.sensor(f"{self.quota_type}-{suffix}",
                                                   self.get_quota_metric_config(self.quota_limit(metric_tags)),
                                                   INACTIVE_SENSOR_EXPIRATION_TIME_SECONDS)
                quota_sensor.add(self.client_rate_metric_name(metric_tags), Rate())
            throttle_sensor = self.metrics.get_sensor(f"{self.quota_type}ThrottleTime-{suffix}")
            if throttle_sensor is None:
                throttle_sensor = self.metrics.sensor(f"{self.quota_type}ThrottleTime-{suffix}",
                                                      self.get_quota_metric_config(None),
                                                      INACTIVE_SENSOR_EXPIRATION_TIME_SECONDS)
                throttle_sensor.add(self.throttle_metric_name(metric_tags), Avg())
        return ClientSensors(metric_tags, quota_sensor, throttle_sensor)

    # Kafka: ClientQuotaManager.getQuotaMetricConfig
    def get_quota_metric_config(self, quota_limit: float | None) -> MetricConfig:
        return MetricConfig(quota=None if quota_limit is None else Quota(quota_limit, True),
                            samples=self.config.num_quota_samples,
                            time_window_ms=self.config.quota_window_size_seconds * 1000)

    # Kafka: ClientQuotaManager.updateQuota -- one override added (quota) or removed (None)
    def update_quota(self, sanitized_user: str | None, client_id: str | None, quota: Quota | None) -> None:
        with self.lock:
            entity = KafkaQuotaEntity(sanitized_user, client_id)
            if sanitized_user is not None:
                self.quota_types_enabled |= (QuotaTypes.UserClientIdQuotaEnabled if client_id is not None
                                             else QuotaTypes.UserQuotaEnabled)
            elif client_id is not None:
                self.quota_types_enabled |= QuotaTypes.ClientIdQuotaEnabled
            if quota is not None:
                self.quota_callback.update_quota(entity, quota.bound)
            else:
                self.quota_callback.remove_quota(entity)
            self.update_quota_metric_configs()

    # Kafka: ClientQuotaManager.updateQuotaMetricConfigs -- every byte-rate metric takes its (new) quota;
    # Kafka updates just one metric when a single level is in use, the result is the same
    def update_quota_metric_configs(self) -> None:
        for name, metric in list(self.metrics.metrics.items()):
            if name.name != self.client_rate_metric_name({}).name or name.group != str(self.quota_type):
                continue
            new_quota = self.quota_callback.quota_limit(dict(name.tags))
            if new_quota is not None and (metric.config.quota is None or new_quota != metric.config.quota.bound):
                self.info(f"Sensor for quota-id {dict(name.tags)} already exists. Setting quota to {new_quota} "
                          f"in MetricConfig")
                metric.config = self.get_quota_metric_config(new_quota)

    # Kafka: ClientQuotaManager.clientRateMetricName
    def client_rate_metric_name(self, metric_tags: dict):
        return self.metrics.metric_name("byte-rate", str(self.quota_type), "Tracking byte-rate per user/client-id",
                                        metric_tags)

    # Kafka: ClientQuotaManager.throttleMetricName
    def throttle_metric_name(self, metric_tags: dict):
        return self.metrics.metric_name("throttle-time", str(self.quota_type),
                                        "Tracking average throttle-time per user/client-id", metric_tags)

    # Kafka: ClientQuotaManager.shutdown
    def shutdown(self) -> None:
        self.throttled_channel_reaper.initiate_shutdown()
        self.delay_queue.close()
        self.throttled_channel_reaper.await_shutdown(5)
