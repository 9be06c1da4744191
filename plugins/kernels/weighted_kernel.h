// The common form of the kernels here: K = v0 S(A, B) + v1 with a shape S of inputs weighted
// by InputWeights, diagonal noise v2, and the learnable blocks, in flat-vector order,
//   length_scales (or width), amplitude (v0, when the kernel has one), bias (v1), noise (v2),
// then the shape parameters theta_k of S beyond the weights (period, alpha), one scalar block
// each. This class keeps the blocks and the chain rule; a kernel supplies S and its derivatives
// by the weights w_l and, when it declares shape parameters, by those.
//
// Shape parameters: the constructor of a kernel calls add_shape_parameter() for each (theta_0,
// theta_1, ... after "noise"); this class reports them, sets them (> 0) and reads them back
// through shape_parameter(k); the kernel gives dK/dtheta_k in shape_parameter_derivatives() and
// their contractions in Contractions::parameters of its one pass.
#pragma once

#include <string>
#include <vector>

#include "input_weights.h"
#include "quench/kernel.h"
#include "quench/parameters.h"

namespace quench::kernels {

class WeightedKernel : public Kernel {
 public:
  /// Reads the weights, "bias", "noise" and, with has_amplitude, "amplitude" (else v0 = 1).
  WeightedKernel(const Params& params, bool has_amplitude);

  void prepare(const Eigen::MatrixXd& X) override { weights_.prepare(X); }
  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override;
  Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const override;
  double diagonal_noise() const override { return v2_; }

  std::vector<Hyperparameter> hyperparameters() const override;
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override;
  Eigen::MatrixXd cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                   Eigen::Index j) const override;
  Eigen::VectorXd cross_derivative_contractions(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                                const Eigen::MatrixXd& W) const override;

 protected:
  /// sum_ab W_ab dK_ab/dw_l for every l, sum_ab W_ab S_ab (= dK/dv0 contracted), and
  /// sum_ab W_ab dK_ab/dtheta_k for every shape parameter k (empty when there is none).
  struct Contractions {
    Eigen::VectorXd weights;
    double shape = 0.0;
    Eigen::VectorXd parameters = {};
  };

  /// The shape S(A, B) for weights w.
  virtual Eigen::MatrixXd shape(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                const Eigen::VectorXd& w) const = 0;
  /// diag S(X, X).
  virtual Eigen::VectorXd shape_diagonal(const Eigen::MatrixXd& X,
                                         const Eigen::VectorXd& w) const = 0;
  /// sum_l c_l dK/dw_l (v0 included) for a direction c in weight space.
  virtual Eigen::MatrixXd weight_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                            const Eigen::VectorXd& w,
                                            const Eigen::VectorXd& c) const = 0;
  /// The contractions in O(|A| |B| d), without a derivative matrix per weight or parameter.
  virtual Contractions contractions(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                    const Eigen::MatrixXd& W, const Eigen::VectorXd& w) const = 0;

  /// Declares the next shape parameter theta_k, a block after "noise" of one entry > 0 on the
  /// log scale within [lower, upper]; for constructors (after which the blocks are fixed).
  void add_shape_parameter(const std::string& name, double value, double lower, double upper);
  /// The value of theta_k, and the number of shape parameters.
  double shape_parameter(std::size_t k) const { return parameters_[k].value(0); }
  std::size_t shape_parameter_count() const { return parameters_.size(); }
  /// dK/dtheta_k (v0 included) for every shape parameter k, in order. The default: none.
  virtual std::vector<Eigen::MatrixXd> shape_parameter_derivatives(
      const Eigen::MatrixXd& /*A*/, const Eigen::MatrixXd& /*B*/,
      const Eigen::VectorXd& /*w*/) const {
    return {};
  }

  const InputWeights& input_weights() const { return weights_; }
  double amplitude() const { return v0_; }
  double bias() const { return v1_; }

 private:
  InputWeights weights_;
  bool has_amplitude_;
  double v0_, v1_, v2_;
  std::vector<Hyperparameter> parameters_;  // the shape parameters' blocks, values included
};

}  // namespace quench::kernels
