"""No Kafka counterpart: ``python -m kafkalite server.properties`` runs kafkalite.kafka.main."""
import sys

from kafkalite.kafka import main

sys.exit(main())
