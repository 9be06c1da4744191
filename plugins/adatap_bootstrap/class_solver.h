// The ADATAP bootstrap of a C-class GP classifier (docs/adatap_multiclass.md, "eq M<n>" below):
// 000's replica EP (eqs 35-46) on the C latent GPs of one kernel, with the nested-EP sites of
// the multinomial probit (quench/class_likelihood.h). Per training point the site and the
// cavity are C x C and C-vector versions of the binary parameters (general_solver.h): Delta
// lambda (precision), gamma (linear term) and lambda (the sample-to-sample spread of the linear
// term, <= 0). The fixed point makes three computations of each point's moments agree: site +
// cavity (eq M5), the Gaussian part on the prior I_C (x) K (eq M4: G = (P^-1 + D)^-1, m = G gamma,
// C_i = -sum_j G_ij lambda_j G_ji) and the exact site averaged over the occupation k and the
// decoupling variable u ~ N(0, I_C) (eqs M6-M8): for each k the k-fold site of the classifier
// that mc_bootstrap retrains (multiclass_ep's counted sites: k copies of one nested-EP site,
// each matched at the cavity of one copy) under the cavity N(f; Delta lambda_c^-1 (gamma_c +
// L u), Delta lambda_c^-1), L L^T = -lambda_c.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "adatap_solver.h"
#include "general_solver.h"
#include "quench/class_kernels.h"
#include "quench/class_likelihood.h"
#include "quench/gaussian_cubature.h"

namespace quench::adatap {

/// The cubature of the u-averages (eqs M8, M10, M11) in the r directions of a spread:
/// Stroud's degree-3 rule (2r points; the default: on glass its bootstrap error and log loss
/// differ from the degree-5 rule's by <= 7e-5, docs/adatap_multiclass.md), degree 5 (2r^2 + 1;
/// some weights are negative for r > 4, so averaged covariances may lose definiteness there:
/// a check, not a default), or the product of `nodes` Gauss-Hermite nodes per direction
/// (nodes^r, at most 10^6).
struct ClassRule {
  enum class Kind { degree3, degree5, product };
  Kind kind = Kind::degree3;
  int nodes = 20;
  GaussianCubature in(int r) const;
};

/// The u-rules of the averaged class site (eq M8) in r = 0 (no spread) or C dimensions: rule
/// for the occupations k with p_k >= 1e-3 and for the rarer ones.
struct ClassQuadrature {
  Eigen::VectorXd pmf;
  std::vector<GaussianCubature> common, rare;  ///< [r], r = 0..C
  const GaussianCubature& rule(Eigen::Index r, Eigen::Index k) const;
};
/// The definition: `rule` for the common k, degree 3 (or `rule`, if coarser) for the rare.
ClassQuadrature fine_class_quadrature(const Eigen::VectorXd& pmf, Eigen::Index classes,
                                      const ClassRule& rule);
/// The first stage: degree 3 (2r points); the rare k at the cavity mean (u = 0).
ClassQuadrature coarse_class_quadrature(const Eigen::VectorXd& pmf, Eigen::Index classes);

/// The averaged site of one point (eqs M6-M8): m' = E[a], V' = E[B], Q' = E[a a^T] over k ~ pmf
/// and u, (a, B) the mean and covariance of the k-fold site's posterior (eq M7) under the
/// cavity (dlc, gammac, lamc): k = 0 in closed form, k = 1 by the inner EP to convergence,
/// k >= 2 by the counted sites' fixed point (eq M7, steps of 1/k with Anderson mixing, to
/// `counted_tolerance` relative to the sites' size). `warm[k][j]` holds the
/// factor sites of occupation k at node j: where each starts, left at its fixed point.
struct AveragedClassSite {
  Eigen::VectorXd mean;
  Eigen::MatrixXd variance, second_moment;
};
AveragedClassSite averaged_class_site(const ClassLikelihood& likelihood, Eigen::Index y,
                                      const Eigen::MatrixXd& dlc, const Eigen::VectorXd& gammac,
                                      const Eigen::MatrixXd& lamc,
                                      const ClassQuadrature& quadrature,
                                      std::vector<std::vector<ClassSite>>& warm,
                                      double counted_tolerance = 1e-11);

/// The decoupling of a spread -lambda (a cavity's, or at a new input minus the bootstrap
/// covariance): its symmetric root L = (-lambda)^1/2 (C x C), continuous in lambda (unlike
/// eigenvector columns, whose order, signs and rotation within a degenerate eigenspace are
/// arbitrary: a rule through them would move with rounding); empty (C x 0) when there is no
/// spread. Negative eigenvalues of -lambda are taken as 0: the solver's cavities are cleaned
/// before (class_cavities, clamped_spread), and at a new input the bootstrap covariance is, like
/// the binary model's variance, clamped at 0. Throws NumericalError when it is not finite.
Eigen::MatrixXd class_decoupling(const Eigen::MatrixXd& lamc);

/// The fixed point on the dense prior blockdiag(K_0, ..., K_{C-1}) (I_C (x) K for one kernel;
/// quench/class_kernels.h). C x C blocks are stored side by side (C x CN,
/// block i = point i), C-vectors as rows (N x C), CN-vectors and G class-major (index c N + i).
struct ClassSolution {
  Eigen::MatrixXd dl, lam, dlc, lamc;  ///< C x CN
  Eigen::MatrixXd gamma, gammac;       ///< N x C
  Eigen::MatrixXd G;                   ///< CN x CN: (P^-1 + D)^-1 at the final sites
  Eigen::MatrixXd m;                   ///< N x C: eq M4's E_D[f^_i]
  Eigen::MatrixXd V, C;  ///< C x CN: within-sample covariance and bootstrap covariance of f^_i
  /// The most negative spread of a cavity mean taken as none, relative to the cavity's
  /// variance in that direction, at the last cavities (0: none; above 0.01 the cavity is
  /// improper).
  double clamped_spread = 0;
  int iterations = 0, coarse_iterations = 0;
  double damping = 0, final_change = 0;
  bool converged = false;
  std::string message;
};

/// The Gaussian part of the replica model on C classes (eq M4) at the sites s.dl, s.gamma,
/// s.lam: s.m, s.V and s.C, and whatever form of G the prior keeps. The iteration needs nothing
/// else of the prior. NumericalError when it is not defined at the sites.
using ClassGaussianPart = std::function<void(ClassSolution& s)>;

/// Eq M4 on the dense prior P = blockdiag(K_c): G = P - (R P)^T (I + R P R)^-1 (R P), R the
/// block-diagonal root of D, kept in s.G (O((CN)^3)).
void class_gaussian_part(const ClassGrams& K, ClassSolution& s);

/// Algorithm 1 of docs/adatap_classification.md on C classes, from the prior (all site
/// parameters 0), coarse rule first and checked with the fine one (replica_stages.h;
/// options.tolerance on max |m' - m| / sqrt K_ii, |V' - V|_ab / sqrt(V_aa V_bb),
/// |C' - C| / K_ii, K_ii = prior_variance(i), the point's largest prior variance).
/// y: labels 0..classes-1. A numerical failure of the Gaussian part or an improper cavity that
/// halving the step cannot avoid ends it not converged, with the message.
ClassSolution solve_classes(const ClassGaussianPart& part, const Eigen::VectorXd& prior_variance,
                            const Eigen::VectorXi& y, Eigen::Index classes,
                            const ClassLikelihood& likelihood, const Occupation& occupation,
                            const GeneralOptions& options, const ClassRule& rule = {});
/// On the dense prior blockdiag(K_c): G formed in O((CN)^3) per iteration and kept in s.G.
ClassSolution solve_classes(const ClassGrams& K, const Eigen::VectorXi& y, Eigen::Index classes,
                            const ClassLikelihood& likelihood, const Occupation& occupation,
                            const GeneralOptions& options, const ClassRule& rule = {});

/// The bootstrap distribution of the latent vector at new inputs (eq M9): its mean (M x C),
/// within-sample covariance G_xx and bootstrap covariance (C x CM blocks), from each class's
/// K_c(X, x) (N x M) and k_c(x, x) (M), or one of each for one kernel.
struct ClassPredictive {
  Eigen::MatrixXd mean, within, spread;
};
ClassPredictive class_predictive(const ClassSolution& s,
                                 const std::vector<Eigen::MatrixXd>& k_train_test,
                                 const std::vector<Eigen::VectorXd>& k_test_diagonal);

/// E_u and Var_u of the class probabilities p(c | N(mu + L u, Sigma)) (the likelihood's
/// predictive) by the cubature in the directions of L, u ~ N(0, I): eq M10 at a new input,
/// eq M11 at a left-out training point. Var is clamped at 0 (the degree-5 rule has negative
/// weights for r > 4).
void averaged_class_probability(const ClassLikelihood& likelihood, const Eigen::VectorXd& mu,
                                const Eigen::MatrixXd& L, const Eigen::MatrixXd& sigma,
                                const GaussianCubature& rule, Eigen::VectorXd& mean,
                                Eigen::VectorXd& variance, double* log_loss = nullptr,
                                Eigen::Index label = -1);

}  // namespace quench::adatap
