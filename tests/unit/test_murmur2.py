"""UtilsTest (murmur2 part): kafkalite's murmur2 must equal Kafka's Utils.murmur2 bit for bit, or keyed records
would land on other partitions than Java clients and librdkafka's murmur2_random put them."""
import pytest

from kafkalite.clients.producer.internals.built_in_partitioner import BuiltInPartitioner, murmur2, to_positive

# Kafka: UtilsTest.testMurmur2
CASES = {
    b"21": -973932308,
    b"foobar": -790332482,
    b"a-little-bit-long-string": -985981536,
    b"a-little-bit-longer-string": -1486304829,
    b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
    b"abc": 479470107,
}


@pytest.mark.parametrize("data,expected", CASES.items(), ids=[k.decode() for k in CASES])
def test_murmur2(data, expected):
    assert murmur2(data) == expected


def test_murmur2_covers_every_tail_length():
    # lengths 0..3 mod 4 take different branches; all results are signed 32-bit ints
    for n in range(9):
        h = murmur2(b"x" * n)
        assert -2 ** 31 <= h < 2 ** 31
    assert len({murmur2(b"x" * n) for n in range(9)}) == 9


def test_to_positive_clears_the_sign_bit():
    # Kafka: UtilsTest.testAbs / toPositive -- not abs(): MIN_VALUE maps to 0
    assert to_positive(-2 ** 31) == 0
    assert to_positive(-1) == 2 ** 31 - 1
    assert to_positive(5) == 5


def test_partition_for_key():
    # to_positive(-790332482) = 1357151166; 1357151166 % 50 = 16
    assert BuiltInPartitioner.partition_for_key(b"foobar", 50) == 16
    assert BuiltInPartitioner.partition_for_key(b"abc", 3) == 479470107 % 3
