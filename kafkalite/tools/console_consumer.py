"""Mirrors Kafka 2.4: core/src/main/scala/kafka/tools/ConsoleConsumer.scala

Classes: DefaultMessageFormatter, ConsumerWrapper, and the click command ``kafka-console-consumer``:
read a topic with kafkalite's KafkaConsumer and print each record; at the end print
"Processed a total of N messages" on stderr.

As in Kafka: without ``--group`` the consumer joins a fresh group ``console-consumer-<random>``;
``--from-beginning`` sets ``auto.offset.reset=earliest`` (else latest); ``--partition`` (with
``--offset earliest|latest|N``) assigns one partition instead of subscribing; ``--max-messages`` and
``--timeout-ms`` end the run.

``DefaultMessageFormatter`` properties (``--property k=v``): print.timestamp ("CreateTime:<ms>"),
print.partition ("Partition:<n>"), print.offset ("Offset:<n>"), print.headers ("k:v,k2:v2" or
"NO_HEADERS"), print.key, print.value (default true), key.separator (default tab, between columns),
line.separator (default newline), headers.separator (","), null.literal ("null").
Era notes: print.partition/print.offset/print.headers are Kafka 2.7's (KIP-431); 2.4 had timestamp, key
and value only. Left out: custom formatters, deserializers for printing, ``--whitelist`` patterns.
"""
from __future__ import annotations

import random
import signal
import sys
import time

import click

from kafkalite.clients.consumer.kafka_consumer import KafkaConsumer
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.record.timestamp_type import TimestampType
from kafkalite.tools.console_producer import parse_properties


def _bool(props: dict, key: str, default: bool) -> bool:
    return props[key].strip().lower() == "true" if key in props else default


class DefaultMessageFormatter:
    """Kafka: DefaultMessageFormatter."""

    def __init__(self, props: dict[str, str]):
        self.print_timestamp = _bool(props, "print.timestamp", False)
        self.print_key = _bool(props, "print.key", False)
        self.print_value = _bool(props, "print.value", True)
        self.print_partition = _bool(props, "print.partition", False)
        self.print_offset = _bool(props, "print.offset", False)
        self.print_headers = _bool(props, "print.headers", False)
        self.key_separator = props.get("key.separator", "\t").encode()
        self.line_separator = props.get("line.separator", "\n").encode()
        self.headers_separator = props.get("headers.separator", ",").encode()
        self.null_literal = props.get("null.literal", "null").encode()

    # Kafka: DefaultMessageFormatter.writeTo -- each column, then key.separator or (last) line.separator
    def write_to(self, record, output) -> None:
        columns: list[bytes] = []
        if self.print_timestamp:
            if record.timestamp_type is TimestampType.NO_TIMESTAMP_TYPE:
                columns.append(b"NO_TIMESTAMP")
            else:
                columns.append(f"{record.timestamp_type.display}:{record.timestamp}".encode())
        if self.print_partition:
            columns.append(f"Partition:{record.partition}".encode())
        if self.print_offset:
            columns.append(f"Offset:{record.offset}".encode())
        if self.print_headers:
            if record.headers:
                columns.append(self.headers_separator.join(
                    k.encode() + b":" + (v if v is not None else self.null_literal) for k, v in record.headers))
            else:
                columns.append(b"NO_HEADERS")
        if self.print_key:
            columns.append(record.key if record.key is not None else self.null_literal)
        if self.print_value:
            columns.append(record.value if record.value is not None else self.null_literal)
        if columns:
            output.write(self.key_separator.join(columns) + self.line_separator)


class ConsumerWrapper:
    """Kafka: ConsoleConsumer.ConsumerWrapper -- one record at a time, with the tool's time-out."""

    def __init__(self, consumer: KafkaConsumer, timeout_ms: int | None):
        self.consumer = consumer
        self.timeout_ms = timeout_ms
        self.buffer: list = []

    # Kafka: ConsumerWrapper.receive -- None when --timeout-ms passes without a record
    def receive(self):
        deadline = None if self.timeout_ms is None else time.monotonic() + self.timeout_ms / 1000.0
        while not self.buffer:
            wait = 1000 if deadline is None else int(max(0.0, deadline - time.monotonic()) * 1000)
            self.buffer = list(self.consumer.poll(min(wait, 1000)))
            if not self.buffer and deadline is not None and time.monotonic() >= deadline:
                return None
        return self.buffer.pop(0)


@click.command(name="kafka-console-consumer", context_settings={"help_option_names": ["-h", "--help"]},
               help="This tool helps to read data from Kafka topics and outputs it to standard output.")
@click.option("--bootstrap-server", required=True, help="REQUIRED: The server(s) to connect to.")
@click.option("--topic", required=True, help="The topic id to consume on.")
@click.option("--group", help="The consumer group id of the consumer.")
@click.option("--from-beginning", is_flag=True, help="Start with the earliest message present in the log.")
@click.option("--partition", type=int, help="The partition to consume from (assign instead of subscribe).")
@click.option("--offset", default="latest", help="With --partition: earliest, latest, or a number.")
@click.option("--max-messages", type=int, help="The maximum number of messages to consume before exiting.")
@click.option("--timeout-ms", type=int, help="Exit if no message is available for this long.")
@click.option("--property", "properties", multiple=True, help="Formatter properties: print.key=true, ...")
@click.option("--consumer-property", multiple=True, help="A consumer config: key=value.")
@click.option("--isolation-level", default="read_uncommitted")
@click.option("--skip-message-on-error", is_flag=True)
def main(bootstrap_server, topic, group, from_beginning, partition, offset, max_messages, timeout_ms, properties,
         consumer_property, isolation_level, skip_message_on_error):
    """Kafka: ConsoleConsumer.main / run / process."""
    config = {"bootstrap.servers": bootstrap_server, "isolation.level": isolation_level,
              "auto.offset.reset": "earliest" if from_beginning else "latest"}
    if partition is None:
        config["group.id"] = group or f"console-consumer-{random.randint(0, 99999)}"
    elif group:
        config["group.id"] = group
    config.update(parse_properties(consumer_property))
    formatter = DefaultMessageFormatter(parse_properties(properties))
    consumer = KafkaConsumer(config)
    if partition is None:
        consumer.subscribe([topic])
    else:
        tp = TopicPartition(topic, partition)
        consumer.assign([tp])
        if offset == "earliest" or from_beginning:
            consumer.seek_to_beginning([tp])
        elif offset == "latest":
            consumer.seek_to_end([tp])
        else:
            consumer.seek(tp, int(offset))
    wrapper = ConsumerWrapper(consumer, timeout_ms)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    out = sys.stdout.buffer
    count = 0
    try:
        while not stopping and (max_messages is None or count < max_messages):
            record = wrapper.receive()
            if record is None:
                break
            count += 1
            formatter.write_to(record, out)
            out.flush()
    except KeyboardInterrupt:
        pass
    finally:
        click.echo(f"Processed a total of {count} messages", err=True)
        consumer.close()


if __name__ == "__main__":
    main()
