// Reproducible random streams: one independent stream per (seed, stream id), so results do
// not depend on how draws are distributed over threads.
#pragma once

#include <cstdint>
#include <random>

#include "quench/export.h"

namespace quench {

/// A 64-bit Mersenne twister seeded by hashing (seed, stream) with SplitMix64.
class QUENCH_API RngStream {
 public:
  using result_type = std::mt19937_64::result_type;
  RngStream(std::uint64_t seed, std::uint64_t stream);

  static constexpr result_type min() { return std::mt19937_64::min(); }
  static constexpr result_type max() { return std::mt19937_64::max(); }
  result_type operator()() { return engine_(); }

  double uniform();  ///< U(0, 1)
  double normal();   ///< N(0, 1)

 private:
  std::mt19937_64 engine_;
};

/// SplitMix64 finaliser; used to derive stream seeds.
QUENCH_API std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t stream);

}  // namespace quench
