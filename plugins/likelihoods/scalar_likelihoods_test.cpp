// The poisson, negative_binomial, student_t, logit and binomial likelihoods against independent
// computations: central differences of log p, Boost's distributions and 50-digit values for the
// densities, adaptive Gauss-Kronrod for the tilted moments and their powers (tilted_reference.h),
// sums over the probability mass, quadrature and the interface's Gauss-Hermite rule for the
// predictions of y, and each other (one trial of the binomial is the logit or the probit; the
// negative binomial tends to the Poisson).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/negative_binomial.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/gamma.hpp>

#include "binomial_likelihood.h"
#include "logit_likelihood.h"
#include "negative_binomial_likelihood.h"
#include "poisson_likelihood.h"
#include "probit_likelihood.h"
#include "quench/errors.h"
#include "quench/target_prediction.h"
#include "quench/tilted_quadrature.h"
#include "student_t_likelihood.h"
#include "tilted_reference.h"

namespace quench::likelihoods::scalar_likelihoods_test {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kInf = std::numeric_limits<double>::infinity();

// (y, size) pairs of the sweeps.
using Pairs = std::vector<std::pair<double, double>>;

// The largest errors measured, printed at the end of each test that records them.
struct MaxError {
  double value = 0;
  void record(double error) { value = std::max(value, error); }
};

// --- Derivatives ---

// d/df g by the five-point central difference (-g(f+2h) + 8 g(f+h) - 8 g(f-h) + g(f-2h)) / 12h;
// truncation h^4 |g^(5)| / 30.
template <class G>
double five_point(const G& g, double f, double h) {
  return (-g(f + 2 * h) + 8 * g(f + h) - 8 * g(f - h) + g(f - 2 * h)) / (12 * h);
}

// l' and l'' of `lik` at (y, f) against five-point differences of l and l' with h = 1e-3 scale,
// `scale` the length over which l varies in f, so that the truncation h^4 |l^(5)| / 30 ~ 3e-14
// scale |l''| (the tolerance takes 1e-9 of it). Each value of l is rounded at the size of its
// f-dependent terms (`terms`) and of l itself, a few ulps; the stencil's weights sum to 1.5 / h:
// rounding <= 8 eps (terms + |l|) / h (and 8 eps (|l'| + scale |l''|) / h for l').
// Returns the largest error relative to its tolerance.
double check_derivatives(const Likelihood& lik, const Observation& y, double f, double scale,
                         double terms) {
  SCOPED_TRACE(::testing::Message() << "y " << y.y << " size " << y.size << " f " << f);
  const double h = 1e-3 * scale;
  const double l = lik.log_likelihood(y, f), d1 = lik.d_log_likelihood(y, f),
               d2 = lik.d2_log_likelihood(y, f);
  EXPECT_TRUE(std::isfinite(l) && std::isfinite(d1) && std::isfinite(d2)) << l << d1 << d2;
  const double fd1 = five_point([&](double x) { return lik.log_likelihood(y, x); }, f, h);
  const double fd2 = five_point([&](double x) { return lik.d_log_likelihood(y, x); }, f, h);
  const double tol1 =
      1e-9 * (std::fabs(d1) + scale * std::fabs(d2)) + 8 * kEps * (terms + std::fabs(l)) / h;
  const double tol2 = 1e-9 * (std::fabs(d2) + std::fabs(d1) / scale) +
                      8 * kEps * (std::fabs(d1) + scale * std::fabs(d2)) / h;
  EXPECT_NEAR(d1, fd1, tol1);
  EXPECT_NEAR(d2, fd2, tol2);
  return std::max(std::fabs(d1 - fd1) / tol1, std::fabs(d2 - fd2) / tol2);
}

// --- Tilted moments ---

// Pieces for tilted_reference: cuts around the cavity (scale sqrt v), the likelihood's mode
// (scale `width`) and the peak of log T_k = phi (the highest of 1001 points over their span,
// refined by 60 golden-section steps; scale s = 1 / sqrt(1/v + k |l''|) there), so that no piece
// holds a peak the cuts miss. Cuts where phi is more than 60 below the peak (the pieces they
// bound hold < e^-60 of the mass, unless a second mode of phi rises within 60 of the peak,
// whose cuts then stay) and cuts within 1e-6 s of the previous (a sliver only adds rounding)
// are dropped.
struct Pieces {
  std::vector<double> cuts;
  double peak, scale;
};
Pieces reference_pieces(const Likelihood& lik, const Observation& y, double m, double v, int k,
                        double mode, double width) {
  const auto phi = [&](double f) {
    return k * lik.log_likelihood(y, f) - 0.5 * (f - m) * (f - m) / v;
  };
  std::vector<double> cuts = testing::cuts_around(m, mode, width, m, std::sqrt(v));
  const double step = (cuts.back() - cuts.front()) / 1000;
  double peak = m;
  for (int i = 0; i <= 1000; ++i)
    if (phi(cuts.front() + i * step) > phi(peak)) peak = cuts.front() + i * step;
  double a = peak - step, b = peak + step;
  for (int it = 0; it < 60; ++it) {
    const double c = b - 0.618034 * (b - a), d = a + 0.618034 * (b - a);
    (phi(c) > phi(d) ? b : a) = phi(c) > phi(d) ? d : c;
  }
  peak = 0.5 * (a + b);
  const double s = 1 / std::sqrt(1 / v + k * std::fabs(lik.d2_log_likelihood(y, peak)));
  for (double d : {-10.0, -3.0, -1.0, 0.0, 1.0, 3.0, 10.0}) cuts.push_back(peak + d * s);
  std::sort(cuts.begin(), cuts.end());
  Pieces p{{}, peak, s};
  const double top = phi(peak);
  for (double c : cuts)
    if (phi(c) >= top - 60 && (p.cuts.empty() || c > p.cuts.back() + 1e-6 * s)) p.cuts.push_back(c);
  return p;
}

// The reference moments on `pieces`, integrated in u = (f - peak) / s (the Gaussian N(f; m, v)
// df is N(u; (m - peak) / s, v / s^2) du), where the pieces near the peak are ~1 wide: Boost
// 1.74's Gauss-Kronrod compares the error estimate of [-1, 1] with the tolerance scaled to the
// piece, so it bisects a narrow piece to its depth limit. The moments are taken about the peak
// (no cancellation in the variance). Each piece to 1e-12 relative, 1e4 below the tolerances of
// check_tilted_moments: log p's own rounding (a few ulps of terms ~1e3 at y = 1000) keeps
// Kronrod's error estimate near 1e-13 and triples the cost of a 1e-13 target.
TiltedMoments reference_moments(const Likelihood& lik, const Observation& y, double m, double v,
                                int k, const Pieces& pieces) {
  const double peak = pieces.peak, s = pieces.scale;
  std::vector<double> cuts;
  for (double c : pieces.cuts) cuts.push_back((c - peak) / s);
  const TiltedMoments u =
      testing::tilted_reference([&](double x) { return lik.log_likelihood(y, peak + s * x); },
                                (m - peak) / s, v / (s * s), k, cuts, 0.0, 1e-12);
  return {u.log_z, peak + s * u.mean, s * s * u.variance};
}

// A site of the tilted-moment sweeps: an observation and its likelihood's mode in f (for a
// monotone likelihood, the middle of its transition).
struct Site {
  Observation y;
  double mode;
};

// tilted_moments_power (k = 1, 2, 5) against the reference for cavity variances 0.01, 1, 25 and
// cavity means 0, 3 and 20 cavity sds on either side of the mode: log Z within 1e-8, the mean
// within 1e-8 cavity sds, the variance within 1e-8 relative (the reference's own error, 61-point
// Kronrod to 1e-12 per piece, is far below; the framework's rules claim <= 5e-9); at k = 1
// tilted_moments, EP's entry point, is the same computation. Returns the largest error relative
// to its tolerance.
double check_tilted_moments(const Likelihood& lik, const std::vector<Site>& sites) {
  double worst = 0;
  for (const Site& site : sites)
    for (double v : {0.01, 1.0, 25.0})
      for (double d : {-20.0, -3.0, 0.0, 3.0, 20.0})
        for (int k : {1, 2, 5}) {
          const double m = site.mode + d * std::sqrt(v);
          SCOPED_TRACE(::testing::Message() << "y " << site.y.y << " size " << site.y.size << " m "
                                            << m << " v " << v << " k " << k);
          const double width = 1 / std::sqrt(std::fabs(lik.d2_log_likelihood(site.y, site.mode)));
          const TiltedMoments want = reference_moments(
              lik, site.y, m, v, k, reference_pieces(lik, site.y, m, v, k, site.mode, width));
          const TiltedMoments got = lik.tilted_moments_power(site.y, m, v, k);
          const double tol_mean = 1e-8 * std::sqrt(v), tol_var = 1e-8 * want.variance;
          EXPECT_NEAR(got.log_z, want.log_z, 1e-8);
          EXPECT_NEAR(got.mean, want.mean, tol_mean);
          EXPECT_NEAR(got.variance, want.variance, tol_var);
          if (k == 1) {
            const TiltedMoments ep = lik.tilted_moments(site.y, m, v);
            EXPECT_EQ(ep.log_z, got.log_z);
            EXPECT_EQ(ep.mean, got.mean);
            EXPECT_EQ(ep.variance, got.variance);
          }
          worst = std::max({worst, std::fabs(got.log_z - want.log_z) / 1e-8,
                            std::fabs(got.mean - want.mean) / tol_mean,
                            std::fabs(got.variance - want.variance) / tol_var});
        }
  return worst;
}

// d log Z / dtheta_j (natural scale) against central differences of the reference's log Z in
// log theta_j with step h = 1e-4 on the same cuts: truncation h^2 / 6 |d^3 log Z / d(log
// theta)^3| ~ 2e-9 of the log-scale gradient's size, the reference's error (~1e-13 in log Z) /
// 2h ~ 5e-10; the tolerance 1e-7 (|g_j| + 1 / theta_j) covers both and the interface's tilted
// mean (<= 1e-9). Returns the largest error relative to its tolerance.
double check_normalizer_gradient(Likelihood& lik, const Observation& y, double m, double v,
                                 double mode) {
  SCOPED_TRACE(::testing::Message()
               << "y " << y.y << " size " << y.size << " m " << m << " v " << v);
  const double width = 1 / std::sqrt(std::fabs(lik.d2_log_likelihood(y, mode)));
  const Pieces pieces = reference_pieces(lik, y, m, v, 1, mode, width);
  const Eigen::VectorXd g = lik.d_log_tilted_normalizer(y, m, v);
  const auto blocks = lik.hyperparameters();
  EXPECT_EQ(g.size(), static_cast<Eigen::Index>(blocks.size()));
  double worst = 0;
  for (std::size_t j = 0; j < blocks.size(); ++j) {
    const double theta = blocks[j].value(0), h = 1e-4;
    const auto log_z = [&](double value) {
      lik.set_hyperparameter(blocks[j].name, Eigen::VectorXd::Constant(1, value));
      return reference_moments(lik, y, m, v, 1, pieces).log_z;
    };
    const double fd = (log_z(theta * std::exp(h)) - log_z(theta * std::exp(-h))) / (2 * h) / theta;
    lik.set_hyperparameter(blocks[j].name, Eigen::VectorXd::Constant(1, theta));
    const double tol = 1e-7 * (std::fabs(g(static_cast<Eigen::Index>(j))) + 1 / theta);
    EXPECT_NEAR(g(static_cast<Eigen::Index>(j)), fd, tol) << blocks[j].name;
    worst = std::max(worst, std::fabs(g(static_cast<Eigen::Index>(j)) - fd) / tol);
  }
  return worst;
}

// d log p / dtheta_j against five-point differences in theta_j with step h = 1e-3 theta_j:
// truncation ~1e-13 relative; rounding 8 eps (terms + |log p|) / h, `terms` the size of the
// theta-dependent terms of log p. Returns the largest error relative to its tolerance.
double check_likelihood_gradient(Likelihood& lik, const Observation& y, double f, double terms) {
  const Eigen::VectorXd g = lik.d_log_likelihood_hyperparameters(y, f);
  const auto blocks = lik.hyperparameters();
  double worst = 0;
  for (std::size_t j = 0; j < blocks.size(); ++j) {
    const double theta = blocks[j].value(0), h = 1e-3 * theta;
    const auto log_p = [&](double value) {
      lik.set_hyperparameter(blocks[j].name, Eigen::VectorXd::Constant(1, value));
      return lik.log_likelihood(y, f);
    };
    const double fd = five_point(log_p, theta, h);
    const double l = log_p(theta);
    const double gj = g(static_cast<Eigen::Index>(j));
    const double tol = 1e-8 * std::fabs(gj) + 8 * kEps * (terms + std::fabs(l)) / h;
    EXPECT_NEAR(gj, fd, tol) << blocks[j].name << " y " << y.y << " f " << f;
    worst = std::max(worst, std::fabs(gj - fd) / tol);
  }
  return worst;
}

// --- Sums over the probability mass ---

// E, Var and the distribution function of a discrete likelihood at (f, size), from the masses
// exp(log p(y)) for y = 0, 1, ..., last, or (last infinite: counts) until past the mean a mass
// is below 1e-20 of the largest (the pmfs here decay at least geometrically beyond: the rest is
// < 1e-18 of the total), normalized by their sum; the variance as sum p (y - E)^2 (the
// interface's default, E[y^2] - E^2, cancels when Var << E^2).
struct MassSums {
  double mean = 0, variance = 0;
  std::vector<double> cdf;
};
MassSums mass_sums(const Likelihood& lik, double f, double size, double last) {
  std::vector<double> p;
  double top = 0, total = 0, first = 0;
  for (double y = 0; y <= last; ++y) {
    p.push_back(std::exp(lik.log_likelihood({y, size}, f)));
    top = std::max(top, p.back());
    total += p.back();
    first += y * p.back();
    if (last == kInf && y > first / total && p.back() < 1e-20 * top) break;
  }
  MassSums s;
  s.mean = first / total;
  double below = 0;
  for (std::size_t y = 0; y < p.size(); ++y) {
    s.variance += p[y] * (y - s.mean) * (y - s.mean) / total;
    below += p[y];
    s.cdf.push_back(below / total);
  }
  return s;
}

// A likelihood's closed-form predictive_moments against the interface's 32-point
// Gauss-Hermite default at latent N(m, v), size 2: 1e-12 relative.
void check_closed_form_predictive(const Likelihood& lik, MaxError& predictive) {
  for (double m : {-2.0, 0.5, 3.0})
    for (double v : {0.01, 1.0, 4.0}) {
      const TargetMoments t = lik.predictive_moments(m, v, 2.0);
      const TargetMoments g = lik.Likelihood::predictive_moments(m, v, 2.0);
      EXPECT_NEAR(t.mean, g.mean, 1e-12 * g.mean);
      EXPECT_NEAR(t.variance, g.variance, 1e-12 * g.variance);
      predictive.record(
          std::max(std::fabs(t.mean / g.mean - 1), std::fabs(t.variance / g.variance - 1)));
    }
}

// target_moments and target_cdf at (f, size) against mass_sums: the masses exp(log p) err by
// eps times the size of log p's terms (~1e-12 relative at y ~ 2500), so the mean within 1e-11
// relative, the variance and the cdf within 1e-10 (the cdf at 0, 1, the mean and 3 sds above
// it, below `last`).
void check_mass_predictions(const Likelihood& lik, double f, double size, double last,
                            MaxError& moments, MaxError& cdf) {
  SCOPED_TRACE(::testing::Message() << "f " << f << " size " << size);
  const TargetMoments t = lik.target_moments(f, size);
  const MassSums s = mass_sums(lik, f, size, last);
  EXPECT_NEAR(t.mean, s.mean, 1e-11 * s.mean);
  EXPECT_NEAR(t.variance, s.variance, 1e-10 * s.variance);
  moments.record(std::max(std::fabs(t.mean / s.mean - 1), std::fabs(t.variance / s.variance - 1)));
  for (double y : {0.0, 1.0, std::floor(t.mean), std::floor(t.mean + 3 * std::sqrt(t.variance))}) {
    if (y >= last) continue;
    const double p = lik.target_cdf({y, size}, f), q = s.cdf[static_cast<std::size_t>(y)];
    EXPECT_NEAR(p, q, 1e-10 * q) << "y " << y;
    cdf.record(std::fabs(p / q - 1));
  }
  EXPECT_EQ(lik.target_cdf({-1.0, size}, f), 0.0);
}

// --- Validation ---

// Runs `make` and expects a ConfigError whose message contains `text`.
void expect_config_error(const std::function<void()>& make, const std::string& text) {
  try {
    make();
    ADD_FAILURE() << "no ConfigError, expected one containing: " << text;
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

Eigen::VectorXd one(double x) { return Eigen::VectorXd::Constant(1, x); }

// =============================== poisson ===============================

TEST(Poisson, DeclaresItsTargetAndExposure) {
  PoissonLikelihood none(Params(PoissonLikelihood::schema(), {}));
  EXPECT_EQ(none.target_kind(), TargetKind::count);
  EXPECT_EQ(none.size_column(), "");
  EXPECT_TRUE(none.log_concave());
  EXPECT_TRUE(none.hyperparameters().empty());
  expect_config_error([&] { none.set_hyperparameter("dispersion", one(1.0)); }, "'dispersion'");
  EXPECT_THROW(none.d_log_tilted_normalizer({1.0}, 0.0, 1.0), ConfigError);
  const PoissonLikelihood with(
      Params(PoissonLikelihood::schema(), {{"exposure", std::string("years")}}));
  EXPECT_EQ(with.size_column(), "years");
}

TEST(Poisson, LogLikelihoodEqualsBoostAndDerivativesMatchDifferences) {
  const PoissonLikelihood lik;
  double worst = 0;
  for (double y : {0.0, 1.0, 7.0, 1000.0})
    for (double n : {1.0, 0.3, 20.0})
      for (double f : {-50.0, -5.0, 0.0, 2.0, 6.9, 50.0}) {
        const Observation o{y, n};
        const double mu = n * std::exp(f);
        worst = std::max(worst,
                         check_derivatives(lik, o, f, 1.0, std::fabs(y * (std::log(n) + f)) + mu));
        // Boost's pmf where it is a normal number: to 1e-12 relative (its own accuracy).
        const double pmf = boost::math::pdf(boost::math::poisson_distribution<>(mu), y);
        if (pmf > 1e-300) {
          EXPECT_NEAR(lik.log_likelihood(o, f), std::log(pmf),
                      1e-12 * (1 + std::fabs(std::log(pmf))));
        }
      }
  std::printf("poisson derivatives: worst error / tolerance %.3g\n", worst);
}

TEST(Poisson, TiltedMomentsEqualGaussKronrod) {
  const PoissonLikelihood lik;
  std::vector<Site> sites;
  for (auto [y, n] : Pairs{{0, 1}, {3, 1}, {3, 2.5}, {1000, 1}})
    sites.push_back({{y, n}, std::log(std::max(y, 0.5) / n)});
  std::printf("poisson tilted moments: worst error / tolerance %.3g\n",
              check_tilted_moments(lik, sites));
}

// Cavity variances of 1e4 and 1e6 (an evidence optimizer's trial amplitude of 9278 on
// doctorvisits): a zero count's site is a soft wall, -e^f, that the search for the integration
// limits met far beyond the limit, where Newton's steps creep one unit each (900 us a site) or
// e^f overflows (NaN). Against adaptive Gauss-Kronrod (tolerances as above), with a rule of at
// most 600 nodes (a proxy for the cost that a timing would not pin).
TEST(Poisson, TiltedMomentsAtVastCavityVariances) {
  const PoissonLikelihood lik;
  for (const double y : {0.0, 1.0, 4.0})
    for (const double v : {1e4, 1e6})
      for (const double m : {-50.0, 0.0, 5.0}) {
        SCOPED_TRACE(::testing::Message() << "y " << y << " m " << m << " v " << v);
        const double mode = std::log(std::max(y, 0.5));
        const TiltedMoments want =
            reference_moments(lik, {y}, m, v, 1, reference_pieces(lik, {y}, m, v, 1, mode, 1.0));
        const TiltedMoments got = lik.tilted_moments({y}, m, v);
        EXPECT_NEAR(got.log_z, want.log_z, 1e-8);
        EXPECT_NEAR(got.mean, want.mean, 1e-8 * std::sqrt(v));
        EXPECT_NEAR(got.variance, want.variance, 1e-8 * want.variance);
        EXPECT_LE(tilted_site_rule(lik, {y}, m, v, 1).nodes.size(), 600u);
      }
}

TEST(Poisson, PredictionsEqualMassSumsAndQuadrature) {
  const PoissonLikelihood lik;
  MaxError moments, cdf, predictive;
  for (double n : {1.0, 2.5})
    for (double f : {-3.0, 0.0, 2.0, 6.9}) check_mass_predictions(lik, f, n, kInf, moments, cdf);
  // The lognormal closed form against the interface's 32-point Gauss-Hermite rule, exact to
  // ~1e-15 for e^(f) and e^(2f) at these variances: 1e-12 relative.
  check_closed_form_predictive(lik, predictive);
  std::printf("poisson: target moments %.3g, cdf %.3g, predictive %.3g (relative)\n", moments.value,
              cdf.value, predictive.value);
}

// P(Y <= y) where Boost's Q(a, mu) throws (a predictive quantile's search met them: a count
// of 1e4 at a node mu = 1e-20 of latent variance 30 failed an EP run) and beside them, where
// it does not: the tail bounds' 0 and 1 within e^-40 of Q, Wilson-Hilferty (a > 1e9) within
// 1e-9 (its error is O(1/a)).
TEST(Poisson, CdfHoldsWhereBoostsIncompleteGammaThrows) {
  const PoissonLikelihood lik;
  EXPECT_EQ(lik.target_cdf({1e4}, std::log(1e-20)), 1.0);
  EXPECT_EQ(lik.target_cdf({1e12}, 0.0), 1.0);
  EXPECT_EQ(lik.target_cdf({10}, std::log(1e24)), 0.0);
  for (const double a : {3e10, 1e12}) {
    // Q(a, a) = 1/2 - 1 / (3 sqrt(2 pi a)) + O(1/a) (Boost gives up exactly there).
    EXPECT_NEAR(lik.target_cdf({a - 1}, std::log(a)), 0.5 - 1 / (3 * std::sqrt(2 * M_PI * a)), 1e-9)
        << a;
    for (const double r : {0.999, 1.001, 0.99, 1.01})
      EXPECT_NEAR(lik.target_cdf({a - 1}, std::log(a * r)), boost::math::gamma_q(a, a * r), 1e-9)
          << a << " " << r;
  }
  double worst = 0;
  for (const double a : {2.0, 51.0, 1001.0, 1e4, 1e6, 1e9})
    for (double mu = 1e-3 * a; mu < 1e3 * a; mu *= 1.05) {
      const double f = std::log(mu);  // Q at the mean the likelihood forms, exp(f)
      worst = std::max(worst,
                       std::abs(lik.target_cdf({a - 1}, f) - boost::math::gamma_q(a, std::exp(f))));
    }
  EXPECT_LT(worst, 1e-15);
  for (const double q : {0.025, 0.5, 0.975}) {
    const double k = predictive_quantile(lik, q, 0.0, 30.0, 1.0);
    EXPECT_TRUE(std::isfinite(k) && k >= 0 && k == std::floor(k)) << q << " " << k;
  }
}

// =============================== negative_binomial ===============================

TEST(NegativeBinomial, DeclaresItsTargetExposureAndDispersion) {
  const NegativeBinomialLikelihood lik(
      Params(NegativeBinomialLikelihood::schema(), {{"exposure", std::string("area")}}));
  EXPECT_EQ(lik.target_kind(), TargetKind::count);
  EXPECT_EQ(lik.size_column(), "area");
  EXPECT_TRUE(lik.log_concave());
  ASSERT_EQ(lik.hyperparameters().size(), 1u);
  const Hyperparameter h = lik.hyperparameters()[0];
  EXPECT_EQ(h.name, "dispersion");
  EXPECT_EQ(h.value(0), 1.0);  // the default
  EXPECT_TRUE(h.log_scale);
  EXPECT_EQ(h.lower, 1e-4);
  EXPECT_EQ(h.upper, 1e6);
}

TEST(NegativeBinomial, LogLikelihoodEqualsBoostAndDerivativesMatchDifferences) {
  double worst = 0, gradient = 0;
  for (double r : {1e-4, 0.5, 20.0, 1e6}) {
    const NegativeBinomialLikelihood lik(r);
    for (double y : {0.0, 1.0, 7.0, 1000.0})
      for (double n : {1.0, 0.3, 20.0})
        for (double f : {-50.0, -5.0, 0.0, 2.0, 6.9, 50.0}) {
          const Observation o{y, n};
          const double t = std::log(n) + f - std::log(r);
          // |r log sigma(-t)| + |y log sigma(t)|, the f-dependent terms.
          const double terms = r * std::log1p(std::exp(t)) + y * std::log1p(std::exp(-t));
          worst = std::max(worst, check_derivatives(lik, o, f, 1.0, terms));
          // Boost's pmf (p = r / (r + mu)) where it is a normal number: 1e-12 relative, plus
          // y eps / (1 - p) for the 1 - p it forms. Not at r = 1e6, where Boost's pmf loses
          // digits (1e-7 relative against 50-digit arithmetic; EqualsHighPrecisionValues
          // checks that case).
          const double p = 1 / (1 + std::exp(t));
          if (r > 20 || p <= 0 || p >= 1) continue;
          const double pmf =
              boost::math::pdf(boost::math::negative_binomial_distribution<>(r, p), y);
          if (pmf > 1e-300) {
            EXPECT_NEAR(lik.log_likelihood(o, f), std::log(pmf),
                        1e-12 * (1 + std::fabs(std::log(pmf))) + y * kEps / (1 - p))
                << "r " << r << " y " << y << " n " << n << " f " << f;
          }
        }
    for (double y : {0.0, 7.0, 1000.0})
      for (double f : {-5.0, 0.0, 2.0, 6.9}) {
        NegativeBinomialLikelihood copy(r);
        const double t = f - std::log(r);
        gradient =
            std::max(gradient, check_likelihood_gradient(
                                   copy, {y, 1.0}, f,
                                   std::fabs(std::lgamma(r + y)) + std::fabs(std::lgamma(r)) +
                                       r * std::log1p(std::exp(t)) + y * std::log1p(std::exp(-t))));
      }
  }
  std::printf("negative_binomial derivatives: worst error / tolerance %.3g in f, %.3g in r\n",
              worst, gradient);
}

TEST(NegativeBinomial, TiltedMomentsEqualGaussKronrod) {
  double worst = 0;
  for (double r : {0.5, 20.0}) {
    const NegativeBinomialLikelihood lik(r);
    std::vector<Site> sites;
    for (auto [y, n] : r < 1 ? Pairs{{0, 1}, {5, 3}, {1000, 1}} : Pairs{{0, 1}, {5, 1}, {1000, 1}})
      sites.push_back({{y, n}, std::log(std::max(y, 0.5) / n)});
    worst = std::max(worst, check_tilted_moments(lik, sites));
  }
  std::printf("negative_binomial tilted moments: worst error / tolerance %.3g\n", worst);
}

TEST(NegativeBinomial, NormalizerGradientMatchesDifferences) {
  double worst = 0;
  for (double r : {0.5, 20.0, 1e4})
    for (double y : {0.0, 5.0, 1000.0})
      for (double v : {0.01, 25.0})
        for (double d : {-20.0, 0.0, 3.0}) {
          NegativeBinomialLikelihood lik(r);
          const double mode = std::log(std::max(y, 0.5));
          worst = std::max(
              worst, check_normalizer_gradient(lik, {y, 1.0}, mode + d * std::sqrt(v), v, mode));
        }
  std::printf("negative_binomial d log Z / dr: worst error / tolerance %.3g\n", worst);
}

TEST(NegativeBinomial, PredictionsEqualMassSumsAndQuadrature) {
  MaxError moments, cdf, predictive;
  for (double r : {0.5, 20.0}) {
    const NegativeBinomialLikelihood lik(r);
    for (double n : {1.0, 3.0})
      for (double f : {-3.0, 0.0, 3.0}) check_mass_predictions(lik, f, n, kInf, moments, cdf);
    // The closed form against the interface's 32-point Gauss-Hermite rule: 1e-12 relative.
    check_closed_form_predictive(lik, predictive);
  }
  std::printf("negative_binomial: target moments %.3g, cdf %.3g, predictive %.3g (relative)\n",
              moments.value, cdf.value, predictive.value);
}

// log NB - log Poisson = c1 / r + c2 / r^2 + O(r^-3) with c1 = ((y - mu)^2 - y) / 2 and
// c2 = -y (y - 1) (2y - 1) / 12 - mu^3 / 3 + y mu^2 / 2 (the expansion of log Gamma(y + r) /
// Gamma(r) - y log r and r log(1 + mu / r) in 1 / r). At r = 1e6, with y, mu <= 20, the
// O(r^-3) terms are < 1e-7 in r (log NB - log Poisson) - c1 - c2 / r, and rounding r eps |log p|
// ~ 1e-8: tolerance 1e-6. (A difference of two lgamma values would err by r eps lgamma(r) ~ 3e-3.)
// The tilted moments and the cdf then agree to the size of c1 / r: at r = 1e10 within 1e-7.
TEST(NegativeBinomial, TendsToPoisson) {
  const double r = 1e6;
  const NegativeBinomialLikelihood nb(r), nb_far(1e10);
  const PoissonLikelihood poisson;
  double worst = 0;
  for (double y : {0.0, 3.0, 20.0})
    for (double mu : {0.5, 3.0, 20.0}) {
      const double f = std::log(mu);
      const double c1 = ((y - mu) * (y - mu) - y) / 2;
      const double c2 = -y * (y - 1) * (2 * y - 1) / 12 - mu * mu * mu / 3 + y * mu * mu / 2;
      const double scaled = r * (nb.log_likelihood({y}, f) - poisson.log_likelihood({y}, f));
      EXPECT_NEAR(scaled, c1 + c2 / r, 1e-6) << "y " << y << " mu " << mu;
      worst = std::max(worst, std::fabs(scaled - c1 - c2 / r));
      EXPECT_NEAR(nb_far.target_cdf({y}, f), poisson.target_cdf({y}, f), 1e-7);
      const TiltedMoments a = nb_far.tilted_moments({y}, f + 1, 0.5);
      const TiltedMoments b = poisson.tilted_moments({y}, f + 1, 0.5);
      EXPECT_NEAR(a.log_z, b.log_z, 1e-7);
      EXPECT_NEAR(a.mean, b.mean, 1e-7);
      EXPECT_NEAR(a.variance, b.variance, 1e-7);
    }
  std::printf("negative_binomial -> poisson: |r (log NB - log P) - c1 - c2/r| <= %.3g\n", worst);
}

// log p and d log p / dr against 50-digit mpmath (loggamma, digamma) at the ends of the dispersion
// bounds and in the far tails of f: log p within 8 eps of the size of the terms it sums
// (y log(r + y) for log Gamma(y + r) / Gamma(r), log y!: up to ~2e4 at y = 1000), d/dr within
// 1e-11 relative (its parts cancel to 2e-17 at r = 1e6 without the rearrangement of
// negative_binomial_likelihood.h: 2e-8 relative then).
TEST(NegativeBinomial, EqualsHighPrecisionValues) {
  struct Value {
    double r, y, n, f, log_p, d_r;
  };
  MaxError log_p, d_r;
  for (const Value& c :
       std::vector<Value>{{1e6, 7, 1, 2.0, -1.9142208843026233, 3.4242954415684773e-12},
                          {1e6, 0, 1, -5.0, -0.0067379469763855023, -2.2699964677307547e-17},
                          {1e6, 1000, 2.5, 6.0, -4.4098933935556151, 4.6283500084698354e-10},
                          {1e-4, 1000, 1, 6.9, -16.119059024676634, 9991.3661805781941},
                          {1e-4, 0, 1, 50.0, -0.0059210340371976186, -58.210340371976183},
                          {0.5, 3, 1, -50.0, -149.08370926812584, -2.9333333333333333},
                          {20, 1000, 1, 50.0, -847.98911152099062, -42.047724088585663}}) {
    const NegativeBinomialLikelihood lik(c.r);
    const Observation o{c.y, c.n};
    const double l = lik.log_likelihood(o, c.f),
                 g = lik.d_log_likelihood_hyperparameters(o, c.f)(0);
    const double terms = c.y * std::fabs(std::log(c.r + c.y)) + std::lgamma(c.y + 1);
    EXPECT_NEAR(l, c.log_p, 8 * kEps * (1 + terms + std::fabs(c.log_p)))
        << "r " << c.r << " y " << c.y;
    EXPECT_NEAR(g, c.d_r, 1e-11 * std::fabs(c.d_r)) << "r " << c.r << " y " << c.y;
    log_p.record(std::fabs(l - c.log_p) / (1 + terms + std::fabs(c.log_p)));
    d_r.record(std::fabs(g / c.d_r - 1));
  }
  std::printf("negative_binomial vs 50 digits: log p %.3g (of its terms), d/dr %.3g (relative)\n",
              log_p.value, d_r.value);
}

TEST(NegativeBinomial, RefusesBadDispersions) {
  const auto schema = NegativeBinomialLikelihood::schema();
  expect_config_error(
      [&] {
        NegativeBinomialLikelihood(Params(schema, {{"dispersion", -1.0}}));
      },
      "negative_binomial: 'dispersion' must be > 0, got -1");
  expect_config_error([] { NegativeBinomialLikelihood{0.0}; },
                      "negative_binomial: 'dispersion' must be > 0, got 0");
  expect_config_error([] { NegativeBinomialLikelihood{kInf}; },
                      "negative_binomial: 'dispersion' must be finite");
  NegativeBinomialLikelihood lik(2.0);
  expect_config_error([&] { lik.set_hyperparameter("noise", one(1.0)); }, "'noise'");
  expect_config_error([&] { lik.set_hyperparameter("dispersion", one(-3.0)); },
                      "'dispersion' must be > 0");
  expect_config_error([&] { lik.set_hyperparameter("dispersion", one(std::nan(""))); },
                      "'dispersion' must be > 0");
  expect_config_error([&] { lik.set_hyperparameter("dispersion", Eigen::VectorXd::Ones(2)); },
                      "'dispersion' takes one number");
  EXPECT_EQ(lik.dispersion(), 2.0);  // unchanged by the refusals
  lik.set_hyperparameter("dispersion", one(7.0));
  EXPECT_EQ(lik.hyperparameters()[0].value(0), 7.0);
}

// =============================== student_t ===============================

TEST(StudentT, DeclaresItsTargetAndHyperparameters) {
  const StudentTLikelihood lik(Params(StudentTLikelihood::schema(), {}));
  EXPECT_EQ(lik.target_kind(), TargetKind::real);
  EXPECT_FALSE(lik.log_concave());
  EXPECT_EQ(lik.dof(), 4.0);
  EXPECT_EQ(lik.scale(), 1.0);
  const auto blocks = lik.hyperparameters();
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].name, "dof");
  EXPECT_EQ(blocks[1].name, "scale");
  EXPECT_TRUE(blocks[0].log_scale && blocks[1].log_scale);
  EXPECT_LT(blocks[0].lower, blocks[0].upper);
  EXPECT_LT(blocks[1].lower, blocks[1].upper);
  // The degrees of freedom are learned only when named (Python's learn_noise=True).
  EXPECT_FALSE(blocks[0].learned_by_default);
  EXPECT_TRUE(blocks[1].learned_by_default);
}

// The curvature bound (nu + 1) / (8 nu sigma^2) is the supremum of d^2/df^2 log p: no point of
// a fine grid exceeds it, and the grid's largest value (near z^2 = 3 nu) reaches it to 1e-6.
TEST(StudentT, CurvatureBoundIsTheLargestSecondDerivative) {
  for (double nu : {0.5, 4.0, 30.0})
    for (double sigma : {0.1, 2.0}) {
      const StudentTLikelihood lik(nu, sigma);
      double largest = -1e300;
      for (double z = -20; z <= 20; z += 1e-3)
        largest = std::max(largest, lik.d2_log_likelihood({0.0}, -z * sigma));
      EXPECT_LE(largest, lik.curvature_bound() * (1 + 1e-12)) << nu << " " << sigma;
      EXPECT_GE(largest, lik.curvature_bound() * (1 - 1e-6)) << nu << " " << sigma;
    }
}

TEST(StudentT, LogLikelihoodEqualsBoostAndDerivativesMatchDifferences) {
  double worst = 0, gradient = 0;
  for (double nu : {0.5, 4.0, 1e4})
    for (double sigma : {0.05, 1.0, 30.0}) {
      const StudentTLikelihood lik(nu, sigma);
      const boost::math::students_t_distribution<> t(nu);
      for (double f : {-50.0, -2.0, 0.0, 0.6, 0.7, 3.0, 50.0}) {
        const Observation o{0.7};
        const double z = (o.y - f) / sigma;
        const double terms = 0.5 * (nu + 1) * std::log1p(z * z / nu);
        worst = std::max(worst, check_derivatives(lik, o, f, sigma, terms));
        // Boost's pdf where it is a normal number: 1e-12 relative.
        const double pdf = boost::math::pdf(t, z) / sigma;
        if (pdf > 1e-300) {
          EXPECT_NEAR(lik.log_likelihood(o, f), std::log(pdf),
                      1e-12 * (1 + std::fabs(std::log(pdf))))
              << "nu " << nu << " sigma " << sigma << " f " << f;
        }
        StudentTLikelihood copy(nu, sigma);
        gradient =
            std::max(gradient,
                     check_likelihood_gradient(
                         copy, o, f,
                         std::fabs(std::lgamma(0.5 * nu + 0.5)) + std::fabs(std::lgamma(0.5 * nu)) +
                             std::log(M_PI * nu) + std::fabs(std::log(sigma)) + terms));
      }
    }
  std::printf("student_t derivatives: worst error / tolerance %.3g in f, %.3g in (dof, scale)\n",
              worst, gradient);
}

// Outliers included: a cavity 20 sds from y on either side, where the tilted density has a mode
// near the cavity and one near y.
TEST(StudentT, TiltedMomentsEqualGaussKronrodIncludingTwoModes) {
  double worst = 0;
  for (double nu : {0.5, 4.0})
    for (double sigma : {0.05, 1.0}) {
      const StudentTLikelihood lik(nu, sigma);
      worst = std::max(worst, check_tilted_moments(lik, {{{0.7}, 0.7}}));
    }
  std::printf("student_t tilted moments: worst error / tolerance %.3g\n", worst);
}

TEST(StudentT, NormalizerGradientMatchesDifferences) {
  double worst = 0;
  for (double nu : {0.5, 4.0, 100.0})
    for (double sigma : {0.05, 1.0})
      for (double v : {0.01, 1.0, 25.0})
        for (double d : {-20.0, 0.0}) {  // an outlier (two modes) and an inlier
          StudentTLikelihood lik(nu, sigma);
          worst = std::max(worst,
                           check_normalizer_gradient(lik, {0.7}, 0.7 + d * std::sqrt(v), v, 0.7));
        }
  std::printf("student_t d log Z / d(dof, scale): worst error / tolerance %.3g\n", worst);
}

// The standardized density p_z(z) = sigma p(f + sigma z | f) (or z^2 p_z) integrated by 61-point
// Kronrod to 1e-14: on [a, b], and on the tail beyond |z| = e^u0 in u = log |z|, where the power
// tail |z|^-(nu + 1 - j) of z^j p_z becomes e^(-(nu - j) u) (Kronrod on the raw half-line
// converges slowly there), up to u0 + 80 / (nu - j): the rest is < e^-80 of the tail.
double integrate_standardized(const std::function<double(double)>& g, double a, double b) {
  return boost::math::quadrature::gauss_kronrod<double, 61>::integrate(g, a, b, 15, 1e-14);
}
double upper_tail(const std::function<double(double)>& g, double u0, double decay) {
  return integrate_standardized([&](double u) { return g(std::exp(u)) * std::exp(u); }, u0,
                                u0 + 80 / decay);
}

TEST(StudentT, PredictionsEqualQuadrature) {
  MaxError variance, cdf;
  for (double nu : {0.5, 1.5, 2.0, 5.0, 30.0}) {
    const double sigma = 0.8, f = 0.3;
    const StudentTLikelihood lik(nu, sigma);
    const auto p_z = [&](double z) {
      return sigma * std::exp(lik.log_likelihood({f + sigma * z}, f));
    };
    const TargetMoments t = lik.target_moments(f, 1.0);
    EXPECT_EQ(t.mean, f);
    if (nu <= 2) {
      EXPECT_EQ(t.variance, kInf);
    } else {
      // sigma^2 E[z^2] = 2 sigma^2 \int_0^inf z^2 p_z: 1e-10 relative.
      const auto second = [&](double z) { return z * z * p_z(z); };
      const double q = 2 * sigma * sigma *
                       (integrate_standardized(second, 0, 1) + upper_tail(second, 0, nu - 2));
      EXPECT_NEAR(t.variance, q, 1e-10 * q) << "nu " << nu;
      variance.record(std::fabs(t.variance / q - 1));
    }
    for (double z : {-50.0, -3.0, -0.5, 0.0}) {
      // T_nu(z) = \int_{-inf}^z p_z = \int_{|z|}^inf p_z (symmetry): 1e-10 relative; and
      // 1 - T_nu(-z) likewise to 1e-10 relative plus an ulp of 1.
      const double tail =
          std::fabs(z) >= 1 ? upper_tail(p_z, std::log(std::fabs(z)), nu)
                            : integrate_standardized(p_z, std::fabs(z), 1) + upper_tail(p_z, 0, nu);
      const double lower = lik.target_cdf({f + sigma * z}, f);
      const double upper = 1 - lik.target_cdf({f - sigma * z}, f);
      EXPECT_NEAR(lower, tail, 1e-10 * tail) << "nu " << nu << " z " << z;
      EXPECT_NEAR(upper, tail, 1e-10 * tail + kEps) << "nu " << nu << " z " << z;
      cdf.record(std::fabs(lower / tail - 1));
    }
    // The closed form against the interface's Gauss-Hermite rule (exact for these polynomials).
    for (double v : {0.01, 1.0, 25.0}) {
      const TargetMoments c = lik.predictive_moments(-1.0, v, 1.0);
      const TargetMoments g = lik.Likelihood::predictive_moments(-1.0, v, 1.0);
      EXPECT_NEAR(c.mean, g.mean, 1e-14);
      if (nu <= 2) {
        EXPECT_EQ(c.variance, kInf);
        EXPECT_EQ(g.variance, kInf);
      } else {
        EXPECT_NEAR(c.variance, g.variance, 1e-13 * g.variance);
      }
    }
  }
  std::printf("student_t: variance %.3g, cdf %.3g (relative)\n", variance.value, cdf.value);
}

// log p and its gradient in (dof, scale) against 50-digit mpmath (loggamma, numerical
// derivatives) at the ends of the dof bounds and in the tails: log p within 1e-13 (1 + |log p|),
// the gradient within 1e-11 relative (the dof entry is ~4e-9 at nu = 1e4, where its terms
// cancel from ~1e-4 without the rearrangement of student_t_likelihood.h).
TEST(StudentT, EqualsHighPrecisionValues) {
  struct Value {
    double nu, sigma, y, f, log_p, d_nu, d_sigma;
  };
  MaxError log_p, gradient;
  for (const Value& c : std::vector<Value>{
           {1e4, 1, 0.7, 0.0, -1.1639820303004751, 4.3496691575538078e-9, -0.50997501122445006},
           {1e4, 1, 0.7, 50.0, -1088.8639096886155, -0.011010595594535021, 1954.4603631876137},
           {0.1, 0.05, 0.7, -50.0, -7.7944343250190016, 1.8079915561344231, 1.9999978603303397},
           {4, 1, 0.7, 3.0, -3.0874397322763676, -0.050242509279755532, 1.8471474703982778},
           {1e4, 30, 0.7, -2.0, -4.3242113182263733, 2.5403359298721737e-9,
            -0.033063306552055026}}) {
    const StudentTLikelihood lik(c.nu, c.sigma);
    const double l = lik.log_likelihood({c.y}, c.f);
    const Eigen::VectorXd g = lik.d_log_likelihood_hyperparameters({c.y}, c.f);
    EXPECT_NEAR(l, c.log_p, 1e-13 * (1 + std::fabs(c.log_p))) << "nu " << c.nu << " f " << c.f;
    EXPECT_NEAR(g(0), c.d_nu, 1e-11 * std::fabs(c.d_nu)) << "nu " << c.nu << " f " << c.f;
    EXPECT_NEAR(g(1), c.d_sigma, 1e-11 * std::fabs(c.d_sigma)) << "nu " << c.nu << " f " << c.f;
    log_p.record(std::fabs(l - c.log_p) / (1 + std::fabs(c.log_p)));
    gradient.record(std::max(std::fabs(g(0) / c.d_nu - 1), std::fabs(g(1) / c.d_sigma - 1)));
  }
  std::printf("student_t vs 50 digits: log p %.3g, gradient %.3g (relative)\n", log_p.value,
              gradient.value);
}

TEST(StudentT, RefusesBadParameters) {
  const auto schema = StudentTLikelihood::schema();
  expect_config_error(
      [&] {
        StudentTLikelihood(Params(schema, {{"dof", -1.0}}));
      },
      "student_t: 'dof' must be > 0, got -1");
  expect_config_error(
      [&] {
        StudentTLikelihood(Params(schema, {{"scale", 0.0}}));
      },
      "student_t: 'scale' must be > 0, got 0");
  StudentTLikelihood lik(4.0, 1.0);
  expect_config_error([&] { lik.set_hyperparameter("noise", one(1.0)); }, "'noise'");
  expect_config_error([&] { lik.set_hyperparameter("dof", one(0.0)); }, "'dof' must be > 0");
  expect_config_error([&] { lik.set_hyperparameter("scale", one(-2.0)); }, "'scale' must be > 0");
  EXPECT_EQ(lik.dof(), 4.0);
  EXPECT_EQ(lik.scale(), 1.0);
  lik.set_hyperparameter("scale", one(0.25));
  lik.set_hyperparameter("dof", one(9.0));
  EXPECT_EQ(lik.hyperparameters()[0].value(0), 9.0);
  EXPECT_EQ(lik.hyperparameters()[1].value(0), 0.25);
}

// =============================== logit ===============================

TEST(Logit, DerivativesMatchDifferencesAndTiltedMomentsEqualGaussKronrod) {
  const LogitLikelihood lik(Params(LogitLikelihood::schema(), {}));
  EXPECT_EQ(lik.target_kind(), TargetKind::binary);
  EXPECT_TRUE(lik.log_concave());
  EXPECT_TRUE(lik.hyperparameters().empty());
  double worst = 0;
  for (double y : {-1.0, 1.0})
    for (double f : {-50.0, -3.0, 0.0, 0.5, 50.0})
      worst = std::max(worst, check_derivatives(lik, {y}, f, 1.0, 1 + std::fabs(f)));
  std::printf("logit derivatives: worst error / tolerance %.3g\n", worst);
  std::printf("logit tilted moments: worst error / tolerance %.3g\n",
              check_tilted_moments(lik, {{{-1.0}, 0.0}, {{1.0}, 0.0}}));
}

TEST(Logit, TargetMomentsEqualMassSumsAndStayPositiveInTheTails) {
  const LogitLikelihood lik;
  for (double f : {-5.0, -0.3, 0.0, 2.0}) {
    // Two-point sums (the interface's defaults): 1e-14 absolute away from the tails.
    const TargetMoments t = lik.target_moments(f, 1.0);
    const TargetMoments s = lik.Likelihood::target_moments(f, 1.0);
    EXPECT_NEAR(t.mean, s.mean, 1e-14);
    EXPECT_NEAR(t.variance, s.variance, 1e-14);
  }
  // At |f| = 50 the sum's 1 - E^2 is 0; the variance is 4 e^-50 (1 + O(e^-50)): 1e-14 relative.
  for (double f : {-50.0, 50.0})
    EXPECT_NEAR(lik.target_moments(f, 1.0).variance, 4 * std::exp(-50.0),
                1e-14 * 4 * std::exp(-50.0));
  EXPECT_THROW(lik.d_log_tilted_normalizer({1.0}, 0.0, 1.0), ConfigError);
  expect_config_error(
      [&] {
        LogitLikelihood copy;
        copy.set_hyperparameter("kappa", one(0.1));
      },
      "'kappa'");
}

// =============================== binomial ===============================

TEST(Binomial, DeclaresItsTargetTrialsAndLink) {
  const BinomialLikelihood lik(Params(BinomialLikelihood::schema(), {}));
  EXPECT_EQ(lik.target_kind(), TargetKind::successes);
  EXPECT_EQ(lik.size_column(), "");
  EXPECT_EQ(lik.link(), Link::logit);
  EXPECT_TRUE(lik.log_concave());
  EXPECT_TRUE(lik.hyperparameters().empty());
  const BinomialLikelihood probit(
      Params(BinomialLikelihood::schema(),
             {{"link", std::string("probit")}, {"trials", std::string("n")}}));
  EXPECT_EQ(probit.link(), Link::probit);
  EXPECT_EQ(probit.size_column(), "n");
  expect_config_error([] { BinomialLikelihood::link_from_string("cloglog"); },
                      "binomial: 'link' must be logit or probit, got 'cloglog'");
  expect_config_error(
      [] {
        BinomialLikelihood(Params(BinomialLikelihood::schema(), {{"link", std::string("log")}}));
      },
      "'link'");
  BinomialLikelihood copy(Link::logit);
  expect_config_error([&] { copy.set_hyperparameter("noise", one(1.0)); }, "'noise'");
}

TEST(Binomial, LogLikelihoodEqualsBoostAndDerivativesMatchDifferences) {
  double worst = 0;
  for (Link link : {Link::logit, Link::probit}) {
    const BinomialLikelihood lik(link);
    for (auto [y, n] : Pairs{{0, 1}, {1, 1}, {3, 10}, {0, 1000}, {700, 1000}, {1000, 1000}})
      for (double f : {-50.0, -5.0, -0.4, 0.0, 1.0, 5.0, 50.0}) {
        const Observation o{y, n};
        const double terms = link == Link::logit ? n * (1 + std::fabs(f)) : n * (1 + f * f);
        worst = std::max(worst, check_derivatives(lik, o, f, 1.0, terms));
        const double p =
            link == Link::logit ? 1 / (1 + std::exp(-f)) : 0.5 * std::erfc(-f / std::sqrt(2.0));
        if (p <= 0 || p >= 1) continue;
        const double pmf = boost::math::pdf(boost::math::binomial_distribution<>(n, p), y);
        // Boost takes 1 - p, which errs by eps / (1 - p) relative: (n - y) eps / (1 - p) in
        // its log pmf (and y eps / p when p is the rounded one).
        if (pmf > 1e-300) {
          EXPECT_NEAR(
              lik.log_likelihood(o, f), std::log(pmf),
              1e-12 * (1 + std::fabs(std::log(pmf))) + (n - y) * kEps / (1 - p) + y * kEps / p)
              << "y " << y << " n " << n << " f " << f;
        }
      }
  }
  std::printf("binomial derivatives: worst error / tolerance %.3g\n", worst);
}

// One trial: the logit's site (the probit's closed form is checked in OneTrialEqualsLogitAndProbit
// and probit_likelihood_test); a few, none and all of many trials with either link.
TEST(Binomial, TiltedMomentsEqualGaussKronrod) {
  double worst = 0;
  for (Link link : {Link::logit, Link::probit}) {
    const BinomialLikelihood lik(link);
    std::vector<Site> sites;
    const Pairs trials = link == Link::logit ? Pairs{{1, 1}, {3, 10}, {700, 1000}, {1000, 1000}}
                                             : Pairs{{3, 10}, {0, 1000}, {700, 1000}};
    for (auto [y, n] : trials) {
      // The mode of p^(y + 1/2) (1 - p)^(n - y + 1/2), finite at y = 0 and y = n.
      const double p = (y + 0.5) / (n + 1);
      const double mode = link == Link::logit ? std::log(p / (1 - p))
                                              : std::sqrt(2.0) * boost::math::erf_inv(2 * p - 1);
      sites.push_back({{y, n}, mode});
    }
    worst = std::max(worst, check_tilted_moments(lik, sites));
  }
  std::printf("binomial tilted moments: worst error / tolerance %.3g\n", worst);
}

TEST(Binomial, PredictionsEqualMassSums) {
  MaxError moments, cdf;
  for (Link link : {Link::logit, Link::probit}) {
    const BinomialLikelihood lik(link);
    for (double n : {1.0, 10.0, 1000.0})
      for (double f : {-5.0, 0.0, 0.3, 3.0}) {
        check_mass_predictions(lik, f, n, n, moments, cdf);
        EXPECT_EQ(lik.target_cdf({n, n}, f), 1.0);
      }
  }
  std::printf("binomial: target moments %.3g, cdf %.3g (relative)\n", moments.value, cdf.value);
}

// One trial: y = 1 <-> +1, y = 0 <-> -1 of the logit and of the probit with noise 1
// (Phi(y f)); log p, its derivatives, the tilted moments and their powers to 1e-12 (the same
// formulas; d2 of the probit is (1 - r (z + r)) - 1, here -r (z + r): an ulp of 1 apart).
TEST(Binomial, OneTrialEqualsLogitAndProbit) {
  const BinomialLikelihood binomial_logit(Link::logit), binomial_probit(Link::probit);
  const LogitLikelihood logit;
  const ProbitLikelihood probit(1.0, 0.0);
  for (double y : {0.0, 1.0})
    for (double f : {-30.0, -2.0, 0.0, 0.7, 30.0}) {
      const Observation one_trial{y, 1.0}, label{2 * y - 1};
      EXPECT_NEAR(binomial_logit.log_likelihood(one_trial, f), logit.log_likelihood(label, f),
                  1e-12);
      EXPECT_NEAR(binomial_logit.d_log_likelihood(one_trial, f), logit.d_log_likelihood(label, f),
                  1e-12);
      EXPECT_NEAR(binomial_logit.d2_log_likelihood(one_trial, f), logit.d2_log_likelihood(label, f),
                  1e-12);
      EXPECT_NEAR(binomial_probit.log_likelihood(one_trial, f), probit.log_likelihood(label, f),
                  1e-12);
      EXPECT_NEAR(binomial_probit.d_log_likelihood(one_trial, f), probit.d_log_likelihood(label, f),
                  1e-12);
      EXPECT_NEAR(binomial_probit.d2_log_likelihood(one_trial, f),
                  probit.d2_log_likelihood(label, f), 1e-12);
      for (int k : {1, 2, 5})
        for (double v : {0.1, 4.0}) {
          const double m = 0.3 * f;
          const TiltedMoments a = binomial_logit.tilted_moments_power(one_trial, m, v, k);
          const TiltedMoments b = logit.tilted_moments_power(label, m, v, k);
          const TiltedMoments c = binomial_probit.tilted_moments_power(one_trial, m, v, k);
          const TiltedMoments d = probit.tilted_moments_power(label, m, v, k);
          EXPECT_NEAR(a.log_z, b.log_z, 1e-12);
          EXPECT_NEAR(a.mean, b.mean, 1e-12);
          EXPECT_NEAR(a.variance, b.variance, 1e-12);
          EXPECT_NEAR(c.log_z, d.log_z, 1e-12);
          EXPECT_NEAR(c.mean, d.mean, 1e-12);
          EXPECT_NEAR(c.variance, d.variance, 1e-12);
        }
      // E and Var of y in {0, 1} against those of the label in {-1, +1}: 2E - 1, 4 Var.
      const TargetMoments t = binomial_logit.target_moments(f, 1.0),
                          u = logit.target_moments(f, 1.0);
      EXPECT_NEAR(2 * t.mean - 1, u.mean, 1e-15);
      EXPECT_NEAR(4 * t.variance, u.variance, 1e-15 * u.variance);
    }
}

}  // namespace
}  // namespace quench::likelihoods::scalar_likelihoods_test
