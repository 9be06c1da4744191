#include "general_solver.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "quench/cancellation.h"
#include "quench/normal.h"
#include "quench/parallel.h"

namespace quench::adatap {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

AveragedSite averaged_site(const Likelihood& likelihood, double y, double delta_lambda_c,
                           double gamma_c, double lambda_c, const VectorXd& pmf,
                           const GaussHermiteRule& rule) {
  const double v = 1.0 / delta_lambda_c;          // cavity variance
  const double mean_mu = gamma_c * v;             // E_u mu(u)       (note eq 14)
  const double sd_mu = std::sqrt(-lambda_c) * v;  // sd_u mu(u)
  AveragedSite s;
  s.mean = pmf(0) * mean_mu;  // k = 0: the cavity itself
  s.variance = pmf(0) * v;
  s.second_moment = pmf(0) * (mean_mu * mean_mu + sd_mu * sd_mu);
  const std::size_t nodes = sd_mu > 0 ? rule.nodes.size() : 1;
  for (Index k = 1; k < pmf.size(); ++k) {
    if (pmf(k) == 0.0) continue;
    for (std::size_t j = 0; j < nodes; ++j) {
      const double w = pmf(k) * (nodes > 1 ? rule.weights[j] : 1.0);
      const double mu = nodes > 1 ? mean_mu + rule.nodes[j] * sd_mu : mean_mu;
      const TiltedMoments t =
          likelihood.tilted_moments_power(y, mu, v, static_cast<int>(k));  // 000 eq 43
      s.mean += w * t.mean;                                                // eq 44
      s.variance += w * t.variance;                                        // eq 45 - eq 46
      s.second_moment += w * t.mean * t.mean;                              // eq 46
    }
  }
  return s;
}

AveragedSite svm_limit_site(double y, double delta_lambda_c, double gamma_c, double lambda_c,
                            double p0) {
  const double x = y * gamma_c / delta_lambda_c;                          // E_u of X = y mu(u)
  const double s = std::sqrt(std::max(-lambda_c, 0.0)) / delta_lambda_c;  // sd_u of X
  double above, tail, second;  // P(X > 1), E[max(X, 1)], E[max(X, 1)^2]
  if (s > 0) {
    const double t = (1.0 - x) / s, pdf = normal_pdf(t);
    above = normal_cdf(-t);
    tail = normal_cdf(t) + x * above + s * pdf;
    second = normal_cdf(t) + (x * x + s * s) * above + s * (x + 1.0) * pdf;
  } else {
    above = x > 1.0 ? 1.0 : 0.0;
    tail = std::max(x, 1.0);
    second = tail * tail;
  }
  AveragedSite a;  // note eq 23
  a.mean = y * (p0 * x + (1 - p0) * tail);
  a.variance = (p0 + (1 - p0) * above) / delta_lambda_c;
  a.second_moment = p0 * (x * x + s * s) + (1 - p0) * second;
  return a;
}

namespace {

// The Gaussian part (note eq 9) at the current sites.
void gaussian_part(const MatrixXd& K, GeneralSolution& s) {
  s.G = g_full(K, s.dl);
  s.V = s.G.diagonal();
  s.m.noalias() = s.G * s.gamma;
  s.C.noalias() = -(s.G.cwiseAbs2() * s.lam);
}

}  // namespace

GeneralSolution solve_general(const MatrixXd& K, const VectorXd& y, const Likelihood& likelihood,
                              const Occupation& occupation, const GeneralOptions& o) {
  const GaussHermiteRule& rule = gauss_hermite(o.hermite_nodes);
  return solve_general(
      K, y,
      [&](Index, double yi, double dlc, double gammac, double lamc) {
        return averaged_site(likelihood, yi, dlc, gammac, lamc, occupation.pmf, rule);
      },
      o);
}

GeneralSolution solve_general(const MatrixXd& K, const VectorXd& y,
                              const AveragedSiteFunction& site, const GeneralOptions& o) {
  const Index n = K.rows();
  GeneralSolution s;
  s.dl = s.gamma = s.lam = VectorXd::Zero(n);  // the cavity is the GP prior
  VectorXd m1(n), V1(n), Q1(n);
  for (s.iterations = 1; s.iterations <= o.max_iterations; ++s.iterations) {
    throw_if_stop_requested();
    gaussian_part(K, s);
    // Cavities from site + cavity = Gaussian part (000 eqs 35-37; note eq 16).
    s.dlc = s.V.cwiseInverse() - s.dl;
    s.gammac = s.m.cwiseQuotient(s.V) - s.gamma;
    s.lamc = -s.C.cwiseQuotient(s.V.cwiseAbs2()) - s.lam;
    for (Index i = 0; i < n; ++i) {
      // lambda_c = 0 up to rounding where the sites still carry no between-sample variance.
      const double scale = s.C(i) / (s.V(i) * s.V(i)) + std::abs(s.lam(i));
      if (s.lamc(i) > 0 && s.lamc(i) <= 1e-12 * scale) s.lamc(i) = 0;
      if (!(s.dlc(i) > 0) || !(s.lamc(i) <= 0)) {
        std::ostringstream why;
        why << "cavity of training point " << i << " at iteration " << s.iterations
            << " is not proper (Delta lambda_c = " << s.dlc(i) << ", lambda_c = " << s.lamc(i)
            << "; the decoupling needs Delta lambda_c > 0, lambda_c <= 0)";
        s.message = why.str();
        return s;
      }
    }
    parallel_for(static_cast<std::size_t>(n), o.threads, [&](std::size_t j) {
      const auto i = static_cast<Index>(j);
      const AveragedSite a = site(i, y(i), s.dlc(i), s.gammac(i), s.lamc(i));
      m1(i) = a.mean;
      V1(i) = a.variance;
      Q1(i) = a.second_moment;
    });
    const VectorXd C1 = Q1 - m1.cwiseAbs2();
    s.final_change = std::max({(m1 - s.m).cwiseAbs().maxCoeff(),
                               ((V1 - s.V).cwiseQuotient(s.V)).cwiseAbs().maxCoeff(),
                               (C1 - s.C).cwiseAbs().maxCoeff()});
    if (!std::isfinite(s.final_change)) {
      s.message =
          "the averaged site moments are not finite at iteration " + std::to_string(s.iterations);
      return s;
    }
    if (s.final_change < o.tolerance) {
      s.converged = true;
      return s;
    }
    // The sites that make site + cavity reproduce the averaged moments (note eq 17), damped.
    // Delta lambda* >= 0 for a log-concave likelihood (the tilted variance never exceeds the
    // cavity's, Brascamp-Lieb); the floor removes what quadrature rounding leaves below 0 at
    // sites the likelihood barely informs.
    const double eta = o.damping;
    s.dl = ((1 - eta) * s.dl + eta * (V1.cwiseInverse() - s.dlc)).cwiseMax(0.0);
    s.gamma = (1 - eta) * s.gamma + eta * (m1.cwiseQuotient(V1) - s.gammac);
    s.lam = (1 - eta) * s.lam + eta * (-C1.cwiseQuotient(V1.cwiseAbs2()) - s.lamc);
  }
  s.iterations = o.max_iterations;
  std::ostringstream why;
  why << "not converged after " << o.max_iterations << " iterations (change " << s.final_change
      << ", tolerance " << o.tolerance << ")";
  s.message = why.str();
  return s;
}

}  // namespace quench::adatap
