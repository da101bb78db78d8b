"""Mirrors Kafka 2.4: core/src/main/scala/kafka/tools/ConsoleProducer.scala

Classes: LineMessageReader, and the click command ``kafka-console-producer``: read lines from stdin and
send each as a record with kafkalite's own KafkaProducer (issue 5's producer).

``--property parse.key=true`` splits each line at the first ``key.separator`` (default a tab) into key
and value; a line without the separator fails with Kafka's "No key found on line N: ..." unless
``ignore.error=true``. ``--request-required-acks`` (default 1, as in 2.4), ``--compression-codec``,
``--sync`` and ``--producer-property k=v`` are passed to the producer.
Left out: custom ``--line-reader`` classes, ``parse.headers`` (Kafka 3.2).
"""
from __future__ import annotations

import sys

import click

from kafkalite.clients.producer.kafka_producer import KafkaProducer


class LineMessageReader:
    """Kafka: ConsoleProducer.LineMessageReader."""

    def __init__(self, topic: str, props: dict[str, str], stream):
        self.topic = topic
        self.stream = stream
        self.parse_key = props.get("parse.key", "false").strip().lower() == "true"
        self.key_separator = props.get("key.separator", "\t")
        self.ignore_error = props.get("ignore.error", "false").strip().lower() == "true"
        self.line_number = 0

    # Kafka: LineMessageReader.readMessage -- (key, value) or None at end of input
    def read_message(self):
        line = self.stream.readline()
        if not line:
            return None
        self.line_number += 1
        line = line.rstrip("\n").rstrip("\r")
        if not self.parse_key:
            return None, line.encode()
        index = line.find(self.key_separator)
        if index == -1:
            if self.ignore_error:
                return None, line.encode()
            raise ValueError(f"No key found on line {self.line_number}: {line}")
        return line[:index].encode(), line[index + len(self.key_separator):].encode()


def parse_properties(pairs) -> dict[str, str]:
    """Kafka: CommandLineUtils.parseKeyValueArgs -- ``k=v`` pairs (a value may contain '=')."""
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.UsageError(f"Invalid command line properties: {pair}")
        k, v = pair.split("=", 1)
        out[k] = v
    return out


@click.command(name="kafka-console-producer", context_settings={"help_option_names": ["-h", "--help"]},
               help="This tool helps to read data from standard input and publish it to Kafka.")
@click.option("--bootstrap-server", help="The server(s) to connect to.")
@click.option("--broker-list", help="DEPRECATED, use --bootstrap-server instead.")
@click.option("--topic", required=True, help="REQUIRED: The topic id to produce messages to.")
@click.option("--property", "properties", multiple=True,
              help="Properties for the message reader: parse.key, key.separator, ignore.error.")
@click.option("--producer-property", multiple=True, help="A producer config: key=value.")
@click.option("--request-required-acks", default="1", show_default=True)
@click.option("--compression-codec", default=None, help="none, gzip, snappy, lz4 or zstd.")
@click.option("--sync", is_flag=True, help="Send each message synchronously.")
def main(bootstrap_server, broker_list, topic, properties, producer_property, request_required_acks,
         compression_codec, sync):
    """Kafka: ConsoleProducer.main."""
    servers = bootstrap_server or broker_list
    if not servers:
        raise click.UsageError("Missing required argument \"[bootstrap-server]\"")
    config = {"bootstrap.servers": servers, "acks": request_required_acks, "linger.ms": 1000 if not sync else 0,
              "client.id": "console-producer"}
    if compression_codec:
        config["compression.type"] = "gzip" if compression_codec == "gzip" else compression_codec
    config.update(parse_properties(producer_property))
    reader = LineMessageReader(topic, parse_properties(properties), sys.stdin)
    producer = KafkaProducer(config)
    errors = []
    try:
        while True:
            try:
                message = reader.read_message()
            except ValueError as e:
                click.echo(f"ERROR {e}", err=True)
                errors.append(e)
                break
            if message is None:
                break
            key, value = message
            future = producer.send(topic, value=value, key=key,
                                   callback=lambda md, e: errors.append(e) if e is not None else None)
            if sync:
                future.get()
        producer.flush()
    finally:
        producer.close()
    for e in errors:
        if not isinstance(e, ValueError):
            click.echo(f"ERROR Error when sending message to topic {topic}: {e}", err=True)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
