"""No Kafka counterpart: fixtures for the Spark tests of the ``kafkalite`` data source.

- ``spark`` (session): ONE SparkSession for every Spark test (``local[2]``, UI off, two shuffle partitions,
  bound to 127.0.0.1, fast-start JVM flags), with the ``kafkalite`` format registered. A new JVM costs
  5-10 s, so no test builds its own.
- ``spark_broker`` (session): one in-process kafkalite broker whose auto-created topics have 3 partitions;
  each test uses topics of its own (``topic_name``).

Without pyspark/pyarrow or Java the tests are skipped with the reason, unless ``CI`` is set: then they fail,
so CI cannot silently lose them. Test modules import pyspark only inside tests, so collection never needs it.
"""
import os
import shutil
import sys
import uuid

import pytest

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")


def _missing_requirement() -> str | None:
    try:
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError as e:
        return f"pyspark and pyarrow are needed (pip install 'kafkalite[spark]'): {e}"
    java_home = os.environ.get("JAVA_HOME")
    if not shutil.which("java") and not (java_home and os.path.exists(os.path.join(java_home, "bin", "java"))):
        return "Java 17+ is needed for Spark (Debian: apt-get install openjdk-17-jre-headless)"
    return None


def require_spark() -> None:
    missing = _missing_requirement()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but the Spark tests cannot run: {missing}", pytrace=False)
        pytest.skip(missing)


@pytest.fixture(scope="session")
def spark_requirements():
    """Skip (or, under CI, fail) when pyspark, pyarrow or Java is missing; for tests that start their own Spark."""
    require_spark()


@pytest.fixture(scope="session")
def spark():
    require_spark()
    from pyspark.sql import SparkSession
    from kafkalite.spark import register
    session = (SparkSession.builder.master("local[2]").appName("kafkalite-spark-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "2")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
               .config("spark.sql.streaming.forceDeleteTempCheckpointLocation", "true")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    register(session)
    yield session
    session.stop()


@pytest.fixture(scope="module")
def spark_broker():
    from kafkalite.testing.embedded_kafka import EmbeddedKafka
    with EmbeddedKafka(num_partitions=3) as broker:
        yield broker


@pytest.fixture
def topic_name():
    return f"spark-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def produce(spark_broker):
    """``produce(topic, records)``: send dicts of ProducerRecord fields with kafkalite's producer; returns their
    RecordMetadata in order."""
    from kafkalite.clients.producer.kafka_producer import KafkaProducer
    producer = KafkaProducer({"bootstrap.servers": spark_broker.bootstrap_servers})

    def send_all(topic, records):
        futures = [producer.send(topic, **r) for r in records]
        producer.flush()
        return [f.get(30) for f in futures]

    yield send_all
    producer.close()


@pytest.fixture
def run_available_now():
    """``run_available_now(data_stream_writer)``: start a ``trigger(availableNow=True)`` query and wait
    (bounded) for it to finish; returns the query."""
    def run(writer, timeout_s: float = 180):
        query = writer.trigger(availableNow=True).start()
        assert query.awaitTermination(timeout_s), f"query still running after {timeout_s} s"
        return query
    return run
