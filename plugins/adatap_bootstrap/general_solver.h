// The ADATAP bootstrap for any likelihood (000 eqs 35-46, worked out for classification in
// docs/adatap_classification.md, "the note" below): parallel damped EP on the replica model.
// Per training point six parameters: the site Delta lambda(i), gamma(i), lambda(i) (000 eq 32)
// and the cavity Delta lambda_c(i), gamma_c(i), lambda_c(i) (000 eq 26). The fixed point makes
// three computations of the moments agree: site + cavity (000 eqs 35-37), the Gaussian part
// with the GP prior (eqs 38-41: G = (K^-1 + diag Delta lambda)^-1, m = G gamma,
// C_i = -sum_j G_ij^2 lambda(j)) and the exact site averaged over the occupation number k and the
// decoupling variable u (eqs 43-46: the k-fold tilted moments of Likelihood::tilted_moments_power
// under the cavity N(mu_i(u), v_i), mu_i(u) = (gamma_c + u sqrt(-lambda_c)) / Delta lambda_c,
// v_i = 1 / Delta lambda_c, u ~ N(0, 1) by Gauss-Hermite).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "adatap_solver.h"
#include "quench/diagonal_plus_low_rank.h"
#include "quench/gauss_hermite.h"
#include "quench/inference_engine.h"
#include "quench/likelihood.h"
#include "quench/low_rank_prior.h"

namespace quench::adatap {

struct GeneralOptions {
  double tolerance = 1e-6;  ///< max |m' - m|, |V' - V| / V, |C' - C| at the fixed point
  /// eta: the fraction of the target site parameters taken per step at the start. It is halved
  /// (down to min_damping) whenever the change grows, and a step that leaves a cavity improper
  /// is taken again at half the length.
  double damping = 1.0;
  double min_damping = 1.0 / 64;
  int max_iterations = 500;
  int hermite_nodes = 20;  ///< n_u of the u-average
  int threads = 0;         ///< workers for the site averages (results do not depend on it)
  /// Whether the site precisions Delta lambda are kept >= 0: true for a log-concave likelihood,
  /// whose tilted variance never exceeds its cavity's (Brascamp-Lieb), so that a negative value
  /// is quadrature rounding; false lets sites of a likelihood that is not log-concave (a
  /// Student-t outlier) take the negative precisions their moments ask for.
  bool nonnegative_sites = true;
  /// The run's progress bar (RunContext::progress; may be empty): the change against
  /// `tolerance` (ConvergenceProgress).
  std::function<void(double)> progress;
};

/// `options` with the run's worker threads and progress bar (RunContext).
GeneralOptions for_run(GeneralOptions options, const RunContext& context);

/// The u-rule of the averaged site for each occupation k: rule[k] for k >= 1 (rule[0] is
/// unused: k = 0 is the cavity in closed form).
struct SiteQuadrature {
  Eigen::VectorXd pmf;
  std::vector<const GaussHermiteRule*> rule;
};
/// The definition (000 eqs 44-46): the n-node Gauss-Hermite rule in u for every k.
SiteQuadrature uniform_site_quadrature(const Eigen::VectorXd& pmf, int n);
/// The first stage of solve_general: 8 nodes for the k with p_k >= 1e-3, 4 down to 1e-6, 2
/// below, a third of the tilted-moment calls or fewer. Its fixed point is accepted only when the
/// uniform rule agrees with it to the tolerance.
SiteQuadrature coarse_site_quadrature(const Eigen::VectorXd& pmf);

/// The averaged exact site of one point (000 eqs 44-46): m' = E[a], V' = E[b], Q' = E[a^2] over
/// k ~ pmf and u ~ N(0, 1), a and b the mean and variance of the k-fold tilted density (000 eq 43)
/// under the cavity (delta_lambda_c, gamma_c, lambda_c). k = 0 in closed form (the cavity
/// itself); k >= 1 by the quadrature's rule for k in u (one node when lambda_c = 0).
struct AveragedSite {
  double mean = 0, variance = 0, second_moment = 0;
};
AveragedSite averaged_site(const Likelihood& likelihood, const Observation& y,
                           double delta_lambda_c, double gamma_c, double lambda_c,
                           const SiteQuadrature& quadrature);

/// The SVM limit of the averaged site (note §6, eq 23): the likelihood Theta(y f - 1) with the
/// prior K / beta, beta -> infinity, in the rescaled parameters (Delta lambda = beta Delta
/// lambda~, gamma = beta gamma~, lambda = beta^2 lambda~; `variance` is beta V'). Multiplicity
/// drops out (Theta^k = Theta): only p0 = p(k = 0) matters. For k >= 1 the tilted mean is
/// y max(X, 1), X = y mu(u) ~ N(x, s^2), x = y gamma_c / Delta lambda_c,
/// s^2 = -lambda_c / Delta lambda_c^2, and beta times its variance Theta(X - 1) / Delta lambda_c.
AveragedSite svm_limit_site(double y, double delta_lambda_c, double gamma_c, double lambda_c,
                            double p0);

/// The averaged site of point i under its cavity (y_i, Delta lambda_c, gamma_c, lambda_c).
using AveragedSiteFunction = std::function<AveragedSite(Eigen::Index i, const Observation& y,
                                                        double dlc, double gammac, double lamc)>;

/// The Gaussian part of the replica model (note eq 9) at the site parameters (dl, gamma,
/// lambda): V = diag G, m = G gamma, C = -(G o G) lambda with G = (K^-1 + diag dl)^-1. The
/// iteration needs nothing else of G (docs/large_n.md, "The classifier bootstrap"): the dense
/// prior forms G, the inducing-point prior holds it as diagonal plus low rank.
using GaussianPart = std::function<void(const Eigen::VectorXd& dl, const Eigen::VectorXd& gamma,
                                        const Eigen::VectorXd& lam, Eigen::VectorXd& V,
                                        Eigen::VectorXd& m, Eigen::VectorXd& C)>;

struct GeneralSolution {
  Eigen::VectorXd dl, gamma, lam;     ///< site: Delta lambda(i), gamma(i), lambda(i)
  Eigen::VectorXd dlc, gammac, lamc;  ///< cavity: Delta lambda_c(i), gamma_c(i), lambda_c(i)
  /// (K^-1 + diag dl)^-1 at the final site parameters (dense prior; 0 x 0 on the
  /// inducing-point prior, whose G is SparseGeneralSolution::G)
  Eigen::MatrixXd G;
  /// Eq 39: E_D[f^_i]; V_i = G_ii, the within-sample posterior variance averaged over D; eq 40:
  /// C_i = Var_D[f^_i].
  Eigen::VectorXd m, V, C;
  int iterations = 0;         ///< passes of the iteration, both stages and repeated steps
  int coarse_iterations = 0;  ///< of them, with the coarse site (solve_general's first stage)
  double damping = 0;         ///< eta at the end
  bool converged = false;
  double final_change = 0;  ///< the convergence measure at the last iteration
  std::string message;      ///< why it stopped when not converged
};

/// Algorithm 1 of the note from the prior (all site parameters 0): G, m, V, C (eq 9 of the note);
/// the cavities (eq 16); the averaged sites; stop when they agree to `tolerance`; else a step
/// of length eta towards the sites that make them agree (eq 17). K: the kernel matrix of the
/// noise-free latent process; y: the observations as the likelihood takes them.
/// With a `coarse` site the iteration runs on it first; at its fixed point `site` is evaluated
/// at the same cavities and the iteration goes on with `site` until they agree to `tolerance`,
/// so the result is a fixed point of `site` either way. A cavity with lambda_c(i) > 0 (no real
/// decoupling) that halving the step cannot avoid stops the iteration with a message.
/// The iteration itself runs on any GaussianPart of N points.
GeneralSolution solve_general(Eigen::Index n, const GaussianPart& part, const Observations& y,
                              const AveragedSiteFunction& site, const GeneralOptions& options,
                              const AveragedSiteFunction& coarse = {});
/// On the dense prior K: G formed in O(N^3) per iteration (g_full; sites of either sign by an LU
/// of I + K D) and kept in the solution.
GeneralSolution solve_general(const Eigen::MatrixXd& K, const Observations& y,
                              const AveragedSiteFunction& site, const GeneralOptions& options,
                              const AveragedSiteFunction& coarse = {});
/// The likelihood's averaged site over the occupation pmf: the coarse quadrature first, then
/// the uniform rule of options.hermite_nodes; sites of either sign unless the likelihood is
/// log-concave (GeneralOptions::nonnegative_sites).
GeneralSolution solve_general(const Eigen::MatrixXd& K, const Observations& y,
                              const Likelihood& likelihood, const Occupation& occupation,
                              const GeneralOptions& options);

/// The same fixed point on the inducing-point prior K~ = diag(Lambda) + U U^T: G =
/// diag(e) + W W^T (LowRankPrior::posterior_covariance), V and m in O(N M), C = -(G o G) lambda
/// in 3 N M^2 (DiagonalPlusLowRank::hadamard_square_times), O(N M^2) time and O(N M) memory per
/// iteration. For the prior K~ it is the dense solver run on K~ formed explicitly.
struct SparseGeneralSolution {
  GeneralSolution sites;  ///< sites.G is left empty
  DiagonalPlusLowRank G;  ///< at the final site parameters
};
SparseGeneralSolution solve_general(const LowRankPrior& prior, const Observations& y,
                                    const Likelihood& likelihood, const Occupation& occupation,
                                    const GeneralOptions& options);

}  // namespace quench::adatap
