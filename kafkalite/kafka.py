"""Mirrors Kafka 2.4: core/src/main/scala/kafka/Kafka.scala (and KafkaServerStartable)

Functions: main, get_props_from_args, exit_process.

``kafka-server-start server.properties [--override key=value ...]``: reads the properties, applies
the overrides, validates them into a KafkaConfig (a bad value ends start-up with one line naming
key, value and what is allowed), starts the KafkaServer and waits for SIGTERM or SIGINT (or a thread's ``Exit.exit``, which sends SIGTERM).
"""
from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import threading

LOG_FORMAT = "[%(asctime)s] %(levelname)s %(message)s (%(name)s)"
STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}


def get_props_from_args(args: list[str]) -> dict[str, str]:
    """Kafka: Kafka.getPropsFromArgs."""
    from kafkalite.server.kafka_config import load_properties
    if not args or args[0] in ("-h", "--help"):
        raise SystemExit("USAGE: kafka-server-start server.properties [--override property=value]*")
    props = load_properties(args[0])
    rest = args[1:]
    i = 0
    while i < len(rest):
        if rest[i] != "--override" or i + 1 >= len(rest) or "=" not in rest[i + 1]:
            raise SystemExit(f"Invalid override argument {' '.join(rest[i:i + 2])}: expected --override key=value")
        k, v = rest[i + 1].split("=", 1)
        props[k.strip()] = v.strip()
        i += 2
    return props


def main(argv: list[str] | None = None) -> int:
    # No Kafka counterpart (CPython's cyclic garbage collector): start-up makes ~10^5 objects that live as long as
    # the broker -- modules, classes, the server's components -- and the collector would walk them again and again
    # while they are made (~20 ms of a ~0.25 s start, issue 18). It waits until the server has started.
    gc.disable()
    try:
        return _main(sys.argv[1:] if argv is None else argv)
    finally:
        gc.enable()


def _collect_after_startup() -> None:
    """Start-up's objects are frozen (``gc.freeze``), so turning the collector on costs no walk over them while
    the first requests arrive; ``_main`` unfreezes them a second later into the oldest generation, so a cycle
    among them that dies later (a deleted partition's objects) is still collected."""
    gc.freeze()
    gc.enable()


def _main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT, stream=sys.stderr)
    logging.addLevelName(logging.WARNING, "WARN")     # log4j's level names, as Kafka's log lines show them
    logging.addLevelName(logging.CRITICAL, "FATAL")
    from kafkalite.common.config.config_exception import ConfigException
    from kafkalite.server.kafka_config import KafkaConfig
    try:
        props = get_props_from_args(argv)
        config = KafkaConfig.from_props(props)
    except ConfigException as e:
        print(f"ERROR Exiting Kafka due to fatal exception during startup: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"ERROR Cannot read {argv[0] if argv else 'server.properties'}: {e.strerror}", file=sys.stderr)
        return 1
    from kafkalite.server.kafka_server import KafkaServer
    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    # Only the main thread runs Python's signal handlers, and the kernel may hand SIGTERM to any thread that
    # does not block it: then the handler waited for the main thread's next turn (up to the second of
    # stop.wait). Every broker thread is started from here and inherits this mask, so the signals reach the
    # main thread, whose wait they cut short -- as the JVM starts Kafka's shutdown hook at once.
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        server = KafkaServer(config)
        try:
            server.startup()
        except Exception as e:  # noqa: BLE001
            from kafkalite.protocol.errors import Errors
            storage = isinstance(e, Errors.KAFKA_STORAGE_ERROR.exception_class)   # its one line says it
            logging.getLogger("kafka.server.KafkaServer").error("Fatal error during KafkaServer startup. Prepare "
                                                               "to shutdown: %s", e, exc_info=not storage)
            try:
                server.shutdown()
            finally:
                return 1   # noqa: B012 -- start-up failed: exit 1 whatever the shutdown raised
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    _collect_after_startup()
    from kafkalite.utils import attrs_code_cache
    attrs_code_cache.save()      # no Kafka counterpart: the next start loads attrs' generated methods compiled
    stop.wait(1.0)
    gc.unfreeze()                # a second on: start-up's objects join the collector's oldest generation
    while not stop.wait(1.0):
        pass
    server.shutdown()
    attrs_code_cache.save()      # and those of the classes first built while serving
    from kafkalite.utils.exit import Exit
    return Exit.requested_status or 0   # a thread's FatalExitError (Exit.exit) asked for this shutdown


def exit_process(status: int) -> None:
    """Kafka: the ``Exit.exit(0)`` that ends ``Kafka.main`` -- ``System.exit`` runs no finalizers.

    After ``main`` returns, every log, index and socket is already closed; what Python's interpreter teardown
    would still do is free each object and unmap each index one at a time (2.2 s after a clean shutdown of
    4,000 partitions, most of a restart's stop). The logs' handlers and the standard streams are flushed first,
    so nothing written is lost.
    """
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


if __name__ == "__main__":
    exit_process(main())
