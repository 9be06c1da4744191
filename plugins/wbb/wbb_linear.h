// The WBB for penalized linear models and trend filtering (004 eq 4, Algorithm 1), written
// against the PenalizedSolver interface so the engine, the reproduction tool and the
// benchmark share one implementation.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/inference_engine.h"
#include "quench/penalized_solver.h"
#include "quench/resampler.h"
#include "quench/rng.h"

namespace quench::wbb {

/// How the penalty is weighted in draw t (004 Sec. 2.4): one common w_0, separate w_{0,j}
/// per coordinate, or none (w_0 = 1: the weighted likelihood bootstrap with a fixed prior).
enum class PenaltyWeights { common, separate, none };
PenaltyWeights penalty_weights_from_string(const std::string& s);

/// The stream of fold assignments (distinct from the draw streams 0..T-1).
inline constexpr std::uint64_t kCrossValidationStream = 0xC055'7A11'DA7E'0000ULL;

struct LinearSpec {
  const Eigen::MatrixXd* X = nullptr;
  const Eigen::VectorXd* y = nullptr;
  double l1_ratio = 1.0;
  bool intercept = true;
};

struct CrossValidation {
  Eigen::VectorXd lambdas, error, error_sd;  ///< path (decreasing) and K-fold CV MSE +- se
  double lambda_min = 0, lambda_1se = 0;
};

/// K-fold cross-validation of the unweighted problem over a log-spaced path of `path_length`
/// lambdas from lambda_max down to lambda_max * min_ratio (004 Sec. 2.4, 3.2), warm-started
/// along the path; folds run in parallel, each from its own fixed assignment.
CrossValidation cross_validate(const PenalizedSolver& solver, const LinearSpec& spec, int folds,
                               int path_length, double min_ratio, std::uint64_t seed, int threads);

/// Solves the weighted problem on a lambda path from lambda_max down to `lambda` starting at
/// zero: what a path solver does for one fit ("cold" fit; the benchmark's unit).
PenalizedSolution cold_path_fit(const PenalizedSolver& solver, const WeightedLeastSquares& problem,
                                const Eigen::VectorXd& penalty_factors, int path_length,
                                int* sweeps = nullptr);

struct LinearDraws {
  Eigen::MatrixXd beta;       ///< T x p
  Eigen::VectorXd intercept;  ///< T
  Eigen::VectorXd sweeps;     ///< solver iterations per draw
  int not_converged = 0;
};

/// T WBB draws at a fixed lambda: draw t uses RngStream(seed, t): data weights from the
/// resampler, then the penalty weights w_0 (Exp(1)) from the same stream. Every draw is
/// warm-started from `start` (the unweighted solution) when `warm`, else from zero, so results
/// are identical for any thread or process count (the draws are units of the context's
/// executor, quench/units.h, in fixed blocks).
LinearDraws linear_draws(const PenalizedSolver& solver, const LinearSpec& spec, double lambda,
                         const Resampler& resampler, PenaltyWeights mode,
                         const PenalizedSolution& start, bool warm, Eigen::Index T,
                         std::uint64_t seed, const RunContext& context);

/// One data set of the 004 Sec. 3.1 simulation design: rows of X ~ N(0, Sigma) with
/// Sigma_ij = 0.1 0.8^|i-j| (an AR(1) recursion), y = X beta + e, e ~ N(0, sigma^2) with
/// sigma^2 = |X beta|^2 / (2n) (signal-to-noise ratio 2), and a test set (Xt, yt) of the same size.
void simulation_data(const Eigen::VectorXd& beta, Eigen::Index n, RngStream& rng,
                     Eigen::MatrixXd& X, Eigen::VectorXd& y, Eigen::MatrixXd& Xt,
                     Eigen::VectorXd& yt);

struct TrendDraws {
  Eigen::MatrixXd beta;  ///< T x n
  Eigen::VectorXd iterations;
  int not_converged = 0;
};

/// T WBB draws of weighted trend filtering (004 Sec. 3.3) with a common w_0 (or none), one
/// unit of the context's executor each.
TrendDraws trend_draws(const PenalizedSolver& solver, const Eigen::VectorXd& y, int order,
                       double lambda, const Resampler& resampler, PenaltyWeights mode,
                       const PenalizedSolution& start, bool warm, Eigen::Index T,
                       std::uint64_t seed, const RunContext& context);

}  // namespace quench::wbb
