"""No Kafka counterpart: kafkalite's PySpark data source (the optional ``spark`` extra: pyspark, pyarrow).

Importing this package registers nothing and imports no pyspark. Register the source on a session, then use
it as Spark's own Kafka source, with the format name ``kafkalite``::

    from kafkalite.spark import register
    register(spark)
    spark.read.format("kafkalite").option("kafka.bootstrap.servers", "127.0.0.1:9092") \\
        .option("subscribe", "events").load()

Modules: ``data_source`` (the DataSource, its readers and writers), ``kafka_offset_reader`` (the blocking
Metadata/ListOffsets/Fetch client the readers use), ``pipeline`` (the README's streaming example).
"""


def register(spark) -> None:
    """Register the ``kafkalite`` format on ``spark`` (a SparkSession)."""
    from kafkalite.spark.data_source import KafkaLiteDataSource
    spark.dataSource.register(KafkaLiteDataSource)
