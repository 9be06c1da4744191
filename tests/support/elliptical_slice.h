// An independent Monte-Carlo reference for approximate inference in latent Gaussian models:
// draws from p(f | y) ∝ N(f; 0, K) prod_i p(y_i | f_i) by elliptical slice sampling (Murray,
// Adams & MacKay 2010, Fig. 2) and returns the posterior mean and variance of every f_i with
// batch-means standard errors. Test code: dense LLT of K, meant for N up to a few dozen.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "quench/errors.h"
#include "quench/likelihood.h"
#include "quench/rng.h"
#include "quench/target.h"

namespace quench::testing {

/// What to run. The chain makes burn_in + kept * thin updates and keeps the state after every
/// thin-th update past the burn-in.
struct EllipticalSliceOptions {
  std::uint64_t seed = 1;  ///< RngStream(seed, stream): same options, same draws, bit for bit
  std::uint64_t stream = 0;
  Eigen::Index burn_in = 1000;  ///< updates discarded before the first kept draw (>= 0)
  Eigen::Index kept = 10000;    ///< draws kept (a positive multiple of batches)
  Eigen::Index thin = 1;        ///< updates per kept draw (>= 1)
  Eigen::Index batches = 50;    ///< batch count of the batch-means standard errors (>= 2)
  Eigen::VectorXd initial{};    ///< the starting state; empty: f = 0
};

/// How hard the slice search worked, for debugging a sampler that mixes badly. Every update
/// accepts a state in the end; each rejected angle shrinks the bracket once.
struct EllipticalSliceStats {
  Eigen::Index iterations = 0;               ///< updates made, burn-in included
  Eigen::Index likelihood_evaluations = 0;   ///< the one at the start included
  Eigen::Index shrinks = 0;                  ///< bracket shrinks over all updates
  Eigen::Index max_shrinks = 0;              ///< the most shrinks in one update
  Eigen::Index first_proposal_accepted = 0;  ///< updates that took their first angle

  double mean_shrinks() const {
    return iterations ? static_cast<double>(shrinks) / static_cast<double>(iterations) : 0.0;
  }
  double first_proposal_rate() const {
    return iterations
               ? static_cast<double>(first_proposal_accepted) / static_cast<double>(iterations)
               : 0.0;
  }
};

/// Posterior moments of every f_i over the kept draws, with Monte-Carlo standard errors by
/// batch means: the kept draws are cut into `batches` consecutive batches of kept / batches
/// draws; the standard error of an average is the standard deviation of its batch averages
/// over sqrt(batches). The variance is the average of (f_i - mean_i)^2 (divisor kept) and its
/// standard error that of the batch averages of this centred second moment (the delta method:
/// the error of mean_i enters only at second order).
struct EllipticalSliceResult {
  Eigen::VectorXd mean;
  Eigen::VectorXd variance;
  Eigen::VectorXd mean_se;
  Eigen::VectorXd variance_se;
  Eigen::Index kept = 0;
  Eigen::Index batches = 0;
  Eigen::VectorXd last;  ///< the final state of the chain
  EllipticalSliceStats stats;

  /// variance / mean_se^2 per site: the effective number of independent draws.
  Eigen::VectorXd effective_sample_size() const {
    return variance.cwiseQuotient(mean_se.cwiseAbs2());
  }
};

namespace elliptical_slice_detail {

/// Shrinks after which an update gives up: the bracket is then ~2 pi 2^-500 wide, so a finite
/// log-likelihood continuous at f has long accepted (the angle 0 gives back f itself).
inline constexpr Eigen::Index kMaxShrinks = 500;

inline void check_options(const Eigen::MatrixXd& K, const EllipticalSliceOptions& o) {
  const auto fail = [](const std::string& what) {
    throw std::invalid_argument("elliptical_slice: " + what);
  };
  if (K.rows() == 0 || K.rows() != K.cols()) fail("K must be square and non-empty");
  if (o.burn_in < 0) fail("burn_in must be >= 0");
  if (o.thin < 1) fail("thin must be >= 1");
  if (o.batches < 2) fail("batches must be >= 2");
  if (o.kept < o.batches || o.kept % o.batches != 0)
    fail("kept (" + std::to_string(o.kept) + ") must be a positive multiple of batches (" +
         std::to_string(o.batches) + ")");
  if (o.initial.size() != 0 && o.initial.size() != K.rows())
    fail("initial has " + std::to_string(o.initial.size()) + " entries, K has " +
         std::to_string(K.rows()) + " rows");
}

}  // namespace elliptical_slice_detail

/// log p(y | f) summed over the sites, a callable of the whole latent vector f.
template <class F>
concept LatentLogLikelihood = std::is_invocable_r_v<double, F&, const Eigen::VectorXd&>;

/// Elliptical slice sampling (Murray, Adams & MacKay 2010, Fig. 2) of
/// p(f | y) ∝ N(f; 0, K) exp(log_likelihood(f)). K must be symmetric positive definite;
/// prior draws are L z with K = L L^T and z from RngStream::normal. Throws
/// std::invalid_argument for bad options, NumericalError when K is not positive definite, the
/// starting log-likelihood is not finite, or an update cannot find a state (a log-likelihood
/// that is NaN or +inf, or discontinuous at the current state).
template <LatentLogLikelihood LogLikelihood>
EllipticalSliceResult elliptical_slice(const Eigen::MatrixXd& K, LogLikelihood&& log_likelihood,
                                       const EllipticalSliceOptions& options = {}) {
  using elliptical_slice_detail::kMaxShrinks;
  constexpr double two_pi = 2.0 * std::numbers::pi;
  elliptical_slice_detail::check_options(K, options);
  const Eigen::Index n = K.rows();
  const Eigen::LLT<Eigen::MatrixXd> llt(K);
  if (llt.info() != Eigen::Success)
    throw NumericalError("elliptical_slice", "the prior covariance K is not positive definite");
  const Eigen::MatrixXd L = llt.matrixL();

  RngStream rng(options.seed, options.stream);
  Eigen::VectorXd f = options.initial.size() ? options.initial : Eigen::VectorXd::Zero(n);
  double log_l = log_likelihood(f);
  if (!std::isfinite(log_l))
    throw NumericalError("elliptical_slice",
                         "the log-likelihood at the starting state is " + std::to_string(log_l));
  EllipticalSliceResult r;
  EllipticalSliceStats& stats = r.stats;
  stats.likelihood_evaluations = 1;

  Eigen::VectorXd z(n), nu(n), proposal(n);
  const auto update = [&] {
    for (Eigen::Index i = 0; i < n; ++i) z(i) = rng.normal();
    nu.noalias() = L.triangularView<Eigen::Lower>() * z;                     // nu ~ N(0, K)
    const double log_y = log_l + std::log(rng.uniform());                    // the slice level
    double theta = two_pi * rng.uniform(), lo = theta - two_pi, hi = theta;  // the bracket
    for (Eigen::Index shrinks = 0;; ++shrinks) {
      proposal = f * std::cos(theta) + nu * std::sin(theta);
      const double value = log_likelihood(proposal);
      ++stats.likelihood_evaluations;
      if (value > log_y) {
        f.swap(proposal);
        log_l = value;
        stats.shrinks += shrinks;
        if (shrinks > stats.max_shrinks) stats.max_shrinks = shrinks;
        if (shrinks == 0) ++stats.first_proposal_accepted;
        break;
      }
      if (shrinks == kMaxShrinks)
        throw NumericalError("elliptical_slice",
                             "no state accepted after " + std::to_string(kMaxShrinks) +
                                 " bracket shrinks (log-likelihood " + std::to_string(value) + ")");
      (theta < 0 ? lo : hi) = theta;  // shrink towards theta = 0, the current state
      theta = lo + (hi - lo) * rng.uniform();
    }
    ++stats.iterations;
  };

  for (Eigen::Index t = 0; t < options.burn_in; ++t) update();

  // Batch sums of f - c and (f - c)^2, c the state after burn-in (a shift against cancellation).
  const Eigen::Index batches = options.batches, batch_size = options.kept / batches;
  const Eigen::VectorXd c = f;
  Eigen::MatrixXd m1 = Eigen::MatrixXd::Zero(n, batches), m2 = Eigen::MatrixXd::Zero(n, batches);
  for (Eigen::Index k = 0; k < options.kept; ++k) {
    for (Eigen::Index t = 0; t < options.thin; ++t) update();
    const Eigen::Index b = k / batch_size;
    m1.col(b) += f - c;
    m2.col(b) += (f - c).cwiseAbs2();
  }
  m1 /= static_cast<double>(batch_size);
  m2 /= static_cast<double>(batch_size);

  // Batch averages of (f - mean)^2 with the overall mean: m2_b - 2 d m1_b + d^2, d = mean - c.
  const Eigen::VectorXd d = m1.rowwise().mean();
  const Eigen::MatrixXd centred =
      m2 - 2.0 * (m1.array().colwise() * d.array()).matrix() + d.cwiseAbs2().replicate(1, batches);
  const double scale = 1.0 / static_cast<double>(batches * (batches - 1));
  r.mean = c + d;
  r.variance = centred.rowwise().mean();
  r.mean_se = ((m1.colwise() - d).cwiseAbs2().rowwise().sum() * scale).cwiseSqrt();
  r.variance_se =
      ((centred.colwise() - r.variance).cwiseAbs2().rowwise().sum() * scale).cwiseSqrt();
  r.kept = options.kept;
  r.batches = batches;
  r.last = f;
  return r;
}

/// The same for a scalar likelihood: log_likelihood(f) = sum_i likelihood.log_likelihood(
/// observations[i], f_i). observations must have one row per row of K (std::invalid_argument).
inline EllipticalSliceResult elliptical_slice(const Eigen::MatrixXd& K,
                                              const Likelihood& likelihood,
                                              const Observations& observations,
                                              const EllipticalSliceOptions& options = {}) {
  if (observations.rows() != K.rows())
    throw std::invalid_argument("elliptical_slice: " + std::to_string(observations.rows()) +
                                " observations for " + std::to_string(K.rows()) + " latents");
  if (observations.sizes.size() != 0 && observations.sizes.size() != observations.rows())
    throw std::invalid_argument("elliptical_slice: observations.sizes has the wrong length");
  return elliptical_slice(
      K,
      [&](const Eigen::VectorXd& f) {
        double sum = 0.0;
        for (Eigen::Index i = 0; i < f.size(); ++i)
          sum += likelihood.log_likelihood(observations[i], f(i));
        return sum;
      },
      options);
}

}  // namespace quench::testing
