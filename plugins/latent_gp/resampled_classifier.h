// The latent GPs retrained on bootstrap samples (mc_bootstrap's inner engines): a sample is the
// occupation counts k_i of the training points, point i entering the posterior as
// p(y_i | f_i)^{k_i} on the latent of the kernel (000 eq 14; the classification guide's eq 2:
// one site with k-fold tilted moments, not k sites sharing one latent), k_i = 0 dropping it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "quench/drawn_points.h"
#include "site_algebra.h"

namespace quench::latent_gp {

/// One sample's fit: the slopes u, the coefficients of the posterior mean
/// <f(x)> = sum_i C(x, x_i) u_i (001's t_i alpha_i), and for a Gaussian latent posterior (EP,
/// TAP) its site precisions tau_i = 1/Omega_i (empty otherwise).
struct CountedFitResult {
  Eigen::VectorXd slope;
  Eigen::VectorXd tau;
};

/// Fits one sample: the drawn points' covariance C (diagonal noise included), their
/// observations and counts k >= 1. Throws NumericalError when the fit fails.
using CountedFit = std::function<CountedFitResult(const Eigen::MatrixXd& C, const Observations& y,
                                                  const Eigen::VectorXi& counts)>;

/// A ResampledModel over the training observations `y` whose predict(weights) takes the counts
/// k_i = weights_i (drawn_points), fits the drawn points with `fit` and returns <f> at the
/// training inputs, then the test inputs (the kernel's cross(), without its diagonal noise). A
/// kernel expansion: the coefficients are u at the drawn points, 0 elsewhere. The kernel
/// matrices are formed once. With `latent_posterior` (the fit returns tau) it offers
/// latent_variance(): lambda(x) of 001 eq 27 with the retrain's sites (the variance the
/// engines' own models predict).
std::unique_ptr<ResampledModel> make_resampled_classifier(const Problem& problem,
                                                          const char* engine, Observations y,
                                                          CountedFit fit, bool latent_posterior);

}  // namespace quench::latent_gp
