// The GP classifiers retrained on bootstrap samples (mc_bootstrap's inner engines): a sample is
// the occupation counts k_i of the training points, point i entering the posterior as
// p(y_i | f_i)^{k_i} on the latent of the kernel (000 eq 14; the classification guide's eq 2:
// one site with k-fold tilted moments, not k sites sharing one latent), k_i = 0 dropping it.
#pragma once

#include <functional>
#include <memory>

#include "classifier_common.h"

namespace quench::gp_classification {

/// Fits one sample: the drawn points' covariance C (diagonal noise included), their labels
/// t = +-1 and counts k >= 1; returns t o alpha, the coefficients of the posterior mean
/// <f(x)> = sum_i C(x, x_i) t_i alpha_i. Throws NumericalError when the fit fails.
using CountedFit = std::function<Eigen::VectorXd(const Eigen::MatrixXd& C, const Eigen::VectorXd& t,
                                                 const Eigen::VectorXi& counts)>;

/// A ResampledModel over the problem's training labels (class_labels) whose predict(weights)
/// takes the counts k_i = weights_i (non-negative integers; ConfigError otherwise), fits the
/// drawn points with `fit` and returns <f> at the training inputs, then the test inputs (the
/// kernel's cross(), without its diagonal noise). A kernel expansion: the coefficients are
/// t o alpha at the drawn points, 0 elsewhere. The kernel matrices are formed once.
std::unique_ptr<ResampledModel> make_resampled_classifier(const Problem& problem,
                                                          const char* engine, CountedFit fit);

}  // namespace quench::gp_classification
