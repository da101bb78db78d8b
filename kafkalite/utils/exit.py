"""Mirrors Kafka 2.4: core/src/main/scala/kafka/utils/Exit.scala (over clients' org.apache.kafka.common.utils.Exit)

Classes: Exit, FatalExitError.

``Exit.exit(status)`` ends the broker the orderly way. Java's ``System.exit`` runs the shutdown hook that
``kafka.Kafka`` registered (KafkaServerStartable.shutdown); kafkalite's ``main`` (kafka.py) shuts the server down
on SIGTERM, so the default procedure records the status and sends SIGTERM to this process: ``main`` then returns
that status. ``Exit.halt`` ends the process at once (``os._exit``), as ``Runtime.halt``. Tests replace either
procedure with ``set_exit_procedure`` / ``set_halt_procedure``, as Kafka's tests do.

``FatalExitError`` is what a ShutdownableThread's ``do_work`` raises when the broker cannot go on (Kafka: the
InterBrokerSendThread after an unexpected exception): the thread stops and calls ``Exit.exit``.
"""
from __future__ import annotations

import os
import signal


class FatalExitError(Exception):
    """Kafka: kafka.utils.FatalExitError(statusCode)."""

    def __init__(self, status_code: int = 1):
        super().__init__(f"fatal error, exiting with status {status_code}")
        self.status_code = status_code


def _signal_own_process(status_code: int, message: str | None) -> None:
    Exit.requested_status = status_code
    os.kill(os.getpid(), signal.SIGTERM)


def _halt_now(status_code: int, message: str | None) -> None:
    os._exit(status_code)


class Exit:
    """Kafka: kafka.utils.Exit."""

    requested_status: int | None = None     # what ``main`` returns after a shutdown Exit.exit asked for
    _exit_procedure = staticmethod(_signal_own_process)
    _halt_procedure = staticmethod(_halt_now)

    # Kafka: Exit.exit
    @classmethod
    def exit(cls, status_code: int, message: str | None = None) -> None:
        cls._exit_procedure(status_code, message)

    # Kafka: Exit.halt
    @classmethod
    def halt(cls, status_code: int, message: str | None = None) -> None:
        cls._halt_procedure(status_code, message)

    # Kafka: Exit.setExitProcedure
    @classmethod
    def set_exit_procedure(cls, procedure) -> None:
        cls._exit_procedure = staticmethod(procedure)

    # Kafka: Exit.setHaltProcedure
    @classmethod
    def set_halt_procedure(cls, procedure) -> None:
        cls._halt_procedure = staticmethod(procedure)

    # Kafka: Exit.resetExitProcedure
    @classmethod
    def reset_exit_procedure(cls) -> None:
        cls._exit_procedure = staticmethod(_signal_own_process)

    # Kafka: Exit.resetHaltProcedure
    @classmethod
    def reset_halt_procedure(cls) -> None:
        cls._halt_procedure = staticmethod(_halt_now)
