"""Mirrors Kafka 2.4: core/src/main/scala/kafka/utils/Logging.scala

Classes: Logging (a mixin that prefixes every line with ``log_ident``, as Kafka's ``logIdent``).

Kafka's log lines read ``[SocketServer brokerId=0] Started 1 acceptor threads``; a class sets
``self.log_ident = "[SocketServer brokerId=0] "`` and calls ``self.info(...)``.
Omitted: log4j configuration; Python's ``logging`` module does that job.
"""
from __future__ import annotations

import contextlib
import logging
from typing import ClassVar


class _ClassLogger:
    """``Logging.logger``: Kafka's ``lazy val logger`` -- the logger is looked up on first use (after the logging
    configuration is in place), once per class: each subclass of Logging gets its own copy of this (non-data)
    descriptor, which on first use replaces itself in that class with the logger, so that later lookups are a
    plain class attribute -- no call at all on the hot paths that ask ``is_debug_enabled()`` per record batch
    (logging.getLogger also takes the logging module's global lock on every call).

    Nothing is stored on the instance: Kafka keeps a logger per object, but writing one into ``obj.__dict__``
    makes Python 3.11 build that object's dict (~200 B; its attributes otherwise live in a compact array), and
    a broker holds several such objects per partition (Partition, Log, ProducerStateManager...). An instance
    whose ``logger_name`` differs from its class's (set in ``__init__``) gets its own logger -- as long as no
    instance of that class looked up the class's logger before: that replaced this descriptor. A class whose
    lines go to another logger than its own name says so with a class attribute (``logger_name = ...``)."""

    __slots__ = ("owner",)

    def __init__(self, owner: type):
        self.owner = owner

    def __get__(self, obj, owner=None):
        cls = self.owner
        if obj is None:
            return self
        name = obj.logger_name
        if name is not cls.logger_name:   # set on the instance: that object's own logger
            logger = logging.getLogger(name)
            with contextlib.suppress(AttributeError):   # __slots__ classes look it up each time
                obj.__dict__["logger"] = logger
            return logger
        logger = logging.getLogger(name or kafka_logger_name(cls))
        if cls.__dict__.get("logger") is self:
            type.__setattr__(cls, "logger", logger)
        return logger


class Logging:
    """Kafka: kafka.utils.Logging -- logger named after the Kafka class, lines prefixed by log_ident."""

    __slots__ = ()   # per-partition subclasses (Partition, Log, LogSegment...) declare __slots__

    log_ident: str = ""
    logger_name: str | None = None
    logger: ClassVar[logging.Logger]   # a _ClassLogger in each class until first used

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "logger" not in cls.__dict__:
            cls.logger = _ClassLogger(cls)   # type: ignore[assignment]

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


Logging.logger = _ClassLogger(Logging)   # type: ignore[assignment]


def kafka_logger_name(cls: type) -> str:
    """Kafka's logger for a class is its full name: ``kafkalite.network.socket_server.Processor`` logs as
    ``kafka.network.Processor``, as log4j names it in Kafka (the module's file name is dropped)."""
    package = cls.__module__.split(".")[1:-1]   # kafkalite.<package...>.<module>
    return ".".join(["kafka", *package, cls.__name__])


logging.addLevelName(5, "TRACE")
