"""Mirrors Kafka 2.4: core/src/main/scala/kafka/utils/Logging.scala

Classes: Logging (a mixin that prefixes every line with ``log_ident``, as Kafka's ``logIdent``).

Kafka's log lines read ``[SocketServer brokerId=0] Started 1 acceptor threads``; a class sets
``self.log_ident = "[SocketServer brokerId=0] "`` and calls ``self.info(...)``.
Omitted: log4j configuration; Python's ``logging`` module does that job.
"""
from __future__ import annotations

import logging
from typing import overload


class _InstanceLogger:
    """``Logging.logger``: looked up once per instance, then kept in the instance's ``__dict__``, where
    attribute lookup finds it before this (non-data) descriptor -- no call at all on the hot paths that
    ask ``is_debug_enabled()`` per record batch. logging.getLogger also takes the logging module's global
    lock on every call. Classes with ``__slots__`` (no ``__dict__``) look it up each time."""

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> "_InstanceLogger": ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> logging.Logger: ...

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        logger = logging.getLogger(obj.logger_name or kafka_logger_name(type(obj)))
        try:
            obj.__dict__["logger"] = logger
        except AttributeError:
            pass
        return logger


class Logging:
    """Kafka: kafka.utils.Logging -- logger named after the Kafka class, lines prefixed by log_ident."""

    log_ident: str = ""
    logger_name: str | None = None
    logger = _InstanceLogger()

    # Kafka: Logging.isTraceEnabled / isDebugEnabled -- guard messages that cost something to build
    def is_trace_enabled(self) -> bool:
        return self.logger.isEnabledFor(5)

    def is_debug_enabled(self) -> bool:
        return self.logger.isEnabledFor(logging.DEBUG)

    def _msg(self, msg: str) -> str:
        return f"{self.log_ident}{msg}"

    # trace and debug ask the level first, so a disabled line costs no prefixing (hot paths log per append)
    def trace(self, msg: str, *args) -> None:
        logger = self.logger
        if logger.isEnabledFor(5):
            logger.log(5, self._msg(msg), *args)

    def debug(self, msg: str, *args) -> None:
        logger = self.logger
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(self._msg(msg), *args)

    def info(self, msg: str, *args) -> None:
        self.logger.info(self._msg(msg), *args)

    def warn(self, msg: str, *args) -> None:
        self.logger.warning(self._msg(msg), *args)

    def error(self, msg: str, *args, exc_info=None) -> None:
        self.logger.error(self._msg(msg), *args, exc_info=exc_info)

    def fatal(self, msg: str, *args) -> None:
        self.logger.critical(self._msg(msg), *args)


def kafka_logger_name(cls: type) -> str:
    """Kafka's logger for a class is its full name: ``kafkalite.network.socket_server.Processor`` logs as
    ``kafka.network.Processor``, as log4j names it in Kafka (the module's file name is dropped)."""
    package = cls.__module__.split(".")[1:-1]   # kafkalite.<package...>.<module>
    return ".".join(["kafka", *package, cls.__name__])


logging.addLevelName(5, "TRACE")
