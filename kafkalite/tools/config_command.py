"""Mirrors Kafka 2.4: core/src/main/scala/kafka/admin/ConfigCommand.scala

The click command ``kafka-configs --bootstrap-server --entity-type topics|brokers --entity-name x``
with ``--describe [--all]`` or ``--alter --add-config k=v[,k2=v2] --delete-config k[,k2]``.

Output, as Kafka prints it:

    Dynamic configs for topic t are:
      retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000}
    Completed updating config for topic t.

``--describe`` shows the dynamic entries (source DYNAMIC_TOPIC_CONFIG for a topic, DYNAMIC_BROKER_CONFIG
for a broker), or every entry with ``--all`` ("All configs for ..."). ``--alter`` sends one
IncrementalAlterConfigs (SET for each added key, DELETE for each deleted one).
Era notes: 2.4's ConfigCommand reached topics only through ZooKeeper and altered brokers with the
non-incremental AlterConfigs; the ``--bootstrap-server`` topic path and its wording are Kafka 2.6+
(KIP-248/KIP-339). Left out: users, clients, quotas, SCRAM credentials, broker loggers, default entity.
"""
from __future__ import annotations

import sys

import click

from kafkalite.clients.admin.admin_client import KafkaAdminClient
from kafkalite.clients.admin.admin_types import AlterConfigOp, ConfigResource, ConfigResourceType, ConfigSource, OpType

ENTITY_TYPES = {"topics": ConfigResourceType.TOPIC, "brokers": ConfigResourceType.BROKER}
DYNAMIC_SOURCE = {"topics": ConfigSource.DYNAMIC_TOPIC_CONFIG, "brokers": ConfigSource.DYNAMIC_BROKER_CONFIG}


def parse_configs_to_be_added(add_config: str | None) -> dict[str, str]:
    """Kafka: ConfigCommand.parseConfigsToBeAdded -- "k=v,k2=[a,b]"; square brackets protect commas."""
    if not add_config:
        return {}
    out, depth, current = {}, 0, ""
    parts = []
    for ch in add_config:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    for part in parts:
        if "=" not in part:
            raise ValueError("Invalid entity config: all configs to be added must be in the format \"key=val\".")
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip().strip("[]")
    return out


def describe_lines(entity_type: str, entity_name: str, entries, describe_all: bool) -> list[str]:
    """Kafka: ConfigCommand.describeResourceConfig."""
    kind = entity_type[:-1]
    lines = [f"{'All' if describe_all else 'Dynamic'} configs for {kind} {entity_name} are:"]
    for e in entries:
        if not describe_all and e.source is not DYNAMIC_SOURCE[entity_type]:
            continue
        synonyms = ", ".join(f"{s.source}:{s.name}={s.value}" for s in e.synonyms)
        value = "null" if e.value is None else e.value
        lines.append(f"  {e.name}={value} sensitive={str(e.is_sensitive).lower()} synonyms={{{synonyms}}}")
    return lines


@click.command(name="kafka-configs", context_settings={"help_option_names": ["-h", "--help"]},
               help="This tool helps to manipulate and describe entity config for a topic, client, user or "
                    "broker")
@click.option("--bootstrap-server", required=True, help="The Kafka server to connect to.")
@click.option("--entity-type", type=click.Choice(["topics", "brokers"]), required=True)
@click.option("--entity-name", required=True)
@click.option("--describe", is_flag=True, help="List configs for the given entity.")
@click.option("--all", "describe_all", is_flag=True, help="List all configs, not only the dynamic ones.")
@click.option("--alter", is_flag=True, help="Alter the configuration for the entity.")
@click.option("--add-config", help="Key Value pairs of configs to add: k1=v1,k2=[v1,v2,v2],k3=v3")
@click.option("--delete-config", help="config keys to remove 'k1,k2'")
def main(bootstrap_server, entity_type, entity_name, describe, describe_all, alter, add_config, delete_config):
    """Kafka: ConfigCommand.main / processBrokerConfig."""
    if describe == alter:
        raise click.UsageError("Command must include exactly one action: --describe, --alter")
    resource = ConfigResource(ENTITY_TYPES[entity_type], entity_name)
    admin = KafkaAdminClient({"bootstrap.servers": bootstrap_server, "default.api.timeout.ms": 30000})
    code = 0
    try:
        if describe:
            entries = admin.describe_configs([resource], include_synonyms=True)[resource]
            click.echo("\n".join(describe_lines(entity_type, entity_name, entries, describe_all)))
        else:
            to_add = parse_configs_to_be_added(add_config)
            to_delete = [k.strip() for k in (delete_config or "").split(",") if k.strip()]
            if not to_add and not to_delete:
                raise click.UsageError("--alter needs --add-config or --delete-config")
            ops = [AlterConfigOp(k, v, OpType.SET) for k, v in to_add.items()]
            ops += [AlterConfigOp(k, "", OpType.DELETE) for k in to_delete]
            admin.incremental_alter_configs({resource: ops})
            click.echo(f"Completed updating config for {entity_type[:-1]} {entity_name}.")
    except click.UsageError:
        raise
    except Exception as e:   # noqa: BLE001 -- Kafka: "Error while executing config command ..."
        click.echo(f"Error while executing config command with args '{' '.join(sys.argv[1:])}'", err=True)
        click.echo(str(e), err=True)
        code = 1
    finally:
        admin.close()
    sys.exit(code)


if __name__ == "__main__":
    main()
