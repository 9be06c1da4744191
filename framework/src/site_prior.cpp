#include "quench/site_prior.h"

#include <utility>

namespace quench {

SitePrior::~SitePrior() = default;

DenseSitePrior::DenseSitePrior(Eigen::MatrixXd C) : DenseSitePrior(nullptr, std::move(C)) {}

DenseSitePrior::DenseSitePrior(const Eigen::MatrixXd* view, std::optional<Eigen::MatrixXd> owned)
    : view_(view), owned_(std::move(owned)), variance_(c().diagonal()) {}

DenseSitePrior DenseSitePrior::viewing(const Eigen::MatrixXd& C) {
  return DenseSitePrior(&C, std::nullopt);
}

Eigen::VectorXd DenseSitePrior::times(const Eigen::VectorXd& v) const { return c() * v; }

PosteriorCovariance DenseSitePrior::marginals(const Eigen::VectorXd& tau, const Eigen::VectorXd& nu,
                                              Precision precision) const {
  return cavity_variances(c(), tau, precision, &nu);
}

std::unique_ptr<SitePrior> DenseSitePrior::restricted(const std::vector<Eigen::Index>& rows) const {
  return std::make_unique<DenseSitePrior>(Eigen::MatrixXd(c()(rows, rows)));
}

InducingSitePrior::InducingSitePrior(const Kernel& kernel, const Eigen::MatrixXd& X,
                                     const InducingInputs& inducing)
    : prior_(std::make_shared<const LowRankPrior>(kernel, X, inducing)),
      noise_(kernel.diagonal_noise()),
      diagonal_((prior_->diagonal_correction().array() + noise_).matrix()),
      variance_(diagonal_ + prior_->factor().rowwise().squaredNorm()) {}

InducingSitePrior::InducingSitePrior(std::shared_ptr<const LowRankPrior> prior, double noise,
                                     Eigen::MatrixXd U, Eigen::VectorXd diagonal)
    : prior_(std::move(prior)),
      noise_(noise),
      rows_factor_(std::move(U)),
      diagonal_(std::move(diagonal)),
      variance_(diagonal_ + rows_factor_->rowwise().squaredNorm()) {}

InducingSitePrior InducingSitePrior::restricted_to(const std::vector<Eigen::Index>& rows) const {
  return InducingSitePrior(prior_, noise_, factor()(rows, Eigen::all), diagonal_(rows));
}

std::unique_ptr<SitePrior> InducingSitePrior::restricted(
    const std::vector<Eigen::Index>& rows) const {
  return std::make_unique<InducingSitePrior>(restricted_to(rows));
}

Eigen::VectorXd InducingSitePrior::times(const Eigen::VectorXd& v) const {
  return diagonal_.cwiseProduct(v) + factor() * (factor().transpose() * v);
}

// docs/large_n.md §2 with D = Lambda + v2 on this prior's rows.
InducingSitePrior::SitePosterior InducingSitePrior::posterior(const Eigen::VectorXd& tau) const {
  SitePosterior p;
  p.covariance = DiagonalPlusLowRank::posterior(diagonal_, factor(), tau, &p.b_lower);
  return p;
}

PosteriorCovariance InducingSitePrior::marginals(const Eigen::VectorXd& tau,
                                                 const Eigen::VectorXd& nu, Precision) const {
  const DiagonalPlusLowRank G = posterior(tau).covariance;
  PosteriorCovariance p;
  Eigen::VectorXd diag = G.diagonal();
  p.b = (1.0 - tau.array() * diag.array()).matrix();  // 1 - tau_i Sigma_ii
  cavities_from_marginals(variance_, diag, p);        // eq 28
  p.mean = G.times(nu);                               // mu = Sigma nu
  return p;
}

Eigen::MatrixXd InducingSitePrior::formed() const {
  Eigen::MatrixXd C = factor() * factor().transpose();
  C.diagonal() += diagonal_;
  return C;
}

std::unique_ptr<SitePrior> make_site_prior(const Kernel& kernel, const Eigen::MatrixXd& X,
                                           const InducingInputs* inducing) {
  if (inducing) return std::make_unique<InducingSitePrior>(kernel, X, *inducing);
  return std::make_unique<DenseSitePrior>(kernel.gram(X));
}

}  // namespace quench
