#include "quench/inducing_points.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include "quench/class_kernels.h"
#include "quench/errors.h"
#include "quench/rng.h"

namespace quench {

std::string to_string(InducingMethod method) {
  switch (method) {
    case InducingMethod::greedy_variance:
      return "greedy_variance";
    case InducingMethod::kmeans:
      return "kmeans";
    case InducingMethod::random:
      return "random";
  }
  return "?";
}

std::string to_string(LowRankForm form) {
  switch (form) {
    case LowRankForm::fitc:
      return "fitc";
    case LowRankForm::vfe:
      return "vfe";
    case LowRankForm::sor:
      return "sor";
  }
  return "?";
}

std::optional<LowRankForm> low_rank_form_named(const std::string& name) {
  for (const LowRankForm form : {LowRankForm::fitc, LowRankForm::vfe, LowRankForm::sor})
    if (to_string(form) == name) return form;
  return std::nullopt;
}

namespace {

// Seeded streams of the selection (distinct from every engine's streams by the salt).
constexpr std::uint64_t kCandidateStream = 0x696e647563000001ULL;
constexpr std::uint64_t kKmeansStream = 0x696e647563000002ULL;

/// `count` distinct rows of 0..n-1 in a seeded random order (partial Fisher-Yates).
std::vector<Eigen::Index> random_rows(Eigen::Index n, Eigen::Index count, std::uint64_t seed,
                                      std::uint64_t stream) {
  std::vector<Eigen::Index> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), Eigen::Index{0});
  RngStream rng(seed, stream);
  for (Eigen::Index i = 0; i < count; ++i) {
    const auto j = i + static_cast<Eigen::Index>(rng.uniform() * static_cast<double>(n - i));
    std::swap(rows[static_cast<std::size_t>(i)],
              rows[static_cast<std::size_t>(std::min(j, n - 1))]);
  }
  rows.resize(static_cast<std::size_t>(count));
  return rows;
}

Eigen::MatrixXd take_rows(const Eigen::MatrixXd& X, const std::vector<Eigen::Index>& rows) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), X.cols());
  for (std::size_t i = 0; i < rows.size(); ++i)
    out.row(static_cast<Eigen::Index>(i)) = X.row(rows[i]);
  return out;
}

/// Pivoted Cholesky of K(Xc, Xc), one column per pick, never forming K: the pick is the
/// candidate of largest residual variance K_ii - Q_ii (Burt et al. 2020, Alg. 1).
void greedy_variance(const Kernel& kernel, const Eigen::MatrixXd& Xc, Eigen::Index count,
                     std::vector<Eigen::Index>& picks, Eigen::VectorXd& residual_trace) {
  const Eigen::Index n = Xc.rows();
  Eigen::VectorXd d = kernel.diagonal(Xc);
  const double scale = d.maxCoeff();
  Eigen::MatrixXd L(n, count);
  std::vector<double> traces;
  std::vector<char> used(static_cast<std::size_t>(n), 0);
  for (Eigen::Index j = 0; j < count; ++j) {
    Eigen::Index p = 0;
    double best = -1;
    for (Eigen::Index i = 0; i < n; ++i)
      if (!used[static_cast<std::size_t>(i)] && d(i) > best) best = d(i), p = i;
    // The remaining inputs lie in the span of the picked ones (duplicates included): a
    // further pick would make K_mm singular.
    if (best <= 1e-12 * scale) break;
    Eigen::VectorXd col = kernel.cross(Xc, Xc.row(p)).col(0);
    if (j > 0) col.noalias() -= L.leftCols(j) * L.row(p).head(j).transpose();
    L.col(j) = col / std::sqrt(best);
    d -= L.col(j).cwiseAbs2();
    d = d.cwiseMax(0.0);
    d(p) = 0;
    used[static_cast<std::size_t>(p)] = 1;
    picks.push_back(p);
    traces.push_back(d.sum());
  }
  residual_trace =
      Eigen::Map<Eigen::VectorXd>(traces.data(), static_cast<Eigen::Index>(traces.size()));
}

/// Squared distances between the rows of A and B.
Eigen::MatrixXd squared_distances(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  Eigen::MatrixXd D = -2.0 * A * B.transpose();
  D.colwise() += A.rowwise().squaredNorm();
  D.rowwise() += B.rowwise().squaredNorm().transpose();
  return D.cwiseMax(0.0);
}

/// k-means++ seeding (Arthur & Vassilvitskii 2007), then Lloyd iterations; an emptied cluster
/// takes the point farthest from its centre.
Eigen::MatrixXd kmeans(const Eigen::MatrixXd& X, Eigen::Index count, int iterations,
                       std::uint64_t seed) {
  const Eigen::Index n = X.rows();
  RngStream rng(seed, kKmeansStream);
  Eigen::MatrixXd C(count, X.cols());
  const auto first =
      std::min(n - 1, static_cast<Eigen::Index>(rng.uniform() * static_cast<double>(n)));
  C.row(0) = X.row(first);
  Eigen::VectorXd nearest = (X.rowwise() - C.row(0)).rowwise().squaredNorm();
  for (Eigen::Index k = 1; k < count; ++k) {
    const double total = nearest.sum();
    Eigen::Index pick = n - 1;
    if (total > 0) {
      double target = rng.uniform() * total, acc = 0;
      for (Eigen::Index i = 0; i < n; ++i) {
        acc += nearest(i);
        if (acc >= target && nearest(i) > 0) {
          pick = i;
          break;
        }
      }
    } else {
      pick = std::min(n - 1, static_cast<Eigen::Index>(rng.uniform() * static_cast<double>(n)));
    }
    C.row(k) = X.row(pick);
    nearest = nearest.cwiseMin((X.rowwise() - C.row(k)).rowwise().squaredNorm());
  }
  std::vector<Eigen::Index> assign(static_cast<std::size_t>(n), -1);
  for (int it = 0; it < iterations; ++it) {
    const Eigen::MatrixXd D = squared_distances(X, C);
    bool changed = false;
    Eigen::VectorXd distance(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      Eigen::Index k;
      distance(i) = D.row(i).minCoeff(&k);
      if (assign[static_cast<std::size_t>(i)] != k) changed = true;
      assign[static_cast<std::size_t>(i)] = k;
    }
    if (!changed) break;
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(count, X.cols());
    Eigen::VectorXd size = Eigen::VectorXd::Zero(count);
    for (Eigen::Index i = 0; i < n; ++i) {
      sum.row(assign[static_cast<std::size_t>(i)]) += X.row(i);
      size(assign[static_cast<std::size_t>(i)]) += 1;
    }
    for (Eigen::Index k = 0; k < count; ++k) {
      if (size(k) > 0) {
        C.row(k) = sum.row(k) / size(k);
      } else {
        Eigen::Index far;
        distance.maxCoeff(&far);
        C.row(k) = X.row(far);
        distance(far) = 0;
      }
    }
  }
  return C;
}

}  // namespace

InducingInputs select_inducing_inputs(const Kernel& kernel, const Eigen::MatrixXd& X,
                                      const InducingSpec& spec, std::uint64_t seed) {
  const Eigen::Index n = X.rows();
  if (spec.count < 1)
    throw ConfigError({}, "inducing.count must be >= 1, got " + std::to_string(spec.count));
  if (spec.count > n)
    throw ConfigError({}, "inducing.count = " + std::to_string(spec.count) + " is more than the " +
                              std::to_string(n) + " training rows; use at most " +
                              std::to_string(n) + " (count = N is the exact GP)");
  InducingInputs out;
  out.form = spec.form;
  out.method = spec.method;
  out.jitter = spec.jitter;
  const auto auto_candidates = [&](Eigen::Index factor) {
    const Eigen::Index c = spec.candidates > 0 ? spec.candidates : factor * spec.count;
    return std::clamp(c, spec.count, n);
  };
  switch (spec.method) {
    case InducingMethod::greedy_variance: {
      const Eigen::Index c = auto_candidates(10);
      const auto rows = random_rows(n, c, seed, kCandidateStream);
      std::vector<Eigen::Index> picks;
      // A kernel per class: the variance of f_0 + ... + f_{C-1}, whose kernel is their sum.
      const auto* per_class = dynamic_cast<const ClassKernels*>(&kernel);
      greedy_variance(
          per_class ? static_cast<const Kernel&>(KernelSum(per_class->parts())) : kernel,
          take_rows(X, rows), spec.count, picks, out.residual_trace);
      for (Eigen::Index p : picks) out.rows.push_back(rows[static_cast<std::size_t>(p)]);
      out.candidates = c;
      break;
    }
    case InducingMethod::kmeans: {
      const Eigen::Index c = auto_candidates(20);
      const Eigen::MatrixXd sample = take_rows(X, random_rows(n, c, seed, kCandidateStream));
      out.Z = kmeans(sample, spec.count, spec.kmeans_iterations, seed);
      out.candidates = c;
      return out;
    }
    case InducingMethod::random: {
      // Distinct inputs only: a repeated input would make K_mm singular.
      std::set<std::vector<double>> seen;
      for (Eigen::Index r : random_rows(n, n, seed, kCandidateStream)) {
        std::vector<double> key(static_cast<std::size_t>(X.cols()));
        for (Eigen::Index j = 0; j < X.cols(); ++j) key[static_cast<std::size_t>(j)] = X(r, j);
        if (!seen.insert(std::move(key)).second) continue;
        out.rows.push_back(r);
        if (static_cast<Eigen::Index>(out.rows.size()) == spec.count) break;
      }
      if (static_cast<Eigen::Index>(out.rows.size()) < spec.count)
        throw ConfigError({}, "inducing.count = " + std::to_string(spec.count) +
                                  " is more than the " + std::to_string(out.rows.size()) +
                                  " distinct training inputs");
      out.candidates = n;
      break;
    }
  }
  out.Z = take_rows(X, out.rows);
  return out;
}

}  // namespace quench
