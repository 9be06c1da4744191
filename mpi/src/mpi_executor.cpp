#include "quench/mpi_executor.h"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include "crash_report.h"
#include "quench/cancellation.h"
#include "quench/parallel.h"

namespace quench::mpi {

namespace {

constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

// What one rank did: the units it ran (their numbers travel separately), their text, and its
// lowest failed unit or a stop request.
struct RankReport {
  std::vector<std::uint64_t> units;
  std::vector<std::string> text;
  std::uint64_t failed_unit = kNone;
  std::string failure;
  int stop_signal = 0;
  template <class Archive>
  void serialize(Archive& archive, unsigned /*version*/) {
    archive& units& text& failed_unit& failure& stop_signal;
  }
};

// A counter on rank 0 that every rank advances atomically: the next unit to hand out.
class SharedCounter {
 public:
  SharedCounter() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(rank == 0 ? sizeof(std::int64_t) : 0, sizeof(std::int64_t), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base_, &window_);
    if (rank == 0) *base_ = 0;
    MPI_Barrier(MPI_COMM_WORLD);  // the counter is 0 before anyone takes from it
    MPI_Win_lock_all(0, window_);
  }
  ~SharedCounter() {
    MPI_Win_unlock_all(window_);
    MPI_Win_free(&window_);
  }
  SharedCounter(const SharedCounter&) = delete;
  SharedCounter& operator=(const SharedCounter&) = delete;
  /// Adds `n` and returns the value before.
  std::int64_t take(std::int64_t n) {
    std::int64_t before = 0;
    MPI_Fetch_and_op(&n, &before, MPI_INT64_T, 0, 0, MPI_SUM, window_);
    MPI_Win_flush(0, window_);
    return before;
  }

 private:
  std::int64_t* base_ = nullptr;
  MPI_Win window_{};
};

}  // namespace

UnitOutputs MpiExecutor::run(std::size_t count, Eigen::Index width, int threads, const Unit& unit,
                             const std::function<void(double)>& progress) const {
  const boost::mpi::communicator world;
  const int ranks = world.size();
  const int workers = resolve_threads(threads);
  const auto total = static_cast<std::int64_t>(count);
  const std::int64_t block = std::max<std::int64_t>(
      workers, total / (std::int64_t{kBlocksPerWorker} * ranks * workers) * workers);

  RankReport mine;
  std::vector<double> values;  // width per unit of mine.units, in that order
  // About this rank's share, so that appending blocks rarely copies what is there.
  values.reserve(static_cast<std::size_t>((total / ranks + block) * width));
  std::mutex failure_mutex;
  // Runs units [first, first + n) on this rank's threads, appending their outputs.
  auto run_block = [&](std::int64_t first, std::int64_t n) {
    running_units(first, first + n);
    const std::size_t offset = values.size();
    values.resize(offset + static_cast<std::size_t>(n * width), 0.0);
    std::vector<std::string> text(static_cast<std::size_t>(n));
    try {
      parallel_for(static_cast<std::size_t>(n), threads, [&](std::size_t j) {
        const std::uint64_t i = static_cast<std::uint64_t>(first) + j;
        try {
          const UnitScope scope;
          unit(i, Eigen::Map<Eigen::VectorXd>(values.data() + offset + j * width, width), text[j]);
        } catch (const Interrupted&) {
          throw;
        } catch (const std::exception& e) {
          const std::lock_guard<std::mutex> lock(failure_mutex);
          if (i < mine.failed_unit) {
            mine.failed_unit = i;
            mine.failure = e.what();
          }
        } catch (...) {
          const std::lock_guard<std::mutex> lock(failure_mutex);
          if (i < mine.failed_unit) {
            mine.failed_unit = i;
            mine.failure = "unknown exception";
          }
        }
      });
    } catch (const Interrupted& e) {
      mine.stop_signal = e.signal();
    }
    for (std::int64_t j = 0; j < n; ++j) {
      mine.units.push_back(static_cast<std::uint64_t>(first + j));
      mine.text.push_back(std::move(text[static_cast<std::size_t>(j)]));
    }
    running_units(0, 0);
    if (progress && world.rank() == 0)
      progress(static_cast<double>(std::min(first + n, total)) / static_cast<double>(total));
  };
  if (schedule_ == Schedule::statically) {
    const std::int64_t first = total * world.rank() / ranks,
                       last = total * (world.rank() + 1) / ranks;
    if (last > first) run_block(first, last - first);
  } else {
    SharedCounter next;
    for (;;) {
      const std::int64_t first = next.take(block);
      if (first >= total) break;
      // After a failure or a stop request, keep taking until the counter runs out (so that
      // every rank leaves together) without running anything.
      if (mine.failed_unit != kNone || mine.stop_signal != 0) continue;
      run_block(first, std::min(block, total - first));
    }
  }

  // Every rank's numbers, then its report, on every rank.
  const int mine_count = static_cast<int>(values.size());
  std::vector<int> counts(static_cast<std::size_t>(ranks)), displacements(counts.size(), 0);
  MPI_Allgather(&mine_count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (std::size_t r = 1; r < counts.size(); ++r)
    displacements[r] = displacements[r - 1] + counts[r - 1];
  std::vector<double> all(static_cast<std::size_t>(displacements.back() + counts.back()));
  MPI_Allgatherv(values.data(), mine_count, MPI_DOUBLE, all.data(), counts.data(),
                 displacements.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  std::vector<RankReport> reports;
  boost::mpi::all_gather(world, mine, reports);

  for (const RankReport& r : reports)
    if (r.stop_signal != 0) throw Interrupted(r.stop_signal);
  std::uint64_t failed = kNone;
  int failed_rank = -1;
  for (int r = 0; r < ranks; ++r)
    if (reports[static_cast<std::size_t>(r)].failed_unit < failed) {
      failed = reports[static_cast<std::size_t>(r)].failed_unit;
      failed_rank = r;
    }
  if (failed != kNone)
    throw UnitFailure("unit " + std::to_string(failed) + " of " + std::to_string(count) +
                      " failed on rank " + std::to_string(failed_rank) + " of " +
                      std::to_string(ranks) + ": " +
                      reports[static_cast<std::size_t>(failed_rank)].failure);

  UnitOutputs out;
  out.values.resize(width, static_cast<Eigen::Index>(count));
  out.text.resize(count);
  for (int r = 0; r < ranks; ++r) {
    const RankReport& report = reports[static_cast<std::size_t>(r)];
    const double* source = all.data() + displacements[static_cast<std::size_t>(r)];
    for (std::size_t k = 0; k < report.units.size(); ++k) {
      const auto i = static_cast<Eigen::Index>(report.units[k]);
      out.values.col(i) = Eigen::Map<const Eigen::VectorXd>(source + k * width, width);
      out.text[static_cast<std::size_t>(i)] = report.text[k];
    }
  }
  return out;
}

}  // namespace quench::mpi
