#include "quench/rng.h"

#include <cmath>

namespace quench {

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t stream) {
  // SplitMix64 applied to a combination of seed and stream.
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

RngStream::RngStream(std::uint64_t seed, std::uint64_t stream) : engine_(mix_seed(seed, stream)) {}

double RngStream::uniform() {
  // 53 random bits -> [0, 1); shifted to (0, 1) so log(uniform()) is finite.
  return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53;
}

double RngStream::normal() {
  // Box-Muller (one of the pair), written out so draws are the same with every standard
  // library (std::normal_distribution's algorithm is implementation-defined).
  const double u1 = uniform();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

}  // namespace quench
