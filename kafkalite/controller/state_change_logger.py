"""Mirrors Kafka 2.4: core/src/main/scala/kafka/controller/StateChangeLogger.scala

Classes: StateChangeLogger -- the ``state.change.logger`` that records every partition and replica state change
and every control request, prefixed ``[Controller id=0 epoch=3] `` (or ``[Broker id=0] `` on the broker side).
"""
from __future__ import annotations

from kafkalite.utils.logging import Logging


class StateChangeLogger(Logging):
    """Kafka: StateChangeLogger."""

    logger_name = "state.change.logger"

    def __init__(self, broker_id: int, in_controller_context: bool, controller_epoch: int | None = None):
        self.broker_id = broker_id
        self.in_controller_context = in_controller_context
        self.controller_epoch = controller_epoch
        if controller_epoch is not None:
            self.log_ident = f"[Controller id={broker_id} epoch={controller_epoch}] "
        elif in_controller_context:
            self.log_ident = f"[Controller id={broker_id}] "
        else:
            self.log_ident = f"[Broker id={broker_id}] "

    # Kafka: StateChangeLogger.withControllerEpoch
    def with_controller_epoch(self, controller_epoch: int) -> "StateChangeLogger":
        return StateChangeLogger(self.broker_id, True, controller_epoch)
