"""Builds the quench Python package for pip (pyproject.toml, docs/python.md).

    pip install --no-build-isolation ./python

runs the project's CMake (configuring <source>/build when it holds no build yet, or the
directory named by QUENCH_BUILD_DIR), installs it into a staging prefix, and packages:

    quench/__init__.py, estimators.py, kernels.py,
    _quench.<ext>                                       the module (RUNPATH $ORIGIN/_lib)
    quench/_lib/libquench*.so.<major>                   the core, registry and pipeline libraries
    quench/_lib/quench/plugins/*.so                     the plugins (RUNPATH $ORIGIN/../..)

The registry finds the plugins next to its own library, as in any installation, so the
installed package needs nothing outside itself but Debian's shared libraries."""
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

SOURCE = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("QUENCH_BUILD_DIR", SOURCE / "build")).resolve()
(BUILD / "python-wheel").mkdir(parents=True, exist_ok=True)  # setuptools' own files go here


def project_version():
    match = re.search(r"project\(quench VERSION ([0-9.]+)", (SOURCE / "CMakeLists.txt").read_text())
    return match.group(1)


def cache_value(name):
    """A variable of BUILD's CMakeCache.txt."""
    for line in (BUILD / "CMakeCache.txt").read_text().splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    raise RuntimeError(f"{BUILD}/CMakeCache.txt has no {name}")


def cmake(*args):
    subprocess.run(["cmake", *map(str, args)], check=True)


class BinaryDistribution(Distribution):
    """A platform wheel: the package holds compiled libraries."""

    def has_ext_modules(self):
        return True


class BuildWithCMake(build_py):
    def run(self):
        if not (BUILD / "CMakeCache.txt").exists():
            cmake("-S", SOURCE, "-B", BUILD, "-DCMAKE_BUILD_TYPE=Release",
                  "-DQUENCH_BUILD_TESTS=OFF", "-DQUENCH_WITH_PYTHON=ON",
                  f"-DPython_EXECUTABLE={sys.executable}")
        if cache_value("QUENCH_WITH_PYTHON") not in ("ON", "TRUE", "1"):
            raise RuntimeError(f"the build in {BUILD} has QUENCH_WITH_PYTHON off "
                               "(install pybind11-dev python3-pybind11 python3-dev)")
        cmake("--build", BUILD, "--parallel", os.cpu_count() or 1)
        staging = BUILD / "python-wheel" / "staging"
        shutil.rmtree(staging, ignore_errors=True)
        cmake("--install", BUILD, "--prefix", staging)

        libdir = staging / cache_value("CMAKE_INSTALL_LIBDIR")
        package = Path(self.build_lib) / "quench"
        shutil.rmtree(package, ignore_errors=True)
        shutil.copytree(staging / cache_value("QUENCH_PYTHON_INSTALL_DIR") / "quench", package)
        module = package / ("_quench" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not module.exists():
            raise RuntimeError(f"the build in {BUILD} made no {module.name} for this Python "
                               f"({sys.executable}); build in a new directory: "
                               "QUENCH_BUILD_DIR=<new directory> pip install ...")
        # The libraries under the names the module and plugins need (their sonames), as
        # files: a wheel holds no symbolic links.
        (package / "_lib" / "quench").mkdir(parents=True)
        for library in libdir.glob("libquench*.so.*"):
            if re.fullmatch(r"libquench\w*\.so\.\d+", library.name):
                shutil.copy2(library.resolve(), package / "_lib" / library.name)
        shutil.copytree(libdir / "quench" / "plugins", package / "_lib" / "quench" / "plugins")


setup(
    version=project_version(),
    packages=["quench"],  # built by BuildWithCMake, not copied from here
    distclass=BinaryDistribution,
    cmdclass={"build_py": BuildWithCMake},
    options={"build": {"build_base": str(BUILD / "python-wheel")},
             "egg_info": {"egg_base": str(BUILD / "python-wheel")}},
)
