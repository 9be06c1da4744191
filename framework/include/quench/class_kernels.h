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

/// The same as a shared pointer (the kernel itself when it is shared by every class).
QUENCH_API std::shared_ptr<const Kernel> class_kernel(const std::shared_ptr<const Kernel>& kernel,
                                                      Eigen::Index c);

/// The number of kernels of a ClassKernels; 0 for one kernel shared by every class.
QUENCH_API Eigen::Index kernel_classes(const Kernel& kernel);

/// Why `kernel` cannot serve `classes` classes: "K kernels, one per class, for C classes" for a
/// ClassKernels of another count; "" when it can (a shared kernel always can). Engines and model
/// readers put it in their ConfigError or ModelFileError.
QUENCH_API std::string class_kernels_mismatch(const Kernel& kernel, Eigen::Index classes);

/// How many kernels a computation class by class holds: kernel_classes(kernel), or 1 for one
/// kernel shared by every class.
QUENCH_API Eigen::Index distinct_kernels(const Kernel& kernel);

/// Class c's element of a list built class by class (one per class, or one shared: size 1).
template <class T>
const T& of_class(const std::vector<T>& per_class, Eigen::Index c) {
  return per_class[per_class.size() == 1 ? 0 : static_cast<std::size_t>(c)];
}

/// A gradient in `kernel`'s flat vector from gradients in its kernels' own: with a ClassKernels,
/// of_class(class_kernel(kernel, c), c) for every class c, one after the other; with one kernel
/// shared by every class, of_class(kernel, -1), the caller's sum over the classes.
QUENCH_API Eigen::VectorXd class_kernels_gradient(
    const Kernel& kernel,
    const std::function<Eigen::VectorXd(const Kernel& of, Eigen::Index c)>& of_class);

/// d/dtheta of sum_c sum_ab W_c[a, b] K_c(X, X)[a, b] (gram(), noise included) in `kernel`'s
/// flat vector: with a ClassKernels, part c's gram_derivative_contractions(X, W_c) at its
/// entries; with one shared kernel, gram_derivative_contractions(X, sum_c W_c) (one pass; W may
/// then hold the sum alone).
QUENCH_API Eigen::VectorXd class_gram_gradient(const Kernel& kernel, const Eigen::MatrixXd& X,
                                               const std::vector<Eigen::MatrixXd>& W);

/// The prior covariances of the C latents at the N training inputs: one matrix K for every
/// class, or one K_c per class. Refers to the matrices.
class QUENCH_API ClassGrams {
 public:
  /// One K for every class (implicit: where a shared K is passed, it is one).
  // NOLINTNEXTLINE(google-explicit-constructor)
  ClassGrams(const Eigen::MatrixXd& shared) : k_{&shared} {}
  /// K_c = *per_class[c] (C >= 2, each N x N).
  explicit ClassGrams(std::vector<const Eigen::MatrixXd*> per_class);
  /// K_c (K for every c when shared).
  const Eigen::MatrixXd& of(Eigen::Index c) const { return *of_class(k_, c); }
  Eigen::Index rows() const { return k_.front()->rows(); }
  /// max_c K_c[i, i] for every point i (N).
  Eigen::VectorXd variance() const;

 private:
  std::vector<const Eigen::MatrixXd*> k_;
};

/// K_c = gram(X) of class c's kernel (class_kernel above): C matrices with a
/// kernel per class, one when the kernel is shared.
QUENCH_API std::vector<Eigen::MatrixXd> class_gram_matrices(const Kernel& kernel,
                                                            const Eigen::MatrixXd& X);

/// The ClassGrams of class_gram_matrices' result (refers to it).
QUENCH_API ClassGrams class_grams(const std::vector<Eigen::MatrixXd>& grams);

}  // namespace quench
