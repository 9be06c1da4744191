#include "class_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "quench/anderson.h"
#include "quench/cancellation.h"
#include "quench/convergence_progress.h"
#include "quench/errors.h"
#include "quench/parallel.h"
#include "quench/symmetric_part.h"
#include "replica_stages.h"

namespace quench::adatap {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

// The most negative spread of a cavity's mean taken as none, relative to the cavity's variance in
// that direction (class_cavities).
constexpr double kSpreadClamp = 1e-2;

// Below this probability an occupation k takes the quadrature's cheaper rule.
constexpr double kRareOccupation = 1e-3;

// The counted sites' fixed point for k >= 2 (eq M7) stops when a sweep changes the factor sites
// by less than a tolerance relative to their size: 1e-3 of the outer iteration's last change
// (the local solves need not be more accurate than the step they feed), at most
// kCountedLoosest and at least 1e-3 of the outer tolerance, so that the outer fixed point is
// that of the exact counted sites.
constexpr double kCountedLoosest = 1e-4;
constexpr int kCountedMaxSweeps = 2000;

MatrixXd inverse_spd(const MatrixXd& A, const char* what) {
  const Eigen::LLT<MatrixXd> llt(A);
  if (llt.info() != Eigen::Success)
    throw NumericalError("adatap_bootstrap", std::string(what) + " is not positive definite");
  return llt.solve(MatrixXd::Identity(A.rows(), A.cols()));
}

// The symmetric square root of the positive part of a symmetric matrix.
MatrixXd positive_root(const MatrixXd& A) {
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eig(symmetric_part(A));
  return eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).cwiseSqrt().asDiagonal() *
         eig.eigenvectors().transpose();
}

// The positive part of a symmetric matrix (the site precisions of a log-concave likelihood are
// positive semidefinite; quadrature rounding leaves tiny negative eigenvalues).
MatrixXd positive_part(const MatrixXd& A) {
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eig(symmetric_part(A));
  return eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).asDiagonal() *
         eig.eigenvectors().transpose();
}

// Pi and h of a factor-site set on f (class_site_form), Pi = diag(pi) - pi pi^T / 1^T pi.
void site_on_f(Index y, const ClassSite& t, MatrixXd& Pi, VectorXd& h) {
  const ClassSiteForm f = class_site_form(y, t);
  Pi = -f.pi * f.pi.transpose() / f.pi.sum();
  Pi.diagonal() += f.pi;
  h = f.h;
}

// The k-fold site's posterior (eq M7) under the cavity of precision dlc and linear term eta:
// q = N(f; cavity) t^k with t matched at q / t (the cavity of one copy), from t as given
// (left at the fixed point). Returns q's mean and covariance.
void counted_site_posterior(const ClassLikelihood& lik, Index y, Index k, const MatrixXd& dlc,
                            const VectorXd& eta, double tolerance, ClassSite& t, VectorXd& mean,
                            MatrixXd& cov) {
  MatrixXd Pi;
  VectorXd h;
  const double copies = static_cast<double>(k);
  const Index c = dlc.rows();
  AndersonAccelerator mixing({3, 1e-10, 1.0 / copies, 1.0});
  for (int sweep = 0;; ++sweep) {
    site_on_f(y, t, Pi, h);
    const MatrixXd V1 = inverse_spd(dlc + (copies - 1.0) * Pi, "the cavity of one copy");
    const VectorXd m1 = V1 * (eta + (copies - 1.0) * h);
    if (k == 1) {
      lik.match_site(y, m1, V1, t, 0);  // the inner EP to convergence
      break;
    }
    ClassSite next = t;
    lik.match_site(y, m1, V1, next, 1);  // one inner sweep per step, as nested EP
    const double change =
        std::max((next.tau - t.tau).cwiseAbs().maxCoeff(), (next.nu - t.nu).cwiseAbs().maxCoeff());
    const double size = 1.0 + std::max(t.tau.cwiseAbs().maxCoeff(), t.nu.cwiseAbs().maxCoeff());
    if (change < tolerance * size) {
      t = next;
      break;
    }
    // Steps of 1/k: the k copies move together, so the plain map's slope is up to k - 1 times
    // a single site's (in (-1, 0) for a log-concave likelihood); 1/k keeps it in [0, 1), and
    // Anderson mixing of the last steps (quench/anderson.h) takes out the slow rate that leaves.
    VectorXd x(2 * c), g(2 * c);
    x << t.tau, t.nu;
    g << next.tau, next.nu;
    x = mixing.next(x, g);
    t.tau = x.head(c).cwiseMax(0.0);  // an extrapolated step may overshoot 0
    t.nu = x.tail(c);
    if (sweep == kCountedMaxSweeps)
      throw NumericalError("adatap_bootstrap", "the counted sites of a point drawn " +
                                                   std::to_string(k) +
                                                   " times did not converge in " +
                                                   std::to_string(kCountedMaxSweeps) + " sweeps");
  }
  site_on_f(y, t, Pi, h);
  cov = inverse_spd(dlc + copies * Pi, "the k-fold site's posterior precision");
  mean = cov * (eta + copies * h);
}

ClassQuadrature class_quadrature(const VectorXd& pmf, Index classes, const ClassRule* fine) {
  ClassQuadrature q{pmf, {}, {}};
  for (int r = 0; r <= static_cast<int>(classes); ++r) {
    if (fine) {
      q.common.push_back(fine->in(r));
      q.rare.push_back(fine->kind == ClassRule::Kind::product && fine->nodes < 2
                           ? fine->in(r)
                           : symmetric_cubature_3(r));
    } else {
      q.common.push_back(symmetric_cubature_3(r));
      q.rare.push_back({MatrixXd::Zero(r, 1), VectorXd::Ones(1)});  // u = 0
    }
  }
  return q;
}

}  // namespace

const GaussianCubature& ClassQuadrature::rule(Index r, Index k) const {
  const auto& rules = pmf(k) >= kRareOccupation ? common : rare;
  const GaussianCubature& g = rules[static_cast<std::size_t>(r)];
  return g;
}

GaussianCubature ClassRule::in(int r) const {
  switch (kind) {
    case Kind::degree5:
      return symmetric_cubature_5(r);
    case Kind::product:
      return product_gauss_hermite(r, nodes);
    case Kind::degree3:
      break;
  }
  return symmetric_cubature_3(r);
}

ClassQuadrature fine_class_quadrature(const VectorXd& pmf, Index classes, const ClassRule& rule) {
  return class_quadrature(pmf, classes, &rule);
}

ClassQuadrature coarse_class_quadrature(const VectorXd& pmf, Index classes) {
  return class_quadrature(pmf, classes, nullptr);
}

MatrixXd class_decoupling(const MatrixXd& lamc) {
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eig(symmetric_part(-lamc));
  const VectorXd& s = eig.eigenvalues();
  if (!s.allFinite()) throw NumericalError("adatap_bootstrap", "the spread is not finite");
  if (s.cwiseMax(0.0).maxCoeff() == 0.0) return MatrixXd(lamc.rows(), 0);
  return eig.eigenvectors() * s.cwiseMax(0.0).cwiseSqrt().asDiagonal() *
         eig.eigenvectors().transpose();
}

AveragedClassSite averaged_class_site(const ClassLikelihood& likelihood, Index y,
                                      const MatrixXd& dlc, const VectorXd& gammac,
                                      const MatrixXd& lamc, const ClassQuadrature& quadrature,
                                      std::vector<std::vector<ClassSite>>& warm,
                                      double counted_tolerance) {
  const Index c = gammac.size();
  const VectorXd& pmf = quadrature.pmf;
  const MatrixXd L = class_decoupling(lamc);
  const MatrixXd sigma = inverse_spd(dlc, "the cavity precision Delta lambda_c");
  const VectorXd mu = sigma * gammac;  // E_u of the cavity mean
  AveragedClassSite a;
  // k = 0: the cavity itself (eq M8's first term in closed form).
  a.mean = pmf(0) * mu;
  a.variance = pmf(0) * sigma;
  const MatrixXd spread = sigma * L;
  a.second_moment = pmf(0) * (mu * mu.transpose() + spread * spread.transpose());
  warm.resize(static_cast<std::size_t>(pmf.size()));
  VectorXd mean;
  MatrixXd cov;
  for (Index k = 1; k < pmf.size(); ++k) {
    if (pmf(k) == 0.0) continue;
    const GaussianCubature& rule = quadrature.rule(L.cols(), k);
    // Each node starts from its sites of the last pass (the cavities move little between
    // passes), or, when the rank of the spread changed the nodes, from the first node's.
    std::vector<ClassSite>& sites = warm[static_cast<std::size_t>(k)];
    const auto nodes = static_cast<std::size_t>(rule.weights.size());
    if (sites.size() != nodes)
      sites.assign(nodes, sites.empty() ? ClassSite::zero(c) : sites.front());
    for (Index j = 0; j < rule.weights.size(); ++j) {
      ClassSite& t = sites[static_cast<std::size_t>(j)];
      const VectorXd eta = gammac + L * rule.nodes.col(j);
      counted_site_posterior(likelihood, y, k, dlc, eta, counted_tolerance, t, mean, cov);
      const double w = pmf(k) * rule.weights(j);
      a.mean += w * mean;
      a.variance += w * cov;
      a.second_moment += w * mean * mean.transpose();
    }
  }
  return a;
}

namespace {

// The cavities from site + cavity = Gaussian part (eq M5); the first improper point (a cavity
// precision that is not positive definite or a lambda_c that is not negative semidefinite), or
// -1.
Index class_cavities(ClassSolution& s) {
  const Index n = s.gamma.rows(), c = s.gamma.cols();
  s.dlc.resize(c, c * n);
  s.lamc.resize(c, c * n);
  s.gammac.resize(n, c);
  s.clamped_spread = 0.0;
  for (Index i = 0; i < n; ++i) {
    const Eigen::LLT<MatrixXd> v(s.V.middleCols(i * c, c));
    if (v.info() != Eigen::Success) return i;
    const MatrixXd A = v.solve(MatrixXd::Identity(c, c));
    const MatrixXd dlc = symmetric_part(A - s.dl.middleCols(i * c, c));
    const MatrixXd spread = A * s.C.middleCols(i * c, c) * A;
    const MatrixXd& lam = s.lam.middleCols(i * c, c);
    s.dlc.middleCols(i * c, c) = dlc;
    s.gammac.row(i) = (A * s.m.row(i).transpose()).transpose() - s.gamma.row(i);
    if (Eigen::LLT<MatrixXd>(dlc).info() != Eigen::Success) return i;
    // -lambda_c = A C A + lambda is a difference of two spreads (of the linear term). Where the
    // sites carry none yet (or one point alone: C = -G lambda G exactly) it is 0 up to their
    // rounding. At a fixed point it can also be slightly indefinite: the averaged sites are
    // not of the nested-EP form. Measured against the cavity's own variance (the generalized
    // eigenvalues e of S v = e Delta lambda_c v: the bootstrap variance of the cavity mean over
    // its within-sample variance, direction by direction), wine at S/N = 1 keeps e = -0.0033
    // at one point (largest 0.052) and glass at S/N = 2 e = -3.7e-4. A negative spread has no
    // decoupling; down to -kSpreadClamp those directions are taken as having none (recorded in
    // clamped_spread), below it the cavity is improper.
    const MatrixXd S = symmetric_part(spread + lam);
    const Eigen::GeneralizedSelfAdjointEigenSolver<MatrixXd> eig(S, dlc);
    if (eig.info() != Eigen::Success) return i;
    const VectorXd& e = eig.eigenvalues();
    if (!e.allFinite() || e(0) < -kSpreadClamp) return i;
    if (e(0) < 0.0) s.clamped_spread = std::max(s.clamped_spread, -e(0));
    // S = Delta lambda_c W diag(e) W^T Delta lambda_c with W^T Delta lambda_c W = I.
    const MatrixXd DW = dlc * eig.eigenvectors();
    s.lamc.middleCols(i * c, c) = -DW * e.cwiseMax(0.0).asDiagonal() * DW.transpose();
  }
  return -1;
}

struct ClassSites {
  MatrixXd dl, gamma, lam;
};

void class_step(const ClassSites& from, const ClassSites& to, double eta, ClassSolution& s) {
  s.dl = (1 - eta) * from.dl + eta * to.dl;
  s.gamma = (1 - eta) * from.gamma + eta * to.gamma;
  s.lam = (1 - eta) * from.lam + eta * to.lam;
}

Eigen::VectorXd pack_sites(const ClassSites& x) {
  Eigen::VectorXd v(x.dl.size() + x.gamma.size() + x.lam.size());
  v << x.dl.reshaped(), x.gamma.reshaped(), x.lam.reshaped();
  return v;
}

// The step of Anderson mixing (quench/anderson.h, beta = eta) from the sites where the averages
// were taken towards the target sites; its fixed point is the iteration's. Each Delta lambda
// block is kept positive semidefinite (an extrapolated step may leave it).
void mixed_step(AndersonAccelerator& mixing, const ClassSites& from, const ClassSites& to,
                ClassSolution& s) {
  const Eigen::VectorXd x = mixing.next(pack_sites(from), pack_sites(to));
  const Index a = from.dl.size(), b = from.gamma.size(), c = from.dl.rows();
  s.dl = x.head(a).reshaped(from.dl.rows(), from.dl.cols());
  s.gamma = x.segment(a, b).reshaped(from.gamma.rows(), from.gamma.cols());
  s.lam = x.tail(from.lam.size()).reshaped(from.lam.rows(), from.lam.cols());
  for (Index i = 0; i < s.dl.cols() / c; ++i)
    s.dl.middleCols(i * c, c) = positive_part(s.dl.middleCols(i * c, c));
}

// Sweeps mixed by Anderson acceleration in the outer iteration (the binary iteration converges
// in 8-15 plain steps; C classes with a learned amplitude of ~30 took ~60 at rate 0.77).
constexpr int kMixingDepth = 5;

}  // namespace

// Eq M4 on the dense prior: G = P - (R P)^T B^-1 (R P), B = I + R P R, R the block-diagonal
// root of D (each point's Delta lambda_i^1/2), P = blockdiag(K_0, ..., K_{C-1}) (I_C (x) K for
// one kernel); m = G gamma and each point's blocks V_i = G_ii, C_i = -sum_j G_ij lambda_j G_ji.
void class_gaussian_part(const ClassGrams& K, ClassSolution& s) {
  const Index n = K.rows(), c = s.gamma.cols(), cn = c * n;
  MatrixXd R(c, cn);
  for (Index i = 0; i < n; ++i) R.middleCols(i * c, c) = positive_root(s.dl.middleCols(i * c, c));
  const auto entry = [&](const MatrixXd& blocks, Index a, Index b) {  // (blocks_i(a, b))_i
    VectorXd v(n);
    for (Index i = 0; i < n; ++i) v(i) = blocks(a, i * c + b);
    return v;
  };
  MatrixXd RP(cn, cn), B(cn, cn);
  for (Index a = 0; a < c; ++a)
    for (Index b = 0; b < c; ++b)
      RP.block(a * n, b * n, n, n) = entry(R, a, b).asDiagonal() * K.of(b);
  for (Index a = 0; a < c; ++a)
    for (Index b = 0; b < c; ++b) {
      auto block = B.block(a * n, b * n, n, n);
      block.setZero();
      for (Index d = 0; d < c; ++d)
        block += RP.block(a * n, d * n, n, n) * entry(R, d, b).asDiagonal();
      if (a == b) block.diagonal().array() += 1.0;
    }
  const Eigen::LLT<MatrixXd> llt(B);
  if (llt.info() != Eigen::Success)
    throw NumericalError("adatap_bootstrap", "I + R P R is not positive definite");
  llt.matrixL().solveInPlace(RP);  // W = L^-1 R P
  s.G.noalias() = -RP.transpose() * RP;
  for (Index a = 0; a < c; ++a) s.G.block(a * n, a * n, n, n) += K.of(a);
  VectorXd gamma(cn);
  for (Index a = 0; a < c; ++a) gamma.segment(a * n, n) = s.gamma.col(a);
  const VectorXd m = s.G * gamma;
  s.m.resize(n, c);
  for (Index a = 0; a < c; ++a) s.m.col(a) = m.segment(a * n, n);
  // H = G Lambda (Lambda block-diagonal by point), then C_i(a, b) = -H_(a,i) . G_(b,i).
  MatrixXd H = MatrixXd::Zero(cn, cn);
  for (Index d = 0; d < c; ++d)
    for (Index e = 0; e < c; ++e)
      H.middleCols(d * n, n) += s.G.middleCols(e * n, n) * entry(s.lam, e, d).asDiagonal();
  s.V.resize(c, cn);
  s.C.resize(c, cn);
  for (Index i = 0; i < n; ++i)
    for (Index a = 0; a < c; ++a)
      for (Index b = 0; b < c; ++b) {
        s.V(a, i * c + b) = s.G(a * n + i, b * n + i);
        s.C(a, i * c + b) = -H.row(a * n + i).dot(s.G.col(b * n + i));
      }
}

ClassSolution solve_classes(const ClassGrams& K, const Eigen::VectorXi& y, Index classes,
                            const ClassLikelihood& likelihood, const Occupation& occupation,
                            const GeneralOptions& options, const ClassRule& rule) {
  return solve_classes([&K](ClassSolution& s) { class_gaussian_part(K, s); }, K.variance(), y,
                       classes, likelihood, occupation, options, rule);
}

ClassSolution solve_classes(const ClassGaussianPart& part, const VectorXd& prior_variance_of,
                            const Eigen::VectorXi& y, Index classes,
                            const ClassLikelihood& likelihood, const Occupation& occupation,
                            const GeneralOptions& o, const ClassRule& rule) {
  const Index n = y.size(), c = classes;
  const ClassQuadrature fine = fine_class_quadrature(occupation.pmf, c, rule);
  const ClassQuadrature coarse = coarse_class_quadrature(occupation.pmf, c);
  ClassSolution s;
  ConvergenceProgress bar(o.progress, o.tolerance);
  s.dl = s.lam = MatrixXd::Zero(c, c * n);
  s.gamma = MatrixXd::Zero(n, c);
  TwoStages<MatrixXd> stages(
      true, {MatrixXd::Zero(n, c), MatrixXd::Zero(c, c * n), MatrixXd::Zero(c, c * n)});
  SiteMoments<MatrixXd> a{MatrixXd(n, c), MatrixXd(c, c * n), MatrixXd(c, c * n)};
  std::vector<std::vector<std::vector<ClassSite>>> warm_fine(static_cast<std::size_t>(n)),
      warm_coarse(static_cast<std::size_t>(n));
  StepLength length(o.damping, o.min_damping);
  ClassSites from, to;
  bool stepped = false, same_sites = false;
  const auto mixer = [](double beta) {
    return AndersonAccelerator({kMixingDepth, 1e-10, beta, 1.0});
  };
  AndersonAccelerator mixing = mixer(length.eta());
  const VectorXd prior_variance = prior_variance_of.cwiseMax(1e-300);
  const auto fail = [&](const std::string& why) {
    s.message = why;
    s.damping = length.eta();
    return s;
  };
  for (s.iterations = 1; s.iterations <= o.max_iterations; ++s.iterations) {
    throw_if_stop_requested();
    if (!same_sites) {
      Index bad = -1;
      std::string why;
      try {
        part(s);
        bad = class_cavities(s);
      } catch (const NumericalError& e) {
        bad = 0;
        why = e.what();
      }
      if (bad >= 0) {
        if (stepped && length.can_halve()) {  // the step was too long: half a plain one
          length.halve();
          class_step(from, to, length.eta(), s);
          mixing = mixer(length.eta());
          continue;
        }
        std::ostringstream text;
        text << "iteration " << s.iterations << ": "
             << (why.empty() ? "the cavity of training point " + std::to_string(bad) +
                                   " is not proper (Delta lambda_c not positive definite or "
                                   "lambda_c not negative semidefinite)"
                             : why);
        return fail(text.str());
      }
    }
    same_sites = false;
    const bool checking = stages.checking();
    const ClassQuadrature& averaging = checking ? fine : coarse;
    const double counted_tolerance =
        1e-3 *
        (checking ? o.tolerance : std::clamp(s.final_change, o.tolerance, kCountedLoosest * 1e3));
    auto& warm = checking ? warm_fine : warm_coarse;
    std::string failure;
    try {
      parallel_for(static_cast<std::size_t>(n), o.threads, [&](std::size_t j) {
        const auto i = static_cast<Index>(j);
        const AveragedClassSite avg = averaged_class_site(
            likelihood, y(i), s.dlc.middleCols(i * c, c), s.gammac.row(i).transpose(),
            s.lamc.middleCols(i * c, c), averaging, warm[j], counted_tolerance);
        a.mean.row(i) = avg.mean.transpose();
        a.variance.middleCols(i * c, c) = avg.variance;
        a.second_moment.middleCols(i * c, c) = avg.second_moment;
      });
    } catch (const NumericalError& e) {
      failure = e.what();
    }
    if (!failure.empty()) return fail("iteration " + std::to_string(s.iterations) + ": " + failure);
    if (!checking) {
      ++s.coarse_iterations;
      stages.correct(a);
    }
    const MatrixXd& m1 = a.mean;
    const MatrixXd& V1 = a.variance;
    // The change relative to the prior's scale at the point (means by sqrt K_ii, bootstrap
    // covariances by K_ii; a learned amplitude of 30 converges as amplitude 1) and of the
    // within-sample covariances to their own. The bootstrap covariances are compared with
    // what the cavities imply, V_i (-lambda_c - lambda_i) V_i: C_i itself (eq M5), except where
    // a slightly negative spread was taken as none (class_cavities). There C_i can never be
    // met (the sites would need the negative spread back), while the site update below
    // reproduces the implied one: the iteration's fixed point is where C' meets it.
    MatrixXd C1(c, c * n);
    double change = 0.0;
    for (Index i = 0; i < n; ++i) {
      const auto block = [&](const MatrixXd& M) { return M.middleCols(i * c, c); };
      C1.middleCols(i * c, c) = block(a.second_moment) - m1.row(i).transpose() * m1.row(i);
      const VectorXd sd = block(s.V).diagonal().cwiseSqrt();
      const MatrixXd implied =
          symmetric_part(block(s.V) * (-block(s.lamc) - block(s.lam)) * block(s.V));
      change = std::max(
          {change, (m1.row(i) - s.m.row(i)).cwiseAbs().maxCoeff() / std::sqrt(prior_variance(i)),
           ((block(V1) - block(s.V)).array() / (sd * sd.transpose()).array()).abs().maxCoeff(),
           (block(C1) - implied).cwiseAbs().maxCoeff() / prior_variance(i)});
    }
    s.final_change = change;
    s.damping = length.eta();
    bar.report(change);
    if (!std::isfinite(change))
      return fail("the averaged site moments are not finite at iteration " +
                  std::to_string(s.iterations));
    if (change < o.tolerance) {
      if (stages.agreed()) {
        s.converged = true;
        bar.finish();
        return s;
      }
      same_sites = true;  // check the fixed point of the corrected coarse rule with the fine one
      continue;
    }
    if (stages.disagreed(a)) {
      length.restart();
      mixing.reset();  // the corrected moments are another map
    }
    if (length.after(change)) mixing = mixer(length.eta());
    // The sites that make site + cavity reproduce the averaged moments (eq M5 solved for the
    // site): A' = V'^-1, Delta lambda* = A' - Delta lambda_c (>= 0 for the log-concave
    // multinomial probit), gamma* = A' m' - gamma_c, lambda* = -A' C' A' - lambda_c.
    from = {s.dl, s.gamma, s.lam};
    to = from;
    try {
      for (Index i = 0; i < n; ++i) {
        const MatrixXd A =
            inverse_spd(symmetric_part(V1.middleCols(i * c, c)), "the averaged covariance");
        to.dl.middleCols(i * c, c) = positive_part(A - s.dlc.middleCols(i * c, c));
        to.gamma.row(i) = (A * m1.row(i).transpose()).transpose() - s.gammac.row(i);
        to.lam.middleCols(i * c, c) =
            symmetric_part(-A * C1.middleCols(i * c, c) * A - s.lamc.middleCols(i * c, c));
      }
    } catch (const NumericalError& e) {
      return fail("iteration " + std::to_string(s.iterations) + ": " + e.what());
    }
    mixed_step(mixing, from, to, s);
    stepped = true;
  }
  s.iterations = o.max_iterations;
  s.message = not_converged_message(o.max_iterations, s.final_change, o.tolerance);
  return s;
}

namespace {

// B V for B block-diagonal by point (the C x C blocks side by side, C x CN) and V with
// class-major rows (CN x k), without forming B: CN C k flops.
MatrixXd times_point_blocks(const MatrixXd& blocks, const MatrixXd& V) {
  const Index c = blocks.rows(), n = blocks.cols() / c;
  MatrixXd out = MatrixXd::Zero(V.rows(), V.cols());
  for (Index i = 0; i < n; ++i)
    for (Index a = 0; a < c; ++a)
      for (Index b = 0; b < c; ++b) out.row(a * n + i) += blocks(a, i * c + b) * V.row(b * n + i);
  return out;
}

}  // namespace

ClassPredictive class_predictive(const ClassSolution& s, const std::vector<MatrixXd>& Kx,
                                 const std::vector<VectorXd>& kxx) {
  const Index n = s.gamma.rows(), c = s.gamma.cols(), cn = c * n, mt = Kx.front().cols();
  MatrixXd m(cn, 1), gamma(cn, 1);
  for (Index a = 0; a < c; ++a) {
    m.col(0).segment(a * n, n) = s.m.col(a);
    gamma.col(0).segment(a * n, n) = s.gamma.col(a);
  }
  const VectorXd b = gamma - times_point_blocks(s.dl, m);  // P^-1 m = gamma - D m
  MatrixXd X = MatrixXd::Zero(cn, c * mt);  // blockdiag(K_a(X, x)), class-major in both
  for (Index a = 0; a < c; ++a) X.block(a * n, a * mt, n, mt) = of_class(Kx, a);
  const MatrixXd DX = times_point_blocks(s.dl, X);
  const MatrixXd GDX = s.G * DX;  // the one product of order (CN)^2 C M
  const MatrixXd A = X - GDX;     // (I - G D) X
  const MatrixXd LA = times_point_blocks(s.lam, A);
  ClassPredictive p;
  p.mean.resize(mt, c);
  for (Index a = 0; a < c; ++a) p.mean.col(a) = of_class(Kx, a).transpose() * b.segment(a * n, n);
  p.within.resize(c, c * mt);
  p.spread.resize(c, c * mt);
  // The C x C block of each input: within k(x, x) I - X^T (D - D G D) X, spread -A^T Lambda A.
  for (Index x = 0; x < mt; ++x)
    for (Index a = 0; a < c; ++a)
      for (Index e = 0; e < c; ++e) {
        const Index ax = a * mt + x, ex = e * mt + x;
        p.within(a, x * c + e) = (a == e ? of_class(kxx, a)(x) : 0.0) -
                                 of_class(Kx, a).col(x).dot(DX.col(ex).segment(a * n, n)) +
                                 DX.col(ax).dot(GDX.col(ex));
        p.spread(a, x * c + e) = -A.col(ax).dot(LA.col(ex));
      }
  return p;
}

void averaged_class_probability(const ClassLikelihood& likelihood, const VectorXd& mu,
                                const MatrixXd& L, const MatrixXd& sigma,
                                const GaussianCubature& rule, VectorXd& mean, VectorXd& variance,
                                double* log_loss, Index label) {
  const Index c = mu.size();
  mean = VectorXd::Zero(c);
  VectorXd second = VectorXd::Zero(c);
  if (log_loss) *log_loss = 0.0;
  for (Index j = 0; j < rule.weights.size(); ++j) {
    const VectorXd p = likelihood.predictive(mu + L * rule.nodes.col(j), sigma);
    mean += rule.weights(j) * p;
    second += rule.weights(j) * p.cwiseAbs2();
    if (log_loss) *log_loss -= rule.weights(j) * std::log(p(label));
  }
  variance = (second - mean.cwiseAbs2()).cwiseMax(0.0);
}

}  // namespace quench::adatap
