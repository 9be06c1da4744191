#include "quench/mpi_session.h"

#include <mpi.h>

#include <cstdlib>
#include <sstream>
#include <vector>

#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include "crash_report.h"
#include "quench/errors.h"
#include "quench/mpi_executor.h"

namespace quench::mpi {

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}

Session::Session() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    throw Error("the MPI library does not allow threads (MPI_THREAD_FUNNELED)");
  }
  install_crash_report(rank_, size_);
}

Session::~Session() { MPI_Finalize(); }

std::shared_ptr<const UnitExecutor> Session::executor(bool static_schedule) const {
  return std::make_shared<const MpiExecutor>(static_schedule ? MpiExecutor::Schedule::statically
                                                             : MpiExecutor::Schedule::dynamic);
}

std::string Session::first_problem(const std::string& mine) const {
  const boost::mpi::communicator world;
  std::vector<std::string> all;
  boost::mpi::all_gather(world, mine, all);
  bool same = true;
  for (const std::string& s : all) same = same && s == all[0];
  if (same) return all[0];
  for (std::size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty())
      return "rank " + std::to_string(r) + " of " + std::to_string(size_) + ": " + all[r];
  return {};
}

std::string Session::difference_from_rank0(const std::string& what, const std::string& text) const {
  const boost::mpi::communicator world;
  std::vector<std::string> all;
  boost::mpi::all_gather(world, text, all);
  for (std::size_t r = 1; r < all.size(); ++r) {
    if (all[r] == all[0]) continue;
    std::istringstream a(all[0]), b(all[r]);
    std::string la, lb;
    for (;;) {
      const bool more_a = static_cast<bool>(std::getline(a, la));
      const bool more_b = static_cast<bool>(std::getline(b, lb));
      if (!more_a) la = "(nothing)";
      if (!more_b) lb = "(nothing)";
      if (la != lb || (!more_a && !more_b)) break;
    }
    return "rank " + std::to_string(r) + " of " + std::to_string(size_) + " has another " + what +
           " than rank 0 (rank 0: " + la + "; rank " + std::to_string(r) + ": " + lb +
           "): start every rank with the same quench build and plugins";
  }
  return {};
}

int Session::broadcast_from_rank0(int value) const {
  const boost::mpi::communicator world;
  boost::mpi::broadcast(world, value, 0);
  return value;
}

void Session::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // not reached: MPI_Abort ends the process
}

}  // namespace quench::mpi
