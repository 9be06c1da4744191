// What a report was computed from: the plugins with every parameter (defaults included), the
// data files with their SHA-256 and the rows and columns used, seed, threads, command line
// and times. Written to results.json under "provenance" (docs/results.md), together with the
// build (quench version, git revision, compiler, BLAS).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "quench/export.h"
#include "quench/parameters.h"

namespace quench {

/// One plugin used by a run.
struct PluginRecord {
  std::string role;  ///< "kernel", ..., an engine's name, or "<role>.<param>" for a plugin
                     ///< named by a parameter (built with its defaults)
  std::string family, plugin, plugin_version;
  std::string library, library_version, library_path;
  std::map<std::string, ParamValue> parameters;          ///< every parameter set or defaulted
  std::map<std::string, std::vector<ParamValue>> swept;  ///< swept parameters and their values
};

struct DataFileRecord {
  std::string path;
  std::string sha256;  ///< hex digest of the file's bytes
};

struct Provenance {
  std::vector<PluginRecord> plugins;
  std::vector<DataFileRecord> data_files;  ///< training file, then the test file if any
  std::int64_t train_rows = 0, test_rows = 0;
  std::vector<std::string> inputs;  ///< input columns used, in order
  std::string target;
  std::uint64_t seed = 0;
  int threads = 0;                  ///< worker threads used (resolved: never 0), per process
  int processes = 1;                ///< processes (MPI ranks) that shared the units
  int blas_threads = 0;             ///< the BLAS backend's threads outside the units (which use 1)
  std::string blas_threads_reason;  ///< BlasThreadChoice::reason: "override" or the policy's
  std::vector<std::string> command_line;
  std::string started, finished;  ///< ISO 8601 UTC
};

/// Hex SHA-256 of a file's bytes (OpenSSL libcrypto). Throws Error when it cannot be read.
QUENCH_API std::string sha256_of_file(const std::string& path);

/// "2026-11-23T22:30:01.123Z".
QUENCH_API std::string iso8601_utc(std::chrono::system_clock::time_point time);

}  // namespace quench
