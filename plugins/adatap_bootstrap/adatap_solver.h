// The ADATAP analytical bootstrap for GP regression (Malzahn & Opper 2003, "000"): the
// self-consistent iteration of eqs 63-64, the closed-form parameters of eqs 65-66 and the
// bootstrap averages built from them (eqs 53, 54, 57, 67). The sums over the occupation
// number k run over the resampler's pmf (footnote 2), so any factorizing scheme works.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace quench::adatap {

/// How G_ii is updated between exact computations (Appendix A.3, A.4).
struct SolverOptions {
  enum class Method { full, approximate };      ///< Sec. 5: iterate, or A.2 start + one G
  enum class Init { eigen, subset, constant };  ///< A.2 on K, A.2 on an N/P subset, or flat
  Method method = Method::full;
  Init init = Init::eigen;
  int subset_factor = 4;      ///< P of A.2
  bool woodbury = false;      ///< A.3: rank-A update of G on the active set (eq 72)
  int approximate_steps = 0;  ///< A.4: up to this many eq-74 steps between exact G
  double tolerance = 1e-3;    ///< relative accuracy of dl, dl_c (A.3)
  int max_iterations = 200;
  /// A.3: site j is active when |delta_j| > this * dl_j (must be below `tolerance`)
  double active_threshold = 5e-4;
  /// Single-precision evaluations of diag G until they converge, then double (the fixed point
  /// is confirmed in double precision either way)
  bool mixed_precision = false;
  int anderson_depth = 0;  ///< Anderson acceleration of eqs 63-64 over this many steps (0: off)
  /// Newton steps for eqs 63-64 (Jacobian through eq 65's matrix, CG); excludes A.3, A.4, Anderson
  bool newton = false;
  std::uint64_t seed = 0;  ///< for the A.2 subset
  /// The run's progress bar (RunContext::progress; may be empty), followed by the
  /// inducing-point solver (solve_sparse: the fixed point, then eq 65's CG).
  std::function<void(double)> progress;
};

/// The occupation distribution p(s = k), k = 0..K, of one site (000 eq 15 for Poisson).
struct Occupation {
  Eigen::VectorXd pmf;
  double mean() const;
};

struct Solution {
  // Site parameters (000 eqs 63-66).
  Eigen::VectorXd dl, dlc;       ///< Delta lambda(i), Delta lambda_c(i)
  Eigen::VectorXd gamma, lam;    ///< gamma(i), lambda(i) (eq 65)
  Eigen::VectorXd gammac, lamc;  ///< gamma_c(i), lambda_c(i) (eq 66)
  Eigen::VectorXd H;             ///< H(i) = sum_k p_k (dl_c + k/s2)^-2
  Eigen::MatrixXd G;  ///< (K^-1 + diag dl)^-1 (eq 41), at the final dl (0 x 0: sparse_solver.h)
  Eigen::VectorXd m;  ///< bootstrap mean at the training inputs, G gamma (eq 39)
  Eigen::VectorXd train_variance;  ///< -(G diag(lambda) G)_ii (eq 40)
  double start_dl = 0;             ///< the A.2 (or constant) start value
  int iterations = 0;              ///< iterations of eqs 63-64
  int exact_g = 0;                 ///< exact (re)factorizations of G during the iteration
  int single_evaluations = 0;      ///< single-precision evaluations of diag G (mixed precision)
  int woodbury_updates = 0;        ///< A.3 updates
  int approximate_updates = 0;     ///< A.4 updates
  int newton_rejected = 0;         ///< Newton steps replaced by the plain step (safeguard)
  int eq65_steps = 0;              ///< products with G o G in the CG solve of eq 65
  bool converged = false;
  double final_change = 0;  ///< max relative change at the last iteration
  std::string message;
};

/// Solves the ADATAP equations for kernel matrix K (without noise), targets y, observation
/// noise s2 and occupation pmf.
Solution solve(const Eigen::MatrixXd& K, const Eigen::VectorXd& y, double s2, const Occupation& occ,
               const SolverOptions& options);

/// G = (K^-1 + diag dl)^-1 (eqs 41, 70) without K^-1: one Cholesky of B = I + D^1/2 K D^1/2
/// and G = D^-1/2 (I - B^-1) D^-1/2, with the columns of sites whose dl_i K_ii is tiny (dl_i = 0
/// included: G = K at dl = 0) taken as K e_i - K D^1/2 B^-1 D^1/2 K e_i. Throws NumericalError
/// when B is not positive definite.
Eigen::MatrixXd g_full(const Eigen::MatrixXd& K, const Eigen::VectorXd& dl);

/// A.2: the scalar start value dl from eqs 68-69 given kernel eigenvalues omega (of K, or of
/// the kernel matrix of a random N/P subset: eq 68 then averages over N/P eigenvalues).
double initial_dl(const Eigen::VectorXd& omega, double s2, const Occupation& occ);

/// Eq 54: (1/N) sum_i E_u g((gamma_c + u sqrt(-lambda_c)) / dl_c - y_i), u ~ N(0, 1).
template <class Loss>
double test_error(const Solution& sol, const Eigen::VectorXd& y, Loss loss);

/// Eq 53: the square-loss test error in closed form.
double test_error_square(const Solution& sol, const Eigen::VectorXd& y);

/// Eq 67: the mixture of Gaussians for the predictor at training input i: component k has
/// weight p_k, mean (gamma_c + y k/s2) / a_k and variance -lambda_c / a_k^2, a_k = dl_c + k/s2.
void mixture(const Solution& sol, const Eigen::VectorXd& y, double s2, const Occupation& occ,
             Eigen::MatrixXd& means, Eigen::MatrixXd& variances);

/// Probability mass of eq 67 in the bins [edges(b), edges(b+1)) (N x B).
Eigen::MatrixXd binned_density(const Eigen::MatrixXd& means, const Eigen::MatrixXd& variances,
                               const Occupation& occ, const Eigen::VectorXd& edges);

}  // namespace quench::adatap

#include "adatap_solver.inl"
