"""No Kafka counterpart: kafkalite's benchmark harness (issue 7), run as ``python -m bench``.

Kafka measures itself with JVM tools (kafka-producer-perf-test.sh, kafka-consumer-perf-test.sh,
EndToEndLatency); kafkalite measures itself against a peer broker (Tansu) and this machine's own
limits in one interleaved run. Modules:

- ``brokers``   start/stop kafkalite and Tansu by PID; /proc CPU and RSS; raw wire probes
- ``workers``   load generators, each run as its own process (``python -m bench.workers``)
- ``machine``   the machine-limit loops: socket -> file, sendfile -> socket
- ``profiling`` py-spy on the produce and fetch paths
- ``report``    the Markdown table and the PNG plot
- ``transactions`` idempotent vs transactional produce (commit every 100 / 1,000 records); its three producers
  are also ``python -m bench``'s "transactions" scenarios, and ``python -m bench.transactions`` prints their ratio
- ``__main__``  the one command: install, start, run interleaved, stop, report

Other engineers' one-off studies live beside it (``spark_source_throughput``, ``control_plane_latency``);
``python -m bench`` does not run them.

Figures live here, never in timed tests (DESIGN section 5).
"""
