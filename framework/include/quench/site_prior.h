// The prior covariance C of the latent values at a problem's rows as the site-based engines see
// it (EP, TAP's sweeps, the multi-class sweeps, their bootstrap refits): the prior variances,
// C v, the posterior marginals of diagonal sites and the same prior on a subset of rows. Two
// strategies: C formed (DenseSitePrior), or the inducing-point prior C~ = Lambda + v2 I + U U^T
// in O(N M^2) (InducingSitePrior). make_site_prior chooses once, as Ceres chooses a linear
// solver in one factory; no engine asks which (docs/design.md, "One prior strategy").
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "quench/diagonal_plus_low_rank.h"
#include "quench/export.h"
#include "quench/inducing_points.h"
#include "quench/kernel.h"
#include "quench/low_rank_prior.h"
#include "quench/site_posterior.h"

namespace quench {

class QUENCH_API SitePrior {
 public:
  virtual ~SitePrior();
  /// The number of rows N.
  virtual Eigen::Index size() const = 0;
  /// The prior variances C_ii (the first cavities).
  virtual const Eigen::VectorXd& variance() const = 0;
  /// C v (the mean field of 001 eq 19).
  virtual Eigen::VectorXd times(const Eigen::VectorXd& v) const = 0;
  /// The posterior marginals at sites (tau, nu), Sigma = (C^{-1} + T)^{-1}: b_i = 1 - tau_i
  /// Sigma_ii, the cavity variances lambda_i (001 eq 28) and mean = Sigma nu (PosteriorCovariance
  /// without sigma). `precision` starts at first_precision() and turns full near a fixed point.
  /// Throws NumericalError when the sites' posterior cannot be formed.
  virtual PosteriorCovariance marginals(const Eigen::VectorXd& tau, const Eigen::VectorXd& nu,
                                        Precision precision) const = 0;
  /// The precision of the first sweeps.
  virtual Precision first_precision() const = 0;
  /// C itself when this prior forms it, else nullptr: for algebra that needs the dense C
  /// (TAP's joint Newton steps, the implicit gradient of the leave-one-out objective).
  virtual const Eigen::MatrixXd* dense() const { return nullptr; }
  /// The same prior on `rows` only, in that order (a bootstrap refit's prior).
  virtual std::unique_ptr<SitePrior> restricted(const std::vector<Eigen::Index>& rows) const = 0;
};

/// C formed: one factorization of I + S C S per set of marginals (cavity_variances), in single
/// precision for the first sweeps.
class QUENCH_API DenseSitePrior final : public SitePrior {
 public:
  /// Owns C.
  explicit DenseSitePrior(Eigen::MatrixXd C);
  /// Refers to C, which must outlive the prior.
  static DenseSitePrior viewing(const Eigen::MatrixXd& C);

  Eigen::Index size() const override { return c().rows(); }
  const Eigen::VectorXd& variance() const override { return variance_; }
  Eigen::VectorXd times(const Eigen::VectorXd& v) const override;
  PosteriorCovariance marginals(const Eigen::VectorXd& tau, const Eigen::VectorXd& nu,
                                Precision precision) const override;
  Precision first_precision() const override { return Precision::single; }
  const Eigen::MatrixXd* dense() const override { return &c(); }
  std::unique_ptr<SitePrior> restricted(const std::vector<Eigen::Index>& rows) const override;

 private:
  DenseSitePrior(const Eigen::MatrixXd* view, std::optional<Eigen::MatrixXd> owned);
  const Eigen::MatrixXd& c() const { return owned_ ? *owned_ : *view_; }
  const Eigen::MatrixXd* view_ = nullptr;
  std::optional<Eigen::MatrixXd> owned_;
  Eigen::VectorXd variance_;
};

/// The inducing-point prior C~ = Lambda + v2 I + U U^T on the training inputs (or on some of
/// them: restricted()), v2 the kernel's diagonal noise, mirroring the dense C = K + v2 I. Every
/// marginal from G = (C~^-1 + T)^-1 = diag(e) + W W^T in O(N M^2). Keeps a pointer to the
/// kernel.
class QUENCH_API InducingSitePrior final : public SitePrior {
 public:
  InducingSitePrior(const Kernel& kernel, const Eigen::MatrixXd& X, const InducingInputs& inducing);

  Eigen::Index size() const override { return diagonal_.size(); }
  const Eigen::VectorXd& variance() const override { return variance_; }
  Eigen::VectorXd times(const Eigen::VectorXd& v) const override;
  PosteriorCovariance marginals(const Eigen::VectorXd& tau, const Eigen::VectorXd& nu,
                                Precision precision) const override;
  Precision first_precision() const override { return Precision::full; }
  std::unique_ptr<SitePrior> restricted(const std::vector<Eigen::Index>& rows) const override;
  /// The same prior on `rows` (O(|rows| M): their rows of U and of D, the same inducing inputs).
  InducingSitePrior restricted_to(const std::vector<Eigen::Index>& rows) const;

  /// The inducing-point prior on all the training inputs (Z, L, the form; its factor() has a
  /// row per training input, that of a restricted prior is factor() below).
  const LowRankPrior& low_rank() const { return *prior_; }
  /// Whether this prior is on all the training inputs (not restricted).
  bool all_rows() const { return !rows_factor_.has_value(); }
  /// U on this prior's rows: C~ = diag(D) + U U^T.
  const Eigen::MatrixXd& factor() const { return rows_factor_ ? *rows_factor_ : prior_->factor(); }
  double noise() const { return noise_; }
  /// D = Lambda + v2.
  const Eigen::VectorXd& diagonal_part() const { return diagonal_; }

  /// G = (C~^-1 + diag(tau))^-1 = diag(e) + W W^T with a = 1 / (1 + D tau), e = D a,
  /// c = tau a, B = I + U^T diag(c) U = L_B L_B^T, W = diag(a) U L_B^-T (docs/large_n.md §2
  /// with Lambda + v2 for Lambda); b_lower = L_B. O(N M^2). Throws NumericalError when some
  /// 1 + D_i tau_i <= 0 or B is not positive definite (site precisions too negative).
  struct SitePosterior {
    DiagonalPlusLowRank covariance;
    Eigen::MatrixXd b_lower;
  };
  SitePosterior posterior(const Eigen::VectorXd& tau) const;
  /// C~ formed densely (tests and small N only).
  Eigen::MatrixXd formed() const;

 private:
  InducingSitePrior(std::shared_ptr<const LowRankPrior> prior, double noise, Eigen::MatrixXd U,
                    Eigen::VectorXd diagonal);

  std::shared_ptr<const LowRankPrior> prior_;  // shared by the restricted priors
  double noise_;
  std::optional<Eigen::MatrixXd> rows_factor_;  // restricted: U on the rows
  Eigen::VectorXd diagonal_, variance_;
};

/// The prior of the rows X for `kernel`: C = K + v2 I formed, or the inducing-point prior when
/// `inducing` is not null (the pipeline's inducing: block). The one place the choice is made.
QUENCH_API std::unique_ptr<SitePrior> make_site_prior(const Kernel& kernel,
                                                      const Eigen::MatrixXd& X,
                                                      const InducingInputs* inducing);

}  // namespace quench
