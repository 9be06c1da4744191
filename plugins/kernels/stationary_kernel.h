// Stationary kernels v0 g(D) + v1 of the weighted squared distance
// D = sum_l w_l (x_l - x'_l)^2 (gaussian, cauchy, matern): a kernel gives the profile g with
// g(0) = 1 and its slope dg/dD; the derivatives follow from dK/dw_l = v0 g'(D) (x_l - x'_l)^2.
#pragma once

#include "weighted_kernel.h"

namespace quench::kernels {

class StationaryKernel : public WeightedKernel {
 public:
  explicit StationaryKernel(const Params& params) : WeightedKernel(params, true) {}

  /// K_ii = v0 g(0) + v1 = v0 + v1 whatever the inputs and weights: only amplitude and bias
  /// move the diagonal, each by sum_i w_i (O(N) instead of N contractions).
  Eigen::VectorXd diagonal_derivative_contractions(const Eigen::MatrixXd& X,
                                                   const Eigen::VectorXd& w) const override;

 protected:
  /// In place: G holds D on entry and g(D) elementwise on return; with slope, also dg/dD there
  /// (no N x N temporaries beyond the slope: the Gram matrix is the distance matrix transformed).
  virtual void profile(Eigen::MatrixXd& G, Eigen::MatrixXd* slope) const = 0;

 private:
  Eigen::MatrixXd shape(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                        const Eigen::VectorXd& w) const override;
  Eigen::VectorXd shape_diagonal(const Eigen::MatrixXd& X, const Eigen::VectorXd& w) const override;
  Eigen::MatrixXd weight_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                    const Eigen::VectorXd& w,
                                    const Eigen::VectorXd& c) const override;
  Contractions contractions(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                            const Eigen::MatrixXd& W, const Eigen::VectorXd& w) const override;
};

}  // namespace quench::kernels
