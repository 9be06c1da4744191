// Inducing inputs for the low-rank (inducing-point) approximation of a GP prior, chosen from
// the training inputs: greedy conditional variance (pivoted Cholesky of the kernel matrix,
// Burt, Rasmussen & van der Wilk 2020, Sec. 5.1 — each pick is the input whose prior
// variance is least explained by the inputs already picked), k-means centres, or a random
// subset. Any kernel works unchanged: only Kernel::cross and Kernel::diagonal are called (of the
// sum of the kernels, for a kernel per class: the inputs explain the variance of f_0 + ... +
// f_{C-1}, one Z for every class).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/export.h"
#include "quench/kernel.h"

namespace quench {

enum class InducingMethod { greedy_variance, kmeans, random };

/// The diagonal-plus-low-rank prior built on the inducing inputs Z (docs/large_n.md):
/// fitc  K~ = diag(K - Q) + Q (Snelson & Ghahramani 2006; the prior variances are exact),
/// vfe   K~ = Q on the training inputs, with Titsias' (2009) trace term in the regression bound,
/// sor   K~ = Q (subset of regressors / DTC), Q = K_nm K_mm^-1 K_mn.
enum class LowRankForm { fitc, vfe, sor };

/// The `inducing:` block of a pipeline.
struct InducingSpec {
  Eigen::Index count = 0;  ///< M, the number of inducing inputs asked for (>= 1)
  InducingMethod method = InducingMethod::greedy_variance;
  LowRankForm form = LowRankForm::fitc;
  /// greedy_variance picks among this many training inputs (a seeded subset; 0: min(N, 10 M)),
  /// k-means clusters that many (0: min(N, 20 M)).
  Eigen::Index candidates = 0;
  int kmeans_iterations = 30;  ///< Lloyd iterations at most
  /// Jitter added to K_mm, relative to the mean of its diagonal (raised tenfold while the
  /// Cholesky fails; the value used is reported).
  double jitter = 1e-8;
};

QUENCH_API std::string to_string(InducingMethod method);
QUENCH_API std::string to_string(LowRankForm form);
/// The form named by to_string's text; nullopt for any other text.
QUENCH_API std::optional<LowRankForm> low_rank_form_named(const std::string& name);

/// The chosen inputs and how they were chosen.
struct QUENCH_API InducingInputs {
  Eigen::MatrixXd Z;  ///< M' x d, M' <= count (greedy stops early when the residual vanishes)
  LowRankForm form = LowRankForm::fitc;
  InducingMethod method = InducingMethod::greedy_variance;
  double jitter = 1e-8;  ///< InducingSpec::jitter
  /// Training rows the inputs were taken from (greedy_variance, random; empty for k-means).
  std::vector<Eigen::Index> rows;
  /// greedy_variance: trace(K - Q) over the candidates after each pick (decreasing).
  Eigen::VectorXd residual_trace;
  Eigen::Index candidates = 0;  ///< how many training inputs the method looked at
};

/// Chooses spec.count inducing inputs among the rows of X (the training inputs, engine units)
/// with the kernel's current hyperparameters; every random choice comes from `seed`. Throws
/// ConfigError for count < 1 or count > number of distinct rows of X (random), count > N.
QUENCH_API InducingInputs select_inducing_inputs(const Kernel& kernel, const Eigen::MatrixXd& X,
                                                 const InducingSpec& spec, std::uint64_t seed);

}  // namespace quench
