// k-fold tilted moments of the probit (Likelihood::tilted_moments_power, 000 eqs 43-46): ns per
// call of the probit's fast path and of the Likelihood default (the same quadrature through the
// virtual log-likelihood, finding the transition itself), and the largest errors of both
// against the dense long-double reference, all measured in this run.
//
//   quench_bench_tilted [--quick]
//
// Cavities: noise sigma^2 = 1; y m / sqrt(v + sigma^2) ~ N(1, 2^2) (90%) or uniform in
// [-30, -5] (10%, far on the wrong side); v log-uniform in [1e-2, 1e2]; y = +-1. Timing: the
// best of 5 passes over 2000 cavities (500 with --quick); errors over 300 (100) of them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string_view>
#include <vector>

#include "bench_timing.h"
#include "probit_likelihood.h"
#include "probit_power_reference.h"
#include "quench/tool_main.h"

namespace {

using quench::Likelihood;
using quench::TiltedMoments;

// The Likelihood default, reached by hiding the probit's override.
class Generic final : public Likelihood {
 public:
  explicit Generic(const Likelihood& l) : l_(l) {}
  double log_likelihood(const quench::Observation& y, double f) const override {
    return l_.log_likelihood(y, f);
  }
  double d_log_likelihood(const quench::Observation& y, double f) const override {
    return l_.d_log_likelihood(y, f);
  }
  double d2_log_likelihood(const quench::Observation& y, double f) const override {
    return l_.d2_log_likelihood(y, f);
  }
  TiltedMoments tilted_moments(const quench::Observation& y, double m, double v) const override {
    return l_.tilted_moments(y, m, v);
  }
  double curvature_bound() const override { return l_.curvature_bound(); }

 private:
  const Likelihood& l_;
};

struct Cavity {
  double y, m, v;
};

// Largest |log Z error|, mean error / max(|mean|, sd), relative variance error.
struct Errors {
  double log_z = 0, mean = 0, variance = 0;
  void add(const TiltedMoments& t, const quench::likelihoods::power_reference::Ref& r, double y) {
    const double mean_ref = y * static_cast<double>(r.mean), var = static_cast<double>(r.var);
    log_z = std::max(log_z, std::fabs(t.log_z - static_cast<double>(r.log_z)));
    mean = std::max(mean,
                    std::fabs(t.mean - mean_ref) / std::max(std::fabs(mean_ref), std::sqrt(var)));
    variance = std::max(variance, std::fabs(t.variance - var) / var);
  }
  double worst() const { return std::max({log_z, mean, variance}); }
};

int run(bool quick) {
  const quench::likelihoods::ProbitLikelihood probit(1.0, 0.0);
  const Generic generic(probit);
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> n(1.0, 2.0);
  std::vector<Cavity> cavities(quick ? 500 : 2000);
  for (Cavity& c : cavities) {
    const double z = u(rng) < 0.1 ? -30 + 25 * u(rng) : n(rng);
    c.v = std::pow(10.0, -2 + 4 * u(rng));
    c.y = u(rng) < 0.5 ? 1.0 : -1.0;
    c.m = c.y * z * std::sqrt(c.v + 1.0);
  }
  const std::size_t checked = quick ? 100 : 300;
  std::printf("probit (sigma^2 = 1), %zu cavities; errors vs dense quadrature over %zu\n",
              cavities.size(), checked);
  std::printf("%4s %12s %12s %8s %14s %14s\n", "k", "fast ns", "default ns", "ratio",
              "fast max err", "default max err");
  for (int k : {2, 5, 10, 20}) {
    double sink = 0;
    auto pass = [&](const Likelihood& l) {
      return quench::bench::best_of(5, [&] {
        for (const Cavity& c : cavities) sink += l.tilted_moments_power({c.y}, c.m, c.v, k).mean;
      });
    };
    const double fast = pass(probit), slow = pass(generic);
    Errors fast_err, slow_err;
    for (std::size_t i = 0; i < checked; ++i) {
      const Cavity& c = cavities[i];
      const auto ref = quench::likelihoods::power_reference::dense_probit(c.y * c.m, c.v, k, 1.0);
      fast_err.add(probit.tilted_moments_power({c.y}, c.m, c.v, k), ref, c.y);
      slow_err.add(generic.tilted_moments_power({c.y}, c.m, c.v, k), ref, c.y);
    }
    const double per = 1e9 / static_cast<double>(cavities.size());
    std::printf("%4d %12.0f %12.0f %8.2f %14.1e %14.1e%s\n", k, fast * per, slow * per, slow / fast,
                fast_err.worst(), slow_err.worst(), sink == 0.123 ? " " : "");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return quench::tool_main(argc, argv, "[--quick]", [&] {
    bool quick = false;
    for (int a = 1; a < argc; ++a) {
      if (std::string_view(argv[a]) == "--quick")
        quick = true;
      else
        throw quench::ConfigError({}, "unknown argument: " + std::string(argv[a]));
    }
    return run(quick);
  });
}
