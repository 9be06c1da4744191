#!/usr/bin/env bash
# Installs the Debian packages quench needs, only those missing (idempotent).
set -euo pipefail
packages=(
  cmake g++ make
  libboost-dev libboost-filesystem-dev   # Boost.DLL
  libeigen3-dev libopenblas-dev liblapacke-dev
  libyaml-cpp-dev libceres-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev
  gnuplot-nox                            # plots
  libcsv-dev                             # CSV parsing (RFC 4180)
  libssl-dev                             # SHA-256 of data files (libcrypto) in results.json
  libhdf5-dev libxxhash-dev              # model files: HDF5, XXH3-128 checksum
  python3-h5py                           # tests read model files independently of quench
  clang-14 libfuzzer-14-dev              # sanitizer and fuzzing stage (scripts/test_sanitized.sh)
  ccache                                 # faster rebuilds (scripts/build.sh uses it when present)
  libopenmpi-dev openmpi-bin libboost-mpi-dev  # the MPI driver (docs/distributed.md)
  python3-dev pybind11-dev python3-pybind11    # the Python module (docs/python.md)
  python3-numpy python3-pytest python3-sklearn python3-matplotlib  # its tests and example
  python3-pandas                         # scikit-learn's checks of DataFrame input
  python3-statsmodels                    # count GLM baseline (benchmarks/count_glm_baseline.py)
  python3-pip python3-venv python3-setuptools python3-wheel        # pip install ./python
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install_deps: installing ${#missing[@]} missing packages with apt-get (a few minutes" \
  "on a fresh machine): ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "install_deps: apt-get update"
"${sudo_cmd[@]}" apt-get update -qq
echo "install_deps: apt-get install (downloads and unpacks quietly)"
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install_deps: installed ${#missing[@]} packages"
