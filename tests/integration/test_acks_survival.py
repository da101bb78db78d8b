"""No Kafka counterpart (the seed's figures, not a Kafka test): S39, seed 002's figures 6-43, 6-44 and 6-45 on
three broker processes over a real ZooKeeper, through ``bench/acks_survival.py`` (which prints the same
scenarios for a reader). Each test builds the moment its figure shows with SIGSTOP and ``kill -9`` of the
leader, and asserts the seed's claim:

- acks=0: the producer counts records as sent with no answer from the broker; records the leader had and
  nobody copied, and records still in its socket, are gone after the failover -- no guarantee at all;
- acks=1: a record the leader acknowledged before its followers fetched it is lost when the leader dies (the
  new leader never had it; the old leader truncates it away when it rejoins), while the record the followers
  had survives;
- acks=all: every acknowledged record survives; the record waiting in the produce purgatory for followers
  that did not fetch was never acknowledged.

Should acks=1 wait for the followers, the acks=1 test times out waiting for m2's acknowledgement; should
acks=all answer before the ISR has the records, m3 would be acknowledged and lost.
"""
import pytest

from cluster_harness import zookeeper_available

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(120)]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    from bench.acks_survival import start_cluster
    c = start_cluster(tmp_path_factory.mktemp("acks-survival"))
    yield c
    c.stop()


def run(cluster, acks):
    from bench.acks_survival import describe, run_scenario
    result = run_scenario(cluster, acks, f"acks-{acks}")
    print("\n".join(describe(result)))
    assert result["new_leader"] != result["leader"]
    return result


def test_acks_0_gives_no_guarantee(cluster):
    r = run(cluster, "0")
    assert r["acknowledged"] == ["m1", "m2"] and r["not_acknowledged"] == {}
    assert all(o is None or o < 0 for o in r["offsets"].values()), "acks=0 gets no offsets back"
    assert r["old_leader_log_at_kill"] == ["m1"]          # m1 reached the leader only, m2 its socket only
    assert r["survived"] == [] and r["lost"] == ["m1", "m2"]
    assert r["old_leader_log_after_rejoin"] == []


def test_acks_1_loses_what_the_leader_acknowledged_before_the_followers_fetched_it(cluster):
    r = run(cluster, "1")
    assert r["acknowledged"] == ["m1", "m2"] and r["offsets"] == {"m1": 0, "m2": 1}
    assert list(r["not_acknowledged"]) == ["m3"]
    assert r["old_leader_log_at_kill"] == ["m1", "m2"]
    assert r["survived"] == ["m1"] and r["lost"] == ["m2"]
    assert r["old_leader_log_after_rejoin"] == ["m1"]     # truncated to the new leader's log


def test_acks_all_loses_nothing_acknowledged(cluster):
    r = run(cluster, "all")
    assert r["acknowledged"] == ["m1", "m2"] and list(r["not_acknowledged"]) == ["m3"]
    assert r["old_leader_log_at_kill"] == ["m1", "m2", "m3"]   # m3 waited in the purgatory, unanswered
    assert r["lost"] == [] and r["survived"] == ["m1", "m2"]
    assert r["old_leader_log_after_rejoin"] == ["m1", "m2"]
