// Out-of-line destructors (the key functions that anchor the interfaces' type information in
// the framework library, so dynamic_cast works across plugin boundaries) and the default
// implementations of the interfaces.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "quench/component.h"
#include "quench/errors.h"
#include "quench/gauss_hermite.h"
#include "quench/inference_engine.h"
#include "quench/kernel.h"
#include "quench/likelihood.h"
#include "quench/optimizer.h"
#include "quench/resampler.h"
#include "quench/tilted_power_moments.h"

namespace quench {

const char* to_string(Family family) {
  switch (family) {
    case Family::kernel:
      return "kernel";
    case Family::likelihood:
      return "likelihood";
    case Family::resampler:
      return "resampler";
    case Family::optimizer:
      return "optimizer";
    case Family::engine:
      return "engine";
  }
  return "?";
}

std::optional<Family> family_from_string(std::string_view name) {
  for (Family f :
       {Family::kernel, Family::likelihood, Family::resampler, Family::optimizer, Family::engine})
    if (name == to_string(f)) return f;
  return std::nullopt;
}

const char* to_string(RunStatus status) {
  switch (status) {
    case RunStatus::ok:
      return "ok";
    case RunStatus::not_converged:
      return "not_converged";
    case RunStatus::failed:
      return "failed";
  }
  return "?";
}

Component::~Component() = default;
FeatureMap::~FeatureMap() = default;
Kernel::~Kernel() = default;
Likelihood::~Likelihood() = default;
Resampler::~Resampler() = default;

void Resampler::prepare(Eigen::Index n) {
  if (n < 1)
    throw ConfigError(
        {}, "Resampler::prepare: the data set size must be >= 1, got " + std::to_string(n));
  do_prepare(n);
  prepared_ = true;
}

void Resampler::require_prepared(const char* method) const {
  if (!prepared_)
    throw ConfigError({}, std::string("Resampler::") + method +
                              " called before Resampler::prepare(n) fixed the data set size");
}

double Resampler::occupation_pmf(int k) const {
  require_prepared("occupation_pmf");
  return do_occupation_pmf(k);
}

int Resampler::max_occupation(double tail) const {
  require_prepared("max_occupation");
  return do_max_occupation(tail);
}

Eigen::VectorXd Resampler::sample(RngStream& rng) const {
  require_prepared("sample");
  return do_sample(rng);
}

double Resampler::expected_size() const {
  require_prepared("expected_size");
  return do_expected_size();
}

Perturbation Resampler::perturb(const RegressionTargets& /*targets*/, Eigen::Index /*rows*/,
                                Eigen::Index /*cols*/, double /*prior_variance*/,
                                RngStream& /*rng*/) const {
  throw ConfigError({},
                    "this resampler draws weight vectors and cannot perturb targets; use "
                    "the 'perturbation' resampler");
}
SmoothObjective::~SmoothObjective() = default;
Optimizer::~Optimizer() = default;
StochasticObjective::~StochasticObjective() = default;

OptimizerReport Optimizer::minimize_stochastic(const StochasticObjective& objective,
                                               Eigen::VectorXd& x, RngStream& /*rng*/) const {
  return minimize(objective, x);
}
ResampledModel::~ResampledModel() = default;

Eigen::VectorXd ResampledModel::predict_with_probability(const Eigen::VectorXd&, Eigen::VectorXd*,
                                                         Eigen::VectorXd&) const {
  throw std::logic_error(
      "ResampledModel::predict_with_probability: this model has no test "
      "probabilities (test_probability() is false)");
}
InferenceEngine::~InferenceEngine() = default;

void Kernel::prepare(const Eigen::MatrixXd& /*X_train*/) {}

Eigen::VectorXd Kernel::diagonal(const Eigen::MatrixXd& X) const {
  Eigen::VectorXd d(X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i) d(i) = cross(X.row(i), X.row(i))(0, 0);
  return d;
}

Eigen::MatrixXd Kernel::gram(const Eigen::MatrixXd& X) const {
  Eigen::MatrixXd K = cross(X, X);
  K.diagonal().array() += diagonal_noise();
  return K;
}

// Tilted moments by quadrature in the variable f = m + sqrt(v) z, with the likelihood taken
// in log space relative to its maximum over the nodes so that tiny likelihoods do not
// underflow.
TiltedMoments Likelihood::tilted_moments(double y, double m, double v) const {
  const auto& rule = gauss_hermite(64);
  const double s = std::sqrt(v);
  const std::size_t n = rule.nodes.size();
  std::vector<double> logp(n);
  double max_logp = -std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < n; ++k) {
    logp[k] = log_likelihood(y, m + s * rule.nodes[k]);
    max_logp = std::max(max_logp, logp[k]);
  }
  double z = 0, first = 0, second = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double w = rule.weights[k] * std::exp(logp[k] - max_logp);
    z += w;
    first += w * rule.nodes[k];
    second += w * rule.nodes[k] * rule.nodes[k];
  }
  const double ez = first / z;
  TiltedMoments out;
  out.log_z = std::log(z) + max_logp;
  out.mean = m + s * ez;
  out.variance = v * std::max(second / z - ez * ez, 0.0);
  return out;
}

TiltedMoments Likelihood::tilted_moments_power(double y, double m, double v, int k) const {
  check_tilted_power_arguments(m, v, k);
  if (k == 0) return {0.0, m, v};
  if (k == 1) return tilted_moments(y, m, v);
  // The site through the virtual log-likelihood and its derivatives, one node at a time.
  class Site final : public TiltedPowerSite {
   public:
    Site(const Likelihood& l, double y) : l_(l), y_(y) {}
    Slope slope(double f) const override {
      return {l_.d_log_likelihood(y_, f), l_.d2_log_likelihood(y_, f)};
    }
    void values(const double* f, double* out, std::size_t n) const override {
      for (std::size_t i = 0; i < n; ++i) out[i] = l_.log_likelihood(y_, f[i]);
    }

   private:
    const Likelihood& l_;
    double y_;
  };
  return tilted_power_moments(Site(*this, y), m, v, k);
}

std::unique_ptr<ResampledModel> InferenceEngine::prepare_resampling(const Problem&) const {
  return nullptr;
}

}  // namespace quench
