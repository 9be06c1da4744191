// Out-of-line destructors (the key functions that anchor the interfaces' type information in
// the framework library, so dynamic_cast works across plugin boundaries) and the default
// implementations of the interfaces.
#include <stdexcept>
#include <string>

#include "quench/component.h"
#include "quench/errors.h"
#include "quench/inference_engine.h"
#include "quench/kernel.h"
#include "quench/likelihood.h"
#include "quench/optimizer.h"
#include "quench/resampler.h"

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

Eigen::VectorXd ResampledModel::predict_latent(const Eigen::VectorXd&, Eigen::VectorXd*,
                                               Eigen::VectorXd&, bool) const {
  throw std::logic_error(
      "ResampledModel::predict_latent: this model's retrains have no latent variance "
      "(latent_variance() is false)");
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

void InferenceEngine::check(const Problem&, Eigen::Index) const {}

std::unique_ptr<ResampledModel> InferenceEngine::prepare_resampling(const Problem&) const {
  return nullptr;
}

}  // namespace quench
