"""Ctrl-C during a long call from Python: the run stops and KeyboardInterrupt is raised within
a second or two, not after the fit returns (issue 36). The call runs in a child interpreter
that receives SIGINT while its engine works."""
import os
import signal
import subprocess
import sys
import time

SOURCE = os.environ["QUENCH_SOURCE"]
PIPELINES = os.path.join(SOURCE, "examples", "pipelines")

# 50 000 Monte-Carlo refits of a GP on 506 rows: minutes of work, interruptible between draws.
CHILD = f"""
import sys, time, quench
print("started", flush=True)
start = time.monotonic()
try:
    quench.run({os.path.join(PIPELINES, "boston_mc_bootstrap_50000.yaml")!r}, threads=1)
except KeyboardInterrupt:
    print(f"interrupted after {{time.monotonic() - start:.2f}} s", flush=True)
    # The next call is not stopped by the request that ended this one.
    (again,) = quench.run({os.path.join(PIPELINES, "boston_clean_gaussian.yaml")!r})
    print("again", again["status"]["code"], flush=True)
    sys.exit(7)
print("finished", flush=True)
"""


def test_sigint_during_a_run_raises_keyboard_interrupt_at_once():
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=os.environ)
    assert child.stdout.readline().strip() == "started"
    time.sleep(2.0)  # well inside the run (parsing and the first draws take < 1 s)
    assert child.poll() is None, child.stderr.read()
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    try:
        out, err = child.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        child.kill()
        raise AssertionError("the run went on after SIGINT")
    stopped = time.monotonic() - sent
    assert child.returncode == 7, (out, err)
    assert "interrupted after" in out and "again ok" in out, (out, err)
    # Each draw takes milliseconds; the generous bound is for a loaded machine (the 1 s target
    # is measured by benchmarks/interrupt_latency.py).
    assert stopped < 5.0, stopped
