"""pip install --no-build-isolation ./python into a fresh virtual environment (with the
system's NumPy), then, from another directory, the installed package: it loads from the
environment, finds its plugins inside itself, and fits and predicts exactly as the build tree's
module does. Usage: pip_install_check.py <build dir> <source dir>; run by CTest
(python.pip_install, label install)."""
import json
import os
import subprocess
import sys
import tempfile

build, source = sys.argv[1:3]

CHECK = """
import json, sys
import numpy as np
import quench
rng = np.random.default_rng(3)
X = rng.normal(size=(60, 3))
y = np.where(X[:, 0] + 0.5 * rng.normal(size=60) > 0, 1, 0)
c = quench.GaussianProcessClassifier().fit(X, y)
print(json.dumps({"file": quench.__file__,
                  "libraries": sorted({p["library"] for p in quench.plugins()}),
                  "width": c.width_, "proba": c.predict_proba(X[:7])[:, 1].tolist()}))
"""


def run_check(python, env):
    with tempfile.TemporaryDirectory() as cwd:
        done = subprocess.run([python, "-c", CHECK], cwd=cwd, env=env, capture_output=True,
                              text=True)
    if done.returncode != 0:
        sys.exit(f"{python}: the check failed:\n{done.stderr}")
    return json.loads(done.stdout)


with tempfile.TemporaryDirectory(prefix="quench-pip-") as root:
    venv = os.path.join(root, "venv")
    # Debian's python3 (with python3-numpy) makes the environment; its pip installs offline.
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
    python = os.path.join(venv, "bin", "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "QUENCH_PLUGIN_PATH")}
    subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                    "--quiet", os.path.join(source, "python")],
                   env={**env, "QUENCH_BUILD_DIR": build}, check=True)
    installed = run_check(python, env)
    in_tree = run_check(sys.executable, {**env, "PYTHONPATH": os.path.join(build, "python")})

package = os.path.dirname(installed["file"])
assert installed["file"].startswith(venv), installed["file"]
assert installed["libraries"], "no plugins found"
for library in installed["libraries"]:
    assert library.startswith(os.path.join(package, "_lib", "quench", "plugins")), library
assert len(installed["libraries"]) == len(in_tree["libraries"]), (installed, in_tree)
assert installed["width"] == in_tree["width"], (installed["width"], in_tree["width"])
assert installed["proba"] == in_tree["proba"], (installed["proba"], in_tree["proba"])
print(f"pip install: {len(installed['libraries'])} plugin libraries in {package}; "
      f"the fit equals the build tree's (width {installed['width']!r})")
