"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/ClientRequestQuotaManager.scala

Classes: ClientRequestQuotaManager.

Request quotas (KIP-124): ``request_percentage`` is the share of one request-handler thread a quota entity
may use per quota window (100 = one whole thread). The time a handler thread spent on a request
(``Request.request_thread_time_nanos``: from dequeue to the end of the local work) is recorded as a
percentage in the ``request-time`` sensor; over quota, the throttle time is capped at one quota window.
Requests exempt from throttling (the inter-broker and controller APIs) are recorded in
``exempt-request-time``.
Left out: network-thread time (Kafka also records the Processor's time for the request once the response is
sent, ``recordNetworkThreadTimeCallback``).
"""
from __future__ import annotations

from kafkalite.common.metrics.stats import Rate
from kafkalite.server.client_quota_manager import ClientQuotaManager, ClientQuotaManagerConfig, QuotaType

NANOS_TO_PERCENTAGE_PER_SECOND = 100.0 / 1e9   # Kafka: ClientQuotaManagerConfig.NanosToPercentagePerSecond


class ClientRequestQuotaManager(ClientQuotaManager):
    """Kafka: ClientRequestQuotaManager(config, metrics, time, threadNamePrefix, quotaCallback)."""

    def __init__(self, config: ClientQuotaManagerConfig, metrics, time, thread_name_prefix: str = ""):
        super().__init__(config, metrics, QuotaType.Request, time, thread_name_prefix)
        self.max_throttle_time_ms = config.quota_window_size_seconds * 1000
        self._exempt_sensor = None

    # Kafka: ClientRequestQuotaManager.exemptSensor
    @property
    def exempt_sensor(self):
        if self._exempt_sensor is None:
            sensor = self.metrics.sensor(f"exempt-{QuotaType.Request}")
            sensor.add(self.metrics.metric_name("exempt-request-time", str(QuotaType.Request),
                                                "Tracking exempt-request-time utilization percentage"), Rate())
            self._exempt_sensor = sensor
        return self._exempt_sensor

    # Kafka: ClientRequestQuotaManager.recordExempt
    def record_exempt(self, value: float) -> None:
        self.exempt_sensor.record(value)

    # Kafka: ClientRequestQuotaManager.maybeRecordAndGetThrottleTimeMs(request)
    def maybe_record_and_get_throttle_time_ms(self, request, value: float | None = None,
                                              time_ms: int | None = None) -> int:
        if request.api_remote_complete_time_nanos == -1:
            # the remote part of the API (if any) is done once the response is being built
            request.api_remote_complete_time_nanos = self.time.nanoseconds()
        if not self.quotas_enabled:
            return 0
        return self.record_and_get_throttle_time_ms(
            request.context.principal, request.header.client_id or "",
            self.nanos_to_percentage(request.request_thread_time_nanos()), self.time.milliseconds())

    # Kafka: ClientRequestQuotaManager.maybeRecordExempt
    def maybe_record_exempt(self, request) -> None:
        if self.quotas_enabled:
            self.record_exempt(self.nanos_to_percentage(request.request_thread_time_nanos()))

    # Kafka: ClientRequestQuotaManager.throttleTime -- at most one quota window
    def throttle_time(self, client_metric) -> int:
        return min(super().throttle_time(client_metric), self.max_throttle_time_ms)

    # Kafka: ClientRequestQuotaManager.clientRateMetricName
    def client_rate_metric_name(self, metric_tags: dict):
        return self.metrics.metric_name("request-time", str(QuotaType.Request),
                                        "Tracking request-time per user/client-id", metric_tags)

    # Kafka: ClientRequestQuotaManager.nanosToPercentage
    @staticmethod
    def nanos_to_percentage(nanos: int) -> float:
        return nanos * NANOS_TO_PERCENTAGE_PER_SECOND
