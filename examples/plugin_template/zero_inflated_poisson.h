// A template for an out-of-tree likelihood: zero-inflated Poisson counts with a log link,
//
//   p(y | f) = pi [y = 0] + (1 - pi) mu^y e^-mu / y!,   mu = n e^f,   y = 0, 1, 2, ...
//
// a count is a structural zero with probability pi (`zero_probability`, learnable) and a
// Poisson count of rate mu otherwise; n is the observation's exposure (an optional data column,
// `exposure`). pi -> 0 is the built-in `poisson` likelihood.
//
// What a likelihood author writes (docs/plugins.md, "Likelihood plugins"): the kind of target
// and the size column, log p(y | f) with its first two f-derivatives, the hyperparameter blocks
// with d log p / d theta, and here the predictions of y given f (target_moments, target_cdf),
// because the defaults that sum the probability mass assume it falls off geometrically once
// it starts to fall, which a spike at zero breaks. Everything else is quench's default: tilted
// moments and their k-fold powers by adaptive quadrature (log p(0 | f) is not concave in f, so
// log_concave() stays false), d log Z / d pi as a tilted mean, predictive moments of y by
// Gauss-Hermite quadrature over target_moments, log predictive densities and p(y = k) from log Z.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/likelihood.h"
#include "quench/parameters.h"

namespace zip {

class ZeroInflatedPoisson final : public quench::Likelihood {
 public:
  /// The bounds of pi, in the schema and for learning. pi -> 0 is the Poisson likelihood: at
  /// pi = 1e-100, log p(y | f) is the Poisson's to rounding for y > 0 and for zeros wherever
  /// the Poisson's own p(0 | f) = e^-mu is above 1e-86 (mu < 198); 1 - 1e-9 keeps log(1 - pi)
  /// finite.
  static constexpr double kMinZeroProbability = 1e-100;
  static constexpr double kMaxZeroProbability = 1.0 - 1e-9;

  static quench::ParamSchema schema();
  explicit ZeroInflatedPoisson(const quench::Params& params);
  /// ConfigError unless pi lies within [kMinZeroProbability, kMaxZeroProbability].
  explicit ZeroInflatedPoisson(double zero_probability, std::string exposure = {});

  // --- The target: counts, each with its exposure ---
  std::optional<quench::TargetKind> target_kind() const override {
    return quench::TargetKind::count;
  }
  std::string size_column() const override { return exposure_; }

  // --- One site: log p(y | f) and its f-derivatives ---
  /// y = 0: log(pi + (1 - pi) e^-mu); y > 0: log(1 - pi) + y log mu - mu - log y!.
  double log_likelihood(const quench::Observation& y, double f) const override;
  /// y = 0: -mu w, with w = (1 - pi) e^-mu / p(0 | f) the probability that a zero is a Poisson
  /// zero; y > 0: y - mu.
  double d_log_likelihood(const quench::Observation& y, double f) const override;
  /// y = 0: -mu w (1 - mu (1 - w)), positive for large mu (not log-concave); y > 0: -mu.
  double d2_log_likelihood(const quench::Observation& y, double f) const override;

  // --- Predictions of y given f ---
  /// E[y | f] = (1 - pi) mu, Var[y | f] = (1 - pi) mu (1 + pi mu).
  quench::TargetMoments target_moments(double f, double size) const override;
  /// P(Y <= y | f) = pi + (1 - pi) Q(y + 1, mu) for y >= 0 (Q the regularized upper incomplete
  /// gamma function), 0 below.
  double target_cdf(const quench::Observation& y, double f) const override;

  // --- The learnable hyperparameter ---
  /// One block, "zero_probability" (pi, log scale, bounds as above).
  std::vector<quench::Hyperparameter> hyperparameters() const override;
  /// ConfigError for another name, a block of another size or a value outside the bounds.
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override;
  /// d/dpi log p(y | f): y = 0: (1 - e^-mu) / p(0 | f); y > 0: -1 / (1 - pi).
  Eigen::VectorXd d_log_likelihood_hyperparameters(const quench::Observation& y,
                                                   double f) const override;

  double zero_probability() const { return pi_; }

 private:
  /// log p(0 | f), w and 1 - w for a zero at log mu.
  struct Zero {
    double log_p;  ///< log(pi + (1 - pi) e^-mu)
    double w;      ///< (1 - pi) e^-mu / (pi + (1 - pi) e^-mu)
    double not_w;  ///< pi / (pi + (1 - pi) e^-mu), accurate when tiny
  };
  Zero zero(double log_mu) const;
  /// Checks pi and keeps log pi and log(1 - pi), which every evaluation needs.
  void set_zero_probability(double pi);

  double pi_ = 0, log_pi_ = 0, log1m_pi_ = 0;
  std::string exposure_;
};

}  // namespace zip
