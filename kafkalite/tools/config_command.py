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
(KIP-248/KIP-339).
Users (SCRAM credentials, Kafka 2.7's ``--bootstrap-server`` form over KIP-554's APIs; 2.4 wrote them to
ZooKeeper with ``--zookeeper``): ``--entity-type users --entity-name alice --alter --add-config
'SCRAM-SHA-256=[iterations=8192,password=alice-secret]'`` (iterations default 4096), ``--delete-config
SCRAM-SHA-512``, and ``--describe`` ("SCRAM credential configs for user-principal 'alice' are
SCRAM-SHA-256=iterations=8192"). ``--command-config`` names a properties file for the admin client
(``security.protocol``, ``sasl.mechanism``, ``sasl.jaas.config``), to reach a SASL listener.
Client quotas (Kafka 2.6's ``--bootstrap-server`` form over KIP-546's Describe/AlterClientQuotas; 2.4 wrote
/config/users and /config/clients with ``--zookeeper``): ``--entity-type users|clients`` (both, for a
(user, client-id) pair) with ``--entity-name`` or ``--entity-default``, ``--alter --add-config
producer_byte_rate=1048576,consumer_byte_rate=...,request_percentage=...`` / ``--delete-config k``, and
``--describe`` ("Quota configs for user-principal 'alice', client-id 'c1' are producer_byte_rate=1048576.0").
Left out: broker loggers, the default broker entity, quotas and SCRAM credentials in one --alter.
"""
from __future__ import annotations

import re
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
@click.option("--entity-type", "entity_types", type=click.Choice(["topics", "brokers", "users", "clients"]),
              required=True, multiple=True, help="Type of entity (topics/clients/users/brokers); users and clients "
              "may be given together")
@click.option("--entity-name", "entity_names", multiple=True, help="Name of entity, one per --entity-type")
@click.option("--entity-default", "entity_defaults", count=True,
              help="Default entity name for clients/users (applies to the --entity-type without a name)")
@click.option("--command-config", type=click.Path(exists=True, dir_okay=False),
              help="Property file containing configs to be passed to Admin Client.")
@click.option("--describe", is_flag=True, help="List configs for the given entity.")
@click.option("--all", "describe_all", is_flag=True, help="List all configs, not only the dynamic ones.")
@click.option("--alter", is_flag=True, help="Alter the configuration for the entity.")
@click.option("--add-config", help="Key Value pairs of configs to add: k1=v1,k2=[v1,v2,v2],k3=v3")
@click.option("--delete-config", help="config keys to remove 'k1,k2'")
def main(bootstrap_server, entity_types, entity_names, entity_defaults, command_config, describe, describe_all, alter,
         add_config, delete_config):
    """Kafka: ConfigCommand.main / processBrokerConfig."""
    if describe == alter:
        raise click.UsageError("Command must include exactly one action: --describe, --alter")
    entity_type, entity_name = entity_types[0], entity_names[0] if entity_names else None
    to_add_keys = set(parse_configs_to_be_added(add_config)) | {k.strip() for k in (delete_config or "").split(",")}
    if "clients" in entity_types or (entity_type == "users" and (
            describe or entity_defaults or len(entity_types) > 1 or to_add_keys & set(QUOTA_KEYS))):
        return sys.exit(run_client_quotas(bootstrap_server, command_config, entity_types, entity_names,
                                          entity_defaults, describe, add_config, delete_config))
    if len(entity_types) > 1:
        raise click.UsageError("Only 'users' and 'clients' may be given together as --entity-type")
    if entity_name is None and not (entity_type == "users" and describe):
        raise click.UsageError("--entity-name must be specified with --alter of users, topics or brokers")
    admin_config = {"bootstrap.servers": bootstrap_server, "default.api.timeout.ms": 30000}
    if command_config:
        from kafkalite.server.kafka_config import load_properties
        admin_config.update(load_properties(command_config))
    admin = KafkaAdminClient(admin_config)
    code = 0
    try:
        resource = ConfigResource(ENTITY_TYPES[entity_type], entity_name) if entity_type != "users" else None
        if entity_type == "users":
            process_user_scram_configs(admin, entity_name, describe, add_config, delete_config)
        elif describe:
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


QUOTA_KEYS = ("producer_byte_rate", "consumer_byte_rate", "request_percentage")   # Kafka: DynamicConfig.Client
QUOTA_ENTITY = {"users": "user", "clients": "client-id"}
ENTITY_LABEL = {"user": "user-principal", "client-id": "client-id"}


# Kafka 2.6: ConfigCommand.alterConfig / describeClientQuotasConfig over Describe/AlterClientQuotas (KIP-546):
# --entity-type users and/or clients, each with --entity-name or --entity-default (in the order given)
def run_client_quotas(bootstrap_server, command_config, entity_types, entity_names, entity_defaults, describe,
                      add_config, delete_config) -> int:
    if any(t not in QUOTA_ENTITY for t in entity_types) or len(set(entity_types)) != len(entity_types):
        raise click.UsageError("Only 'users' and 'clients' (each at most once) may be given together")
    names = list(entity_names)
    entity = {}   # entity type -> name, None for the default; absent from a describe: any named one
    for t in entity_types:
        if names:
            entity[QUOTA_ENTITY[t]] = names.pop(0)
        elif entity_defaults:
            entity[QUOTA_ENTITY[t]] = None
            entity_defaults -= 1
        elif not describe:
            raise click.UsageError(f"--entity-name or --entity-default must be specified with --alter of {t}")
    admin_config = {"bootstrap.servers": bootstrap_server, "default.api.timeout.ms": 30000}
    if command_config:
        from kafkalite.server.kafka_config import load_properties
        admin_config.update(load_properties(command_config))
    admin = KafkaAdminClient(admin_config)
    try:
        if describe:
            components = []
            for t in entity_types:
                q = QUOTA_ENTITY[t]
                if q not in entity:
                    components.append((q, 2, None))         # ClientQuotaFilterComponent.ofEntityType
                elif entity[q] is None:
                    components.append((q, 1, None))         # ofDefaultEntity
                else:
                    components.append((q, 0, entity[q]))    # ofEntity
            for found, values in admin.describe_client_quotas(components, strict=True).items():
                parts = [f"{ENTITY_LABEL[t]} '{n}'" if n is not None else f"the default {ENTITY_LABEL[t]}"
                         for t, n in sorted(found, key=lambda e: e[0] != "user")]
                text = ", ".join(f"{k}={v}" for k, v in sorted(values.items()))
                click.echo(f"Quota configs for {', '.join(parts)} are {text}")
            if entity_types == ("users",) and not ("user" in entity and entity["user"] is None):
                # Kafka 2.7: a user's SCRAM credentials are described too
                user = entity.get("user")
                try:
                    process_user_scram_configs(admin, user, True, None, None)
                except Exception as e:   # noqa: BLE001 -- a user with quotas and no credentials
                    if "does not exist" not in str(e) and "Username must not be empty" not in str(e):
                        raise
            return 0
        to_add = parse_configs_to_be_added(add_config)
        to_delete = [k.strip() for k in (delete_config or "").split(",") if k.strip()]
        if not to_add and not to_delete:
            raise click.UsageError("--alter needs --add-config or --delete-config")
        unknown = [k for k in list(to_add) + to_delete if k not in QUOTA_KEYS]
        if unknown:
            raise ValueError(f"Only quota configs can be added for '{'/'.join(entity_types)}' using "
                             f"--bootstrap-server. Unexpected config names: {unknown}")
        ops = {k: float(v) for k, v in to_add.items()}
        ops.update({k: None for k in to_delete})
        admin.alter_client_quotas([(entity, ops)])
        first = entity_types[0]
        name = entity[QUOTA_ENTITY[first]]
        click.echo(f"Completed updating config for {first[:-1]} {'<default>' if name is None else name}.")
        return 0
    except click.UsageError:
        raise
    except Exception as e:   # noqa: BLE001
        click.echo(f"Error while executing config command with args '{' '.join(sys.argv[1:])}'", err=True)
        click.echo(str(e), err=True)
        return 1
    finally:
        admin.close()


DEFAULT_SCRAM_ITERATIONS = 4096   # Kafka: ConfigCommand.DefaultScramIterations
_SCRAM_VALUE = re.compile(r"^(?:iterations=(-?[0-9]*),)?password=(.*)$")


# Kafka 2.7: ConfigCommand.alterUserScramCredentialConfigs / describeResourceConfig (the SCRAM half)
def process_user_scram_configs(admin, user, describe: bool, add_config, delete_config) -> None:
    if describe:
        for name, infos in admin.describe_user_scram_credentials([user] if user else None).items():
            text = ", ".join(f"{mechanism}=iterations={iterations}" for mechanism, iterations in infos)
            click.echo(f"SCRAM credential configs for user-principal '{name}' are {text}")
        return
    to_add = parse_configs_to_be_added(add_config)
    to_delete = [k.strip() for k in (delete_config or "").split(",") if k.strip()]
    if not to_add and not to_delete:
        raise click.UsageError("--alter needs --add-config or --delete-config")
    scram = ("SCRAM-SHA-256", "SCRAM-SHA-512")
    unknown = [k for k in list(to_add) + to_delete if k not in scram]
    if unknown:
        raise ValueError("Only quota and SCRAM credential configs can be added for 'users' using "
                         f"--bootstrap-server. Unexpected config names: {unknown}")
    upsertions = []
    for mechanism, value in to_add.items():
        m = _SCRAM_VALUE.match(value)
        if m is None:
            raise ValueError(f"Invalid credential property {mechanism}={value}")
        iterations = int(m.group(1)) if m.group(1) not in (None, "", "-1") else DEFAULT_SCRAM_ITERATIONS
        upsertions.append((user, mechanism, iterations, m.group(2)))
    admin.alter_user_scram_credentials(upsertions, [(user, mechanism) for mechanism in to_delete])
    click.echo(f"Completed updating config for user {user}.")


if __name__ == "__main__":
    main()
