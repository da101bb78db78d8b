"""Mirrors Kafka 2.4: core/src/main/scala/kafka/controller/KafkaController.scala

Classes: KafkaController. Its ZooKeeper handlers are in controller_znode_handlers.py and its events in
controller_events.py (2.4 keeps all three in KafkaController.scala).

Every broker runs a KafkaController; the one that creates the ephemeral ``/controller`` znode is active
(research/controller.md §2.2). ``elect()`` creates it and bumps ``/controller_epoch`` in one ZooKeeper multi; from
then on every controller write carries a check of that epoch znode's version, so a deposed ("zombie") controller
cannot write. The active controller then (``on_controller_failover``) reads the cluster into its
``ControllerContext``, watches ``/brokers/ids``, ``/brokers/topics`` and ``/admin/delete_topics``, connects to
every live broker (``ControllerChannelManager``), sends UpdateMetadata everywhere, and starts the replica and
partition state machines. A single broker elects itself and sends LeaderAndIsr/UpdateMetadata to itself over
the network, exactly as in a cluster.

All work runs as events on ``controller-event-thread``; ZooKeeper watchers only enqueue.

Partition reassignment (KIP-455) is the API path: AlterPartitionReassignments → ``ApiPartitionReassignment`` →
``on_partition_reassignment``; a new controller resumes what the topic znodes say is moving.

2.4's ZooKeeper route works too: a /admin/reassign_partitions znode (kafka-reassign-partitions --zookeeper)
starts ``process_zk_partition_reassignment``; finished or failed partitions are taken out of it and the znode is
deleted when none are left; an API reassignment of the same partition supersedes it.

A broker that loses a log dir writes /log_dir_event_notification; the controller asks it about all its replicas
(LeaderAndIsr) and marks those it answers KAFKA_STORAGE_ERROR for offline (``replicas_on_offline_dirs``): they
lose their leaderships and leave the ISRs, as a dead broker's replicas do.

Left out: the /admin/preferred_replica_election znode (ZkTriggered elections), controller metrics.
"""
from __future__ import annotations

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.controller.controller_channel_manager import ControllerBrokerRequestBatch, ControllerChannelManager
from kafkalite.controller.controller_context import ControllerContext, PartitionAndReplica, ReplicaAssignment
from kafkalite.controller.controller_event_manager import ControllerEvent, ControllerEventManager
from kafkalite.controller.controller_events import (
    ApiPartitionReassignment, AutoPreferredReplicaLeaderElection, ControlledShutdown, ELECTION_TYPE_PREFERRED,
    ElectionTrigger, ListPartitionReassignments, ReplicaLeaderElection, Startup, TopicUncleanLeaderElectionEnable,
    UncleanLeaderElectionEnable, ZkPartitionReassignment, election_name,
)
from kafkalite.controller.controller_znode_handlers import (
    BrokerChangeHandler, ControllerChangeHandler, IsrChangeNotificationHandler, LogDirEventNotificationHandler,
    PartitionModificationsHandler,
    PartitionReassignmentHandler, PartitionReassignmentIsrChangeHandler, TopicChangeHandler, TopicDeletionHandler,
    _ControllerStateChangeHandler,
)
from kafkalite.controller.election import (
    ControlledShutdownPartitionLeaderElectionStrategy, OfflinePartitionLeaderElectionStrategy,
    PreferredReplicaPartitionLeaderElectionStrategy, ReassignPartitionLeaderElectionStrategy,
)
from kafkalite.controller.partition_state_machine import (
    PartitionState, PartitionStateMachine, StateChangeFailedException,
)
from kafkalite.controller.replica_state_machine import ReplicaState, ReplicaStateMachine
from kafkalite.controller.state_change_logger import StateChangeLogger
from kafkalite.controller.topic_deletion_manager import ControllerDeletionClient, TopicDeletionManager
from kafkalite.protocol.errors import ControllerMovedException, Errors
from kafkalite.utils.kafka_scheduler import KafkaScheduler
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM, Time
from kafkalite.zk.zk_data import (
    BrokerInfo, LeaderAndIsr, LeaderIsrAndControllerEpoch, ReassignPartitionsZNode, TopicPartitionStateZNode,
)


class KafkaController(Logging):
    """Kafka: KafkaController."""

    def __init__(self, config, zk_client, time: Time = SYSTEM, broker_info: BrokerInfo | None = None,
                 broker_epoch: int = -1, thread_name_prefix: str | None = None, controller_channel_manager=None):
        self.config = config
        self.zk_client = zk_client
        self.time = time
        self.broker_info = broker_info
        self._broker_epoch = broker_epoch
        self.log_ident = f"[Controller id={config.broker_id}] "
        self.controller_context = ControllerContext()
        # Kafka: KafkaController.kafkaScheduler -- runs the auto-leader-rebalance-task while this broker is controller
        self.kafka_scheduler: KafkaScheduler | None = None
        self.state_change_logger = StateChangeLogger(config.broker_id, in_controller_context=True)
        self.event_manager = ControllerEventManager(config.broker_id, self, time)
        # ``controller_channel_manager`` may be replaced by a test double with the same methods.
        self.controller_channel_manager = controller_channel_manager or ControllerChannelManager(
            self.controller_context, config, time, self.state_change_logger, thread_name_prefix)
        self.broker_request_batch = ControllerBrokerRequestBatch(
            config, self.controller_channel_manager, self.event_manager, self.controller_context,
            self.state_change_logger)
        self.replica_state_machine = ReplicaStateMachine(
            config, self.state_change_logger, self.controller_context, zk_client,
            ControllerBrokerRequestBatch(config, self.controller_channel_manager, self.event_manager,
                                         self.controller_context, self.state_change_logger))
        self.partition_state_machine = PartitionStateMachine(
            config, self.state_change_logger, self.controller_context, zk_client,
            ControllerBrokerRequestBatch(config, self.controller_channel_manager, self.event_manager,
                                         self.controller_context, self.state_change_logger))
        self.topic_deletion_manager = TopicDeletionManager(
            config, self.controller_context, self.replica_state_machine, self.partition_state_machine,
            ControllerDeletionClient(self, zk_client))
        self.controller_change_handler = ControllerChangeHandler(self.event_manager)
        self.broker_change_handler = BrokerChangeHandler(self.event_manager)
        self.topic_change_handler = TopicChangeHandler(self.event_manager)
        self.topic_deletion_handler = TopicDeletionHandler(self.event_manager)
        self.isr_change_notification_handler = IsrChangeNotificationHandler(self.event_manager)
        self.log_dir_event_notification_handler = LogDirEventNotificationHandler(self.event_manager)
        self.partition_reassignment_handler = PartitionReassignmentHandler(self.event_manager)
        self.partition_modifications_handlers: dict[str, PartitionModificationsHandler] = {}
        self.active_controller_id = -1

    # ------------------------------------------------------------ public API

    # Kafka: KafkaController.isActive
    def is_active(self) -> bool:
        return self.active_controller_id == self.config.broker_id

    @property
    def controller_id(self) -> int:
        """The id of the active controller as this broker last saw it (-1 = none)."""
        return self.active_controller_id

    # Kafka: KafkaController.epoch
    @property
    def epoch(self) -> int:
        return self.controller_context.epoch

    # Kafka: KafkaController.brokerEpoch
    @property
    def broker_epoch(self) -> int:
        return self._broker_epoch

    # Kafka: KafkaController.startup
    def startup(self) -> None:
        self.zk_client.register_state_change_handler(_ControllerStateChangeHandler(self))
        self.event_manager.put(Startup())
        self.event_manager.start()

    # Kafka: KafkaController.shutdown
    def shutdown(self) -> None:
        self.event_manager.close()
        self.on_controller_resignation()

    # Kafka: KafkaController.process -- runs on the event thread (see ControllerEventManager's era notes)
    def process(self, event: ControllerEvent) -> None:
        try:
            event.process(self)
        except ControllerMovedException as e:
            self.info(f"Controller moved to another broker when processing {event}: {e}")
            self.maybe_resign()
        except Exception as e:   # noqa: BLE001
            self.error(f"Error processing event {event}", exc_info=e)

    # Kafka: KafkaController.preempt
    def preempt(self, event: ControllerEvent) -> None:
        event.preempt(self)

    # ------------------------------------------------------------ election

    # Kafka: KafkaController.processStartup
    def process_startup(self) -> None:
        self.zk_client.register_znode_change_handler_and_check_existence(self.controller_change_handler)
        self.elect()

    # Kafka: KafkaController.elect
    def elect(self) -> None:
        self.active_controller_id = self._read_controller_id()
        if self.active_controller_id != -1:
            self.debug(f"Broker {self.active_controller_id} has been elected as the controller, so stopping the "
                       f"election process.")
            return
        try:
            epoch, epoch_zk_version = self.zk_client.register_controller_and_increment_controller_epoch(
                self.config.broker_id)
            self.controller_context.epoch = epoch
            self.controller_context.epoch_zk_version = epoch_zk_version
            self.active_controller_id = self.config.broker_id
            self.info(f"{self.config.broker_id} successfully elected as the controller. Epoch incremented to "
                      f"{self.controller_context.epoch} and epoch zk version is now "
                      f"{self.controller_context.epoch_zk_version}")
            self.on_controller_failover()
        except ControllerMovedException as e:
            self.maybe_resign()
            if self.active_controller_id != -1:
                self.debug(f"Broker {self.active_controller_id} was elected as controller instead of broker "
                           f"{self.config.broker_id}: {e}")
            else:
                self.warn(f"A controller has been elected but just resigned, this will result in another round of "
                          f"election: {e}")
        except Exception as e:   # noqa: BLE001
            self.error(f"Error while electing or becoming controller on broker {self.config.broker_id}. Trigger "
                       f"controller movement immediately", exc_info=e)
            self.trigger_controller_move()

    # Kafka: KafkaController.maybeResign
    def maybe_resign(self) -> None:
        was_active_before_change = self.is_active()
        self.zk_client.register_znode_change_handler_and_check_existence(self.controller_change_handler)
        self.active_controller_id = self._read_controller_id()
        if was_active_before_change and not self.is_active():
            self.on_controller_resignation()

    def _read_controller_id(self) -> int:
        """Kafka: zkClient.getControllerId.getOrElse(-1) -- also re-arms the watch on /controller."""
        controller_id = self.zk_client.get_controller_id()
        return -1 if controller_id is None else controller_id

    # Kafka: KafkaController.triggerControllerMove
    def trigger_controller_move(self) -> None:
        self.active_controller_id = self._read_controller_id()
        if not self.is_active():
            self.warn("Controller has already moved when trying to trigger controller movement")
            return
        try:
            expected = self.controller_context.epoch_zk_version
            self.active_controller_id = -1
            self.on_controller_resignation()
            self.zk_client.delete_controller(expected)
        except ControllerMovedException:
            self.warn("Controller has already moved when trying to trigger controller movement")

    # Kafka: KafkaController.onControllerFailover
    def on_controller_failover(self) -> None:
        self.info("Registering handlers")
        for handler in (self.broker_change_handler, self.topic_change_handler, self.topic_deletion_handler,
                        self.log_dir_event_notification_handler, self.isr_change_notification_handler):
            self.zk_client.register_znode_child_change_handler(handler)
        self.info("Deleting log dir event notifications")
        self.zk_client.delete_log_dir_event_notifications(None, self.controller_context.epoch_zk_version)
        self.info("Deleting isr change notifications")
        self.zk_client.delete_isr_change_notifications(None, self.controller_context.epoch_zk_version)
        self.info("Initializing controller context")
        self.initialize_controller_context()
        self.info("Fetching topic deletions in progress")
        topics_to_be_deleted, topics_ineligible = self.fetch_topic_deletions_in_progress()
        self.info("Initializing topic deletion manager")
        self.topic_deletion_manager.init(topics_to_be_deleted, topics_ineligible)
        # UpdateMetadata first: a broker must know the live brokers before it learns about leaders (KAFKA-5620).
        self.info("Sending update metadata request")
        self.send_update_metadata_request(sorted(self.controller_context.live_or_shutting_down_broker_ids), set())
        self.replica_state_machine.startup()
        self.partition_state_machine.startup()
        self.info(f"Ready to serve as the new controller with epoch {self.epoch}")
        self.initialize_partition_reassignments()
        if self.config.get("auto.leader.rebalance.enable"):
            self.kafka_scheduler = KafkaScheduler(1)
            self.kafka_scheduler.startup()
            self.schedule_auto_leader_rebalance_task(5000)
        self.topic_deletion_manager.try_topic_deletion()

    # Kafka: KafkaController.onControllerResignation
    def on_controller_resignation(self) -> None:
        self.debug("Resigning")
        for handler in (self.isr_change_notification_handler, self.log_dir_event_notification_handler,
                        self.topic_deletion_handler, self.topic_change_handler, self.broker_change_handler):
            self.zk_client.unregister_znode_child_change_handler(handler.path)
        self.unregister_partition_modifications_handlers(list(self.partition_modifications_handlers))
        self.zk_client.unregister_znode_change_handler(self.partition_reassignment_handler.path)
        self.unregister_partition_reassignment_isr_change_handlers()
        self.topic_deletion_manager.reset()
        if self.kafka_scheduler is not None:
            self.kafka_scheduler.shutdown()
            self.kafka_scheduler = None
        self.replica_state_machine.shutdown()
        self.partition_state_machine.shutdown()
        self.controller_channel_manager.shutdown()
        self.controller_context.reset_context()
        self.info("Resigned")

    # Kafka: KafkaController.initializeControllerContext
    def initialize_controller_context(self) -> None:
        ctx = self.controller_context
        ctx.set_live_brokers_and_epochs(self.zk_client.get_all_broker_and_epochs_in_cluster())
        self.info(f"Initialized broker epochs cache: {ctx.live_broker_id_and_epochs}")
        ctx.all_topics = self.zk_client.get_all_topics_in_cluster(register_watch=True)
        for tp, (replicas, adding, removing) in self.zk_client.get_full_replica_assignment_for_topics(
                ctx.all_topics).items():
            assignment = ReplicaAssignment(replicas, adding, removing)
            ctx.update_partition_full_replica_assignment(tp, assignment)
            if assignment.is_being_reassigned:
                ctx.partitions_being_reassigned.add(tp)
        ctx.topic_ids.update(self.zk_client.get_topic_ids_for_topics(ctx.all_topics))
        self.register_partition_modifications_handlers(ctx.all_topics)
        ctx.partition_leadership_info.clear()
        ctx.shutting_down_broker_ids.clear()
        self.update_leader_and_isr_cache()
        self.controller_channel_manager.startup()
        self.info(f"Currently active brokers in the cluster: {sorted(ctx.live_broker_ids)}")
        self.info(f"Currently shutting brokers in the cluster: {sorted(ctx.shutting_down_broker_ids)}")
        self.info(f"Current list of topics in the cluster: {sorted(ctx.all_topics)}")

    # Kafka: KafkaController.fetchTopicDeletionsInProgress
    def fetch_topic_deletions_in_progress(self) -> tuple[set[str], set[str]]:
        ctx = self.controller_context
        topics_to_be_deleted = set(self.zk_client.get_topic_deletions())
        topics_with_offline_replicas = {t for t in topics_to_be_deleted
                                        if any(not ctx.is_replica_online(r.replica, r.topic_partition)
                                               for r in ctx.replicas_for_topic(t))}
        ineligible = topics_with_offline_replicas | {tp.topic for tp in ctx.partitions_being_reassigned}
        self.info(f"List of topics to be deleted: {','.join(sorted(topics_to_be_deleted))}")
        self.info(f"List of topics ineligible for deletion: {','.join(sorted(ineligible))}")
        return topics_to_be_deleted, ineligible

    # Kafka: KafkaController.updateLeaderAndIsrCache
    def update_leader_and_isr_cache(self, partitions=None) -> None:
        partitions = self.controller_context.all_partitions() if partitions is None else partitions
        for tp, lice in self.zk_client.get_topic_partition_states(partitions).items():
            self.controller_context.partition_leadership_info[tp] = lice

    # ------------------------------------------------------------ brokers

    # Kafka: KafkaController.processBrokerChange
    def process_broker_change(self) -> None:
        if not self.is_active():
            return
        ctx = self.controller_context
        cur_broker_and_epochs = self.zk_client.get_all_broker_and_epochs_in_cluster()
        cur_epochs = {b.id: e for b, e in cur_broker_and_epochs.items()}
        cur_ids = set(cur_epochs)
        known_ids = ctx.live_or_shutting_down_broker_ids
        new_ids = cur_ids - known_ids
        dead_ids = known_ids - cur_ids
        bounced_ids = {i for i in cur_ids & known_ids if cur_epochs[i] > ctx.live_broker_epochs.get(i, -1)}
        new_brokers = {b: e for b, e in cur_broker_and_epochs.items() if b.id in new_ids}
        bounced_brokers = {b: e for b, e in cur_broker_and_epochs.items() if b.id in bounced_ids}
        self.info(f"Newly added brokers: {_ids(new_ids)}, deleted brokers: {_ids(dead_ids)}, bounced brokers: "
                  f"{_ids(bounced_ids)}, all live brokers: {_ids(cur_ids)}")
        for broker in new_brokers:
            self.controller_channel_manager.add_broker(broker)
        for broker_id in bounced_ids:
            self.controller_channel_manager.remove_broker(broker_id)
        for broker in bounced_brokers:
            self.controller_channel_manager.add_broker(broker)
        for broker_id in dead_ids:
            self.controller_channel_manager.remove_broker(broker_id)
        if new_ids:
            ctx.add_live_brokers_and_epochs(new_brokers)
            self.on_broker_startup(sorted(new_ids))
        if bounced_ids:
            ctx.remove_live_brokers(bounced_ids)
            self.on_broker_failure(sorted(bounced_ids))
            ctx.add_live_brokers_and_epochs(bounced_brokers)
            self.on_broker_startup(sorted(bounced_ids))
        if dead_ids:
            ctx.remove_live_brokers(dead_ids)
            self.on_broker_failure(sorted(dead_ids))
        if new_ids or dead_ids or bounced_ids:
            self.info(f"Updated broker epochs cache: {ctx.live_broker_id_and_epochs}")

    # Kafka: KafkaController.onBrokerStartup
    def on_broker_startup(self, new_brokers: list[int]) -> None:
        self.info(f"New broker startup callback for {','.join(map(str, new_brokers))}")
        ctx = self.controller_context
        for broker_id in new_brokers:   # a restarted broker's log dirs are whatever it found at start-up
            ctx.replicas_on_offline_dirs.pop(broker_id, None)
        existing = sorted(ctx.live_or_shutting_down_broker_ids - set(new_brokers))
        # the existing brokers learn about the new broker; the new broker learns about every partition
        self.send_update_metadata_request(existing, set())
        self.send_update_metadata_request(new_brokers, set(ctx.partition_leadership_info))
        all_replicas_on_new_brokers = ctx.replicas_on_brokers(set(new_brokers))
        self.replica_state_machine.handle_state_changes(_sorted_replicas(all_replicas_on_new_brokers),
                                                        ReplicaState.OnlineReplica)
        self.partition_state_machine.trigger_online_partition_state_change()
        # a reassignment waiting for one of these brokers can go on
        self.maybe_resume_reassignments(lambda tp, assignment: bool(set(assignment.target_replicas) & set(new_brokers)))
        to_be_deleted = {r.topic for r in all_replicas_on_new_brokers
                         if self.topic_deletion_manager.is_topic_queued_up_for_deletion(r.topic)}
        if to_be_deleted:
            self.info(f"Some replicas for topics {sorted(to_be_deleted)} to be deleted were on the new brokers; "
                      f"resuming their deletion")
            self.topic_deletion_manager.resume_deletion_for_topics(to_be_deleted)

    # Kafka: KafkaController.onBrokerFailure
    def on_broker_failure(self, dead_brokers: list[int]) -> None:
        self.info(f"Broker failure callback for {','.join(map(str, dead_brokers))}")
        ctx = self.controller_context
        for broker_id in dead_brokers:
            ctx.replicas_on_offline_dirs.pop(broker_id, None)
        ctx.shutting_down_broker_ids.difference_update(dead_brokers)
        self.on_replicas_become_offline(ctx.replicas_on_brokers(set(dead_brokers)))

    # Kafka: KafkaController.onReplicasBecomeOffline
    def on_replicas_become_offline(self, new_offline_replicas: set[PartitionAndReplica]) -> None:
        ctx = self.controller_context
        tdm = self.topic_deletion_manager
        for_deletion = {r for r in new_offline_replicas if tdm.is_topic_queued_up_for_deletion(r.topic)}
        not_for_deletion = new_offline_replicas - for_deletion
        partitions_without_leader = sorted(
            (tp for tp, lice in ctx.partition_leadership_info.items()
             if not ctx.is_replica_online(lice.leader_and_isr.leader, tp)
             and not tdm.is_topic_queued_up_for_deletion(tp.topic)), key=lambda t: (t.topic, t.partition))
        # partitions whose leader died: Offline, then elect new leaders from the live ISR
        self.partition_state_machine.handle_state_changes(partitions_without_leader, PartitionState.OfflinePartition)
        self.partition_state_machine.trigger_online_partition_state_change()
        # the dead replicas leave the ISRs; the remaining replicas hear about it
        self.replica_state_machine.handle_state_changes(_sorted_replicas(not_for_deletion), ReplicaState.OfflineReplica)
        if for_deletion:
            tdm.fail_replica_deletion(for_deletion)
        if not partitions_without_leader:
            self.send_update_metadata_request(sorted(ctx.live_or_shutting_down_broker_ids), set())

    # ------------------------------------------------------------ controlled shutdown

    # Kafka: KafkaController.controlledShutdown -- KafkaApis's entry; the answer comes through the callback,
    # called with (partitions the broker still leads, None) or (None, the exception)
    def controlled_shutdown(self, broker_id: int, broker_epoch: int, callback) -> None:
        self.event_manager.put(ControlledShutdown(broker_id, broker_epoch, callback))

    # Kafka: KafkaController.processControlledShutdown
    def process_controlled_shutdown(self, broker_id: int, broker_epoch: int, callback) -> None:
        try:
            remaining = self.do_controlled_shutdown(broker_id, broker_epoch)
        except Exception as e:   # noqa: BLE001 -- Kafka's Try: the broker gets the error
            callback(None, e)
            return
        callback(remaining, None)

    # Kafka: KafkaController.doControlledShutdown -- move the broker's leaderships to other ISR members and take
    # it out of the ISRs it follows, before it stops; returns the replicated partitions it still leads
    def do_controlled_shutdown(self, broker_id: int, broker_epoch: int) -> set[TopicPartition]:
        if not self.is_active():
            raise ControllerMovedException("Controller moved to another broker. Aborting controlled shutdown")
        ctx = self.controller_context
        # 2.4 refuses an older broker epoch only (and none at all, v0-1, is accepted); with no ClusterAction ACL
        # to stop a plain client, kafkalite wants the broker's own current epoch, as for the other control requests
        cached = ctx.live_broker_id_and_epochs.get(broker_id)
        if cached is not None and broker_epoch != cached:
            message = (f"Received controlled shutdown request from an old broker epoch {broker_epoch} for broker "
                       f"{broker_id}. Current broker epoch is {cached}.")
            self.info(message)
            raise Errors.STALE_BROKER_EPOCH.exception(message)
        self.info(f"Shutting down broker {broker_id}")
        if broker_id not in ctx.live_or_shutting_down_broker_ids:
            raise Errors.BROKER_NOT_AVAILABLE.exception(f"Broker id {broker_id} does not exist.")
        ctx.shutting_down_broker_ids.add(broker_id)
        self.debug(f"All shutting down brokers: {_ids(ctx.shutting_down_broker_ids)}")
        tdm = self.topic_deletion_manager
        to_act_on = [tp for tp in ctx.partitions_on_broker(broker_id)
                     if len(ctx.partition_replica_assignment(tp)) > 1 and tp in ctx.partition_leadership_info
                     and not tdm.is_topic_queued_up_for_deletion(tp.topic)]
        led = [tp for tp in to_act_on if ctx.partition_leadership_info[tp].leader_and_isr.leader == broker_id]
        followed = [tp for tp in to_act_on if tp not in set(led)]
        self.partition_state_machine.handle_state_changes(_sorted_tps(led), PartitionState.OnlinePartition,
                                                          ControlledShutdownPartitionLeaderElectionStrategy())
        try:
            self.broker_request_batch.new_batch()
            for tp in _sorted_tps(followed):
                self.broker_request_batch.add_stop_replica_request_for_brokers([broker_id], tp, False)
            self.broker_request_batch.send_requests_to_brokers(self.epoch)
        except RuntimeError as e:   # IllegalStateException: a half-built batch
            self.error(f"Forcing the controller to resign: {e}")
            self.broker_request_batch.clear()
            self.trigger_controller_move()
        # the broker leaves the ISRs it follows; their leaders hear about it
        self.replica_state_machine.handle_state_changes(
            [PartitionAndReplica(tp, broker_id) for tp in _sorted_tps(followed)], ReplicaState.OfflineReplica)
        return {tp for tp, lice in ctx.partition_leadership_info.items()
                if not tdm.is_topic_queued_up_for_deletion(tp.topic) and lice.leader_and_isr.leader == broker_id
                and len(ctx.partition_replica_assignment(tp)) > 1}

    # ------------------------------------------------------------ replica leader elections (KIP-183, KIP-460)

    # Kafka: KafkaController.electLeaders -- ``callback({tp: (leader, None) or (None, (Errors, message))})``
    def elect_leaders(self, partitions: set[TopicPartition], election_type: int, callback) -> None:
        self.event_manager.put(ReplicaLeaderElection(partitions, election_type, ElectionTrigger.ADMIN_CLIENT,
                                                     callback))

    # Kafka: KafkaController.processReplicaLeaderElection
    def process_replica_leader_election(self, partitions, election_type: int, election_trigger: str,
                                        callback) -> None:
        if not self.is_active():
            callback({tp: (None, (Errors.NOT_CONTROLLER, None)) for tp in partitions or ()})
            return
        ctx = self.controller_context
        known = [tp for tp in partitions if tp in ctx.partition_leadership_info]
        unknown = [tp for tp in partitions if tp not in ctx.partition_leadership_info]
        for tp in unknown:
            self.info(f"Skipping replica leader election ({election_name(election_type)}) for partition {tp} by "
                      f"{election_trigger} since it doesn't exist.")
        being_deleted = [tp for tp in known if self.topic_deletion_manager.is_topic_queued_up_for_deletion(tp.topic)]
        live = [tp for tp in known if tp not in set(being_deleted)]
        if being_deleted:
            self.warn(f"Skipping replica leader election ({election_name(election_type)}) for partitions "
                      f"{_sorted_tps(being_deleted)} by {election_trigger} since the respective topics are being "
                      f"deleted")

        def needs_election(tp) -> bool:
            leader = ctx.partition_leadership_info[tp].leader_and_isr.leader
            if election_type == ELECTION_TYPE_PREFERRED:
                return leader != ctx.partition_replica_assignment(tp)[0]
            return leader == LeaderAndIsr.NO_LEADER or leader not in ctx.live_broker_ids
        electable = [tp for tp in live if needs_election(tp)]
        results: dict = {}
        for tp, outcome in self.on_replica_election(electable, election_type, election_trigger).items():
            if isinstance(outcome, StateChangeFailedException):
                error = Errors.PREFERRED_LEADER_NOT_AVAILABLE if election_type == ELECTION_TYPE_PREFERRED \
                    else Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE
                results[tp] = (None, (error, str(outcome)))
            elif isinstance(outcome, Exception):
                results[tp] = (None, (Errors.for_exception(outcome), str(outcome)))
            else:
                results[tp] = (outcome.leader, None)
        results.update({tp: (None, (Errors.ELECTION_NOT_NEEDED, None)) for tp in live if tp not in set(electable)})
        results.update({tp: (None, (Errors.INVALID_TOPIC_EXCEPTION, "The topic is being deleted"))
                        for tp in being_deleted})
        results.update({tp: (None, (Errors.UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist."))
                        for tp in unknown})
        callback(results)

    # Kafka: KafkaController.onReplicaElection -- preferred: the first assigned replica if live and in the ISR;
    # unclean: an offline election that may pick a replica outside the ISR, only when an admin asked for it
    def on_replica_election(self, partitions: list[TopicPartition], election_type: int,
                            election_trigger: str) -> dict:
        self.info(f"Starting replica leader election ({election_name(election_type)}) for partitions "
                  f"{','.join(map(str, _sorted_tps(partitions)))} triggered by {election_trigger}")
        if election_type == ELECTION_TYPE_PREFERRED:
            strategy = PreferredReplicaPartitionLeaderElectionStrategy()
        else:
            strategy = OfflinePartitionLeaderElectionStrategy(election_trigger == ElectionTrigger.ADMIN_CLIENT)
        results = self.partition_state_machine.handle_state_changes(_sorted_tps(partitions),
                                                                    PartitionState.OnlinePartition, strategy)
        if election_trigger != ElectionTrigger.ADMIN_CLIENT:
            for tp, outcome in results.items():
                if isinstance(outcome, Exception):
                    self.error(f"Error completing replica leader election ({election_name(election_type)}) for "
                               f"partition {tp}: {outcome}")
        return results

    # Kafka: KafkaController.checkAndTriggerAutoLeaderRebalance -- the auto-leader-rebalance-task: a broker
    # whose share of partitions led by someone else exceeds leader.imbalance.per.broker.percentage gets its
    # preferred leaderships back
    def check_and_trigger_auto_leader_rebalance(self) -> None:
        self.trace("Checking need to trigger auto leader balancing")
        ctx = self.controller_context
        by_preferred: dict[int, list[TopicPartition]] = {}
        for tp in ctx.all_partitions():
            assignment = ctx.partition_replica_assignment(tp)
            if assignment and not self.topic_deletion_manager.is_topic_queued_up_for_deletion(tp.topic):
                by_preferred.setdefault(assignment[0], []).append(tp)
        threshold = self.config.get("leader.imbalance.per.broker.percentage")
        for leader_broker, partitions in sorted(by_preferred.items()):
            not_led = [tp for tp in partitions if tp in ctx.partition_leadership_info
                       and ctx.partition_leadership_info[tp].leader_and_isr.leader != leader_broker]
            ratio = len(not_led) / len(partitions)
            self.debug(f"Leader imbalance ratio for broker {leader_broker} is {ratio}")
            if ratio * 100 > threshold:
                candidates = [tp for tp in not_led if ctx.is_replica_online(leader_broker, tp)
                              and leader_broker in ctx.partition_leadership_info[tp].leader_and_isr.isr]
                if candidates:
                    self.on_replica_election(candidates, ELECTION_TYPE_PREFERRED, ElectionTrigger.AUTO)

    # Kafka: KafkaController.processAutoPreferredReplicaLeaderElection -- and schedule the next check
    def process_auto_preferred_replica_leader_election(self) -> None:
        if not self.is_active():
            return
        try:
            self.check_and_trigger_auto_leader_rebalance()
        finally:
            self.schedule_auto_leader_rebalance_task(self.config.get("leader.imbalance.check.interval.seconds") * 1000)

    # Kafka: KafkaController.scheduleAutoLeaderRebalanceTask
    def schedule_auto_leader_rebalance_task(self, delay_ms: int) -> None:
        if self.kafka_scheduler is not None:
            self.kafka_scheduler.schedule("auto-leader-rebalance-task", lambda: self.event_manager.put(
                AutoPreferredReplicaLeaderElection()), delay_ms, -1)

    # ------------------------------------------------------------ unclean.leader.election.enable turned on

    # Kafka: KafkaController.enableDefaultUncleanLeaderElection -- DynamicLogConfig, when the brokers' default
    # turns on: offline partitions may now elect a replica outside their ISR (the config is read at election time)
    def enable_default_unclean_leader_election(self) -> None:
        self.event_manager.put(UncleanLeaderElectionEnable())

    # Kafka: KafkaController.enableTopicUncleanLeaderElection -- TopicConfigHandler, when a topic's override is true
    def enable_topic_unclean_leader_election(self, topic: str) -> None:
        if self.is_active():
            self.event_manager.put(TopicUncleanLeaderElectionEnable(topic))

    # Kafka: KafkaController.processUncleanLeaderElectionEnable
    def process_unclean_leader_election_enable(self) -> None:
        if not self.is_active():
            return
        self.info("Unclean leader election has been enabled by default")
        self.partition_state_machine.trigger_online_partition_state_change()

    # Kafka: KafkaController.processTopicUncleanLeaderElectionEnable
    def process_topic_unclean_leader_election_enable(self, topic: str) -> None:
        if not self.is_active():
            return
        self.info(f"Unclean leader election has been enabled for topic {topic}")
        self.partition_state_machine.trigger_online_partition_state_change(topic)

    # ------------------------------------------------------------ partition reassignment (KIP-455)

    # Kafka: KafkaController.alterPartitionReassignments -- ``reassignments``: {tp: target replicas, or None to
    # cancel}; ``callback(results, error)``: {tp: (Errors, message)} or, for the whole request, (Errors, message)
    def alter_partition_reassignments(self, reassignments: dict, callback) -> None:
        self.event_manager.put(ApiPartitionReassignment(reassignments, callback))

    # Kafka: KafkaController.listPartitionReassignments -- ``callback(results, error)``: {tp: ReplicaAssignment}
    def list_partition_reassignments(self, partitions, callback) -> None:
        self.event_manager.put(ListPartitionReassignments(partitions, callback))

    # Kafka: KafkaController.processApiPartitionReassignment
    def process_api_partition_reassignment(self, reassignments: dict, callback) -> None:
        if not self.is_active():
            callback(None, (Errors.NOT_CONTROLLER, None))
            return
        results: dict[TopicPartition, tuple] = {}
        to_reassign: dict[TopicPartition, ReplicaAssignment] = {}
        for tp, target in reassignments.items():
            if not self.replicas_are_valid(tp, target):
                results[tp] = (Errors.INVALID_REPLICA_ASSIGNMENT, None)
                continue
            reassignment = self.maybe_build_reassignment(tp, target)
            if reassignment is None:
                results[tp] = (Errors.NO_REASSIGNMENT_IN_PROGRESS, None)
            else:
                to_reassign[tp] = reassignment
        # the latest reassignment wins, whichever route it came by: drop these from a ZooKeeper one
        self.maybe_remove_from_zk_reassignment(lambda tp, replicas: tp in to_reassign)
        results.update(self.maybe_trigger_partition_reassignment(to_reassign))
        callback(results, None)

    # Kafka: KafkaController.initializePartitionReassignments -- a ZooKeeper reassignment written while no
    # controller watched supersedes API reassignments of the same partitions
    def initialize_partition_reassignments(self) -> None:
        zk_resumed = self.process_zk_partition_reassignment()
        self.maybe_resume_reassignments(lambda tp, assignment: tp not in zk_resumed)

    # Kafka: KafkaController.processZkPartitionReassignment -- registers the watch (so the next creation is seen)
    # and starts what /admin/reassign_partitions lists; partitions that fail are taken out of the znode
    def process_zk_partition_reassignment(self) -> set[TopicPartition]:
        if not self.is_active() or \
                not self.zk_client.register_znode_change_handler_and_check_existence(self.partition_reassignment_handler):
            return set()
        results: dict[TopicPartition, tuple] = {}
        to_reassign: dict[TopicPartition, ReplicaAssignment] = {}
        for tp, target in self.zk_client.get_partition_reassignment().items():
            reassignment = self.maybe_build_reassignment(tp, target)
            if reassignment is None:
                results[tp] = (Errors.NO_REASSIGNMENT_IN_PROGRESS, None)
            else:
                to_reassign[tp] = reassignment
        results.update(self.maybe_trigger_partition_reassignment(to_reassign))
        failed = {tp for tp, (error, _) in results.items() if error is not Errors.NONE}
        if failed:
            self.warn(f"Failed reassignment through zk with the following errors: "
                      f"{ {tp: results[tp][0].name for tp in _sorted_tps(failed)} }")
            self.maybe_remove_from_zk_reassignment(lambda tp, replicas: tp in failed)
        return set(results) - failed

    # Kafka: KafkaController.maybeRemoveFromZkReassignment -- rewrite the znode without the partitions the
    # predicate picks; delete it when none are left (and look again, so that the next creation is watched)
    def maybe_remove_from_zk_reassignment(self, should_remove) -> None:
        if not self.zk_client.reassign_partitions_in_progress():
            return
        reassigning = self.zk_client.get_partition_reassignment()
        removing = {tp for tp, replicas in reassigning.items() if should_remove(tp, replicas)}
        if not removing:
            return
        remaining = {tp: replicas for tp, replicas in reassigning.items() if tp not in removing}
        self.info(f"Removing partitions {_sorted_tps(removing)} from the list of reassigned partitions in zookeeper")
        if not remaining:
            self.info(f"No more partitions need to be reassigned. Deleting zk path {ReassignPartitionsZNode.path()}")
            self.zk_client.delete_partition_reassignment(self.controller_context.epoch_zk_version)
            self.event_manager.put(ZkPartitionReassignment())
        else:
            self.zk_client.set_or_create_partition_reassignment(remaining, self.controller_context.epoch_zk_version)

    # Kafka: KafkaController.replicasAreValid -- no duplicates, no negative ids, new replicas on live brokers
    def replicas_are_valid(self, tp: TopicPartition, replicas) -> bool:
        if replicas is None:
            return True
        if not replicas or len(set(replicas)) != len(replicas) or any(r < 0 for r in replicas):
            return False
        adding = self.controller_context.partition_full_replica_assignment(tp).reassign_to(replicas).adding_replicas
        return set(adding) <= self.controller_context.live_broker_ids

    # Kafka: KafkaController.maybeBuildReassignment -- a cancellation (None) goes back to the origin replicas
    def maybe_build_reassignment(self, tp: TopicPartition, target) -> ReplicaAssignment | None:
        current = self.controller_context.partition_full_replica_assignment(tp)
        if current.is_being_reassigned:
            return current.reassign_to(target if target is not None else current.origin_replicas)
        return current.reassign_to(target) if target is not None else None

    # Kafka: KafkaController.maybeTriggerPartitionReassignment
    def maybe_trigger_partition_reassignment(self, reassignments: dict[TopicPartition, ReplicaAssignment]) -> dict:
        results = {}
        for tp, reassignment in reassignments.items():
            if self.topic_deletion_manager.is_topic_queued_up_for_deletion(tp.topic):
                self.info(f"Skipping reassignment of {tp} since the topic is currently being deleted")
                results[tp] = (Errors.UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist.")
            elif not self.controller_context.partition_replica_assignment(tp):
                results[tp] = (Errors.UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist.")
            else:
                try:
                    self.on_partition_reassignment(tp, reassignment)
                    results[tp] = (Errors.NONE, None)
                except ControllerMovedException:
                    self.info(f"Failed completing reassignment of partition {tp} because controller has moved to "
                              f"another broker")
                    raise
                except Exception as e:   # noqa: BLE001
                    self.error(f"Error completing reassignment of partition {tp}", exc_info=e)
                    results[tp] = (Errors.UNKNOWN_SERVER_ERROR, None)
        return results

    # Kafka: KafkaController.onPartitionReassignment -- RS = ORS + TRS while moving; AR = TRS - ORS are started
    # and caught up (phase A), and once all of TRS is in the ISR (phase B) the leader moves into TRS if needed,
    # RR = ORS - TRS are stopped and deleted, and RS = TRS is written last (ZooKeeper keeps ORS until then, so a
    # new controller can resume)
    def on_partition_reassignment(self, tp: TopicPartition, reassignment: ReplicaAssignment) -> None:
        self.topic_deletion_manager.mark_topic_ineligible_for_deletion({tp.topic}, "topic reassignment in progress")
        self.update_current_reassignment(tp, reassignment)
        if not self.is_reassignment_complete(tp, reassignment):
            self.update_leader_epoch_and_send_request(tp, reassignment)                     # A1
            self.start_new_replicas_for_reassigned_partition(tp, reassignment.adding_replicas)   # A2
            return
        self.replica_state_machine.handle_state_changes(                                     # B1
            [PartitionAndReplica(tp, r) for r in reassignment.adding_replicas], ReplicaState.OnlineReplica)
        completed = ReplicaAssignment(reassignment.target_replicas)
        self.controller_context.update_partition_full_replica_assignment(tp, completed)     # B2
        self.move_reassigned_partition_leader_if_required(tp, completed)                   # B3
        self.stop_removed_replicas_of_reassigned_partition(tp, reassignment.removing_replicas)   # B4, B5
        self.update_replica_assignment_for_partition(tp, completed)                         # B6
        self.remove_partition_from_reassigning_partitions(tp, completed)                    # B7
        self.send_update_metadata_request(sorted(self.controller_context.live_or_shutting_down_broker_ids), {tp})
        self.topic_deletion_manager.resume_deletion_for_topics({tp.topic})

    # Kafka: KafkaController.updateCurrentReassignment -- ZooKeeper first, then memory; replicas a replaced
    # reassignment was adding are stopped at once
    def update_current_reassignment(self, tp: TopicPartition, reassignment: ReplicaAssignment) -> None:
        ctx = self.controller_context
        current = ctx.partition_full_replica_assignment(tp)
        if current != reassignment:
            self.debug(f"Updating assignment of partition {tp} from {current} to {reassignment}")
            self.update_replica_assignment_for_partition(tp, reassignment)
            ctx.update_partition_full_replica_assignment(tp, reassignment)
            unneeded = [r for r in current.replicas if r not in reassignment.replicas]
            if unneeded:
                self.stop_removed_replicas_of_reassigned_partition(tp, unneeded)
        self.zk_client.register_znode_change_handler(PartitionReassignmentIsrChangeHandler(self.event_manager, tp))
        ctx.partitions_being_reassigned.add(tp)

    # Kafka: KafkaController.isReassignmentComplete -- every target replica is in the ISR (read from ZooKeeper,
    # which also arms the watch of the partition's state znode)
    def is_reassignment_complete(self, tp: TopicPartition, assignment: ReplicaAssignment) -> bool:
        if not assignment.is_being_reassigned:
            return True
        lice = self.zk_client.get_topic_partition_states([tp]).get(tp)
        return lice is not None and set(assignment.target_replicas) <= set(lice.leader_and_isr.isr)

    # Kafka: KafkaController.moveReassignedPartitionLeaderIfRequired
    def move_reassigned_partition_leader_if_required(self, tp: TopicPartition, new_assignment: ReplicaAssignment
                                                     ) -> None:
        ctx = self.controller_context
        current_leader = ctx.partition_leadership_info[tp].leader_and_isr.leader
        replicas = list(new_assignment.replicas)
        if current_leader in replicas and ctx.is_replica_online(current_leader, tp):
            self.info(f"Leader {current_leader} for partition {tp} being reassigned, is already in the new list of "
                      f"replicas {','.join(map(str, replicas))} and is alive")
            self.update_leader_epoch_and_send_request(tp, new_assignment)
        else:
            self.info(f"Leader {current_leader} for partition {tp} being reassigned, is not in the new list of "
                      f"replicas {','.join(map(str, replicas))} or is dead. Re-electing leader")
            self.partition_state_machine.handle_state_changes([tp], PartitionState.OnlinePartition,
                                                              ReassignPartitionLeaderElectionStrategy())

    # Kafka: KafkaController.stopRemovedReplicasOfReassignedPartition -- out of the ISR, stopped, deleted
    def stop_removed_replicas_of_reassigned_partition(self, tp: TopicPartition, removed_replicas) -> None:
        replicas = [PartitionAndReplica(tp, r) for r in removed_replicas]
        for state in (ReplicaState.OfflineReplica, ReplicaState.ReplicaDeletionStarted,
                      ReplicaState.ReplicaDeletionSuccessful, ReplicaState.NonExistentReplica):
            self.replica_state_machine.handle_state_changes(replicas, state)

    # Kafka: KafkaController.updateReplicaAssignmentForPartition -- the topic znode, fenced by the controller epoch
    def update_replica_assignment_for_partition(self, tp: TopicPartition, assignment: ReplicaAssignment) -> None:
        topic_assignment = self.controller_context.partition_full_replica_assignment_for_topic(tp.topic)
        topic_assignment[tp] = assignment
        self.zk_client.set_topic_assignment(
            tp.topic, {p.partition: list(a.replicas) for p, a in topic_assignment.items()},
            topic_id=self.controller_context.topic_ids.get(tp.topic),
            expected_controller_epoch_zk_version=self.controller_context.epoch_zk_version,
            adding_replicas={p.partition: list(a.adding_replicas) for p, a in topic_assignment.items()},
            removing_replicas={p.partition: list(a.removing_replicas) for p, a in topic_assignment.items()})
        self.info(f"Successfully updated assignment of partition {tp} to {assignment}")

    # Kafka: KafkaController.startNewReplicasForReassignedPartition
    def start_new_replicas_for_reassigned_partition(self, tp: TopicPartition, new_replicas) -> None:
        for replica in new_replicas:
            self.replica_state_machine.handle_state_changes([PartitionAndReplica(tp, replica)],
                                                            ReplicaState.NewReplica)

    # Kafka: KafkaController.updateLeaderEpochAndSendRequest -- every replica of RS learns the new assignment
    def update_leader_epoch_and_send_request(self, tp: TopicPartition, assignment: ReplicaAssignment) -> None:
        scl = self.state_change_logger.with_controller_epoch(self.controller_context.epoch)
        updated = self.update_leader_epoch(tp)
        if updated is None:
            scl.error(f"Failed to send LeaderAndIsr request with new replica assignment {assignment} to leader for "
                      f"partition being reassigned {tp}")
            return
        try:
            self.broker_request_batch.new_batch()
            self.broker_request_batch.add_leader_and_isr_request_for_brokers(assignment.replicas, tp, updated,
                                                                             assignment, is_new=False)
            self.broker_request_batch.send_requests_to_brokers(self.epoch)
        except RuntimeError as e:   # IllegalStateException: a half-built batch
            self.error(f"Forcing the controller to resign: {e}")
            self.broker_request_batch.clear()
            self.trigger_controller_move()
        scl.trace(f"Sent LeaderAndIsr request {updated} with new replica assignment {assignment} to leader "
                  f"{updated.leader_and_isr.leader} for partition being reassigned {tp}")

    # Kafka: KafkaController.updateLeaderEpoch -- the same leader and ISR under a new leader epoch
    def update_leader_epoch(self, tp: TopicPartition) -> LeaderIsrAndControllerEpoch | None:
        ctx = self.controller_context
        while True:
            lice = self.zk_client.get_topic_partition_states([tp]).get(tp)
            if lice is None:
                raise RuntimeError(f"Cannot update leader epoch for partition {tp} as leaderAndIsr path is empty")
            if lice.controller_epoch > ctx.epoch:
                raise StateChangeFailedException(
                    f"Leader and isr path written by another controller. This probably means the current controller "
                    f"with epoch {ctx.epoch} went through a soft failure and another controller was elected with "
                    f"epoch {lice.controller_epoch}. Aborting state change by this controller")
            result = self.zk_client.update_leader_and_isr({tp: lice.leader_and_isr.new_epoch_and_zk_version()},
                                                          ctx.epoch, ctx.epoch_zk_version)
            outcome = result.finished_partitions.get(tp)
            if isinstance(outcome, Exception):
                raise outcome
            if outcome is not None:
                updated = LeaderIsrAndControllerEpoch(outcome, ctx.epoch)
                ctx.partition_leadership_info[tp] = updated
                self.info(f"Updated leader epoch for partition {tp} to {outcome.leader_epoch}")
                return updated

    # Kafka: KafkaController.removePartitionFromReassigningPartitions
    def remove_partition_from_reassigning_partitions(self, tp: TopicPartition, assignment: ReplicaAssignment) -> None:
        self.zk_client.unregister_znode_change_handler(TopicPartitionStateZNode.path(tp))
        done = list(assignment.replicas)
        self.maybe_remove_from_zk_reassignment(lambda t, replicas: t == tp and list(replicas) == done)
        self.controller_context.partitions_being_reassigned.discard(tp)

    # Kafka: KafkaController.unregisterPartitionReassignmentIsrChangeHandlers
    def unregister_partition_reassignment_isr_change_handlers(self) -> None:
        for tp in self.controller_context.partitions_being_reassigned:
            self.zk_client.unregister_znode_change_handler(TopicPartitionStateZNode.path(tp))

    # Kafka: KafkaController.maybeResumeReassignments
    def maybe_resume_reassignments(self, should_resume) -> None:
        ctx = self.controller_context
        for tp in _sorted_tps(ctx.partitions_being_reassigned):
            assignment = ctx.partition_full_replica_assignment(tp)
            if should_resume(tp, assignment):
                self.on_partition_reassignment(tp, assignment)

    # Kafka: KafkaController.processPartitionReassignmentIsrChange -- an ISR change may finish a reassignment
    def process_partition_reassignment_isr_change(self, tp: TopicPartition) -> None:
        if not self.is_active() or tp not in self.controller_context.partitions_being_reassigned:
            return
        reassignment = self.controller_context.partition_full_replica_assignment(tp)
        if self.is_reassignment_complete(tp, reassignment):
            self.info(f"Target replicas {list(reassignment.target_replicas)} have all caught up with the leader for "
                      f"reassigning partition {tp}")
            self.on_partition_reassignment(tp, reassignment)

    # Kafka: KafkaController.processListPartitionReassignments
    def process_list_partition_reassignments(self, partitions, callback) -> None:
        if not self.is_active():
            callback(None, (Errors.NOT_CONTROLLER, None))
            return
        ctx = self.controller_context
        to_list = ctx.partitions_being_reassigned if partitions is None else partitions
        results = {}
        for tp in _sorted_tps(to_list):
            assignment = ctx.partition_full_replica_assignment(tp)
            if assignment.is_being_reassigned:
                results[tp] = assignment
        callback(results, None)

    # ------------------------------------------------------------ topics

    # Kafka: KafkaController.processTopicChange
    def process_topic_change(self) -> None:
        if not self.is_active():
            return
        ctx = self.controller_context
        topics = self.zk_client.get_all_topics_in_cluster(register_watch=True)
        new_topics = topics - ctx.all_topics
        deleted_topics = ctx.all_topics - topics
        ctx.all_topics = set(topics)
        self.register_partition_modifications_handlers(new_topics)
        added = self.zk_client.get_partition_assignment_for_topics(new_topics)
        for topic in deleted_topics:
            ctx.remove_topic(topic)
            self.unregister_partition_modifications_handlers([topic])
        new_partitions = set()
        for topic, assignment in added.items():
            for partition, replicas in assignment.items():
                tp = TopicPartition(topic, partition)
                ctx.update_partition_replica_assignment(tp, replicas)
                new_partitions.add(tp)
        ctx.topic_ids.update(self.zk_client.get_topic_ids_for_topics(new_topics))
        self.info(f"New topics: [{','.join(sorted(new_topics))}], deleted topics: [{','.join(sorted(deleted_topics))}], "
                  f"new partition "
                  f"replica assignment [{added}]")
        if new_partitions:
            self.on_new_partition_creation(new_partitions)

    # Kafka: KafkaController.onNewPartitionCreation
    def on_new_partition_creation(self, new_partitions: set[TopicPartition]) -> None:
        self.info(f"New partition creation callback for {','.join(str(tp) for tp in _sorted_tps(new_partitions))}")
        partitions = _sorted_tps(new_partitions)
        ctx = self.controller_context
        self.partition_state_machine.handle_state_changes(partitions, PartitionState.NewPartition)
        self.replica_state_machine.handle_state_changes(ctx.replicas_for_partition(partitions),
                                                        ReplicaState.NewReplica)
        self.partition_state_machine.handle_state_changes(partitions, PartitionState.OnlinePartition,
                                                          OfflinePartitionLeaderElectionStrategy(False))
        self.replica_state_machine.handle_state_changes(ctx.replicas_for_partition(partitions),
                                                        ReplicaState.OnlineReplica)

    # Kafka: KafkaController.registerPartitionModificationsHandlers -- watch each topic's assignment znode
    def register_partition_modifications_handlers(self, topics) -> None:
        for topic in topics:
            handler = PartitionModificationsHandler(self.event_manager, topic)
            self.partition_modifications_handlers[topic] = handler
            self.zk_client.register_znode_change_handler_and_check_existence(handler)

    # Kafka: KafkaController.unregisterPartitionModificationsHandlers
    def unregister_partition_modifications_handlers(self, topics) -> None:
        for topic in topics:
            handler = self.partition_modifications_handlers.pop(topic, None)
            if handler is not None:
                self.zk_client.unregister_znode_change_handler(handler.path)

    # Kafka: KafkaController.processPartitionModifications -- partitions added to an existing topic
    # (CreatePartitions) come to life like the partitions of a new topic.
    def process_partition_modifications(self, topic: str) -> None:
        if not self.is_active():
            return
        ctx = self.controller_context
        assignment = self.zk_client.get_partition_assignment_for_topic(topic)   # also re-arms the watch
        to_add = {TopicPartition(topic, p): replicas for p, replicas in assignment.items()
                  if not ctx.partition_replica_assignment(TopicPartition(topic, p))}
        if self.topic_deletion_manager.is_topic_queued_up_for_deletion(topic):
            if to_add:
                self.warn(f"Skipping adding partitions {','.join(map(str, _sorted_tps(to_add)))} for topic {topic} "
                          f"since it is currently being deleted")
            return
        if to_add:
            self.info(f"New partitions to be added {{{', '.join(f'{tp}: {r}' for tp, r in to_add.items())}}}")
            for tp, replicas in to_add.items():
                ctx.update_partition_replica_assignment(tp, replicas)
            self.on_new_partition_creation(set(to_add))

    # Kafka: KafkaController.processTopicDeletion
    def process_topic_deletion(self) -> None:
        if not self.is_active():
            return
        ctx = self.controller_context
        topics_to_be_deleted = set(self.zk_client.get_topic_deletions())
        self.debug(f"Delete topics listener fired for topics {','.join(sorted(topics_to_be_deleted))} to be deleted")
        non_existent = topics_to_be_deleted - ctx.all_topics
        if non_existent:
            self.warn(f"Ignoring request to delete non-existing topics {','.join(sorted(non_existent))}")
            self.zk_client.delete_topic_deletions(sorted(non_existent), ctx.epoch_zk_version)
        topics_to_be_deleted -= non_existent
        if self.config.get("delete.topic.enable"):
            if topics_to_be_deleted:
                self.info(f"Starting topic deletion for topics {','.join(sorted(topics_to_be_deleted))}")
                self.topic_deletion_manager.enqueue_topics_for_deletion(topics_to_be_deleted)
        else:
            self.info(f"Removing {sorted(topics_to_be_deleted)} since delete topic is disabled")
            self.zk_client.delete_topic_deletions(sorted(topics_to_be_deleted), ctx.epoch_zk_version)

    # Kafka: KafkaController.processIsrChangeNotification -- a leader changed an ISR in ZooKeeper
    def process_isr_change_notification(self) -> None:
        if not self.is_active():
            return
        sequence_numbers = self.zk_client.get_all_isr_change_notifications()
        try:
            partitions = self.zk_client.get_partitions_from_isr_change_notifications(sequence_numbers)
            if partitions:
                self.update_leader_and_isr_cache(partitions)
                live = sorted(self.controller_context.live_or_shutting_down_broker_ids)
                self.debug(f"Sending MetadataRequest to Brokers: {live} for TopicPartitions: {partitions}")
                self.send_update_metadata_request(live, partitions)
        finally:
            self.zk_client.delete_isr_change_notifications(sequence_numbers, self.controller_context.epoch_zk_version)

    # Kafka: KafkaController.processLogDirEventNotification -- brokers that lost a log dir
    def process_log_dir_event_notification(self) -> None:
        if not self.is_active():
            return
        sequence_numbers = self.zk_client.get_all_log_dir_event_notifications()
        try:
            self.on_broker_log_dir_failure(self.zk_client.get_broker_ids_from_log_dir_events(sequence_numbers))
        finally:
            self.zk_client.delete_log_dir_event_notifications(sequence_numbers,
                                                              self.controller_context.epoch_zk_version)

    # Kafka: KafkaController.onBrokerLogDirFailure -- a LeaderAndIsr for every replica on those brokers: the
    # answers (KAFKA_STORAGE_ERROR for a replica in a failed dir) say which replicas went offline
    def on_broker_log_dir_failure(self, broker_ids: list[int]) -> None:
        self.info(f"Handling log directory failure for brokers {','.join(map(str, broker_ids))}")
        replicas = self.controller_context.replicas_on_brokers(set(broker_ids))
        self.replica_state_machine.handle_state_changes(_sorted_replicas(replicas), ReplicaState.OnlineReplica)

    # Kafka: KafkaController.sendUpdateMetadataRequest
    def send_update_metadata_request(self, brokers, partitions) -> None:
        try:
            self.broker_request_batch.new_batch()
            self.broker_request_batch.add_update_metadata_request_for_brokers(brokers, partitions)
            self.broker_request_batch.send_requests_to_brokers(self.epoch)
        except RuntimeError as e:   # IllegalStateException: a half-built batch
            self.error(f"Forcing the controller to resign: {e}")
            self.broker_request_batch.clear()
            self.trigger_controller_move()

    # ------------------------------------------------------------ responses from brokers

    # Kafka: KafkaController.processLeaderAndIsrResponseReceived
    def process_leader_and_isr_response_received(self, response, broker_id: int) -> None:
        if not self.is_active():
            return
        if response.error_code != Errors.NONE.code:
            self.error(f"Received error {Errors.for_code(response.error_code).name} in LeaderAndIsr response "
                       f"{response} from broker {broker_id}")
            return
        offline = {TopicPartition(e.topic_name, e.partition_index) for e in response.partition_errors
                   if e.error_code == Errors.KAFKA_STORAGE_ERROR.code}
        online = {TopicPartition(e.topic_name, e.partition_index) for e in response.partition_errors
                  if e.error_code == Errors.NONE.code}
        ctx = self.controller_context
        previous = ctx.replicas_on_offline_dirs.get(broker_id, set())
        current = (previous - online) | offline
        ctx.replicas_on_offline_dirs[broker_id] = current
        new_offline = current - previous
        if new_offline:
            self.state_change_logger.info(f"Mark replicas {','.join(map(str, sorted(new_offline)))} "
                                          f"on broker {broker_id} as offline")
            self.on_replicas_become_offline({PartitionAndReplica(tp, broker_id) for tp in new_offline})

    # Kafka 3.x: KafkaController.processUpdateMetadataResponseReceived
    def process_update_metadata_response_received(self, response, broker_id: int) -> None:
        if not self.is_active():
            return
        if response.error_code == Errors.STALE_BROKER_EPOCH.code:
            self.info(f"Received error {Errors.STALE_BROKER_EPOCH.name} in UpdateMetadata response from broker "
                      f"{broker_id}")
        elif response.error_code != Errors.NONE.code:
            self.error(f"Received error {Errors.for_code(response.error_code).name} in UpdateMetadata response "
                       f"from broker {broker_id}")

    # Kafka: KafkaController.processTopicDeletionStopReplicaResponseReceived
    def process_topic_deletion_stop_replica_response_received(self, replica_id: int, response) -> None:
        if not self.is_active():
            return
        self.debug(f"Delete topic callback invoked on StopReplica response received from broker {replica_id}: "
                   f"{response}")
        failed, succeeded = set(), set()
        errors = {(e.topic_name, e.partition_index): e.error_code for e in response.partition_errors}
        ctx = self.controller_context
        for (topic, partition), code in errors.items():
            if not ctx.is_topic_queued_up_for_deletion(topic):
                continue
            replica = PartitionAndReplica(TopicPartition(topic, partition), replica_id)
            if response.error_code != Errors.NONE.code or code != Errors.NONE.code:
                failed.add(replica)
            else:
                succeeded.add(replica)
        if failed:
            self.topic_deletion_manager.fail_replica_deletion(failed)
        if succeeded:
            self.topic_deletion_manager.complete_replica_deletion(succeeded)

    # Kafka: KafkaController.processRegisterBrokerAndReelect
    def process_register_broker_and_reelect(self) -> None:
        if self.broker_info is not None:
            self._broker_epoch = self.zk_client.register_broker(self.broker_info)
        self.process_reelect()

    # Kafka: KafkaController.processReelect
    def process_reelect(self) -> None:
        self.maybe_resign()
        self.elect()

    # Kafka: KafkaController.processExpire
    def process_expire(self) -> None:
        self.active_controller_id = -1
        self.on_controller_resignation()


def _ids(ids) -> str:
    return ",".join(map(str, sorted(ids)))


def _sorted_tps(tps) -> list[TopicPartition]:
    return sorted(tps, key=lambda t: (t.topic, t.partition))


def _sorted_replicas(replicas) -> list[PartitionAndReplica]:
    return sorted(replicas, key=lambda r: (r.topic, r.topic_partition.partition, r.replica))
