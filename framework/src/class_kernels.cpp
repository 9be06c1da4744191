#include "quench/class_kernels.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "quench/errors.h"

namespace quench {
namespace {

std::vector<std::shared_ptr<Kernel>> at_least_two(std::vector<std::shared_ptr<Kernel>> parts) {
  for (std::size_t c = 0; c < parts.size(); ++c)
    if (!parts[c])
      throw ConfigError({}, "a kernel per class got a null kernel for class " + std::to_string(c));
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

std::shared_ptr<const Kernel> class_kernel(const std::shared_ptr<const Kernel>& kernel,
                                           Eigen::Index c) {
  if (kernel_classes(*kernel) == 0) return kernel;
  class_kernel(*kernel, c);  // throws std::out_of_range for a class it has no kernel for
  return dynamic_cast<const ClassKernels&>(*kernel).parts()[static_cast<std::size_t>(c)];
}

Eigen::Index kernel_classes(const Kernel& kernel) {
  const auto* per_class = dynamic_cast<const ClassKernels*>(&kernel);
  return per_class ? per_class->classes() : 0;
}

std::string class_kernels_mismatch(const Kernel& kernel, Eigen::Index classes) {
  const Eigen::Index kernels = kernel_classes(kernel);
  if (kernels == 0 || kernels == classes) return "";
  return std::to_string(kernels) + " kernels, one per class, for " + std::to_string(classes) +
         " classes";
}

Eigen::Index distinct_kernels(const Kernel& kernel) {
  return std::max<Eigen::Index>(1, kernel_classes(kernel));
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
    if (W.size() == 1) return of.gram_derivative_contractions(X, W.front());
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(X.rows(), X.rows());
    for (const Eigen::MatrixXd& w : W) sum += w;
    return of.gram_derivative_contractions(X, sum);
  });
}

ClassGrams::ClassGrams(std::vector<const Eigen::MatrixXd*> per_class) : k_(std::move(per_class)) {}

Eigen::VectorXd ClassGrams::variance() const {
  Eigen::VectorXd v = k_.front()->diagonal();
  for (const Eigen::MatrixXd* k : k_) v = v.cwiseMax(k->diagonal());
  return v;
}

std::vector<Eigen::MatrixXd> class_gram_matrices(const Kernel& kernel, const Eigen::MatrixXd& X) {
  std::vector<Eigen::MatrixXd> grams;
  for (Eigen::Index c = 0; c < distinct_kernels(kernel); ++c)
    grams.push_back(class_kernel(kernel, c).gram(X));
  return grams;
}

ClassGrams class_grams(const std::vector<Eigen::MatrixXd>& grams) {
  if (grams.size() == 1) return ClassGrams(grams.front());
  std::vector<const Eigen::MatrixXd*> per_class;
  for (const Eigen::MatrixXd& k : grams) per_class.push_back(&k);
  return ClassGrams(std::move(per_class));
}

}  // namespace quench
