#include "quench/random_variates.h"

#include <array>
#include <cmath>
#include <cstdint>

#include "quench/rng.h"

namespace quench {

double gamma_variate(RngStream& rng, double shape) {
  if (shape < 1) {
    const double g = gamma_variate(rng, shape + 1);
    return g * std::pow(rng.uniform(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9 * d);
  for (;;) {
    double x, v;
    do {
      x = rng.normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = rng.uniform();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) return d * v;
  }
}

double inverse_gaussian_variate(RngStream& rng, double mu, double lambda) {
  // x = mu (1 + t - sqrt(t^2 + 2t)), t = mu nu^2 / (2 lambda), written without cancellation.
  const double nu = rng.normal();
  const double t = mu * nu * nu / (2 * lambda);
  const double x = mu / (1 + t + std::sqrt(t * t + 2 * t));
  return rng.uniform() <= mu / (mu + x) ? x : mu * mu / x;
}

namespace {

// xoshiro256++ (Blackman & Vigna 2018).
class Xoshiro {
 public:
  explicit Xoshiro(RngStream& rng) {
    for (auto& v : s_) v = rng();
  }
  std::uint64_t operator()() {
    const std::uint64_t result = rotl(s_[0] + s_[3], 23) + s_[0];
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  double uniform() { return (static_cast<double>((*this)() >> 11) + 0.5) * 0x1.0p-53; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<std::uint64_t, 4> s_;
};

// Ziggurat tables for the exponential density (Marsaglia & Tsang 2000, "REXP"): layer i has
// right edge x_i, ke the integer acceptance bounds, we the scales, fe = exp(-x_i).
struct ExpZiggurat {
  std::array<std::uint32_t, 256> ke;
  std::array<double, 256> we, fe;
  static constexpr double kR = 7.697117470131487;  // x_255, the base strip's edge
  ExpZiggurat() {
    const double m2 = 4294967296.0, ve = 3.949659822581572e-3;
    double de = kR, te = kR;
    const double q = ve / std::exp(-de);
    ke[0] = static_cast<std::uint32_t>((de / q) * m2);
    ke[1] = 0;
    we[0] = q / m2;
    we[255] = de / m2;
    fe[0] = 1.0;
    fe[255] = std::exp(-de);
    for (int i = 254; i >= 1; --i) {
      de = -std::log(ve / de + std::exp(-de));
      ke[i + 1] = static_cast<std::uint32_t>((de / te) * m2);
      te = de;
      fe[i] = std::exp(-de);
      we[i] = de / m2;
    }
  }
};

}  // namespace

void exponential_ziggurat(RngStream& rng, double* out, std::size_t n) {
  static const ExpZiggurat z;
  Xoshiro gen(rng);
  for (std::size_t k = 0; k < n; ++k) {
    for (;;) {
      const auto jz = static_cast<std::uint32_t>(gen() >> 32);
      const std::uint32_t iz = jz & 255u;
      const double x = jz * z.we[iz];
      if (jz < z.ke[iz]) {  // inside the layer's rectangle (~98.9 %)
        out[k] = x;
        break;
      }
      if (iz == 0) {  // the tail beyond R: R + Exp(1) by memorylessness
        out[k] = ExpZiggurat::kR - std::log(gen.uniform());
        break;
      }
      if (z.fe[iz] + gen.uniform() * (z.fe[iz - 1] - z.fe[iz]) < std::exp(-x)) {
        out[k] = x;
        break;
      }
    }
  }
}

}  // namespace quench
