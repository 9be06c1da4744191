#include "wbb_linear.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>

#include "quench/draw_summary.h"
#include "quench/errors.h"
#include "quench/parallel.h"
#include "quench/rng.h"
#include "quench/units.h"

namespace quench::wbb {

PenaltyWeights penalty_weights_from_string(const std::string& s) {
  if (s == "common") return PenaltyWeights::common;
  if (s == "separate") return PenaltyWeights::separate;
  if (s == "none") return PenaltyWeights::none;
  throw ConfigError({}, "penalty_weights must be common, separate or none, got '" + s + "'");
}

namespace {

WeightedLeastSquares make_problem(const LinearSpec& spec, Eigen::VectorXd weights,
                                  Eigen::VectorXd penalty) {
  WeightedLeastSquares p;
  p.X = spec.X;
  p.y = spec.y;
  p.weights = std::move(weights);
  p.penalty = std::move(penalty);
  p.l1_ratio = spec.l1_ratio;
  p.intercept = spec.intercept;
  return p;
}

// lambda_max of the elastic net (glmnet: the LASSO value divided by max(alpha, 1e-3)).
double path_start(const WeightedLeastSquares& p, const Eigen::VectorXd& factors) {
  return lasso_lambda_max(p, factors) / std::max(p.l1_ratio, 1e-3);
}

Eigen::VectorXd log_path(double from, double to, int length) {
  Eigen::VectorXd path(length);
  for (int i = 0; i < length; ++i)
    path(i) = length == 1
                  ? to
                  : std::exp(std::log(from) + (std::log(to) - std::log(from)) * i / (length - 1.0));
  return path;
}

}  // namespace

CrossValidation cross_validate(const PenalizedSolver& solver, const LinearSpec& spec, int folds,
                               int path_length, double min_ratio, std::uint64_t seed, int threads) {
  const Eigen::Index n = spec.X->rows(), p = spec.X->cols();
  if (folds < 2 || folds > n) throw ConfigError({}, "cv_folds must be in [2, n]");
  const Eigen::VectorXd ones_p = Eigen::VectorXd::Ones(p);
  const double lmax = path_start(make_problem(spec, Eigen::VectorXd::Ones(n), ones_p), ones_p);
  if (!(lmax > 0)) throw NumericalError("wbb", "lambda_max is zero (y constant?)");
  CrossValidation cv;
  cv.lambdas = log_path(lmax, lmax * min_ratio, path_length);
  // Fold of each row: a seeded permutation dealt round-robin.
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  RngStream rng(seed, kCrossValidationStream);
  for (Eigen::Index i = n - 1; i > 0; --i) {
    const auto j = static_cast<Eigen::Index>(rng.uniform() * static_cast<double>(i + 1));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(std::min(j, i))]);
  }
  Eigen::VectorXi fold(n);
  for (Eigen::Index i = 0; i < n; ++i) fold(order[static_cast<std::size_t>(i)]) = i % folds;

  Eigen::MatrixXd sse(path_length, folds);
  Eigen::VectorXd count(folds);
  parallel_for(static_cast<std::size_t>(folds), threads, [&](std::size_t f) {
    const int k = static_cast<int>(f);
    const Eigen::VectorXd w = (fold.array() != k).cast<double>();
    count(k) = n - w.sum();
    PenalizedSolution sol;
    for (int l = 0; l < path_length; ++l) {
      solver.solve(make_problem(spec, w, cv.lambdas(l) * ones_p), sol);
      const Eigen::VectorXd r = (*spec.y - *spec.X * sol.beta).array() - sol.intercept;
      sse(l, k) = (1.0 - w.array()).matrix().dot(r.cwiseProduct(r));
    }
  });
  // Per-fold MSE; the CV error is their mean, its standard error their sd / sqrt(K).
  const Eigen::MatrixXd mse = sse.array().rowwise() / count.transpose().array();
  cv.error = mse.rowwise().mean();
  cv.error_sd = ((mse.colwise() - cv.error).rowwise().squaredNorm() / (folds - 1.0) / double(folds))
                    .cwiseSqrt();
  Eigen::Index best;
  cv.error.minCoeff(&best);
  cv.lambda_min = cv.lambdas(best);
  const double bound = cv.error(best) + cv.error_sd(best);
  cv.lambda_1se = cv.lambda_min;
  for (Eigen::Index l = 0; l <= best; ++l)
    if (cv.error(l) <= bound) {
      cv.lambda_1se = cv.lambdas(l);
      break;
    }
  return cv;
}

PenalizedSolution cold_path_fit(const PenalizedSolver& solver, const WeightedLeastSquares& problem,
                                const Eigen::VectorXd& factors, int path_length, int* sweeps) {
  // The target penalties are lambda * factors; the path scales them from lambda_max down.
  double lambda = 0;
  for (Eigen::Index j = 0; j < factors.size(); ++j)
    if (factors(j) > 0) lambda = std::max(lambda, problem.penalty(j) / factors(j));
  const double lmax = std::max(path_start(problem, factors), lambda);
  const Eigen::VectorXd path = log_path(lmax, lambda, path_length);
  PenalizedSolution sol;
  WeightedLeastSquares q = problem;
  // As glmnet: the weighted Gram matrix is formed once for the whole path.
  const bool gram = solver.uses_gram(problem.X->rows(), problem.X->cols());
  const WeightedGram S =
      gram ? weighted_gram(*problem.X, *problem.y, problem.weights) : WeightedGram{};
  int total = 0;
  for (int l = 0; l < path_length; ++l) {
    q.penalty = path(l) * factors;
    total += (gram ? solver.solve(q, S, sol) : solver.solve(q, sol)).iterations;
  }
  if (sweeps) *sweeps = total;
  return sol;
}

LinearDraws linear_draws(const PenalizedSolver& solver, const LinearSpec& spec, double lambda,
                         const Resampler& resampler, PenaltyWeights mode,
                         const PenalizedSolution& start, bool warm, Eigen::Index T,
                         std::uint64_t seed, const RunContext& context) {
  const Eigen::Index n = spec.X->rows(), p = spec.X->cols();
  // Draws go in fixed blocks of kBlock, one unit each; with a covariance-form solver the
  // weighted statistics of a whole block are ONE matrix product Z^T W (BatchedWeightedGram).
  // Block boundaries do not depend on the thread or process count and every block runs the
  // same operations, so the draws are bitwise identical for any of them. A unit's output: per
  // draw of the block, beta (p), the intercept, the solver's sweeps and whether it failed.
  constexpr Eigen::Index kBlock = 32;
  const Eigen::Index stride = p + 3;
  const bool gram = solver.uses_gram(n, p);
  std::unique_ptr<BatchedWeightedGram> batched;
  if (gram) batched = std::make_unique<BatchedWeightedGram>(*spec.X, *spec.y);
  const Eigen::Index blocks = (T + kBlock - 1) / kBlock;
  const UnitOutputs units = map_units(
      static_cast<std::size_t>(blocks), kBlock * stride, context,
      [&](std::size_t blk, Eigen::Ref<Eigen::VectorXd> out, std::string&) {
        const Eigen::Index first = static_cast<Eigen::Index>(blk) * kBlock;
        const Eigen::Index B = std::min(kBlock, T - first);
        Eigen::MatrixXd W(n, B), F(p, B);
        for (Eigen::Index b = 0; b < B; ++b) {
          RngStream rng(seed, static_cast<std::uint64_t>(first + b));
          W.col(b) = resampler.sample(rng);
          if (mode == PenaltyWeights::common)
            F.col(b).setConstant(exponential_draws(rng, 1)(0));
          else if (mode == PenaltyWeights::separate)
            F.col(b) = exponential_draws(rng, p);
          else
            F.col(b).setOnes();
        }
        Eigen::MatrixXd S;
        if (gram) S = batched->products(W);
        for (Eigen::Index b = 0; b < B; ++b) {
          PenalizedSolution sol;
          if (warm) sol = start;
          const WeightedLeastSquares problem = make_problem(spec, W.col(b), lambda * F.col(b));
          const auto report =
              gram ? solver.solve(problem, batched->unpack(S, b), sol) : solver.solve(problem, sol);
          auto draw = out.segment(b * stride, stride);
          draw.head(p) = sol.beta;
          draw(p) = sol.intercept;
          draw(p + 1) = report.iterations;
          draw(p + 2) = report.converged ? 0.0 : 1.0;
        }
      });
  LinearDraws d;
  d.beta.resize(T, p);
  d.intercept.resize(T);
  d.sweeps.resize(T);
  for (Eigen::Index t = 0; t < T; ++t) {
    const auto draw = units.values.col(t / kBlock).segment((t % kBlock) * stride, stride);
    d.beta.row(t) = draw.head(p).transpose();
    d.intercept(t) = draw(p);
    d.sweeps(t) = draw(p + 1);
    d.not_converged += draw(p + 2) != 0.0;
  }
  return d;
}

void simulation_data(const Eigen::VectorXd& beta, Eigen::Index n, RngStream& rng,
                     Eigen::MatrixXd& X, Eigen::VectorXd& y, Eigen::MatrixXd& Xt,
                     Eigen::VectorXd& yt) {
  const Eigen::Index p = beta.size();
  auto design = [&](Eigen::MatrixXd& M) {
    M.resize(n, p);
    for (Eigen::Index i = 0; i < n; ++i) {
      M(i, 0) = std::sqrt(0.1) * rng.normal();
      for (Eigen::Index j = 1; j < p; ++j)
        M(i, j) = 0.8 * M(i, j - 1) + std::sqrt(0.1 * (1 - 0.64)) * rng.normal();
    }
  };
  design(X);
  design(Xt);
  const Eigen::VectorXd f = X * beta;
  const double sigma = std::sqrt(f.squaredNorm() / (2.0 * double(n)));
  y = f;
  for (Eigen::Index i = 0; i < n; ++i) y(i) += sigma * rng.normal();
  yt = Xt * beta;
  for (Eigen::Index i = 0; i < n; ++i) yt(i) += sigma * rng.normal();
}

TrendDraws trend_draws(const PenalizedSolver& solver, const Eigen::VectorXd& y, int order,
                       double lambda, const Resampler& resampler, PenaltyWeights mode,
                       const PenalizedSolution& start, bool warm, Eigen::Index T,
                       std::uint64_t seed, const RunContext& context) {
  if (mode == PenaltyWeights::separate)
    throw ConfigError({},
                      "trend filtering's penalty ||D beta||_1 is not separable in beta: "
                      "use penalty_weights common or none");
  const Eigen::Index n = y.size();
  // One unit per draw: beta (n), the solver's iterations and whether it failed.
  const UnitOutputs units = map_units(
      static_cast<std::size_t>(T), n + 2, context,
      [&](std::size_t t, Eigen::Ref<Eigen::VectorXd> out, std::string&) {
        RngStream rng(seed, t);
        TrendFilteringProblem prob;
        prob.y = &y;
        prob.weights = resampler.sample(rng);
        prob.order = order;
        prob.lambda =
            lambda * (mode == PenaltyWeights::common ? exponential_draws(rng, 1)(0) : 1.0);
        PenalizedSolution sol;
        if (warm) sol = start;
        const auto report = solver.solve(prob, sol);
        out.head(n) = sol.beta;
        out(n) = report.iterations;
        out(n + 1) = report.converged ? 0.0 : 1.0;
      });
  TrendDraws d;
  d.beta = units.values.topRows(n).transpose();
  d.iterations = units.values.row(n).transpose();
  d.not_converged = static_cast<int>((units.values.row(n + 1).array() != 0.0).count());
  return d;
}

}  // namespace quench::wbb
