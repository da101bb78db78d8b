"""Mirrors Kafka 2.4: core/src/main/scala/kafka/zookeeper/ (package)

Holds ``ZooKeeperClient`` (zoo_keeper_client.py) and its two backends: the in-process ``LocalZooKeeper``
(local_zoo_keeper.py, the zero-setup default) and ``KazooBackend`` (kazoo_backend.py, a real ZooKeeper ensemble).
"""
