#!/usr/bin/env python3
"""How long quench takes to stop after Ctrl-C (SIGINT), in each long phase, from the CLI and from
Python (issue 36's target: within 1 s). Each case starts a long run, sends SIGINT after
`--delay` seconds (inside the phase named) and measures the time until the process has exited;
the table gives that latency, the exit code (130: the CLI's for SIGINT; -2: Python ended by
the KeyboardInterrupt it raised, not caught) and whether the CLI wrote anything.

  QUENCH_CLI=build/bin/quench PYTHONPATH=build/python \\
      python3 benchmarks/interrupt_latency.py [--delay 4] [--repeat 3]
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("QUENCH_CLI", os.path.join(SOURCE, "build", "bin", "quench"))
PIPELINES = os.path.join(SOURCE, "examples", "pipelines")
GLASS = os.path.join(SOURCE, "examples", "data", "glass_split.csv")
MC = os.path.join(PIPELINES, "boston_mc_bootstrap_50000.yaml")

PYTHON_RUN = f"import quench\nquench.run({MC!r}, threads=1)\n"
PYTHON_FIT = f"""
import numpy as np, quench
table = np.genfromtxt('{GLASS}', delimiter=',', names=True)
names = [n for n in table.dtype.names if n not in ('y', 'train')]
X = np.column_stack([table[n] for n in names])
quench.GaussianProcessClassifier().fit(X, table['y'].astype(int).astype(str))
"""


def cases(directory):
    cli = lambda pipeline, name: [CLI, "run", pipeline, "--out", os.path.join(directory, name),
                                  "--no-progress"]
    return [
        ("CLI learn: (multi-class EP, glass)",
         cli(os.path.join(PIPELINES, "glass_multiclass.yaml"), "glass")),
        ("CLI Monte-Carlo draws (mc_bootstrap)", cli(MC, "mc")),
        ("Python quench.run (draws)", [sys.executable, "-c", PYTHON_RUN]),
        ("Python estimator fit (learning)", [sys.executable, "-c", PYTHON_FIT]),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=4.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'phase':40s} {'latency [s] per try':30s} exit  written")
    for label, command in cases(tempfile.mkdtemp()):
        latencies, codes, written = [], set(), False
        for _ in range(args.repeat):
            out = command[command.index("--out") + 1] if "--out" in command else None
            child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(args.delay)
            if child.poll() is not None:
                latencies.append(float("nan"))  # finished before the signal: no measurement
                continue
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            try:
                child.wait(timeout=60)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
            latencies.append(time.monotonic() - sent)
            codes.add(child.returncode)
            written = written or (out is not None and os.path.exists(out))
        text = " ".join(f"{x:.3f}" for x in latencies)
        print(f"{label:40s} {text:30s} {','.join(map(str, sorted(codes))):5s} {'yes' if written else 'no'}")


if __name__ == "__main__":
    main()
