#include "general_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "quench/cancellation.h"
#include "quench/convergence_progress.h"
#include "quench/normal.h"
#include "quench/parallel.h"
#include "quench/site_posterior.h"
#include "replica_stages.h"

namespace quench::adatap {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

GeneralOptions for_run(GeneralOptions options, const RunContext& context) {
  options.threads = context.threads;
  options.progress = context.progress;
  return options;
}

SiteQuadrature uniform_site_quadrature(const VectorXd& pmf, int n) {
  SiteQuadrature q{pmf, std::vector<const GaussHermiteRule*>(static_cast<std::size_t>(pmf.size()),
                                                             &gauss_hermite(n))};
  return q;
}

SiteQuadrature coarse_site_quadrature(const VectorXd& pmf) {
  SiteQuadrature q{pmf, std::vector<const GaussHermiteRule*>(static_cast<std::size_t>(pmf.size()))};
  for (Index k = 0; k < pmf.size(); ++k)
    q.rule[static_cast<std::size_t>(k)] =
        &gauss_hermite(pmf(k) >= 1e-3 ? 8 : (pmf(k) >= 1e-6 ? 4 : 2));
  return q;
}

AveragedSite averaged_site(const Likelihood& likelihood, const Observation& y,
                           double delta_lambda_c, double gamma_c, double lambda_c,
                           const SiteQuadrature& quadrature) {
  const VectorXd& pmf = quadrature.pmf;
  const double v = 1.0 / delta_lambda_c;          // cavity variance
  const double mean_mu = gamma_c * v;             // E_u mu(u)       (note eq 14)
  const double sd_mu = std::sqrt(-lambda_c) * v;  // sd_u mu(u)
  AveragedSite s;
  s.mean = pmf(0) * mean_mu;  // k = 0: the cavity itself
  s.variance = pmf(0) * v;
  s.second_moment = pmf(0) * (mean_mu * mean_mu + sd_mu * sd_mu);
  for (Index k = 1; k < pmf.size(); ++k) {
    if (pmf(k) == 0.0) continue;
    const GaussHermiteRule& rule = *quadrature.rule[static_cast<std::size_t>(k)];
    const std::size_t nodes = sd_mu > 0 ? rule.nodes.size() : 1;
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

// The cavities from site + cavity = Gaussian part (000 eqs 35-37; note eq 16); the index of the
// first improper one (Delta lambda_c <= 0 or lambda_c > 0), or -1.
Index cavities(GeneralSolution& s) {
  s.dlc = s.V.cwiseInverse() - s.dl;
  s.gammac = s.m.cwiseQuotient(s.V) - s.gamma;
  s.lamc = -s.C.cwiseQuotient(s.V.cwiseAbs2()) - s.lam;
  for (Index i = 0; i < s.dlc.size(); ++i) {
    // lambda_c = 0 up to rounding where the sites still carry no between-sample variance.
    const double scale = s.C(i) / (s.V(i) * s.V(i)) + std::abs(s.lam(i));
    if (s.lamc(i) > 0 && s.lamc(i) <= 1e-12 * scale) s.lamc(i) = 0;
    if (!(s.dlc(i) > 0) || !(s.lamc(i) <= 0)) return i;
  }
  return -1;
}

// The site parameters (Delta lambda, gamma, lambda) as one point of the iteration.
struct Sites {
  VectorXd dl, gamma, lam;
};

// theta = from + eta (to - from). Delta lambda* >= 0 for a log-concave likelihood (the tilted
// variance never exceeds the cavity's, Brascamp-Lieb); there the floor removes what quadrature
// rounding leaves below 0 at sites the likelihood barely informs (GeneralOptions::
// nonnegative_sites).
void step(const Sites& from, const Sites& to, double eta, bool nonnegative, GeneralSolution& s) {
  s.dl = (1 - eta) * from.dl + eta * to.dl;
  if (nonnegative) s.dl = s.dl.cwiseMax(0.0);
  s.gamma = (1 - eta) * from.gamma + eta * to.gamma;
  s.lam = (1 - eta) * from.lam + eta * to.lam;
}

}  // namespace

namespace {

// The likelihood's averaged site, coarse quadrature first (solve_general's two stages).
template <class Solve>
auto solve_with_likelihood(const Likelihood& likelihood, const Occupation& occupation,
                           const GeneralOptions& o, Solve solve) {
  const SiteQuadrature fine = uniform_site_quadrature(occupation.pmf, o.hermite_nodes);
  const SiteQuadrature coarse = coarse_site_quadrature(occupation.pmf);
  auto averaged = [&](const SiteQuadrature& q) {
    return AveragedSiteFunction(
        [&likelihood, &q](Index, const Observation& yi, double dlc, double gammac, double lamc) {
          return averaged_site(likelihood, yi, dlc, gammac, lamc, q);
        });
  };
  return solve(averaged(fine), averaged(coarse));
}

}  // namespace

GeneralSolution solve_general(const MatrixXd& K, const Observations& y,
                              const Likelihood& likelihood, const Occupation& occupation,
                              const GeneralOptions& o) {
  GeneralOptions options = o;
  options.nonnegative_sites = likelihood.log_concave();
  return solve_with_likelihood(
      likelihood, occupation, options,
      [&](const AveragedSiteFunction& fine, const AveragedSiteFunction& coarse) {
        return solve_general(K, y, fine, options, coarse);
      });
}

GeneralSolution solve_general(const MatrixXd& K, const Observations& y,
                              const AveragedSiteFunction& site, const GeneralOptions& o,
                              const AveragedSiteFunction& coarse) {
  MatrixXd G;  // at the sites of the last evaluation
  auto dense = [&](const VectorXd& dl, const VectorXd& gamma, const VectorXd& lam, VectorXd& V,
                   VectorXd& m, VectorXd& C) {  // note eq 9
    // Sites of either sign: G = (I + K D)^{-1} K by an LU where some Delta lambda_i < 0
    // (quench/site_posterior.h), else the stable B = I + D^1/2 K D^1/2 form.
    G = dl.size() == 0 || dl.minCoeff() >= 0.0 ? g_full(K, dl) : posterior_covariance(K, dl).sigma;
    V = G.diagonal();
    m.noalias() = G * gamma;
    C.noalias() = -(G.cwiseAbs2() * lam);
  };
  GeneralSolution s = solve_general(K.rows(), dense, y, site, o, coarse);
  s.G = std::move(G);
  return s;
}

SparseGeneralSolution solve_general(const LowRankPrior& prior, const Observations& y,
                                    const Likelihood& likelihood, const Occupation& occupation,
                                    const GeneralOptions& options) {
  GeneralOptions o = options;
  o.nonnegative_sites = likelihood.log_concave();
  SparseGeneralSolution out;
  auto low_rank = [&](const VectorXd& dl, const VectorXd& gamma, const VectorXd& lam, VectorXd& V,
                      VectorXd& m, VectorXd& C) {  // note eq 9, docs/large_n.md
    out.G = DiagonalPlusLowRank();                 // release the old W before forming the new one
    out.G = prior.posterior_covariance(dl);
    V = out.G.diagonal();
    m = out.G.times(gamma);
    C = -out.G.hadamard_square_times(lam);
  };
  out.sites = solve_with_likelihood(
      likelihood, occupation, o,
      [&](const AveragedSiteFunction& fine, const AveragedSiteFunction& coarse) {
        return solve_general(prior.size(), low_rank, y, fine, o, coarse);
      });
  return out;
}

GeneralSolution solve_general(Index n, const GaussianPart& gaussian_part, const Observations& y,
                              const AveragedSiteFunction& site, const GeneralOptions& o,
                              const AveragedSiteFunction& coarse) {
  GeneralSolution s;
  ConvergenceProgress bar(o.progress, o.tolerance);
  s.dl = s.gamma = s.lam = VectorXd::Zero(n);  // the cavity is the GP prior
  // With a coarse site: its moments plus the defect correction drive the iteration; the fine
  // site is evaluated only to check a fixed point of that, at the same cavities.
  TwoStages<VectorXd> stages(static_cast<bool>(coarse),
                             {VectorXd::Zero(n), VectorXd::Zero(n), VectorXd::Zero(n)});
  StepLength length(o.damping, o.min_damping);
  Sites from, to;  // the last step: from the sites where the averages were taken, to the target
  bool stepped = false, same_sites = false;
  SiteMoments<VectorXd> a{VectorXd(n), VectorXd(n), VectorXd(n)};
  for (s.iterations = 1; s.iterations <= o.max_iterations; ++s.iterations) {
    throw_if_stop_requested();
    if (!same_sites) {
      gaussian_part(s.dl, s.gamma, s.lam, s.V, s.m, s.C);
      if (const Index i = cavities(s); i >= 0) {
        if (stepped && length.can_halve()) {  // the step was too long: half of it
          length.halve();
          step(from, to, length.eta(), o.nonnegative_sites, s);
          continue;
        }
        std::ostringstream why;
        why << "cavity of training point " << i << " at iteration " << s.iterations
            << " is not proper (Delta lambda_c = " << s.dlc(i) << ", lambda_c = " << s.lamc(i)
            << "; the decoupling needs Delta lambda_c > 0, lambda_c <= 0)";
        s.message = why.str();
        s.damping = length.eta();
        return s;
      }
    }
    same_sites = false;
    const AveragedSiteFunction& averaged = stages.checking() ? site : coarse;
    parallel_for(static_cast<std::size_t>(n), o.threads, [&](std::size_t j) {
      const auto i = static_cast<Index>(j);
      const AveragedSite avg = averaged(i, y[i], s.dlc(i), s.gammac(i), s.lamc(i));
      a.mean(i) = avg.mean;
      a.variance(i) = avg.variance;
      a.second_moment(i) = avg.second_moment;
    });
    if (!stages.checking()) {
      ++s.coarse_iterations;
      stages.correct(a);
    }
    const VectorXd& m1 = a.mean;
    const VectorXd& V1 = a.variance;
    const VectorXd C1 = a.second_moment - m1.cwiseAbs2();
    s.final_change = std::max({(m1 - s.m).cwiseAbs().maxCoeff(),
                               ((V1 - s.V).cwiseQuotient(s.V)).cwiseAbs().maxCoeff(),
                               (C1 - s.C).cwiseAbs().maxCoeff()});
    s.damping = length.eta();
    bar.report(s.final_change);
    if (!std::isfinite(s.final_change)) {
      s.message =
          "the averaged site moments are not finite at iteration " + std::to_string(s.iterations);
      return s;
    }
    if (s.final_change < o.tolerance) {
      if (stages.agreed()) {
        s.converged = true;
        bar.finish();
        return s;
      }
      same_sites = true;  // check the fixed point of the corrected coarse site with the fine one
      continue;
    }
    if (stages.disagreed(a)) length.restart();
    length.after(s.final_change);
    // The sites that make site + cavity reproduce the averaged moments (note eq 17).
    from = {s.dl, s.gamma, s.lam};
    to = {V1.cwiseInverse() - s.dlc, m1.cwiseQuotient(V1) - s.gammac,
          -C1.cwiseQuotient(V1.cwiseAbs2()) - s.lamc};
    step(from, to, length.eta(), o.nonnegative_sites, s);
    stepped = true;
  }
  s.iterations = o.max_iterations;
  s.message = not_converged_message(o.max_iterations, s.final_change, o.tolerance);
  return s;
}

}  // namespace quench::adatap
