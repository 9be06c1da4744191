// C latent GPs on the inducing-point prior (docs/multiclass.md, docs/adatap_multiclass.md):
// f_c(x) = u_c(x)^T v_c + e_c(x) with the whitened inducing values v_c of class c on inducing
// inputs Z shared by the classes, u_c(x) = L_c^-1 K_c(Z, x) the features of class c's kernel
// (LowRankPrior::features; one kernel for every class, or one per class:
// quench/class_kernels.h) and independent residuals e_c(x). The engines that hold a posterior
// of v (CM values) meet new inputs through these.
#pragma once

#include <functional>
#include <vector>

#include <Eigen/Core>

#include "quench/export.h"
#include "quench/inducing_points.h"
#include "quench/kernel.h"

namespace quench {

class ModelArchive;

/// The features and residual variances of each distinct kernel (1 or C) at some inputs.
struct QUENCH_API InducingClassFeatures {
  std::vector<Eigen::MatrixXd> features;  ///< [k]: rows x M, the rows u_k(x)^T
  /// rows x kernels: the prior variance of e_k(x), k(x, x) - |u_k(x)|^2 (clamped at 0; 0 on the
  /// SoR prior) plus the kernel's diagonal noise.
  Eigen::MatrixXd residual;
  /// Pointers to `features`, for of_class and inducing_class_covariances.
  std::vector<const Eigen::MatrixXd*> pointers() const;
};

/// At the rows of X, for `kernel` (shared or per class) on inducing inputs Z with the lower
/// Cholesky factors `lower` of each distinct kernel's K(Z, Z) + jitter I, in the prior `form`.
QUENCH_API InducingClassFeatures inducing_class_features(const Kernel& kernel,
                                                         const Eigen::MatrixXd& Z,
                                                         const std::vector<Eigen::MatrixXd>& lower,
                                                         LowRankForm form,
                                                         const Eigen::MatrixXd& X);

/// S_j[c, k] = u_jc^T P[c, k] u_jk for the rows u_jc of class c's features (n x M; one matrix
/// for every class, or C) and a symmetric CM x CM matrix P (blocks M x M): C x Cn, block j =
/// S_j. C(C+1)/2 products of n x M by M x M.
QUENCH_API Eigen::MatrixXd inducing_class_covariances(
    const std::vector<const Eigen::MatrixXd*>& features, const Eigen::MatrixXd& P,
    Eigen::Index classes);
/// The same in single precision.
QUENCH_API Eigen::MatrixXf inducing_class_covariances(
    const std::vector<const Eigen::MatrixXf*>& features, const Eigen::MatrixXf& P,
    Eigen::Index classes);

/// The CM x CM matrix of blocks delta_ce `diagonal` I + U_c^T diag(w(c, e)) U_e for the factors
/// U (N x M; one for every class, or C) and weights w(c, e) (N; asked for c >= e, the blocks
/// above the diagonal mirrored): C(C + 1)/2 weighted products, rank updates (SYRK) where U_c and
/// U_e are one matrix (weighted_product).
QUENCH_API Eigen::MatrixXd inducing_class_products(
    const std::vector<const Eigen::MatrixXd*>& U,
    const std::function<Eigen::VectorXd(Eigen::Index c, Eigen::Index e)>& weights,
    Eigen::Index classes, double diagonal);
/// The same with single-precision factors (the weights rounded to single, the products summed in
/// single, the result in double).
QUENCH_API Eigen::MatrixXd inducing_class_products(
    const std::vector<const Eigen::MatrixXf*>& U,
    const std::function<Eigen::VectorXd(Eigen::Index c, Eigen::Index e)>& weights,
    Eigen::Index classes, double diagonal);

/// The lower Cholesky factors of K(Z, Z) + jitter I of each distinct kernel of `kernel` (1 or
/// C) in a model file: posterior/inducing_cholesky_lower, or posterior/inducing_cholesky_lower_<c>
/// for a kernel per class.
QUENCH_API void put_inducing_factors(ModelArchive& archive, const Kernel& kernel,
                                     const std::vector<Eigen::MatrixXd>& lower);
/// The factors put_inducing_factors wrote, each M x M lower triangular (ModelFileError naming
/// the entry otherwise).
QUENCH_API std::vector<Eigen::MatrixXd> take_inducing_factors(ModelArchive& archive,
                                                              const Kernel& kernel, Eigen::Index m);

}  // namespace quench
