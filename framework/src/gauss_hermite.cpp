#include "quench/gauss_hermite.h"

#include <cmath>
#include <map>
#include <mutex>

#include <Eigen/Eigenvalues>

#include "quench/errors.h"

namespace quench {

// Golub-Welsch: the nodes of the probabilists' Hermite rule are the eigenvalues of the
// symmetric tridiagonal Jacobi matrix with off-diagonal sqrt(k); weights are the squared first
// components of the normalized eigenvectors (the N(0,1) measure has total mass 1).
const GaussHermiteRule& gauss_hermite(int order) {
  if (order < 1 || order > 200)
    throw NumericalError("gauss_hermite",
                         "order must be in [1, 200], got " + std::to_string(order));
  static std::mutex mutex;
  static std::map<int, GaussHermiteRule> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(order);
  if (it != cache.end()) return it->second;
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(order, order);
  for (int k = 1; k < order; ++k) J(k, k - 1) = J(k - 1, k) = std::sqrt(static_cast<double>(k));
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(J);
  GaussHermiteRule rule;
  for (int k = 0; k < order; ++k) {
    rule.nodes.push_back(eig.eigenvalues()(k));
    rule.weights.push_back(eig.eigenvectors()(0, k) * eig.eigenvectors()(0, k));
  }
  return cache.emplace(order, std::move(rule)).first->second;
}

}  // namespace quench
