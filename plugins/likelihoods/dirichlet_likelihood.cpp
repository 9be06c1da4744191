#include "dirichlet_likelihood.h"

#include <cmath>
#include <string>

#include "quench/errors.h"

namespace quench::likelihoods {

namespace {
constexpr double kLog2Pi = 1.8378770664093454836;
}

DirichletTarget dirichlet_target(double alpha) {
  // 002 eq 11.
  const double s2 = std::log1p(1.0 / alpha);
  return {std::log(alpha) - 0.5 * s2, s2};
}

ParamSchema DirichletLikelihood::schema() {
  ParamSchema s;
  s.real("alpha_epsilon", "Dirichlet concentration alpha_eps of the wrong classes (002 eq 10)",
         0.01, 1e-12);
  return s;
}

DirichletLikelihood::DirichletLikelihood(const Params& p) : alpha_eps_(p.real("alpha_epsilon")) {}

DirichletTarget DirichletLikelihood::target_of(double y) const {
  return dirichlet_target(y == 1.0 ? 1.0 + alpha_eps_ : alpha_eps_);
}

double DirichletLikelihood::log_likelihood(const Observation& o, double f) const {
  const double y = o.y;
  const auto t = target_of(y);
  return -0.5 * (kLog2Pi + std::log(t.variance) + (t.mean - f) * (t.mean - f) / t.variance);
}
double DirichletLikelihood::d_log_likelihood(const Observation& o, double f) const {
  const double y = o.y;
  const auto t = target_of(y);
  return (t.mean - f) / t.variance;
}
double DirichletLikelihood::d2_log_likelihood(const Observation& o, double /*f*/) const {
  const double y = o.y;
  return -1.0 / target_of(y).variance;
}

std::optional<RegressionTargets> DirichletLikelihood::regression_targets(
    const Eigen::VectorXd& labels, Eigen::Index classes) const {
  const auto on = dirichlet_target(1.0 + alpha_eps_), off = dirichlet_target(alpha_eps_);
  RegressionTargets t{Eigen::MatrixXd::Constant(labels.size(), classes, off.mean),
                      Eigen::MatrixXd::Constant(labels.size(), classes, off.variance)};
  for (Eigen::Index i = 0; i < labels.size(); ++i) {
    // Binary labels may also be given as -1/+1 (the GP classifiers' convention): -1 is class 0.
    const double y = classes == 2 && labels(i) == -1.0 ? 0.0 : labels(i);
    if (y != std::floor(y) || y < 0 || y >= double(classes))
      throw DataError({}, int(i) + 2, "target",
                      "class label " + std::to_string(y) + " is not an integer in [0, " +
                          std::to_string(classes) + ")");
    const auto c = static_cast<Eigen::Index>(y);
    t.mean(i, c) = on.mean;
    t.variance(i, c) = on.variance;
  }
  return t;
}

}  // namespace quench::likelihoods
