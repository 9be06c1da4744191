#include "bootstrap_resamplers.h"

#include <cmath>

#include "quench/errors.h"

namespace quench::resamplers {

int sample_poisson(double nu, RngStream& rng) {
  const double u = rng.uniform();
  double p = std::exp(-nu), cumulative = p;
  int k = 0;
  while (u > cumulative && p > 0) {
    ++k;
    p *= nu / k;
    cumulative += p;
  }
  return k;
}

namespace {
// Smallest K with P(s > K) < tail, walking the pmf.
template <class Pmf>
int tail_cutoff(const Pmf& pmf, double tail, int hard_max) {
  double cumulative = 0;
  for (int k = 0; k <= hard_max; ++k) {
    cumulative += pmf(k);
    if (1.0 - cumulative < tail) return k;
  }
  return hard_max;
}
}  // namespace

ParamSchema PoissonBootstrap::schema() {
  ParamSchema s;
  s.real("ratio", "S/N, the mean bootstrap sample size relative to the data size", 1.0, 1e-6,
         500.0);
  return s;
}

PoissonBootstrap::PoissonBootstrap(const Params& params) : nu_(params.real("ratio")) {}

// 000 eq 15: p(s = k) = nu^k e^{-nu} / k!, in log space.
double PoissonBootstrap::do_occupation_pmf(int k) const {
  if (k < 0) return 0.0;
  return std::exp(k * std::log(nu_) - nu_ - std::lgamma(k + 1.0));
}

int PoissonBootstrap::do_max_occupation(double tail) const {
  return tail_cutoff([this](int k) { return occupation_pmf(k); }, tail,
                     static_cast<int>(nu_ + 40 * std::sqrt(nu_) + 60));
}

Eigen::VectorXd PoissonBootstrap::do_sample(RngStream& rng) const {
  Eigen::VectorXd counts(n_);
  for (Eigen::Index i = 0; i < n_; ++i) counts(i) = sample_poisson(nu_, rng);
  return counts;
}

ParamSchema MultinomialBootstrap::schema() {
  ParamSchema s;
  s.real("ratio", "S/N; the sample size is S = round(ratio N)", 1.0, 1e-6, 500.0)
      .integer("size", "the sample size S itself (overrides ratio)", std::nullopt, 1)
      .optional();
  return s;
}

MultinomialBootstrap::MultinomialBootstrap(const Params& params)
    : ratio_(params.real("ratio")), fixed_size_(params.has("size") ? params.integer("size") : 0) {}

void MultinomialBootstrap::do_prepare(Eigen::Index n) {
  n_ = n;
  size_ = fixed_size_ > 0
              ? fixed_size_
              : std::max<std::int64_t>(1, std::llround(ratio_ * static_cast<double>(n)));
}

// s ~ Binomial(S, 1/N).
double MultinomialBootstrap::do_occupation_pmf(int k) const {
  if (k < 0 || k > size_ || n_ == 0) return 0.0;
  const double S = static_cast<double>(size_), p = 1.0 / static_cast<double>(n_);
  const double log_choose = std::lgamma(S + 1) - std::lgamma(k + 1.0) - std::lgamma(S - k + 1);
  return std::exp(log_choose + k * std::log(p) + (S - k) * std::log1p(-p));
}

int MultinomialBootstrap::do_max_occupation(double tail) const {
  return tail_cutoff([this](int k) { return occupation_pmf(k); }, tail,
                     static_cast<int>(std::min<std::int64_t>(size_, 10000)));
}

Eigen::VectorXd MultinomialBootstrap::do_sample(RngStream& rng) const {
  if (n_ == 0) throw NumericalError("multinomial_bootstrap", "prepare() was not called");
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(n_);
  for (std::int64_t draw = 0; draw < size_; ++draw) {
    auto i = static_cast<Eigen::Index>(rng.uniform() * static_cast<double>(n_));
    counts(std::min(i, n_ - 1)) += 1.0;
  }
  return counts;
}

}  // namespace quench::resamplers
