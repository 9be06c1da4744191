// Multi-class GP classification by nested EP with the multinomial probit likelihood
// (Riihimaki, Jylanki & Vehtari, JMLR 14, 2013; docs/multiclass.md): C latent GPs from one kernel
// shared by every class or a kernel per class (quench/class_kernels.h), all between-class couplings
// of the posterior kept (class_posterior.h), parallel damped sweeps whose site updates are the
// likelihood's inner EP (one warm-started inner sweep per outer sweep). The cavities EP computes
// anyway are the leave-one-out predictive of every training point, the multi-class counterpart of
// 001's built-in leave-one-out.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "class_posterior.h"
#include "quench/class_likelihood.h"
#include "quench/inference_engine.h"
#include "quench/parameters.h"

namespace quench::multiclass {

struct MulticlassEpOptions {
  double damping = 0.5;        ///< fraction of a sweep's new sites taken (Anderson beta)
  int acceleration_depth = 5;  ///< sweeps mixed by Anderson acceleration (0: plain damped EP)
  double tol = 1e-9;           ///< max change of posterior means and variances per sweep
  /// tol in learning's evaluations of log Z_EP: its value is stationary in the sites, and the
  /// gradient's error (first order in them) is below what L-BFGS's steps need (multiclass.md).
  double learning_tol = 1e-6;
  int max_iterations = 500;
  int inner_sweeps = 1;  ///< inner EP sweeps per outer sweep (nested EP: 1)
  /// The sweeps' precision while the change exceeds 1e-4 (class_posterior); then full.
  Precision first_precision = Precision::single;
  std::function<void(double)> progress;
};

/// A nested-EP fixed point on N training points of C classes.
struct MulticlassFit {
  std::vector<ClassSite> sites;       ///< N
  ClassPosterior posterior;           ///< of the final sites
  Eigen::MatrixXd cavity_mean;        ///< N x C
  Eigen::MatrixXd cavity_covariance;  ///< C x CN, block i = V_i
  Eigen::VectorXd site_log_z;         ///< N: inner EP log Z_i at the cavity
  Eigen::Index skipped = 0;           ///< site updates skipped (cavity not PD), last sweep
  /// N: how often each point is drawn (a bootstrap retrain), its site counted that often in the
  /// posterior; empty: once each.
  Eigen::VectorXd counts;
  Status status;
};

/// The sites' pi and h on f (N x C each; quench/class_likelihood.h, class_site_form).
void site_forms(const Eigen::VectorXi& y, const std::vector<ClassSite>& sites, Eigen::MatrixXd& pi,
                Eigen::MatrixXd& h);

/// What the posterior sees of a fit's sites: their pi and h times fit.counts. A point drawn k
/// times is k copies of its site on one latent: Pi(k pi) = k Pi(pi) (class_site_form's
/// diag(pi) - pi pi^T / 1^T pi), k h.
void posterior_site_forms(const Eigen::VectorXi& y, const MulticlassFit& fit, Eigen::MatrixXd& pi,
                          Eigen::MatrixXd& h);

/// Nested EP on `prior` for labels y in 0..classes-1 (a class may have no points, e.g. in a
/// leave-one-out retrain), from zero sites or from `warm_start`'s sites (same labels; dropped for
/// zero sites, at the same damping, when a sweep from them moves the posterior by more than a
/// prior sd or their sweeps do not converge); while it does not converge, again from zero
/// sites with half the damping (quench/smaller_steps.h),
/// options.max_iterations bounding all attempts together. With `counts` (N, whole, >= 1), point i
/// is drawn counts(i) times: its likelihood to that power, as copies of one site on its latent
/// (posterior_site_forms), each matched at the cavity of one copy (the posterior without it):
/// the fixed point of EP on counts(i) copies of the point, a bootstrap retrain's.
MulticlassFit solve_multiclass_ep(const ClassPrior& prior, const Eigen::VectorXi& y,
                                  Eigen::Index classes, const ClassLikelihood& lik,
                                  const MulticlassEpOptions& options,
                                  const MulticlassFit* warm_start = nullptr,
                                  const Eigen::VectorXd& counts = Eigen::VectorXd());
/// The same on the exact prior K_c (DenseClassPrior).
MulticlassFit solve_multiclass_ep(const ClassGrams& K, const Eigen::VectorXi& y,
                                  Eigen::Index classes, const ClassLikelihood& lik,
                                  const MulticlassEpOptions& options,
                                  const MulticlassFit* warm_start = nullptr,
                                  const Eigen::VectorXd& counts = Eigen::VectorXd());

/// Throws std::invalid_argument, naming `what`, for a fit on counted points (its log Z_EP and
/// gradient are not those of the data).
void require_points_once(const MulticlassFit& fit, const char* what);

/// log Z_EP of a fit (points once each) on prior K:
///   1/2 h^T mu - 1/2 log det(I + K Pi) + sum_i [log Zhat_i + Phi(cavity_i) - Phi(marginal_i)],
/// Phi(N) = 1/2 eta^T Lambda^{-1} eta - 1/2 log det Lambda the log normalizer of a Gaussian.
double multiclass_log_evidence(const Eigen::VectorXi& y, const MulticlassFit& fit);

/// d log Z_EP / dtheta of the kernels = sum_c sum_ab W_c[a, b] dK_c[a, b]/dtheta with
///   W_c = 1/2 (b_c b_c^T - R_cc),  b = h - Pi mu (= K^{-1} mu),
/// exact at the fixed point (log Z_EP is stationary in the sites there): W_c for every class
/// (per_class, a kernel per class), or one matrix sum_c W_c, which contracts the derivative of
/// one kernel shared by every class (quench/class_kernels.h, class_gram_gradient). A fit
/// (points once each) on the exact prior (DenseClassPrior).
std::vector<Eigen::MatrixXd> multiclass_evidence_weights(const Eigen::VectorXi& y,
                                                         const MulticlassFit& fit, bool per_class);

/// b = h - Pi mu of posterior_site_forms (N x C; K^{-1} mu on the exact prior, where the
/// predictive mean at x is k(x)^T b_c).
Eigen::MatrixXd multiclass_mean_weights(const Eigen::VectorXi& y, const MulticlassFit& fit);

class MulticlassEpEngine final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit MulticlassEpEngine(const Params& params);
  Results run(const Problem& problem) const override;
  /// "evidence" (log Z_EP with its analytic gradient), warm-started from the best fit so far.
  std::vector<std::string> hyperparameter_objectives(const EngineFactory& engines,
                                                     PriorKind prior) const override;
  std::unique_ptr<HyperparameterObjective> hyperparameter_objective(
      const Problem& problem, const std::string& name) const override;
  /// Retrains on bootstrap or subsample counts (ResampledModel::classes() = C): the drawn points,
  /// a point drawn k times counted k times on its one latent (solve_multiclass_ep's counts),
  /// on the exact prior or the run's inducing-point prior, each retrain from zero sites, its
  /// class probabilities at the training and test inputs from its model. Weights that are not
  /// integer counts are refused.
  std::unique_ptr<ResampledModel> prepare_resampling(const Problem& problem) const override;
  /// Retrains on counts, on either prior (C class probabilities, no latent variance).
  Retraining retraining() const override { return {true, false, true, false}; }
  /// The posterior's arrays in memory: C + 3 matrices of N x N on the exact prior
  /// (class_posterior.h: E_c per class, K, B_c's factorization and a work copy); on the
  /// inducing-point prior C matrices of N x M and P^-1, CM x CM.
  void check(const Problem& problem, Eigen::Index inducing_count) const override;
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override;

 private:
  MulticlassEpOptions options_;
};

}  // namespace quench::multiclass
