"""Mirrors Kafka 2.4: core/src/main/scala/kafka/Kafka.scala (the ``Exit.exit`` that ends ``main``).

``python -m kafkalite`` ends with the process's exit once ``main`` has returned, not with Python's interpreter
teardown (which at 10,000 partitions spends seconds freeing objects and unmapping indexes one by one), and what
was logged or printed is flushed before it does.
"""
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# A teardown-time marker: an atexit hook runs in the interpreter's teardown, never after os._exit.
_RUN_MAIN = ("import atexit, runpy, sys; atexit.register(lambda: print('TEARDOWN', flush=True)); "
             "sys.argv = ['kafkalite'] + sys.argv[1:]; runpy.run_module('kafkalite', run_name='__main__')")


def _env():
    env = {**os.environ, "PYTHONPATH": REPO}
    env.pop("PYTHONUNBUFFERED", None)   # buffered streams, as a broker's stdout into a file or a pipe is
    return env


def _run(*args):
    return subprocess.run([sys.executable, "-c", _RUN_MAIN, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=60, env=_env())


def test_main_ends_with_the_process_exit_not_the_interpreter_teardown(tmp_path):
    props = tmp_path / "bad.properties"
    props.write_text("broker.id=-7\nlog.dirs=%s\n" % (tmp_path / "logs"))
    done = _run(str(props), "--override", "num.io.threads=0")
    assert done.returncode == 1
    assert "TEARDOWN" not in done.stdout
    # the one line naming the bad value was flushed before the exit
    assert "num.io.threads" in done.stderr


def test_exit_process_flushes_what_was_logged(tmp_path):
    code = ("import logging, sys; from kafkalite.kafka import exit_process; "
            "h = logging.FileHandler(sys.argv[1], delay=False); logging.getLogger('x').addHandler(h); "
            "logging.getLogger('x').error('last words'); sys.stdout.write('partial line'); exit_process(3)")
    log = tmp_path / "out.log"
    done = subprocess.run([sys.executable, "-c", code, str(log)], cwd=REPO, capture_output=True, text=True,
                          timeout=60, env=_env())
    assert done.returncode == 3
    assert done.stdout == "partial line"
    assert "last words" in log.read_text()
