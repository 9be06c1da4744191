// Kernels built from kernels (docs/kernels.md): the sum K = sum_i K_i and the elementwise
// product K = prod_i K_i of parts, each any Kernel (a plugin's, a third party's, or another
// composite), both positive semi-definite when the parts are (R&W Sec. 4.2.4).
//
// Hyperparameters: the parts' blocks one after the other, part i's block "name" renamed
// "i.name" ("1.0.period" in a nested composite); a pipeline's learn path kernel.1.0.period
// names it. Derivatives follow from linearity (sum) and the product rule,
//   d(prod_i K_i)/dtheta = dK_j/dtheta o prod_{i != j} K_i   (theta a block of part j),
// so a product's contractions are its parts' contractions with W o prod_{i != j} K_i: the
// O(N^2 d) passes of the parts, plus one N x N product per part. Both evaluate the parts on
// blocks of 256 columns, combined while in cache (kernel_composition_bench).
//
// Diagonal noise (a variance added to the training Gram matrix only) adds in a sum. In a
// product it would scale with the other parts' diagonals, which no parameter of a part says:
// a part of a product must have none, and its noise blocks are not hyperparameters of the
// product.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quench/cosine_features.h"
#include "quench/export.h"
#include "quench/kernel.h"

namespace quench {

class QUENCH_API CompositeKernel : public Kernel {
 public:
  /// Throws ConfigError for no parts or a null part.
  explicit CompositeKernel(std::vector<std::shared_ptr<Kernel>> parts);
  ~CompositeKernel() override;

  const std::vector<std::shared_ptr<Kernel>>& parts() const { return parts_; }

  void prepare(const Eigen::MatrixXd& X_train) override;
  std::vector<Hyperparameter> hyperparameters() const override;
  /// "i.name" sets part i's block "name" (part_name(i) before the dot); anything else is a
  /// ConfigError naming the blocks.
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override;

 protected:
  /// The prefix of part i's blocks: "i" (class_kernels.h: "ci").
  virtual std::string part_name(std::size_t i) const;
  /// Where an entry of the flat vector lives: part `part`, entry `entry` of its flat vector.
  struct Entry {
    std::size_t part;
    Eigen::Index entry;
  };
  /// The flat vector's entries in order (after prepare()).
  std::vector<Entry> entries() const;
  /// Whether a part's `block` (at `offset` of its flat vector, whose diagonal-noise derivative
  /// is `noise_derivative`) is a hyperparameter of this kernel: all are, in a sum.
  virtual bool exposes(const Hyperparameter& block, Eigen::Index offset,
                       const Eigen::VectorXd& noise_derivative) const;

 private:
  /// A block a part exposes, as the part names it, at `offset` of the part's flat vector.
  struct Block {
    std::size_t part;
    Eigen::Index offset;
    Hyperparameter block;
  };
  std::vector<Block> blocks() const;

  std::vector<std::shared_ptr<Kernel>> parts_;
};

/// K = sum_i K_i; diagonal noise sum_i v2_i. When every part has random Fourier features
/// (CosineFeatures), the sum has theirs side by side (CosineFeatures::concatenate).
class QUENCH_API KernelSum final : public CompositeKernel {
 public:
  using CompositeKernel::CompositeKernel;
  ~KernelSum() override;

  void prepare(const Eigen::MatrixXd& X_train) override;
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override;
  const FeatureMap* feature_map() const override { return features_.get(); }

  Eigen::MatrixXd cross(const Eigen::MatrixXd& X1, const Eigen::MatrixXd& X2) const override;
  Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const override;
  double diagonal_noise() const override;
  Eigen::VectorXd diagonal_noise_derivative() const override;
  Eigen::MatrixXd cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                   Eigen::Index j) const override;
  Eigen::VectorXd cross_derivative_contractions(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                                const Eigen::MatrixXd& W) const override;
  Eigen::VectorXd diagonal_derivative_contractions(const Eigen::MatrixXd& X,
                                                   const Eigen::VectorXd& w) const override;

 private:
  void build_feature_map();
  std::unique_ptr<CosineFeatures> features_;
};

/// K = prod_i K_i elementwise; no diagonal noise (a part with noise is refused).
class QUENCH_API KernelProduct final : public CompositeKernel {
 public:
  /// Throws ConfigError when a part has diagonal noise.
  explicit KernelProduct(std::vector<std::shared_ptr<Kernel>> parts);

  Eigen::MatrixXd cross(const Eigen::MatrixXd& X1, const Eigen::MatrixXd& X2) const override;
  Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const override;
  Eigen::MatrixXd cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                   Eigen::Index j) const override;
  Eigen::VectorXd cross_derivative_contractions(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                                const Eigen::MatrixXd& W) const override;
  Eigen::VectorXd diagonal_derivative_contractions(const Eigen::MatrixXd& X,
                                                   const Eigen::VectorXd& w) const override;

 private:
  bool exposes(const Hyperparameter& block, Eigen::Index offset,
               const Eigen::VectorXd& noise_derivative) const override;
};

}  // namespace quench
