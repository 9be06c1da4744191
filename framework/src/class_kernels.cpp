#include "quench/class_kernels.h"

#include <stdexcept>
#include <utility>

#include "quench/errors.h"

namespace quench {
namespace {

std::vector<std::shared_ptr<Kernel>> at_least_two(std::vector<std::shared_ptr<Kernel>> parts) {
  if (parts.size() < 2)
    throw ConfigError({},
                      "a kernel per class needs one kernel for each of at least two classes, "
                      "got " +
                          std::to_string(parts.size()));
  return parts;
}

[[noreturn]] void not_one_kernel(const char* what) {
  throw std::logic_error(std::string("ClassKernels::") + what +
                         ": a kernel per class is C covariance functions, not one; read class "
                         "c's through class_kernel()");
}

}  // namespace

ClassKernels::ClassKernels(std::vector<std::shared_ptr<Kernel>> parts)
    : CompositeKernel(at_least_two(std::move(parts))) {}

ClassKernels::~ClassKernels() = default;

Eigen::MatrixXd ClassKernels::cross(const Eigen::MatrixXd&, const Eigen::MatrixXd&) const {
  not_one_kernel("cross");
}

Eigen::VectorXd ClassKernels::diagonal(const Eigen::MatrixXd&) const { not_one_kernel("diagonal"); }

Eigen::MatrixXd ClassKernels::cross_derivative(const Eigen::MatrixXd&, const Eigen::MatrixXd&,
                                               Eigen::Index) const {
  not_one_kernel("cross_derivative");
}

Eigen::VectorXd ClassKernels::cross_derivative_contractions(const Eigen::MatrixXd&,
                                                            const Eigen::MatrixXd&,
                                                            const Eigen::MatrixXd&) const {
  not_one_kernel("cross_derivative_contractions");
}

Eigen::VectorXd ClassKernels::diagonal_derivative_contractions(const Eigen::MatrixXd&,
                                                               const Eigen::VectorXd&) const {
  not_one_kernel("diagonal_derivative_contractions");
}

Eigen::VectorXd ClassKernels::diagonal_noise_derivative() const {
  return Eigen::VectorXd::Zero(static_cast<Eigen::Index>(entries().size()));
}

const Kernel& class_kernel(const Kernel& kernel, Eigen::Index c) {
  const auto* per_class = dynamic_cast<const ClassKernels*>(&kernel);
  if (!per_class) return kernel;
  if (c < 0 || c >= per_class->classes())
    throw std::out_of_range("class_kernel: class " + std::to_string(c) + " of " +
                            std::to_string(per_class->classes()));
  return *per_class->parts()[static_cast<std::size_t>(c)];
}

Eigen::Index kernel_classes(const Kernel& kernel) {
  const auto* per_class = dynamic_cast<const ClassKernels*>(&kernel);
  return per_class ? per_class->classes() : 0;
}

Eigen::VectorXd class_kernels_gradient(
    const Kernel& kernel,
    const std::function<Eigen::VectorXd(const Kernel& of, Eigen::Index c)>& of_class) {
  const Eigen::Index classes = kernel_classes(kernel);
  if (classes == 0) return of_class(kernel, -1);
  // Each part's whole flat vector, one after the other (every block of a part is exposed).
  std::vector<Eigen::VectorXd> pieces;
  Eigen::Index size = 0;
  for (Eigen::Index c = 0; c < classes; ++c) {
    pieces.push_back(of_class(class_kernel(kernel, c), c));
    size += pieces.back().size();
  }
  Eigen::VectorXd out(size);
  Eigen::Index offset = 0;
  for (const Eigen::VectorXd& g : pieces) {
    out.segment(offset, g.size()) = g;
    offset += g.size();
  }
  return out;
}

Eigen::VectorXd class_gram_gradient(const Kernel& kernel, const Eigen::MatrixXd& X,
                                    const std::vector<Eigen::MatrixXd>& W) {
  const Eigen::Index classes = kernel_classes(kernel);
  if (classes > 0 && static_cast<Eigen::Index>(W.size()) != classes)
    throw std::invalid_argument("class_gram_gradient: " + std::to_string(W.size()) +
                                " weight matrices for " + std::to_string(classes) + " kernels");
  return class_kernels_gradient(kernel, [&](const Kernel& of, Eigen::Index c) {
    if (c >= 0) return of.gram_derivative_contractions(X, W[static_cast<std::size_t>(c)]);
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(X.rows(), X.rows());
    for (const Eigen::MatrixXd& w : W) sum += w;
    return of.gram_derivative_contractions(X, sum);
  });
}

}  // namespace quench
