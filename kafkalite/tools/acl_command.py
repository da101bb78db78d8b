"""Mirrors Kafka 2.4: core/src/main/scala/kafka/admin/AclCommand.scala

The click command ``kafka-acls``: adds, removes and lists ACLs through the admin client (CreateAcls, DeleteAcls,
DescribeAcls -- Kafka's AdminClientService, ``--bootstrap-server``) or, with ``--authorizer-properties
zookeeper.connect=...``, straight in ZooKeeper through an AclAuthorizer of its own (JAuthorizerService: how an
operator gives the brokers ClusterAction before the first one starts), with Kafka's flags:

    kafka-acls --bootstrap-server localhost:9092 --add --allow-principal User:alice --operation Read \\
               --topic orders --group billing
    kafka-acls --bootstrap-server localhost:9092 --add --allow-principal User:bob --producer --topic orders \\
               --transactional-id tx --idempotent
    kafka-acls --bootstrap-server localhost:9092 --list --topic orders
    kafka-acls --bootstrap-server localhost:9092 --remove --force --topic orders --resource-pattern-type prefixed

Resources: ``--topic``, ``--group``, ``--cluster``, ``--transactional-id``, ``--delegation-token`` (each may repeat),
with ``--resource-pattern-type`` LITERAL (default) or PREFIXED (ANY and MATCH too for --list / --remove).
Entries: ``--allow-principal`` / ``--deny-principal`` (``type:name``), ``--allow-host`` / ``--deny-host`` (default
``*`` when a principal is given), ``--operation`` (Kafka's names, default All). Conveniences: ``--producer`` (Write,
Describe, Create on topics; Write, Describe on transactional ids; IdempotentWrite on the cluster with
``--idempotent``), ``--consumer`` (Read, Describe on topics; Read on groups). ``--remove`` asks for confirmation
unless ``--force``; ``--principal`` filters ``--list``. The output is Kafka's:

    Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`:
     	(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)

    Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`:
     	(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)

Era notes: entries and resources are printed sorted (Kafka prints Scala sets, in hash order).
``zookeeper.connect=embedded:<dir>`` opens the default broker's embedded store in ``<dir>`` (its first log dir)
while that broker is stopped (the store serves one process at a time).
Left out: joptsimple's ``--help`` layout (click prints its own); ``--authorizer`` accepts the AclAuthorizer's names
only.
"""
from __future__ import annotations

import sys

import click

from kafkalite.clients.admin.admin_client import KafkaAdminClient
from kafkalite.common.acl.access_control_entry import AccessControlEntry, AccessControlEntryFilter
from kafkalite.common.acl.acl_binding import AclBinding, AclBindingFilter
from kafkalite.common.acl.acl_operation import AclOperation
from kafkalite.common.acl.acl_permission_type import AclPermissionType
from kafkalite.common.resource.pattern_type import PatternType
from kafkalite.common.resource.resource_pattern import CLUSTER_NAME, ResourcePattern, ResourcePatternFilter
from kafkalite.common.resource.resource_type import ResourceType
from kafkalite.security.auth.kafka_principal import KafkaPrincipal
from kafkalite.security.authorizer.authorizer_utils import AuthorizerUtils
from kafkalite.tools.leader_election_command import load_props

NEWLINE = "\n"
CLUSTER_RESOURCE_FILTER = ResourcePatternFilter(ResourceType.CLUSTER, CLUSTER_NAME, PatternType.LITERAL)  # Kafka: AclCommand.ClusterResourceFilter
OPERATION_NAMES = [op.acl_name for op in AclOperation if op not in (AclOperation.UNKNOWN, AclOperation.ANY)]


class UsageError(Exception):
    """Kafka: CommandLineUtils.printUsageAndDie's message."""


def _entries(acls) -> str:
    return NEWLINE.join("\t" + str(a) for a in sorted(acls, key=str))


class AclCommandOptions:
    """Kafka: AclCommand.AclCommandOptions -- the parsed flags."""

    def __init__(self, **kw):
        self.__dict__.update(kw)
        self.pattern_type = PatternType.from_string(kw["resource_pattern_type"])

    # Kafka: AclCommandOptions.checkArgs
    def check_args(self) -> None:
        if self.bootstrap_server and self.authorizer:
            raise UsageError("Only one of --bootstrap-server or --authorizer must be specified")
        if not self.bootstrap_server and not self.authorizer_properties:
            raise UsageError("Missing required argument \"[authorizer-properties]\"")
        if self.command_config and not self.bootstrap_server:
            raise UsageError("The --command-config option can only be used with --bootstrap-server option")
        if self.authorizer_properties and self.bootstrap_server:
            raise UsageError("The --authorizer-properties option can only be used with --authorizer option")
        if sum(map(bool, (self.add, self.remove, self.list))) != 1:
            raise UsageError("Command must include exactly one action: --list, --add, --remove. ")
        if self.list and (self.producer or self.consumer or self.allow_host or self.allow_principal or
                          self.deny_host or self.deny_principal):
            raise UsageError("Option \"[list]\" can't be used with option \"[producer, consumer, allow-host, "
                             "allow-principal, deny-host, deny-principal]\"")
        for flag, name in ((self.producer, "producer"), (self.consumer, "consumer")):
            if flag and (self.operation or self.deny_principal or self.deny_host):
                raise UsageError(f"Option \"[{name}]\" can't be used with option \"[operation, deny-principal, "
                                 f"deny-host]\"")
        if self.principal and not self.list:
            raise UsageError("The --principal option is only available if --list is set")
        if self.producer and not self.topic:
            raise UsageError("With --producer you must specify a --topic")
        if self.idempotent and not self.producer:
            raise UsageError("The --idempotent option is only available if --producer is set")
        if self.consumer and (not self.topic or not self.group or
                              (not self.producer and (self.cluster or self.transactional_id))):
            raise UsageError("With --consumer you must specify a --topic and a --group and no --cluster or "
                             "--transactional-id option should be specified.")
        if self.pattern_type.is_unknown():
            raise UsageError(f"Unknown resource pattern type {self.resource_pattern_type}")


# Kafka: AclCommand.getResourceFilter
def get_resource_filter(opts: AclCommandOptions, die_if_no_resource_found: bool = True) -> list[ResourcePatternFilter]:
    filters = [ResourcePatternFilter(ResourceType.TOPIC, t.strip(), opts.pattern_type) for t in opts.topic]
    if opts.pattern_type is PatternType.LITERAL and (opts.cluster or opts.idempotent):
        filters.append(CLUSTER_RESOURCE_FILTER)
    filters += [ResourcePatternFilter(ResourceType.GROUP, g.strip(), opts.pattern_type) for g in opts.group]
    filters += [ResourcePatternFilter(ResourceType.TRANSACTIONAL_ID, t, opts.pattern_type)
                for t in opts.transactional_id]
    filters += [ResourcePatternFilter(ResourceType.DELEGATION_TOKEN, t.strip(), opts.pattern_type)
                for t in opts.delegation_token]
    if not filters and die_if_no_resource_found:
        raise UsageError("You must provide at least one resource: --topic <topic> or --cluster or --group <group> "
                         "or --delegation-token <Delegation Token ID>")
    return list(dict.fromkeys(filters))


# Kafka: AclCommand.getPrincipals
def get_principals(values) -> list[KafkaPrincipal]:
    out = []
    for v in values:
        try:
            out.append(KafkaPrincipal.parse(v.strip()))
        except ValueError as e:
            raise UsageError(str(e)) from None
    return out


# Kafka: AclCommand.getHosts
def get_hosts(hosts, principals) -> list[str]:
    if hosts:
        return [h.strip() for h in hosts]
    return ["*"] if principals else []


# Kafka: AclCommand.getAcl -- the allow and deny entries for ``operations``
def get_acl(opts: AclCommandOptions, operations) -> set[AccessControlEntry]:
    acls = set()
    for principals, hosts, permission in ((opts.allow_principal, opts.allow_host, AclPermissionType.ALLOW),
                                          (opts.deny_principal, opts.deny_host, AclPermissionType.DENY)):
        parsed, host_list = get_principals(principals), get_hosts(hosts, principals)
        acls |= {AccessControlEntry(str(p), h, op, permission) for p in parsed for op in operations for h in host_list}
    return acls


def _cli_operations(opts: AclCommandOptions) -> set[AclOperation]:
    ops = set()
    for name in opts.operation or ("All",):
        op = AclOperation.from_string(name.strip())
        if op in (AclOperation.UNKNOWN, AclOperation.ANY):
            raise UsageError(f"Invalid operation {name}. Valid operation names are: {', '.join(OPERATION_NAMES)}")
        ops.add(op)
    return ops


# Kafka: AclCommand.getResourceFilterToAcls (with getCliResourceFilterToAcls, getProducerResourceFilterToAcls,
# getConsumerResourceFilterToAcls and validateOperation)
def get_resource_filter_to_acls(opts: AclCommandOptions) -> dict[ResourcePatternFilter, set[AccessControlEntry]]:
    out: dict[ResourcePatternFilter, set[AccessControlEntry]] = {}
    filters = get_resource_filter(opts)
    if not opts.producer and not opts.consumer:
        acls = get_acl(opts, _cli_operations(opts))
        out = {f: set(acls) for f in filters}
    if opts.producer:
        for f in filters:
            if f.resource_type is ResourceType.TOPIC:
                out[f] = get_acl(opts, {AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.CREATE})
            elif f.resource_type is ResourceType.TRANSACTIONAL_ID:
                out[f] = get_acl(opts, {AclOperation.WRITE, AclOperation.DESCRIBE})
        if opts.idempotent:
            out[CLUSTER_RESOURCE_FILTER] = get_acl(opts, {AclOperation.IDEMPOTENT_WRITE})
    if opts.consumer:
        for f in filters:
            if f.resource_type is ResourceType.TOPIC:
                out[f] = out.get(f, set()) | get_acl(opts, {AclOperation.READ, AclOperation.DESCRIBE})
            elif f.resource_type is ResourceType.GROUP:
                out[f] = out.get(f, set()) | get_acl(opts, {AclOperation.READ})
    for f, acls in out.items():   # Kafka: validateOperation
        valid = AuthorizerUtils.supported_operations(f.resource_type) | {AclOperation.ALL}
        if any(a.operation not in valid for a in acls):
            raise UsageError(f"ResourceType {f.resource_type} only supports operations "
                             f"{','.join(sorted(o.acl_name for o in valid))}")
    return out


# Kafka: AclCommand.getResourceToAcls
def get_resource_to_acls(opts: AclCommandOptions) -> dict[ResourcePattern, set[AccessControlEntry]]:
    if not opts.pattern_type.is_specific():
        raise UsageError(f"A '--resource-pattern-type' value of '{opts.pattern_type}' is not valid when adding acls.")
    out = {ResourcePattern(f.resource_type, f.name, f.pattern_type): acls
           for f, acls in get_resource_filter_to_acls(opts).items()}
    if any(not acls for acls in out.values()):
        raise UsageError("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.")
    return out


class AdminClientService:
    """Kafka: AclCommand.AdminClientService."""

    def __init__(self, opts: AclCommandOptions, echo=click.echo, confirm=None):
        self.opts = opts
        self.echo = echo
        self.confirm = confirm or (lambda msg: (echo(msg), sys.stdin.readline().strip().lower() == "y")[1])

    def _admin(self) -> KafkaAdminClient:
        props = load_props(self.opts.command_config) if self.opts.command_config else {}
        props["bootstrap.servers"] = self.opts.bootstrap_server
        return KafkaAdminClient(props)

    # Kafka: AdminClientService.addAcls
    def add_acls(self) -> None:
        resource_to_acls = get_resource_to_acls(self.opts)
        with self._admin() as admin:
            for resource, acls in sorted(resource_to_acls.items(), key=lambda kv: str(kv[0])):
                self.echo(f"Adding ACLs for resource `{resource}`: {NEWLINE} {_entries(acls)} {NEWLINE}")
                admin.create_acls([AclBinding(resource, a) for a in sorted(acls, key=str)])
            self._list_acls(admin)

    # Kafka: AdminClientService.removeAcls
    def remove_acls(self) -> None:
        filter_to_acls = get_resource_filter_to_acls(self.opts)
        with self._admin() as admin:
            for f, acls in sorted(filter_to_acls.items(), key=lambda kv: str(kv[0])):
                if not acls:
                    if self._confirm(f"Are you sure you want to delete all ACLs for resource filter `{f}`? (y/n)"):
                        admin.delete_acls([AclBindingFilter(f, AccessControlEntryFilter.ANY)])
                elif self._confirm(f"Are you sure you want to remove ACLs: {NEWLINE} {_entries(acls)} {NEWLINE} "
                                   f"from resource filter `{f}`? (y/n)"):
                    admin.delete_acls([AclBindingFilter(f, a.to_filter()) for a in sorted(acls, key=str)])
            self._list_acls(admin)

    # Kafka: AdminClientService.listAcls
    def list_acls(self) -> None:
        with self._admin() as admin:
            self._list_acls(admin)

    def _list_acls(self, admin: KafkaAdminClient) -> None:
        filters = get_resource_filter(self.opts, die_if_no_resource_found=False)
        principals = get_principals(self.opts.principal)
        resource_to_acls = self.get_acls(admin, filters)
        if not principals:
            self._print(resource_to_acls)
            return
        for p in principals:
            self.echo(f"ACLs for principal `{p}`")
            self._print({r: {a for a in acls if a.principal == str(p)} for r, acls in resource_to_acls.items()})

    def _print(self, resource_to_acls) -> None:
        for resource, acls in sorted(resource_to_acls.items(), key=lambda kv: str(kv[0])):
            if acls:
                self.echo(f"Current ACLs for resource `{resource}`: {NEWLINE} {_entries(acls)} {NEWLINE}")

    def _confirm(self, message: str) -> bool:
        return bool(self.opts.force) or self.confirm(message)

    # Kafka: AdminClientService.getAcls
    @staticmethod
    def get_acls(admin: KafkaAdminClient, filters) -> dict[ResourcePattern, set[AccessControlEntry]]:
        if not filters:
            bindings = admin.describe_acls(AclBindingFilter.ANY)
        else:
            bindings = [b for f in filters for b in admin.describe_acls(AclBindingFilter(f, AccessControlEntryFilter.ANY))]
        out: dict[ResourcePattern, set[AccessControlEntry]] = {}
        for b in bindings:
            out.setdefault(b.pattern, set()).add(b.entry)
        return out


class _AuthorizerAdmin:
    """The admin client's three ACL calls, done by an AclAuthorizer on ZooKeeper (JAuthorizerService's authZ)."""

    def __init__(self, authorizer):
        self.authorizer = authorizer

    def create_acls(self, bindings) -> None:
        for result in self.authorizer.create_acls(None, bindings):
            if result.exception is not None:
                raise result.exception

    def describe_acls(self, acl_filter):
        return self.authorizer.acls(acl_filter)

    def delete_acls(self, filters):
        return [r.acl_binding for result in self.authorizer.delete_acls(None, filters)
                for r in result.acl_binding_delete_results]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.authorizer.close()


class JAuthorizerService(AdminClientService):
    """Kafka: AclCommand.JAuthorizerService -- the same actions on an authorizer configured from
    ``--authorizer-properties``."""

    # Kafka: JAuthorizerService.withAuthorizer
    def _admin(self):
        from kafkalite.security.authorizer.authorizer_utils import KAFKA_AUTHORIZER_CLASS_NAMES
        name = self.opts.authorizer or KAFKA_AUTHORIZER_CLASS_NAMES[0]
        if name not in KAFKA_AUTHORIZER_CLASS_NAMES:
            raise UsageError(f"Unsupported authorizer {name}: use {' or '.join(KAFKA_AUTHORIZER_CLASS_NAMES)}")
        props = {}
        for kv in self.opts.authorizer_properties:
            key, sep, value = kv.partition("=")
            if not sep:
                raise UsageError(f"Invalid authorizer property {kv}: expected key=value")
            props[key.strip()] = value.strip()
        authorizer = AuthorizerUtils.create_authorizer(name)
        authorizer.configure(props)
        return _AuthorizerAdmin(authorizer)


def _multi(name, help_text):
    return click.option(name, multiple=True, help=help_text)


@click.command(name="kafka-acls", context_settings={"help_option_names": ["-h", "--help"]},
               help="This tool helps to manage acls on kafka.")
@click.option("--bootstrap-server", help="A list of host/port pairs to use for establishing the connection to the "
                                         "Kafka cluster.")
@click.option("--command-config", help="A property file containing configs to be passed to Admin Client.")
@click.option("--authorizer", help="Fully qualified class name of the authorizer (default "
                                   "kafka.security.authorizer.AclAuthorizer).")
@_multi("--authorizer-properties", "Properties of the authorizer, key=val; zookeeper.connect=host:port or "
                                   "embedded:<dir>.")
@click.option("--add", is_flag=True, help="Indicates you are trying to add ACLs.")
@click.option("--remove", is_flag=True, help="Indicates you are trying to remove ACLs.")
@click.option("--list", "list_", is_flag=True, help="List ACLs for the specified resource.")
@_multi("--topic", "topic to which ACLs should be added or removed.")
@click.option("--cluster", is_flag=True, help="Add/Remove cluster ACLs.")
@_multi("--group", "Consumer Group to which the ACLs should be added or removed.")
@_multi("--transactional-id", "The transactionalId to which ACLs should be added or removed.")
@_multi("--delegation-token", "Delegation token to which ACLs should be added or removed.")
@click.option("--idempotent", is_flag=True, help="Enable idempotence for the producer.")
@click.option("--resource-pattern-type", default="LITERAL", help="LITERAL (default), PREFIXED; ANY or MATCH to "
                                                                 "--list or --remove.")
@_multi("--operation", f"Operation that is being allowed or denied: {', '.join(OPERATION_NAMES)} (default All).")
@_multi("--allow-principal", "principal is in principalType:name format.")
@_multi("--deny-principal", "principal is in principalType:name format.")
@_multi("--principal", "List ACLs for the specified principal.")
@_multi("--allow-host", "Host from which principals listed in --allow-principal will have access.")
@_multi("--deny-host", "Host from which principals listed in --deny-principal will be denied access.")
@click.option("--producer", is_flag=True, help="Convenience option to add/remove ACLs for producer role.")
@click.option("--consumer", is_flag=True, help="Convenience option to add/remove ACLs for consumer role.")
@click.option("--force", is_flag=True, help="Assume Yes to all queries and do not prompt.")
def main(list_, **kw):
    # Kafka: AclCommand.main
    opts = AclCommandOptions(list=list_, **kw)
    try:
        opts.check_args()
        service = AdminClientService(opts) if opts.bootstrap_server else JAuthorizerService(opts)
        if opts.add:
            service.add_acls()
        elif opts.remove:
            service.remove_acls()
        else:
            service.list_acls()
    except UsageError as e:   # Kafka: CommandLineUtils.printUsageAndDie
        click.echo(str(e), err=True)
        click.echo("Try 'kafka-acls --help' for the options.", err=True)
        sys.exit(1)
    except Exception as e:  # noqa: BLE001 -- Kafka: "Error while executing ACL command"
        click.echo(f"Error while executing ACL command: {e}")
        sys.exit(1)


if __name__ == "__main__":
    main()
