#include "weighted_kernel.h"

#include "scalar_hyperparameters.h"

namespace quench::kernels {

WeightedKernel::WeightedKernel(const Params& p, bool has_amplitude)
    : weights_(p),
      has_amplitude_(has_amplitude),
      v0_(has_amplitude ? p.real("amplitude") : 1.0),
      v1_(p.real("bias")),
      v2_(p.real("noise")) {}

void WeightedKernel::add_shape_parameter(const std::string& name, double value, double lower,
                                         double upper) {
  parameters_.push_back(scalar_block(name, value, lower, upper));
}

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
  if (has_amplitude_) blocks.push_back(scalar_block("amplitude", v0_, 1e-6, 1e6));
  blocks.push_back(scalar_block("bias", v1_, 1e-10, 1e6));
  blocks.push_back(scalar_block("noise", v2_, 1e-10, 1e6));
  blocks.insert(blocks.end(), parameters_.begin(), parameters_.end());
  return blocks;
}

void WeightedKernel::set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) {
  if (name == weights_.hyperparameter().name) return weights_.set(value);
  for (Hyperparameter& h : parameters_)
    if (h.name == name) {
      h.value(0) = checked_scalar(name, value, true);
      return;
    }
  double* target = name == "bias"                            ? &v1_
                   : name == "noise"                         ? &v2_
                   : (name == "amplitude" && has_amplitude_) ? &v0_
                                                             : nullptr;
  if (!target) return Kernel::set_hyperparameter(name, value);  // names the blocks
  *target = checked_scalar(name, value, false);
}

Eigen::MatrixXd WeightedKernel::cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                                 Eigen::Index j) const {
  const Eigen::VectorXd& w = weights_.weights(A.cols());
  const Eigen::Index p = weights_.hyperparameter().value.size();
  const Eigen::Index scalars = has_amplitude_ ? 3 : 2;  // [amplitude,] bias, noise
  check_flat_entry(j, p + scalars + Eigen::Index(parameters_.size()));
  if (j < p) return weight_derivative(A, B, w, weights_.weight_derivative(j));
  if (j >= p + scalars) return shape_parameter_derivatives(A, B, w).at(j - p - scalars);
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
  const Eigen::Index scalars = has_amplitude_ ? 3 : 2;
  Eigen::VectorXd out(g.size() + scalars + Eigen::Index(parameters_.size()));
  out.head(g.size()) = g;
  Eigen::Index k = g.size();
  if (has_amplitude_) out(k++) = c.shape;
  out(k++) = W.sum();  // bias
  out(k++) = 0.0;      // noise
  out.tail(parameters_.size()) = c.parameters;
  return out;
}

}  // namespace quench::kernels
