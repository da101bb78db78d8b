"""Mirrors Kafka 2.4: core/src/main/scala/kafka/tools/ConsumerPerformance.scala

The click command ``kafka-consumer-perf-test --bootstrap-server --topic --messages N``: consume N records
with kafkalite's KafkaConsumer (subscribed, group ``perf-consumer-<random>``, from the earliest offset)
and print Kafka's header and one summary line:

    start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
    2024-01-01 10:00:00:000, 2024-01-01 10:00:01:500, 0.9537, 0.6358, 10000, 6666.6667, 312, 1188, 0.8028, 8417.5084

Bytes counted are key plus value sizes; the rebalance time is the time until the first partitions were
assigned. ``--date-format`` takes Java's SimpleDateFormat letters for the common cases (default
``yyyy-MM-dd HH:mm:ss:SSS``). When stdout is a terminal a progress line is redrawn on stderr.
Left out: ``--show-detailed-stats`` reporting per interval, ``--print-metrics``, ``--threads``.
"""
from __future__ import annotations

import random
import sys
import time
from datetime import datetime

import click

from kafkalite.clients.consumer.internals.consumer_coordinator import ConsumerRebalanceListener
from kafkalite.clients.consumer.kafka_consumer import KafkaConsumer
from kafkalite.tools.console_producer import parse_properties

HEADER = ("start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec"
          ", rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec")

_JAVA_TO_PY = [("yyyy", "%Y"), ("MM", "%m"), ("dd", "%d"), ("HH", "%H"), ("mm", "%M"), ("ss", "%S")]


def format_date(ms: int, java_format: str) -> str:
    """Kafka: SimpleDateFormat.format, for the letters the tool's default uses."""
    dt = datetime.fromtimestamp(ms / 1000.0)
    fmt = java_format.replace("SSS", "@@@")
    for java, py in _JAVA_TO_PY:
        fmt = fmt.replace(java, py)
    return dt.strftime(fmt).replace("@@@", f"{ms % 1000:03d}")


def summary_line(start_ms: int, end_ms: int, total_bytes: int, total_messages: int, join_ms: int,
                 date_format: str) -> str:
    """Kafka: ConsumerPerformance.main's println of the totals."""
    elapsed_secs = (end_ms - start_ms) / 1000.0
    fetch_ms = (end_ms - start_ms) - join_ms
    mb = total_bytes / (1024 * 1024)

    def div(a, b):
        return a / b if b else float("inf")

    return "%s, %s, %.4f, %.4f, %d, %.4f, %d, %d, %.4f, %.4f" % (
        format_date(start_ms, date_format), format_date(end_ms, date_format), mb, div(mb, elapsed_secs),
        total_messages, div(total_messages, elapsed_secs), join_ms, fetch_ms, div(mb, fetch_ms / 1000.0),
        div(total_messages, fetch_ms / 1000.0))


class _JoinTimer(ConsumerRebalanceListener):
    """Kafka: the ConsumerRebalanceListener inside ConsumerPerformance.consume that measures join time."""

    def __init__(self):
        self.join_start = time.time()
        self.join_ms = 0

    def on_partitions_revoked(self, partitions) -> None:
        self.join_start = time.time()

    def on_partitions_assigned(self, partitions) -> None:
        self.join_ms += int((time.time() - self.join_start) * 1000)


@click.command(name="kafka-consumer-perf-test", context_settings={"help_option_names": ["-h", "--help"]},
               help="This tool helps in performance test for the full zookeeper consumer")
@click.option("--bootstrap-server", help="The server(s) to connect to.")
@click.option("--broker-list", help="DEPRECATED, use --bootstrap-server instead.")
@click.option("--topic", required=True, help="REQUIRED: The topic to consume from.")
@click.option("--messages", type=int, required=True, help="REQUIRED: The number of messages to send or consume")
@click.option("--group", default=None, help="The group id to consume on.")
@click.option("--fetch-size", type=int, default=1048576, help="The amount of data to fetch in a single request.")
@click.option("--timeout", type=int, default=10000, help="The maximum allowed time in milliseconds between "
                                                         "returned records.")
@click.option("--date-format", default="yyyy-MM-dd HH:mm:ss:SSS")
@click.option("--hide-header", is_flag=True, help="If set, skips printing the header for the stats")
@click.option("--consumer.config", "consumer_config", type=click.Path(exists=True), default=None)
@click.option("--consumer-property", multiple=True, help="A consumer config: key=value.")
def main(bootstrap_server, broker_list, topic, messages, group, fetch_size, timeout, date_format, hide_header,
         consumer_config, consumer_property):
    """Kafka: ConsumerPerformance.main / consume."""
    servers = bootstrap_server or broker_list
    if not servers:
        raise click.UsageError("Missing required argument \"[bootstrap-server]\"")
    config = {"bootstrap.servers": servers, "group.id": group or f"perf-consumer-{random.randint(0, 99999)}",
              "auto.offset.reset": "earliest", "enable.auto.commit": False, "max.partition.fetch.bytes": fetch_size}
    if consumer_config:
        with open(consumer_config) as f:
            config.update(parse_properties(line.strip() for line in f
                                           if line.strip() and not line.startswith("#")))
    config.update(parse_properties(consumer_property))
    if not hide_header:
        click.echo(HEADER)
    show_progress = sys.stdout.isatty()
    consumer = KafkaConsumer(config)
    timer = _JoinTimer()
    start_ms = int(time.time() * 1000)
    consumer.subscribe([topic], timer)
    total_bytes = total_messages = 0
    last_consumed = time.monotonic()
    last_report = 0.0
    try:
        while total_messages < messages and time.monotonic() - last_consumed <= timeout / 1000.0:
            records = consumer.poll(100)
            if not records.is_empty():
                last_consumed = time.monotonic()
            for record in records:
                total_messages += 1
                total_bytes += max(0, record.serialized_key_size) + max(0, record.serialized_value_size)
                if total_messages >= messages:
                    break
            if show_progress and time.monotonic() - last_report > 0.2:
                last_report = time.monotonic()
                click.echo(f"\r{total_messages}/{messages} records, {total_bytes / 1048576:.2f} MB", err=True,
                           nl=False)
        end_ms = int(time.time() * 1000)
        if show_progress:
            click.echo("\r" + " " * 60 + "\r", err=True, nl=False)
        if total_messages < messages:
            click.echo(f"WARNING: Exiting before consuming the expected number of messages: timeout ({timeout} ms) "
                       f"exceeded. You can use the --timeout option to increase the timeout.")
        click.echo(summary_line(start_ms, end_ms, total_bytes, total_messages, timer.join_ms, date_format))
    finally:
        consumer.close()


if __name__ == "__main__":
    main()
