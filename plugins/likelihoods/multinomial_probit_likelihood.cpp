#include "multinomial_probit_likelihood.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <Eigen/Cholesky>
#include <boost/math/quadrature/gauss_kronrod.hpp>

#include "quench/errors.h"
#include "quench/normal.h"

namespace quench::likelihoods {

namespace {

using Eigen::Index;

constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log sqrt(2 pi)
constexpr double kConverged = 1e-12;  // change of the inner marginals at convergence
constexpr int kMaxSweeps = 200;

[[noreturn]] void scalar_refused() {
  throw ConfigError({},
                    "multinomial_probit is a multi-class likelihood with C latent values per "
                    "point and works with the multiclass_ep engine (one_vs_rest takes the "
                    "binary probit)");
}

void check_class(Index y, Index classes) {
  if (classes < 2 || y < 0 || y >= classes)
    throw std::invalid_argument("multinomial_probit: need C >= 2 classes and 0 <= y < C");
}

// r = D/Phi(z) and z + r, each without cancellation (quench/normal.h): r from the ratio above
// z = -6, else z + r from the continued fraction and r = (z + r) - z, a sum of positives.
struct Ratio {
  double r, z_plus_r;
};
Ratio mills(double z) {
  if (z >= -6.0) {
    const double r = normal_pdf_cdf_ratio(z);
    return {r, z + r};
  }
  const double zr = normal_ratio_plus_z(z);
  return {zr - z, zr};
}

// The site of one factor Phi(z) matched to its cavity N(z; m, s): the tilted distribution
// Phi(z) N(z; m, s) has, with q = sqrt(1 + s), zeta = m / q, r = D/Phi(zeta) and
// F = 1 - r (zeta + r) (001 eq 23 with unit noise),
//   mean = m + s r / q,   variance = s (1 + s F) / q^2,
// and the site that turns the cavity into it, tau = 1/variance - 1/s, nu = mean/variance - m/s:
//   tau = r (zeta + r) / (1 + s F) >= 0,   nu = r / q + tau * mean,
// both free of cancellation (tau >= 0 by construction: the probit is log-concave).
struct FactorSite {
  double tau, nu;
};
FactorSite match_factor(double m, double s) {
  const double q = std::sqrt(1.0 + s);
  const double zeta = m / q;
  const Ratio t = mills(zeta);
  const double alpha = t.r / q;
  const double tau = t.r * t.z_plus_r / (1.0 + s * normal_variance_factor(zeta));
  return {tau, alpha + tau * (m + s * alpha)};
}

// Inner EP on z_j = u + f_y - f_j (the header): the posterior N(z; mu, S) of the prior
// N(z; mu0, S0) times the sites exp(-tau_k z_k^2 / 2 + nu_k z_k), k = 0..C-2 standing for the
// classes j != y in order. Scratch vectors and matrices are allocated once, here.
class InnerEp {
 public:
  InnerEp(Index y, const Eigen::VectorXd& m, const Eigen::MatrixXd& V, const ClassSite& site)
      : y_(y), n_(m.size() - 1) {
    const Index c = m.size();
    check_class(y, c);
    if (V.rows() != c || V.cols() != c || site.tau.size() != c || site.nu.size() != c)
      throw std::invalid_argument("multinomial_probit: m, V and the site need C entries");
    mu0_.resize(n_);
    s0_.resize(n_, n_);
    for (Index k = 0; k < n_; ++k) {
      const Index a = cls(k);
      mu0_(k) = m(y) - m(a);
      for (Index l = 0; l < n_; ++l) {
        const Index b = cls(l);
        s0_(k, l) = 1.0 + V(y, y) - V(y, b) - V(a, y) + V(a, b);  // Cov(z_k, z_l)
      }
    }
    check_prior();
    tau_.setZero(n_);
    nu_.setZero(n_);
    mu_ = mu0_;
    s_ = s0_;
    col_.resize(n_);
    for (Index k = 0; k < n_; ++k) {
      const double tau = site.tau(cls(k)), nu = site.nu(cls(k));
      if (!(tau >= 0.0) || !std::isfinite(tau) || !std::isfinite(nu))
        throw std::invalid_argument("multinomial_probit: site tau must be >= 0, nu finite");
      if (tau != 0.0 || nu != 0.0) set_site(k, tau, nu);
    }
  }

  // One sequential sweep over the factors; returns the largest change of an updated
  // marginal, |d mean| / (1 + |mean|) or |d variance| / variance.
  double sweep() {
    double change = 0.0;
    for (Index k = 0; k < n_; ++k) {
      const double mean = mu_(k), var = s_(k, k);
      const Cavity c = cavity(k);
      const FactorSite t = match_factor(c.mean, c.var);
      set_site(k, t.tau, t.nu);
      change = std::max({change, std::fabs(mu_(k) - mean) / (1.0 + std::fabs(mean)),
                         std::fabs(s_(k, k) - var) / var});
    }
    return change;
  }

  // The EP estimate of log \int N(z; mu0, S0) prod_k Phi(z_k) dz at the current sites, with
  // the cavities N(z_k; m_k, s_k) of the current posterior (the standard EP estimate, Rasmussen
  // & Williams 2006 Sec. 3.6). In natural parameters, with Psi(eta, Lambda) =
  // eta^T Lambda^-1 eta / 2 - log det Lambda / 2 the log normalizer of a Gaussian,
  //   log Z = Psi(posterior) - Psi(prior)
  //           + sum_k [log Zhat_k + Psi(cavity_k) - Psi(marginal_k)],
  // the marginal_k being N(z_k; mu_k, S_kk). Since S0^-1 (mu - mu0) = nu - T mu (T = diag tau),
  // the quadratic parts are (mu0^T (nu - T mu) + nu^T mu) / 2 for the pair of R^{C-1} terms
  // and -(m_k (nu_k - tau_k mu_k) + nu_k mu_k) / 2 for each 1-D pair, the nu^T mu cancel, the log
  // determinants are -log det(I + T^1/2 S0 T^1/2) and log(1 + tau_k s_k); so, free of S0^-1
  // (S0 may be singular), with log Zhat_k = log Phi(m_k / sqrt(1 + s_k)):
  //   log Z = sum_k [log Zhat_k + log(1 + tau_k s_k) / 2 + (mu0_k - m_k) (nu_k - tau_k mu_k) / 2]
  //           - log det(I + T^1/2 S0 T^1/2) / 2.
  double log_z() {
    double sum = 0.0;
    for (Index k = 0; k < n_; ++k) {
      const Cavity c = cavity(k);
      sum += normal_log_cdf(c.mean / std::sqrt(1.0 + c.var)) + 0.5 * std::log1p(tau_(k) * c.var) +
             0.5 * (mu0_(k) - c.mean) * (nu_(k) - tau_(k) * mu_(k));
    }
    col_ = tau_.cwiseSqrt();
    for (Index l = 0; l < n_; ++l) work_.col(l) = s0_.col(l).cwiseProduct(col_) * col_(l);
    work_.diagonal().array() += 1.0;
    const Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(work_);
    if (llt.info() != Eigen::Success)
      throw NumericalError("multinomial_probit", "I + T^1/2 S0 T^1/2 is not positive definite");
    return sum - work_.diagonal().array().log().sum();  // log det / 2 = sum log L_kk
  }

  void write(ClassSite& site) const {
    site.tau(y_) = site.nu(y_) = 0.0;
    for (Index k = 0; k < n_; ++k) {
      site.tau(cls(k)) = tau_(k);
      site.nu(cls(k)) = nu_(k);
    }
  }

 private:
  struct Cavity {
    double mean, var;
  };

  Index cls(Index k) const { return k < y_ ? k : k + 1; }

  // S0 + 1e-12 max(diag S0) I must factor: S0 positive semidefinite up to rounding.
  void check_prior() {
    if (!mu0_.allFinite() || !s0_.allFinite())
      throw NumericalError("multinomial_probit", "the cavity mean or covariance is not finite");
    work_ = s0_;
    work_.diagonal().array() += 1e-12 * s0_.diagonal().maxCoeff();
    const Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(work_);
    if (llt.info() != Eigen::Success)
      throw NumericalError("multinomial_probit",
                           "the cavity covariance V is not positive semidefinite on the class "
                           "differences f_y - f_j");
  }

  // The cavity of factor k: the marginal N(z_k; mu_k, S_kk) without its site,
  // s = S_kk / (1 - tau_k S_kk), m = (mu_k - S_kk nu_k) / (1 - tau_k S_kk).
  Cavity cavity(Index k) const {
    const double s = s_(k, k), keep = 1.0 - tau_(k) * s;
    if (!(keep > 0.0) || !(s > 0.0))
      throw NumericalError("multinomial_probit", "inner EP cavity variance not positive");
    return {(mu_(k) - s * nu_(k)) / keep, s / keep};
  }

  // Replaces site k, a rank-one change of the posterior precision by dtau e_k e_k^T and of
  // its linear term by dnu e_k: with c = S e_k and d = 1 + dtau S_kk,
  //   S <- S - (dtau / d) c c^T,   mu <- mu + c (dnu - dtau mu_k) / d  (Sherman-Morrison).
  void set_site(Index k, double tau, double nu) {
    const double dtau = tau - tau_(k), dnu = nu - nu_(k);
    col_ = s_.col(k);
    const double d = 1.0 + dtau * col_(k);
    mu_ += ((dnu - dtau * mu_(k)) / d) * col_;
    const double shrink = dtau / d;
    for (Index l = 0; l < n_; ++l) s_.col(l) -= (shrink * col_(l)) * col_;
    tau_(k) = tau;
    nu_(k) = nu;
  }

  Index y_, n_;
  Eigen::VectorXd mu0_, tau_, nu_, mu_, col_;
  Eigen::MatrixXd s0_, s_, work_;
};

}  // namespace

ParamSchema MultinomialProbitLikelihood::schema() { return ParamSchema(); }

MultinomialProbitLikelihood::MultinomialProbitLikelihood(const Params&) {}

double MultinomialProbitLikelihood::log_likelihood(const Observation&, double) const {
  scalar_refused();
}
double MultinomialProbitLikelihood::d_log_likelihood(const Observation&, double) const {
  scalar_refused();
}
double MultinomialProbitLikelihood::d2_log_likelihood(const Observation&, double) const {
  scalar_refused();
}
TiltedMoments MultinomialProbitLikelihood::tilted_moments(const Observation&, double,
                                                          double) const {
  scalar_refused();
}
TiltedMoments MultinomialProbitLikelihood::tilted_moments_power(const Observation&, double, double,
                                                                int) const {
  scalar_refused();
}

double MultinomialProbitLikelihood::log_probability(Index y, const Eigen::VectorXd& f) const {
  check_class(y, f.size());
  // g(u) = log N(u) + sum_j log Phi(u + d_j), d_j = f_y - f_j, is concave with
  //   g'(u) = -u + sum_j r(u + d_j),   g''(u) = -1 - sum_j r (z + r) in [-C, -1].
  // g'(0) > 0, and g'(U) <= 0 at U = sum_j (max(-d_j, 0) + 1) since r(z) < max(-z, 0) + 1
  // (r decreases from r(0) = 0.80 for z > 0; z + r < 0.80 for z < 0): the mode is in [0, U].
  const auto slope = [&](double u, double& d2) {
    double d1 = -u;
    d2 = -1.0;
    for (Index j = 0; j < f.size(); ++j) {
      if (j == y) continue;
      const Ratio t = mills(u + f(y) - f(j));
      d1 += t.r;
      d2 -= t.r * t.z_plus_r;
    }
    return d1;
  };
  double lo = 0.0, hi = 0.0;
  for (Index j = 0; j < f.size(); ++j)
    if (j != y) hi += std::max(f(j) - f(y), 0.0) + 1.0;
  if (!std::isfinite(hi)) throw NumericalError("multinomial_probit", "f is not finite");
  // Newton safeguarded by bisection (g' decreasing keeps [lo, hi] a bracket).
  double u = 0.5 * (lo + hi);
  for (int it = 0; it < 200; ++it) {
    double d2;
    const double d1 = slope(u, d2);
    const double next = u - d1 / d2;
    if (std::fabs(next - u) <= 1e-14 * (1.0 + u)) break;
    (d1 > 0 ? lo : hi) = u;
    u = next >= lo && next <= hi ? next : 0.5 * (lo + hi);
  }
  // The exponent g(u + t) - g(u) without the cancellation of large log Phi values (|f|
  // large): where z_j = u + d_j < -6, log Phi = log D - log r turns log Phi(z_j + t) -
  // log Phi(z_j) into -z_j t - t^2 / 2 - log(r(z_j + t) / r(z_j)), whose polynomial parts join
  // those of log N into a t - b t^2 / 2, summed once.
  std::vector<double> z, at_mode;  // z_j, and log Phi(z_j) (z_j >= -6) or log r(z_j) (below)
  z.reserve(static_cast<std::size_t>(f.size()));
  at_mode.reserve(z.capacity());
  double top = -0.5 * u * u - kLogSqrt2Pi, a = -u, b = 1.0;
  for (Index j = 0; j < f.size(); ++j) {
    if (j == y) continue;
    z.push_back(u + f(y) - f(j));
    top += normal_log_cdf(z.back());
    at_mode.push_back(z.back() >= -6.0 ? normal_log_cdf(z.back())
                                       : std::log(normal_pdf_cdf_ratio(z.back())));
    if (z.back() < -6.0) {
      a -= z.back();
      b += 1.0;
    }
  }
  const auto integrand = [&](double t) {
    double e = a * t - 0.5 * b * t * t;
    for (std::size_t j = 0; j < z.size(); ++j)
      e += z[j] >= -6.0 ? normal_log_cdf(z[j] + t) - at_mode[j]
                        : at_mode[j] - std::log(normal_pdf_cdf_ratio(z[j] + t));
    return std::exp(e);
  };
  // Tolerance 1e-13 on |Kronrod - Gauss|, which overstates the Kronrod error by far (measured
  // against dense quadrature: |error of log p| <= 1.7e-13 for |log p| < 1000, 1.8e-12 = 1 ulp at
  // log p = -1e4); depth 10 bounds the cost.
  using Rule = boost::math::quadrature::gauss_kronrod<double, 61>;
  const double area = Rule::integrate(integrand, -10.0, 0.0, 10, 1e-13) +
                      Rule::integrate(integrand, 0.0, 10.0, 10, 1e-13);
  return top + std::log(area);
}

double MultinomialProbitLikelihood::match_site(Index y, const Eigen::VectorXd& m,
                                               const Eigen::MatrixXd& V, ClassSite& site,
                                               int sweeps) const {
  InnerEp ep(y, m, V, site);
  if (sweeps > 0) {
    for (int s = 0; s < sweeps; ++s) ep.sweep();
  } else {
    for (int s = 0; s < kMaxSweeps; ++s)
      if (ep.sweep() < kConverged) break;
  }
  const double log_z = ep.log_z();
  if (!std::isfinite(log_z))
    throw NumericalError("multinomial_probit", "inner EP log Z is not finite");
  ep.write(site);
  return log_z;
}

Eigen::VectorXd MultinomialProbitLikelihood::predictive(const Eigen::VectorXd& m,
                                                        const Eigen::MatrixXd& V) const {
  const Index c = m.size();
  Eigen::VectorXd log_z(c);
  for (Index y = 0; y < c; ++y) {
    ClassSite site = ClassSite::zero(c);
    log_z(y) = match_site(y, m, V, site, 0);
  }
  const double top = log_z.maxCoeff();
  Eigen::VectorXd p = (log_z.array() - top).exp();
  return p / p.sum();
}

}  // namespace quench::likelihoods
