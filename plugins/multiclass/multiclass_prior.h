// The prior a multiclass_ep run or evidence evaluation works on, chosen once (docs/design.md,
// "One prior strategy"): the exact prior K, or the inducing-point prior K~ when the pipeline
// has `inducing:` (inducing_class_posterior.h, docs/multiclass.md). Each gives the sweeps
// their ClassPrior, the gradient of log Z_EP in the kernel's hyperparameters at a fit, and the
// model of a fit; the engine (multiclass_engine.cpp) is written once for both.
#pragma once

#include <memory>
#include <string>

#include <Eigen/Core>

#include "class_posterior.h"
#include "multiclass_ep.h"
#include "quench/inference_engine.h"
#include "quench/kernel.h"
#include "quench/low_rank_prior.h"

namespace quench::multiclass {

class MulticlassPrior {
 public:
  virtual ~MulticlassPrior();
  /// What the nested-EP sweeps see (solve_multiclass_ep).
  virtual const ClassPrior& classes() const = 0;
  /// d log Z_EP / dtheta of the kernel at a converged fit (points once each) with labels y.
  virtual Eigen::VectorXd evidence_gradient(const Eigen::VectorXi& y,
                                            const MulticlassFit& fit) const = 0;
  /// The model, with `kernel` (this prior's) and `likelihood`, of a fit with labels y on the
  /// prior's inputs.
  virtual std::shared_ptr<const Model> model(std::shared_ptr<const Kernel> kernel,
                                             std::shared_ptr<const Likelihood> likelihood,
                                             const Eigen::VectorXi& y,
                                             const MulticlassFit& fit) const = 0;
  /// Appended to the method's description ("" for the exact prior).
  virtual std::string where() const = 0;
};

/// The prior of `kernel` (prepared) at the training inputs X: on `inducing` when it is set, else
/// the exact prior (DenseClassPrior), its per-class work on the run's `threads` where BLAS runs
/// on one thread (below kMultithreadedBlasRows rows, or --blas-threads 1) outside any unit, and
/// in turn otherwise: inside a unit (a retrain, a fold: the units are the parallel work) and
/// where the factorizations have BLAS threads of their own. Either way the same bits for any
/// `threads`. Refers to kernel and X.
std::unique_ptr<MulticlassPrior> make_multiclass_prior(const Kernel& kernel,
                                                       const Eigen::MatrixXd& X,
                                                       const InducingInputs* inducing, int threads);

}  // namespace quench::multiclass
