#include "perturbation.h"

#include <cmath>

#include "quench/errors.h"

namespace quench::vboot {

ParamSchema PerturbationResampler::schema() {
  ParamSchema s;
  s.boolean("perturb_targets", "draw y~ ~ N(y^, sigma^2) (002 eq 13); false keeps y^", true)
      .boolean("perturb_prior", "draw theta~ ~ N(0, alpha^2 I) (002 eq 6); false uses 0", true);
  return s;
}

PerturbationResampler::PerturbationResampler(const Params& p)
    : perturb_targets_(p.boolean("perturb_targets")), perturb_prior_(p.boolean("perturb_prior")) {}

Perturbation PerturbationResampler::perturb(const RegressionTargets& t, Eigen::Index rows,
                                            Eigen::Index cols, double prior_variance,
                                            RngStream& rng) const {
  if (t.mean.rows() != t.variance.rows() || t.mean.cols() != t.variance.cols())
    throw ConfigError({}, "perturbation: target means and variances differ in shape");
  if (!(prior_variance > 0)) throw ConfigError({}, "perturbation: prior variance must be > 0");
  Perturbation p{t.mean, Eigen::MatrixXd::Zero(rows, cols)};
  if (perturb_targets_)
    for (Eigen::Index i = 0; i < t.mean.rows(); ++i)
      for (Eigen::Index c = 0; c < t.mean.cols(); ++c)
        p.targets(i, c) += std::sqrt(t.variance(i, c)) * rng.normal();
  if (perturb_prior_) {
    const double sd = std::sqrt(prior_variance);
    for (Eigen::Index k = 0; k < p.prior_mean.size(); ++k)
      p.prior_mean.data()[k] = sd * rng.normal();
  }
  return p;
}

}  // namespace quench::vboot
