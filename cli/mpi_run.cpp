#include "mpi_run.h"

#include <iostream>
#include <optional>
#include <sstream>

#include "quench/cancellation.h"
#include "quench/errors.h"
#include "quench/mpi_session.h"
#include "quench/parallel.h"
#include "quench/printable.h"
#include "quench/provenance.h"
#include "quench/units.h"
#include "quench/version.h"

namespace quench::cli {

namespace {

// What every rank must share: this quench binary and every plugin library it loaded (name,
// versions, SHA-256 of the file), one line each.
std::string build_fingerprint(const Registry& registry) {
  std::ostringstream text;
  text << "quench " << kVersion << " " << sha256_of_file("/proc/self/exe") << "\n";
  for (const PluginEntry* entry : registry.plugins())
    text << "plugin " << to_string(entry->info->family) << " " << entry->info->name << " "
         << entry->info->version << " from " << entry->library_name << " " << entry->library_version
         << " " << sha256_of_file(entry->library_path) << "\n";
  return text.str();
}

// An exit code and the message of a failure, as one string every rank can compare.
std::string failure(int code, const std::string& message) {
  return std::to_string(code) + " " + message;
}

}  // namespace

int mpi_run(const RunRequest& request) {
  const mpi::Session session;
  const bool root = session.rank() == 0;

  // Prepare on every rank; only rank 0 owns (and checks) the output directory.
  std::optional<PreparedRun> prepared;
  std::string problem;
  try {
    prepared.emplace(prepare_run(request, root));
  } catch (const ConfigError& e) {
    std::string text;
    for (const auto& d : e.diagnostics()) text += (text.empty() ? "" : "\n") + d.str();
    problem = failure(2, text.empty() ? e.what() : text);
  } catch (const std::exception& e) {
    problem = failure(1, std::string("quench: error: ") + printable(e.what(), 1000));
  }
  if (const std::string agreed = session.first_problem(problem); !agreed.empty()) {
    // The same failure everywhere keeps its code; failures that differ between ranks are 1.
    const bool same = agreed == problem;
    if (root) std::cerr << (same ? agreed.substr(agreed.find(' ') + 1) : agreed) << "\n";
    return same ? std::stoi(agreed) : 1;
  }
  if (const std::string differs =
          session.difference_from_rank0("build", build_fingerprint(prepared->registry));
      !differs.empty()) {
    if (root) std::cerr << "quench: error: " << differs << "\n";
    return 1;
  }

  // Every rank computes the parts outside the units itself, so they must agree to the bit: the
  // same BLAS threads everywhere. The policy (quench/blas_thread_policy.h) picks from rank 0's
  // default count, unless --blas-threads says.
  const ScopedBlasThreads available(session.broadcast_from_rank0(blas_threads()));

  RunOptions options;
  options.threads = request.threads;
  options.blas_threads = request.blas_threads;
  options.progress = request.progress && root;
  options.executor = session.executor(request.static_schedule);
  options.processes = session.size();
  std::vector<Results> runs;
  try {
    runs = prepared->pipeline.run(prepared->registry, options, prepared->provenance);
  } catch (const Interrupted& e) {  // collective: every rank stops at the same unit call
    return root ? say_nothing_written(e) : 128 + e.signal();
  } catch (const UnitFailure& e) {  // collective: the same message on every rank
    if (root) std::cerr << "quench: error: " << printable(e.what(), 1000) << "; nothing written\n";
    return 1;
  } catch (const std::exception& e) {  // this rank only, perhaps: end the job
    std::cerr << "quench: error on rank " << session.rank() << " of " << session.size() << ": "
              << printable(e.what(), 1000) << "; nothing written\n";
    session.abort(dynamic_cast<const ConfigError*>(&e) ? 2 : 1);
  }

  int code = 0;
  if (root) {
    try {
      code = write_run(*prepared, runs);
    } catch (const Interrupted& e) {  // stopped while writing: the report is discarded
      code = say_nothing_written(e);
    } catch (const std::exception& e) {
      std::cerr << "quench: error: " << printable(e.what(), 1000) << "\n";
      code = 1;
    }
  }
  return session.broadcast_from_rank0(code);
}

}  // namespace quench::cli
