#include "student_t_likelihood.h"

#include <cmath>
#include <limits>

#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/log1p.hpp>

#include "log_gamma_ratio.h"
#include "positive_parameter.h"

namespace quench::likelihoods {

namespace {

constexpr const char* kStudentT = "student_t";

// sigma^2 nu / (nu - 2) for nu > 2, else +infinity (the variance of sigma T_nu).
double noise_variance(double nu, double sigma) {
  return nu > 2 ? sigma * sigma * nu / (nu - 2) : std::numeric_limits<double>::infinity();
}

}  // namespace

ParamSchema StudentTLikelihood::schema() {
  ParamSchema s;
  s.real("dof", "degrees of freedom nu > 0 (infinity: Gaussian noise)", 4.0)
      .real("scale", "scale sigma > 0 of the noise", 1.0);
  return s;
}

StudentTLikelihood::StudentTLikelihood(const Params& params)
    : StudentTLikelihood(params.real("dof"), params.real("scale")) {}

StudentTLikelihood::StudentTLikelihood(double dof, double scale)
    : nu_(positive_parameter(kStudentT, "dof", dof)),
      sigma_(positive_parameter(kStudentT, "scale", scale)) {
  update_normalizer();
}

void StudentTLikelihood::update_normalizer() {
  log_normalizer_ = log_gamma_ratio(0.5 * nu_, 0.5) - 0.5 * std::log(M_PI * nu_) - std::log(sigma_);
}

double StudentTLikelihood::log_likelihood(const Observation& o, double f) const {
  const double z = (o.y - f) / sigma_;
  return log_normalizer_ - 0.5 * (nu_ + 1) * std::log1p(z * z / nu_);
}

double StudentTLikelihood::d_log_likelihood(const Observation& o, double f) const {
  const double z = (o.y - f) / sigma_;
  return (nu_ + 1) * z / (sigma_ * (nu_ + z * z));
}

double StudentTLikelihood::d2_log_likelihood(const Observation& o, double f) const {
  const double z = (o.y - f) / sigma_;
  const double d = nu_ + z * z;
  return (nu_ + 1) * (z * z - nu_) / (sigma_ * sigma_ * d * d);
}

double StudentTLikelihood::curvature_bound() const {
  return (nu_ + 1) / (8 * nu_ * sigma_ * sigma_);
}

int StudentTLikelihood::transitions(const Observation& o, double* out) const {
  const double bend = sigma_ * std::sqrt(nu_);
  out[0] = o.y - bend;
  out[1] = o.y;
  out[2] = o.y + bend;
  return 3;
}

TargetMoments StudentTLikelihood::target_moments(double f, double) const {
  return {f, noise_variance(nu_, sigma_)};
}

double StudentTLikelihood::target_cdf(const Observation& o, double f) const {
  return boost::math::cdf(boost::math::students_t_distribution<double>(nu_), (o.y - f) / sigma_);
}

TargetMoments StudentTLikelihood::predictive_moments(double m, double v, double) const {
  return {m, v + noise_variance(nu_, sigma_)};
}

std::vector<Hyperparameter> StudentTLikelihood::hyperparameters() const {
  auto block = [](const char* name, double value, double lower, double upper) {
    Hyperparameter h;
    h.name = name;
    h.value = Eigen::VectorXd::Constant(1, value);
    h.lower = lower;
    h.upper = upper;
    return h;
  };
  std::vector<Hyperparameter> blocks{block("dof", nu_, 0.1, 1e4),
                                     block("scale", sigma_, 1e-5, 1e3)};
  blocks[0].learned_by_default = false;
  blocks[1].target_unit_power = 1;
  return blocks;
}

void StudentTLikelihood::set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) {
  if (name != "dof" && name != "scale") Likelihood::set_hyperparameter(name, value);  // throws
  (name == "dof" ? nu_ : sigma_) = positive_block(kStudentT, name, value);
  update_normalizer();
}

Eigen::VectorXd StudentTLikelihood::d_log_likelihood_hyperparameters(const Observation& o,
                                                                     double f) const {
  const double z = (o.y - f) / sigma_;
  const double z2 = z * z, d = nu_ + z2;
  Eigen::VectorXd g(2);
  // (psi((nu + 1) / 2) - psi(nu / 2) - log(1 + 1/nu)) + (log(1 + c) - c), c = (1 - z^2) / (nu +
  // z^2), 1 + c = (nu + 1) / (nu + z^2): each part of the size of the result (~ (1 - (1 - z^2)^2
  // / 2) / nu^2 as nu -> infinity), log(1 + c) - c by log1pmx near 0.
  const double c = (1 - z2) / d;
  const double log1p_minus_c =
      std::fabs(c) < 0.5 ? boost::math::log1pmx(c) : std::log1p(1 / nu_) - std::log1p(z2 / nu_) - c;
  g(0) = 0.5 * (digamma_difference_excess(0.5 * nu_, 0.5) + log1p_minus_c);
  g(1) = nu_ * (z2 - 1) / (sigma_ * d);
  return g;
}

}  // namespace quench::likelihoods
