"""No Kafka counterpart: makes ``tests/support.py`` (the shared test helpers) importable from every test
directory, as ``support``."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
