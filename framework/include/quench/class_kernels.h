// A kernel per class (docs/multiclass.md, "A kernel per class"): the prior of C latent GPs
// f_c ~ GP(0, K_c), independent across classes, each K_c any Kernel (a plugin's, a third
// party's, a composite). A pipeline writes components.kernel as a list of C kernels; part c's
// blocks are named "c<c>.<name>" (learn path kernel.c2.length_scales).
//
// It is a Kernel for what every kernel offers the host (prepare, named hyperparameters, a
// record in saved models), not the covariance of one GP: cross(), diagonal() and their
// derivatives throw std::logic_error. Engines that declare PluginInfo::class_kernels read each
// class's kernel through class_kernel() and the gradient through class_gram_gradient(); the
// host refuses a kernel per class for any other engine before it runs.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "quench/composite_kernel.h"
#include "quench/export.h"

namespace quench {

class QUENCH_API ClassKernels final : public CompositeKernel {
 public:
  /// Throws ConfigError for fewer than two parts or a null part.
  explicit ClassKernels(std::vector<std::shared_ptr<Kernel>> parts);
  ~ClassKernels() override;

  Eigen::Index classes() const { return static_cast<Eigen::Index>(parts().size()); }

  /// Throw std::logic_error: C kernels are not one covariance function.
  Eigen::MatrixXd cross(const Eigen::MatrixXd& X1, const Eigen::MatrixXd& X2) const override;
  Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const override;
  Eigen::MatrixXd cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                   Eigen::Index j) const override;
  Eigen::VectorXd cross_derivative_contractions(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                                const Eigen::MatrixXd& W) const override;
  Eigen::VectorXd diagonal_derivative_contractions(const Eigen::MatrixXd& X,
                                                   const Eigen::VectorXd& w) const override;
  /// Zero: no block of a kernel per class is the noise of one Gram matrix.
  Eigen::VectorXd diagonal_noise_derivative() const override;

 private:
  std::string part_name(std::size_t i) const override { return "c" + std::to_string(i); }
};

/// Class c's kernel: part c of a ClassKernels, else `kernel` itself (shared by every class).
QUENCH_API const Kernel& class_kernel(const Kernel& kernel, Eigen::Index c);

/// The number of kernels of a ClassKernels; 0 for one kernel shared by every class.
QUENCH_API Eigen::Index kernel_classes(const Kernel& kernel);

/// A gradient in `kernel`'s flat vector from gradients in its kernels' own: with a ClassKernels,
/// of_class(class_kernel(kernel, c), c) for every class c, one after the other; with one kernel
/// shared by every class, of_class(kernel, -1), the caller's sum over the classes.
QUENCH_API Eigen::VectorXd class_kernels_gradient(
    const Kernel& kernel,
    const std::function<Eigen::VectorXd(const Kernel& of, Eigen::Index c)>& of_class);

/// d/dtheta of sum_c sum_ab W_c[a, b] K_c(X, X)[a, b] (gram(), noise included) in `kernel`'s
/// flat vector: with a ClassKernels, part c's gram_derivative_contractions(X, W_c) at its
/// entries; with one shared kernel, gram_derivative_contractions(X, sum_c W_c) (one pass).
QUENCH_API Eigen::VectorXd class_gram_gradient(const Kernel& kernel, const Eigen::MatrixXd& X,
                                               const std::vector<Eigen::MatrixXd>& W);

}  // namespace quench
