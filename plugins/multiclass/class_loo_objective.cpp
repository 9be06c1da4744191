#include "class_loo_objective.h"

#include <cmath>
#include <string>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>

#include "quench/class_kernels.h"
#include "quench/parallel.h"
#include "quench/symmetric_part.h"

namespace quench::multiclass {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

// Central differences in the cavity's coordinates: steps of this fraction of its sds.
constexpr double kCavityStep = 1e-4;

// The cavity's coordinates: m (C), then V_ab for a <= b (a row's upper triangle after another;
// one coordinate moves both V_ab and V_ba).
Index cavity_size(Index c) { return c + c * (c + 1) / 2; }

VectorXd cavity_coordinates(const VectorXd& dm, const MatrixXd& dV) {
  const Index c = dm.size();
  VectorXd x(cavity_size(c));
  x.head(c) = dm;
  Index k = c;
  for (Index a = 0; a < c; ++a)
    for (Index b = a; b < c; ++b) x(k++) = dV(a, b);
  return x;
}

// The step of each coordinate: kCavityStep sqrt(v) for the means, kCavityStep v for the
// covariances, v the smallest variance of a contrast f_a - f_b (the eigenvalues of V on the
// contrasts, 1^T x = 0). The likelihood sees only contrasts (class_likelihood.h: Pi 1 = 0), and
// the common direction's variance, which no site informs, grows with the prior's amplitude: steps
// by the diagonal of V would be of its size.
VectorXd cavity_steps(const MatrixXd& V) {
  const Index c = V.rows();
  const MatrixXd P = MatrixXd::Identity(c, c) - MatrixXd::Constant(c, c, 1.0 / c);
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eig(P * V * P, Eigen::EigenvaluesOnly);
  const double v = eig.eigenvalues()(1);  // (0) is the common direction's 0
  VectorXd s = VectorXd::Constant(cavity_size(c), kCavityStep * v);
  s.head(c).setConstant(kCavityStep * std::sqrt(v));
  return s;
}

// The cavity (m, V) moved by h along coordinate k.
void move_cavity(Index k, double h, VectorXd& m, MatrixXd& V) {
  const Index c = m.size();
  if (k < c) {
    m(k) += h;
    return;
  }
  Index j = c;
  for (Index a = 0; a < c; ++a)
    for (Index b = a; b < c; ++b, ++j)
      if (j == k) {
        V(a, b) += h;
        if (a != b) V(b, a) += h;
        return;
      }
}

// The Jacobian of f (cavity -> `outputs` values) at (m, V) by central differences.
template <class F>
MatrixXd cavity_jacobian(const VectorXd& m, const MatrixXd& V, Index outputs, const F& f) {
  const VectorXd steps = cavity_steps(V);
  MatrixXd J(outputs, steps.size());
  for (Index k = 0; k < steps.size(); ++k) {
    VectorXd mp = m, mm = m;
    MatrixXd Vp = V, Vm = V;
    move_cavity(k, steps(k), mp, Vp);
    move_cavity(k, -steps(k), mm, Vm);
    J.col(k) = (f(mp, Vp) - f(mm, Vm)) / (2.0 * steps(k));
  }
  return J;
}

// A point's factor sites as the fixed point's coordinates x_i: tau_j for j != y in class order,
// then nu_j.
VectorXd site_parameters(Index y, const ClassSite& t) {
  const Index c = t.tau.size();
  VectorXd x(2 * (c - 1));
  Index k = 0;
  for (Index j = 0; j < c; ++j)
    if (j != y) {
      x(k) = t.tau(j);
      x(c - 1 + k) = t.nu(j);
      ++k;
    }
  return x;
}

// d(Pi, h)/dx along each of x's coordinates (quench/class_likelihood.h: pi_y = 1, pi_j = tau_j,
// s = 1^T pi, Pi = diag(pi) - pi pi^T / s, h = sum_j nu_j (e_y - e_j) - q (sum_j nu_j) / s,
// q = sum_j tau_j (e_y - e_j)).
struct SiteDerivative {
  MatrixXd Pi;
  VectorXd h;
};

std::vector<SiteDerivative> site_form_derivatives(Index y, const ClassSite& t) {
  const Index c = t.tau.size();
  VectorXd pi = t.tau, q = VectorXd::Zero(c);
  pi(y) = 1.0;
  double nu_sum = 0.0;
  for (Index j = 0; j < c; ++j)
    if (j != y) {
      nu_sum += t.nu(j);
      q(y) += t.tau(j);
      q(j) -= t.tau(j);
    }
  const double s = pi.sum();
  std::vector<SiteDerivative> out(static_cast<std::size_t>(2 * (c - 1)));
  Index k = 0;
  for (Index j = 0; j < c; ++j) {
    if (j == y) continue;
    VectorXd e = VectorXd::Zero(c);  // e_y - e_j
    e(y) = 1.0;
    e(j) = -1.0;
    SiteDerivative& tau = out[static_cast<std::size_t>(k)];
    const VectorXd ej = VectorXd::Unit(c, j);
    tau.Pi = ej * ej.transpose() - (ej * pi.transpose() + pi * ej.transpose()) / s +
             pi * pi.transpose() / (s * s);
    tau.h = -e * nu_sum / s + q * nu_sum / (s * s);
    SiteDerivative& nu = out[static_cast<std::size_t>(c - 1 + k)];
    nu.Pi = MatrixXd::Zero(c, c);
    nu.h = e - q / s;
    ++k;
  }
  return out;
}

}  // namespace

ObjectiveValue class_loo_value_and_gradient(const Kernel& kernel, const MatrixXd& X,
                                            const std::vector<MatrixXd>& K,
                                            const Eigen::VectorXi& y,
                                            const ClassLikelihood& likelihood,
                                            const MulticlassFit& fit, int threads) {
  const Index n = y.size(), c = fit.cavity_mean.cols(), cn = c * n, nx = 2 * (c - 1);
  const double inv_n = 1.0 / static_cast<double>(n);
  ObjectiveValue v;
  v.status.iterations = fit.status.iterations;

  // Each point's log predictive at its cavity, its gradient in the cavity (dL/dc) and the
  // inner EP's response to the cavity (G_c).
  VectorXd log_p(n);
  std::vector<VectorXd> dL(static_cast<std::size_t>(n));
  std::vector<MatrixXd> Gc(static_cast<std::size_t>(n));
  parallel_for(static_cast<std::size_t>(n), threads, [&](std::size_t j) {
    const auto i = static_cast<Index>(j);
    const VectorXd m = fit.cavity_mean.row(i).transpose();
    const MatrixXd V = fit.cavity_covariance.middleCols(i * c, c);
    const auto log_predictive = [&](const VectorXd& mm, const MatrixXd& VV) {
      return VectorXd::Constant(1, std::log(likelihood.predictive(mm, VV)(y(i))));
    };
    log_p(i) = log_predictive(m, V)(0);
    dL[j] = inv_n * cavity_jacobian(m, V, 1, log_predictive).row(0).transpose();
    Gc[j] = cavity_jacobian(m, V, nx, [&](const VectorXd& mm, const MatrixXd& VV) {
      ClassSite t = fit.sites[j];
      likelihood.match_site(y(i), mm, VV, t, 0);
      return site_parameters(y(i), t);
    });
  });
  v.value = log_p.mean();
  if (!std::isfinite(v.value)) {
    v.status = {RunStatus::failed, "the LOO log predictive probability is not finite",
                fit.status.iterations};
    return v;
  }

  // The posterior at the fit's sites, class-major (index a N + i): B = (I + P Pi)^-1,
  // Sigma = B P, mu = Sigma h, the mean weights b = B^T h.
  MatrixXd pi, h;
  site_forms(y, fit.sites, pi, h);
  const VectorXd s = pi.rowwise().sum();
  MatrixXd M(cn, cn);
  for (Index a = 0; a < c; ++a)
    for (Index b = 0; b < c; ++b) {
      VectorXd w = -pi.col(a).cwiseProduct(pi.col(b)).cwiseQuotient(s);  // Pi_j(a, b)
      if (a == b) w += pi.col(a);
      M.block(a * n, b * n, n, n).noalias() = of_class(K, a) * w.asDiagonal();
    }
  M.diagonal().array() += 1.0;
  const MatrixXd B = M.partialPivLu().inverse();
  MatrixXd Sigma(cn, cn);
  for (Index b = 0; b < c; ++b)
    Sigma.middleCols(b * n, n).noalias() = B.middleCols(b * n, n) * of_class(K, b);
  const VectorXd hv = h.reshaped();  // class-major
  const VectorXd mu = Sigma * hv, bw = B.transpose() * hv;
  const auto block = [&](Index i, Index j) {  // Sigma_ij, C x C
    MatrixXd S(c, c);
    for (Index a = 0; a < c; ++a)
      for (Index b = 0; b < c; ++b) S(a, b) = Sigma(a * n + i, b * n + j);
    return S;
  };
  const auto point = [&](const VectorXd& x, Index i) {  // x's C values at point i
    VectorXd out(c);
    for (Index a = 0; a < c; ++a) out(a) = x(a * n + i);
    return out;
  };
  std::vector<MatrixXd> A(static_cast<std::size_t>(n)), Vc(static_cast<std::size_t>(n)),
      Pi(static_cast<std::size_t>(n));
  MatrixXd mu_p(n, c), r(n, c);  // mu_i and r_i = A_i mu_i - h_i as rows
  for (Index i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    A[k] = block(i, i).inverse();
    Pi[k] = -pi.row(i).transpose() * pi.row(i) / s(i);
    Pi[k].diagonal() += pi.row(i).transpose();
    Vc[k] = (A[k] - Pi[k]).inverse();
    mu_p.row(i) = point(mu, i).transpose();
    r.row(i) = (A[k] * mu_p.row(i).transpose() - h.row(i).transpose()).transpose();
  }

  // F = I - G_c c_x and c_x^T dL/dc, column block j at a time (point j's sites).
  MatrixXd F = MatrixXd::Zero(n * nx, n * nx);
  VectorXd rhs = VectorXd::Zero(n * nx);
  parallel_for(static_cast<std::size_t>(n), threads, [&](std::size_t jj) {
    const auto j = static_cast<Index>(jj);
    const std::vector<SiteDerivative> D = site_form_derivatives(y(j), fit.sites[jj]);
    std::vector<MatrixXd> Sij(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) Sij[static_cast<std::size_t>(i)] = block(i, j);
    for (Index d = 0; d < nx; ++d) {
      const MatrixXd& dPi = D[static_cast<std::size_t>(d)].Pi;
      const VectorXd& dh = D[static_cast<std::size_t>(d)].h;
      const VectorXd moved = dh - dPi * mu_p.row(j).transpose();
      for (Index i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(i);
        const MatrixXd& S = Sij[k];
        const MatrixXd dSigma = -S * dPi * S.transpose();
        const VectorXd dmu = S * moved;
        const MatrixXd dA = -A[k] * dSigma * A[k];
        MatrixXd E = dA;
        VectorXd own = dA * mu_p.row(i).transpose() + A[k] * dmu;
        if (i == j) {
          E -= dPi;
          own -= dh;
        }
        const MatrixXd dV = -Vc[k] * E * Vc[k];
        const VectorXd dm = dV * r.row(i).transpose() + Vc[k] * own;
        const VectorXd dc = cavity_coordinates(dm, symmetric_part(dV));
        F.block(i * nx, j * nx + d, nx, 1).noalias() = -Gc[k] * dc;
        rhs(j * nx + d) += dL[k].dot(dc);
      }
    }
  });
  F.diagonal().array() += 1.0;
  const VectorXd adjoint = F.transpose().partialPivLu().solve(rhs);

  // The total derivative in each cavity, g_i = dL/dc_i + G_c,i^T y_i, as (gm, H) with
  // <H, dV> + gm^T dm its pairing; then the pairing with dSigma_ii and dmu_i at fixed sites
  // (X_i, z_i), and W = B^T X B + sym(B^T z b^T).
  MatrixXd Xblk(c, cn);  // X_i side by side
  VectorXd z(cn);
  for (Index i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const VectorXd g = dL[k] + Gc[k].transpose() * adjoint.segment(i * nx, nx);
    const VectorXd gm = g.head(c);
    MatrixXd H(c, c);
    Index t = c;
    for (Index a = 0; a < c; ++a)
      for (Index b = a; b < c; ++b, ++t) H(a, b) = H(b, a) = a == b ? g(t) : 0.5 * g(t);
    H += symmetric_part(gm * r.row(i));
    const VectorXd zi = A[k] * Vc[k] * gm;
    Xblk.middleCols(i * c, c) = A[k] * Vc[k] * H * Vc[k] * A[k] -
                                symmetric_part(zi * (A[k] * mu_p.row(i).transpose()).transpose());
    for (Index a = 0; a < c; ++a) z(a * n + i) = zi(a);
  }
  MatrixXd XB = MatrixXd::Zero(cn, cn);  // Xblk B: row a N + i = sum_b X_i(a, b) B.row(b N + i)
  for (Index i = 0; i < n; ++i)
    for (Index a = 0; a < c; ++a)
      for (Index b = 0; b < c; ++b) XB.row(a * n + i) += Xblk(a, i * c + b) * B.row(b * n + i);
  MatrixXd W = B.transpose() * XB;
  const VectorXd u = B.transpose() * z;
  W += 0.5 * (u * bw.transpose() + bw * u.transpose());
  std::vector<MatrixXd> Wc;
  for (Index a = 0; a < c; ++a) Wc.push_back(W.block(a * n, a * n, n, n));
  v.gradient = class_gram_gradient(kernel, X, Wc);
  if (!v.gradient.allFinite())
    v.status = {RunStatus::failed, "the LOO objective's gradient is not finite",
                fit.status.iterations};
  return v;
}

}  // namespace quench::multiclass
