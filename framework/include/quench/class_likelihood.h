// Likelihoods of one label among C classes given C latent values per point (multi-class GP
// classification, docs/multiclass.md). A site here has C latents, a different shape from the
// scalar sites of quench/likelihood.h, so it is a capability of its own: a Likelihood that
// offers it returns itself from Likelihood::classes(), and its scalar methods are refused.
//
// The sites are those of nested EP for the multinomial probit (Riihimaki, Jylanki & Vehtari,
// JMLR 14, 2013): with the auxiliary u ~ N(0, 1) of p(y | f) = E_u prod_{j != y} Phi(u + f_y -
// f_j), each factor Phi(z_j), z_j = u + f_y - f_j, is approximated by exp(-tau_j z_j^2 / 2 + nu_j
// z_j). Integrating u out leaves a Gaussian site on f with precision and linear term
//   Pi = diag(pi) - pi pi^T / (1^T pi),  pi_y = 1, pi_j = tau_j (j != y),
//   h  = sum_{j != y} nu_j (e_y - e_j) - q (sum_j nu_j) / (1 + sum_j tau_j),
//   q  = sum_{j != y} tau_j (e_y - e_j),
// both invariant to a common shift of f (Pi 1 = 0, 1^T h = 0). The diagonal-minus-rank-one
// form of Pi is what lets a C-class posterior be formed from C + 1 factorizations of order N.
#pragma once

#include <string>

#include <Eigen/Core>

#include "quench/export.h"

namespace quench {

/// The factor sites of one point of class y: tau_j, nu_j of the Gaussian factor on z_j = u +
/// f_y - f_j for j != y (entry y unused, kept 0). Zero sites: no information.
struct ClassSite {
  Eigen::VectorXd tau;  ///< C, >= 0
  Eigen::VectorXd nu;   ///< C
  static ClassSite zero(Eigen::Index classes) {
    return {Eigen::VectorXd::Zero(classes), Eigen::VectorXd::Zero(classes)};
  }
};

/// The site on f of a ClassSite (header comment): pi (C, all > 0 when the tau_j are) and h.
struct ClassSiteForm {
  Eigen::VectorXd pi;
  Eigen::VectorXd h;
};
QUENCH_API ClassSiteForm class_site_form(Eigen::Index y, const ClassSite& site);

class QUENCH_API ClassLikelihood {
 public:
  virtual ~ClassLikelihood();

  /// log p(y | f) for the class y in 0..C-1 and the C latent values f.
  virtual double log_probability(Eigen::Index y, const Eigen::VectorXd& f) const = 0;

  /// Matches the site of a point of class y to its cavity N(f; m, V) (C, C x C): `sweeps`
  /// inner EP sweeps over the factors j != y, from the sites given (warm start; zero sites at
  /// first), written back into `site`; sweeps <= 0 runs them to convergence (change of the
  /// inner marginals < 1e-12, at most 200). Returns the inner EP's log Z ~ log \int p(y | f)
  /// N(f; m, V) df with the sites as they are on return. Throws NumericalError when V is not
  /// positive semidefinite (to rounding) in the directions the likelihood sees.
  virtual double match_site(Eigen::Index y, const Eigen::VectorXd& m, const Eigen::MatrixXd& V,
                            ClassSite& site, int sweeps) const = 0;

  /// p(y = c | f ~ N(m, V)) for every class c, summing to 1 (the inner EP's Z_c of each class
  /// from zero sites, to convergence, normalized).
  virtual Eigen::VectorXd predictive(const Eigen::VectorXd& m, const Eigen::MatrixXd& V) const = 0;
};

class Likelihood;

/// The likelihood's multi-class capability (Likelihood::classes()); ConfigError naming `who`
/// when it has none.
QUENCH_API const ClassLikelihood& require_class_likelihood(const Likelihood* likelihood,
                                                           const std::string& who);

}  // namespace quench
