#include "weighted_kernel.h"

#include <cmath>

#include "quench/errors.h"

namespace quench::kernels {
namespace {

Hyperparameter scalar(const char* name, double value, double lower) {
  Hyperparameter h;
  h.name = name;
  h.value = Eigen::VectorXd::Constant(1, value);
  h.lower = lower;
  h.upper = 1e6;
  h.log_scale = true;
  return h;
}

}  // namespace

WeightedKernel::WeightedKernel(const Params& p, bool has_amplitude)
    : weights_(p),
      has_amplitude_(has_amplitude),
      v0_(has_amplitude ? p.real("amplitude") : 1.0),
      v1_(p.real("bias")),
      v2_(p.real("noise")) {}

Eigen::MatrixXd WeightedKernel::cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const {
  Eigen::MatrixXd K = shape(A, B, weights_.weights(A.cols()));
  K.array() = v0_ * K.array() + v1_;
  return K;
}

Eigen::VectorXd WeightedKernel::diagonal(const Eigen::MatrixXd& X) const {
  return (v0_ * shape_diagonal(X, weights_.weights(X.cols())).array() + v1_).matrix();
}

std::vector<Hyperparameter> WeightedKernel::hyperparameters() const {
  std::vector<Hyperparameter> blocks{weights_.hyperparameter()};
  if (has_amplitude_) blocks.push_back(scalar("amplitude", v0_, 1e-6));
  blocks.push_back(scalar("bias", v1_, 1e-10));
  blocks.push_back(scalar("noise", v2_, 1e-10));
  return blocks;
}

void WeightedKernel::set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) {
  if (name == weights_.hyperparameter().name) return weights_.set(value);
  double* target = name == "bias"                            ? &v1_
                   : name == "noise"                         ? &v2_
                   : (name == "amplitude" && has_amplitude_) ? &v0_
                                                             : nullptr;
  if (!target) return Kernel::set_hyperparameter(name, value);  // names the blocks
  if (value.size() != 1)
    throw ConfigError({}, "kernel hyperparameter '" + name + "' has 1 entry, got " +
                              std::to_string(value.size()));
  if (!(value(0) >= 0 && std::isfinite(value(0))))
    throw ConfigError({}, "kernel hyperparameter '" + name + "' must be finite and >= 0");
  *target = value(0);
}

Eigen::MatrixXd WeightedKernel::cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                                 Eigen::Index j) const {
  const Eigen::VectorXd& w = weights_.weights(A.cols());
  const Eigen::Index p = weights_.hyperparameter().value.size();
  const Eigen::Index n = p + (has_amplitude_ ? 3 : 2);
  if (j < 0 || j >= n)
    throw ConfigError({}, "kernel hyperparameter entry " + std::to_string(j) +
                              " is outside the flat vector of " + std::to_string(n) + " entries");
  if (j < p) return weight_derivative(A, B, w, weights_.weight_derivative(j));
  const Eigen::Index k = j - p + (has_amplitude_ ? 0 : 1);  // 0 amplitude, 1 bias, 2 noise
  if (k == 0) return shape(A, B, w);
  if (k == 1) return Eigen::MatrixXd::Ones(A.rows(), B.rows());
  return Eigen::MatrixXd::Zero(A.rows(), B.rows());  // noise: gram_derivative adds I
}

Eigen::VectorXd WeightedKernel::cross_derivative_contractions(const Eigen::MatrixXd& A,
                                                              const Eigen::MatrixXd& B,
                                                              const Eigen::MatrixXd& W) const {
  const Contractions c = contractions(A, B, W, weights_.weights(A.cols()));
  const Eigen::VectorXd g = weights_.chain(c.weights);
  Eigen::VectorXd out(g.size() + (has_amplitude_ ? 3 : 2));
  out.head(g.size()) = g;
  Eigen::Index k = g.size();
  if (has_amplitude_) out(k++) = c.shape;
  out(k++) = W.sum();  // bias
  out(k) = 0.0;        // noise
  return out;
}

}  // namespace quench::kernels
