// The flat hyperparameter vector and the default (no hyperparameters, or derivative by
// definition) implementations of the hyperparameter parts of Kernel, Likelihood and
// InferenceEngine.
#include "quench/hyperparameter.h"

#include <string>

#include "quench/errors.h"
#include "quench/hyperparameter_objective.h"
#include "quench/inference_engine.h"
#include "quench/kernel.h"
#include "quench/likelihood.h"

namespace quench {

Eigen::Index flat_size(const std::vector<Hyperparameter>& blocks) {
  Eigen::Index n = 0;
  for (const Hyperparameter& h : blocks) n += h.value.size();
  return n;
}

Eigen::Index flat_offset(const std::vector<Hyperparameter>& blocks, const std::string& name) {
  Eigen::Index offset = 0;
  for (const Hyperparameter& h : blocks) {
    if (h.name == name) return offset;
    offset += h.value.size();
  }
  return -1;
}

const Hyperparameter* find_hyperparameter(const std::vector<Hyperparameter>& blocks,
                                          const std::string& name) {
  for (const Hyperparameter& h : blocks)
    if (h.name == name) return &h;
  return nullptr;
}

namespace {

std::string names_of(const std::vector<Hyperparameter>& blocks) {
  std::string names;
  for (const Hyperparameter& h : blocks) names += (names.empty() ? "" : ", ") + h.name;
  return names.empty() ? "none" : names;
}

}  // namespace

void Kernel::set_hyperparameter(const std::string& name, const Eigen::VectorXd& /*value*/) {
  throw ConfigError({}, "this kernel has no learnable hyperparameter '" + name +
                            "' (it has: " + names_of(hyperparameters()) + ")");
}

Eigen::MatrixXd Kernel::cross_derivative(const Eigen::MatrixXd& /*A*/, const Eigen::MatrixXd& /*B*/,
                                         Eigen::Index /*j*/) const {
  throw ConfigError({}, "this kernel has no learnable hyperparameters");
}

Eigen::VectorXd Kernel::cross_derivative_contractions(const Eigen::MatrixXd& A,
                                                      const Eigen::MatrixXd& B,
                                                      const Eigen::MatrixXd& W) const {
  const Eigen::Index n = flat_size(hyperparameters());
  Eigen::VectorXd g(n);
  for (Eigen::Index j = 0; j < n; ++j) g(j) = W.cwiseProduct(cross_derivative(A, B, j)).sum();
  return g;
}

Eigen::VectorXd Kernel::diagonal_derivative_contractions(const Eigen::MatrixXd& X,
                                                         const Eigen::VectorXd& w) const {
  Eigen::VectorXd g = Eigen::VectorXd::Zero(flat_size(hyperparameters()));
  Eigen::MatrixXd weight(1, 1);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    if (w(i) == 0) continue;
    weight(0, 0) = w(i);
    g += cross_derivative_contractions(X.row(i), X.row(i), weight);
  }
  return g;
}

Eigen::VectorXd Kernel::diagonal_noise_derivative() const {
  const auto blocks = hyperparameters();
  Eigen::VectorXd d = Eigen::VectorXd::Zero(flat_size(blocks));
  if (const Eigen::Index noise = flat_offset(blocks, "noise"); noise >= 0) d(noise) = 1.0;
  return d;
}

Eigen::MatrixXd Kernel::gram_derivative(const Eigen::MatrixXd& X, Eigen::Index j) const {
  Eigen::MatrixXd D = cross_derivative(X, X, j);
  D.diagonal().array() += diagonal_noise_derivative()(j);
  return D;
}

Eigen::VectorXd Kernel::gram_derivative_contractions(const Eigen::MatrixXd& X,
                                                     const Eigen::MatrixXd& W) const {
  return cross_derivative_contractions(X, X, W) + W.trace() * diagonal_noise_derivative();
}

void Likelihood::set_hyperparameter(const std::string& name, const Eigen::VectorXd& /*value*/) {
  throw ConfigError({}, "this likelihood has no learnable hyperparameter '" + name +
                            "' (it has: " + names_of(hyperparameters()) + ")");
}

HyperparameterObjective::~HyperparameterObjective() = default;

std::unique_ptr<HyperparameterObjective> InferenceEngine::hyperparameter_objective(
    const Problem& /*problem*/, const std::string& name) const {
  throw ConfigError({}, "this engine offers no hyperparameter objective '" + name + "'");
}

}  // namespace quench
