"""Kafka: GroupCoordinatorTest's testDeleteOffset* cases (KIP-496, GroupCoordinator.handleDeleteOffsets) -- an Empty
group loses any offsets; a consumer group with members keeps the offsets of topics its members subscribe
(GROUP_SUBSCRIBED_TO_TOPIC per partition) and loses the others; a group of another protocol type with members is
NON_EMPTY_GROUP; an unknown group is GROUP_ID_NOT_FOUND; each deleted offset becomes a tombstone in
__consumer_offsets, so a reload does not bring it back."""
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.group.group_metadata import Dead
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.consumer_protocol import ConsumerProtocolSubscription, serialize_subscription

from test_group_coordinator import GROUP, INITIAL_DELAY, Harness, om

FOO, BAR = TopicPartition("foo", 0), TopicPartition("bar", 0)


def subscribed_to(*topics):
    return [("range", serialize_subscription(ConsumerProtocolSubscription(topics=list(topics), user_data=None)))]


def stable_member(h, protocols, protocol_type="consumer"):
    joined = h.join(protocols=protocols, protocol_type=protocol_type)
    h.advance(INITIAL_DELAY + 1)
    r = joined[0]
    assert h.sync(r.member_id, r.generation_id, {r.member_id: b""})[0].error is Errors.NONE
    return r.member_id, r.generation_id


def test_empty_group_loses_the_offsets_asked_and_a_reload_keeps_them_gone():
    h = Harness()
    assert h.commit("", -1, {FOO: om(7), BAR: om(9)}) == {FOO: Errors.NONE, BAR: Errors.NONE}
    error, partitions = h.coordinator.handle_delete_offsets(GROUP, [FOO])
    assert (error, partitions) == (Errors.NONE, {FOO: Errors.NONE})
    assert {tp: d.offset for tp, d in h.coordinator.handle_fetch_offsets(GROUP, [FOO, BAR])[1].items()} == {
        FOO: -1, BAR: 9}
    # the tombstone is in the log: a coordinator that loads the partition again sees BAR only
    h.coordinator.on_resignation(0, 0)
    assert h.group() is None
    h.coordinator.on_election(0, 1)
    assert set(h.group().all_offsets()) == {BAR}
    assert h.coordinator.handle_fetch_offsets(GROUP, [FOO])[1][FOO].offset == -1


def test_consumer_group_keeps_offsets_of_subscribed_topics():
    h = Harness()
    h.commit("", -1, {FOO: om(7), BAR: om(9)})
    member, generation = stable_member(h, subscribed_to("foo"))
    error, partitions = h.coordinator.handle_delete_offsets(GROUP, [FOO, BAR])
    assert error is Errors.NONE and partitions == {FOO: Errors.GROUP_SUBSCRIBED_TO_TOPIC, BAR: Errors.NONE}
    offsets = h.coordinator.handle_fetch_offsets(GROUP, [FOO, BAR])[1]
    assert (offsets[FOO].offset, offsets[BAR].offset) == (7, -1)


def test_consumer_group_whose_subscriptions_are_unknown_keeps_every_offset():
    h = Harness()
    h.commit("", -1, {FOO: om(7)})
    stable_member(h, [("range", b"not a subscription")])
    assert h.coordinator.handle_delete_offsets(GROUP, [FOO]) == (Errors.NONE, {FOO: Errors.GROUP_SUBSCRIBED_TO_TOPIC})


def test_non_consumer_group_with_members_is_non_empty_group():
    h = Harness()
    h.commit("", -1, {FOO: om(7)})
    stable_member(h, [("roundrobin", b"")], protocol_type="connect")
    assert h.coordinator.handle_delete_offsets(GROUP, [FOO]) == (Errors.NON_EMPTY_GROUP, {})


def test_unknown_group_is_group_id_not_found_and_a_group_left_without_offsets_dies():
    h = Harness()
    assert h.coordinator.handle_delete_offsets("unknown", [FOO]) == (Errors.GROUP_ID_NOT_FOUND, {})
    h.commit("", -1, {FOO: om(7)}, group_id="simple")
    assert h.coordinator.handle_delete_offsets("simple", [FOO]) == (Errors.NONE, {FOO: Errors.NONE})
    assert h.group("simple") is None or h.group("simple").is_(Dead)
    assert h.coordinator.handle_delete_offsets("simple", [FOO]) == (Errors.GROUP_ID_NOT_FOUND, {})
