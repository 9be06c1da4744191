// The latent predictive at new inputs of a Gaussian model on the inducing-point prior,
// y ~ N(0, K~ + diag(phi)) (quench/low_rank_evidence.h), kept in O(M^2) numbers whatever N:
// with u(x) = L^-1 K(Z, x) (K(Z, Z) + jitter I = L L^T) and B = I + U^T diag(1/psi) U =
// L_B L_B^T,
//   mean(x)     = u(x)^T w,  w = U^T (K~ + diag phi)^-1 y,
//   variance(x) = k(x, x) - |u(x)|^2 + |L_B^-1 u(x)|^2   (FITC, VFE; Quinonero-Candela &
//                 Rasmussen 2005 eqs 20b, 24b; SoR: the prior term is |u(x)|^2, eq 16b),
// since U^T C^-1 U = I - B^-1. Sparse GP regression (phi = sigma^2) and a site-based
// classifier (phi = 1/tau, y = nu/tau) predict with it and save it in their models.
#pragma once

#include <string>

#include <Eigen/Core>

#include "quench/export.h"
#include "quench/inducing_points.h"
#include "quench/kernel.h"
#include "quench/low_rank_evidence.h"
#include "quench/low_rank_prior.h"
#include "quench/model_archive.h"

namespace quench {

struct QUENCH_API LowRankPredictor {
  Eigen::MatrixXd inducing_inputs;  ///< Z (M x d)
  Eigen::MatrixXd inducing_lower;   ///< L
  Eigen::VectorXd weights;          ///< w
  Eigen::MatrixXd b_lower;          ///< L_B
  LowRankForm form = LowRankForm::fitc;

  static LowRankPredictor of(const LowRankPrior& prior, const LowRankGaussianPosterior& posterior);

  /// Mean and variance of the latent f at the rows of X, in row blocks.
  void predict(const Kernel& kernel, const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const;
  /// The same at inputs whose features u(x) are the rows of `features`, with their prior
  /// variances k(x, x) (not read for SoR): for callers that keep the features of fixed inputs.
  void predict_from_features(const Eigen::MatrixXd& features, const Eigen::VectorXd& prior_variance,
                             Eigen::VectorXd& mean, Eigen::VectorXd& variance) const;

  /// Entries <prefix>/inducing_inputs (M x d), <prefix>/inducing_cholesky_lower (M x M),
  /// <prefix>/weights (M), <prefix>/b_cholesky_lower (M x M), <prefix>/form (fitc, vfe, sor).
  void write(ModelArchive& archive, const std::string& prefix) const;
  /// What write() made, for inputs of `dimension` columns; ModelFileError naming the entry
  /// when one is missing, has the wrong shape or is not a Cholesky factor.
  static LowRankPredictor read(ModelArchive& archive, const std::string& prefix,
                               Eigen::Index dimension);
};

}  // namespace quench
