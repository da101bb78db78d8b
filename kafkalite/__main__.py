"""No Kafka counterpart: ``python -m kafkalite server.properties`` runs kafkalite.kafka.main.

It ends as ``Kafka.main`` does, with the process's exit (``exit_process``) rather than the interpreter's teardown.
"""
from kafkalite.kafka import exit_process, main

exit_process(main())
