// Stationary kernels v0 g(D) + v1 of the weighted squared distance
//   D = sum_l w_l |u(x_l) - u(x'_l)|^2
// between inputs mapped coordinate-wise by an embedding u: R -> R^m, the identity (gaussian,
// cauchy, matern, rational_quadratic: D = sum_l w_l (x_l - x'_l)^2) unless the kernel gives
// another (periodic). A kernel gives the profile g with g(0) = 1 and its slope dg/dD; the
// derivatives follow from dK/dw_l = v0 g'(D) |u(x_l) - u(x'_l)|^2, and by a shape parameter
// theta_k from dK/dtheta_k = v0 dg/dtheta_k, which the kernel gives.
#pragma once

#include <vector>

#include "weighted_kernel.h"

namespace quench::kernels {

class StationaryKernel : public WeightedKernel {
 public:
  explicit StationaryKernel(const Params& params) : WeightedKernel(params, true) {}

  /// Also fixes the origin the inputs are taken from: the training rows' mean. The kernel
  /// depends on differences only, and ||a||^2 + ||b||^2 - 2 a.b loses digits to ||a||^2 far
  /// from the origin (inputs in years near 2000: 4e-8 of the CO2 evidence, docs/kernels.md).
  void prepare(const Eigen::MatrixXd& X) override;

  /// K_ii = v0 g(0) + v1 = v0 + v1 whatever the inputs, weights and shape parameters: only
  /// amplitude and bias move the diagonal, each by sum_i w_i (O(N) instead of N contractions).
  Eigen::VectorXd diagonal_derivative_contractions(const Eigen::MatrixXd& X,
                                                   const Eigen::VectorXd& w) const override;

 protected:
  /// The rows of A against the rows of B, where the shape parameters' derivatives are taken.
  struct Pairs {
    const Eigen::MatrixXd &A, &B;          // the inputs
    const Eigen::MatrixXd &EA, &EB;        // embed(A), embed(B)
    const Eigen::MatrixXd &D, &G, &slope;  // D, g(D) and g'(D) between them
  };

  /// In place: G holds D on entry and g(D) elementwise on return; with slope, also dg/dD there
  /// (no N x N temporaries beyond the slope: the Gram matrix is the distance matrix transformed).
  virtual void profile(Eigen::MatrixXd& G, Eigen::MatrixXd* slope) const = 0;
  /// The embedded inputs [u_1(X), ..., u_m(X)], u_j applied entrywise: column l + j d is a
  /// coordinate of dimension l. The default: X itself (u(x) = x, m = 1).
  virtual Eigen::MatrixXd embed(const Eigen::MatrixXd& X) const { return X; }
  /// dg/dtheta_k for every shape parameter k, in order, its effect through D included. The
  /// default: none.
  virtual std::vector<Eigen::MatrixXd> profile_parameter_derivatives(const Pairs& /*p*/) const {
    return {};
  }

 private:
  // The inputs from the origin, embedded, and the weight of each embedded column (w_l for
  // dimension l).
  struct Embedded {
    Eigen::MatrixXd inputs_A, inputs_B;
    Eigen::MatrixXd A, B;
    Eigen::VectorXd w;
  };
  Embedded embedded(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                    const Eigen::VectorXd& w) const;
  // D between the embedded rows.
  static Eigen::MatrixXd distances(const Embedded& e);

  Eigen::MatrixXd shape(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                        const Eigen::VectorXd& w) const override;
  Eigen::VectorXd shape_diagonal(const Eigen::MatrixXd& X, const Eigen::VectorXd& w) const override;
  Eigen::MatrixXd weight_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                    const Eigen::VectorXd& w,
                                    const Eigen::VectorXd& c) const override;
  Contractions contractions(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                            const Eigen::MatrixXd& W, const Eigen::VectorXd& w) const override;
  std::vector<Eigen::MatrixXd> shape_parameter_derivatives(const Eigen::MatrixXd& A,
                                                           const Eigen::MatrixXd& B,
                                                           const Eigen::VectorXd& w) const override;

  Eigen::RowVectorXd origin_;  // the training rows' mean (empty before prepare())
};

/// The squared-exponential profile g(D) = exp(-D/2), g'(D) = -g(D)/2 (gaussian, periodic).
void gaussian_profile(Eigen::MatrixXd& G, Eigen::MatrixXd* slope);

}  // namespace quench::kernels
