// The multinomial probit likelihood of C classes with latents f in R^C (Riihimaki, Jylanki &
// Vehtari, JMLR 14, 2013):
//   p(y | f) = E_u prod_{j != y} Phi(u + f_y - f_j),   u ~ N(0, 1),
// the probability that f_y + e_y is the largest of the f_c + e_c with independent N(0, 1)
// noises e_c. Its sites are those of nested EP (quench/class_likelihood.h): an inner EP on the
// auxiliary u and f approximates each factor Phi(z_j), z_j = u + f_y - f_j, by a Gaussian.
// Multi-class only: the scalar Likelihood methods throw ConfigError.
#pragma once

#include "quench/likelihood.h"
#include "quench/parameters.h"

namespace quench::likelihoods {

class MultinomialProbitLikelihood final : public Likelihood, public ClassLikelihood {
 public:
  /// No parameters (the noise scale is that of the latents).
  static ParamSchema schema();
  explicit MultinomialProbitLikelihood(const Params& params);

  /// All throw ConfigError: C latent values per point do not fit the scalar interface.
  /// One of C classes.
  std::optional<TargetKind> target_kind() const override { return TargetKind::classes; }
  double log_likelihood(const Observation& y, double f) const override;
  double d_log_likelihood(const Observation& y, double f) const override;
  double d2_log_likelihood(const Observation& y, double f) const override;
  TiltedMoments tilted_moments(const Observation& y, double m, double v) const override;
  TiltedMoments tilted_moments_power(const Observation& y, double m, double v,
                                     int k) const override;

  const ClassLikelihood* classes() const override { return this; }

  /// log of the integral over u, by adaptive Gauss-Kronrod quadrature of exp(g(u) - g(u*)),
  /// g(u) = log N(u) + sum_j log Phi(u + f_y - f_j) concave with mode u*, on u* +- 10 (where
  /// g has dropped by >= 50 since g'' <= -1): p to ~2e-13 relative, also when it is tiny.
  double log_probability(Eigen::Index y, const Eigen::VectorXd& f) const override;
  /// The inner EP runs on z = (z_j)_{j != y} in R^{C-1}, the only directions of w = (u, f)
  /// the factors see: its prior is N(z; mu0, S0), mu0_j = m_y - m_j, S0 = 1 1^T + A V A^T
  /// (rows of A: e_y - e_j), and the factors are axis-aligned, so each update is a rank-one
  /// change of a (C-1) x (C-1) covariance, O(C^2). EP on w gives the same sites and log Z.
  /// Throws NumericalError when S0 is not positive semidefinite (to 1e-12 relative) or not
  /// finite, std::invalid_argument on sizes, y out of range or a negative tau.
  double match_site(Eigen::Index y, const Eigen::VectorXd& m, const Eigen::MatrixXd& V,
                    ClassSite& site, int sweeps) const override;
  Eigen::VectorXd predictive(const Eigen::VectorXd& m, const Eigen::MatrixXd& V) const override;
};

}  // namespace quench::likelihoods
