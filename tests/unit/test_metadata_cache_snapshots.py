"""MetadataCache.updateMetadata (Kafka 2.4: server/MetadataCache.scala): each UpdateMetadata builds a new
snapshot and leaves the old one as it was; issue 18: topics the request does not touch are shared with the
old snapshot rather than copied, so a request costs its own partitions."""
from kafkalite.protocol.messages.update_metadata import UpdateMetadataPartitionState, UpdateMetadataRequest
from kafkalite.server.metadata_cache import MetadataCache


def _state(topic, p, leader=0, epoch=0):
    return UpdateMetadataPartitionState(topic_name=topic, partition_index=p, controller_epoch=1, leader=leader,
                                        leader_epoch=epoch, isr=[0], zk_version=0, replicas=[0])


def _request(*states):
    return UpdateMetadataRequest(controller_id=0, controller_epoch=1, ungrouped_partition_states=list(states),
                                 live_brokers=[])


def test_new_snapshot_leaves_the_old_one_and_shares_untouched_topics():
    cache = MetadataCache(0)
    cache.update_metadata(1, _request(_state("a", 0), _state("a", 1), _state("b", 0)))
    first = cache.metadata_snapshot
    cache.update_metadata(2, _request(_state("a", 1, epoch=5), _state("c", 0)))
    second = cache.metadata_snapshot
    assert first.partition_states["a"][1].leader_epoch == 0          # the old snapshot did not change
    assert "c" not in first.partition_states
    assert second.partition_states["a"][1].leader_epoch == 5
    assert sorted(second.partition_states["a"]) == [0, 1]
    assert second.partition_states["b"] is first.partition_states["b"]   # untouched: shared, not copied
    assert second.partition_states["a"] is not first.partition_states["a"]
    cache.update_metadata(3, _request(_state("b", 0, leader=-2)))    # LeaderDuringDelete: b goes
    assert "b" not in cache.metadata_snapshot.partition_states and "b" in second.partition_states
    assert cache.metadata_snapshot.partition_states["a"] is second.partition_states["a"]
