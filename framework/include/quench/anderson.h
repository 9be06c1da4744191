// Anderson acceleration of a fixed-point iteration x <- F(x) (Anderson 1965; "type II" in the
// form of Walker & Ni 2011, SIAM J. Numer. Anal. 49:1715). Shared numerics for the iterative
// solvers of the engines (ADATAP eqs 63-64, mean-field / TAP site updates): given the iterate
// x_k and its image g_k = F(x_k), with residual f_k = g_k - x_k, the next iterate is
//
//   x_{k+1} = (x_k - dX c) + beta (f_k - dF c),   c = argmin |f_k - dF c|^2 + mu |c|^2,
//
// where the columns of dX, dF are the last m differences x_{j+1} - x_j, f_{j+1} - f_j (m =
// `depth`) and mu = regularization * |dF|_F^2 / m (Tikhonov on the least-squares problem, so a
// nearly rank-deficient history gives a bounded step). beta = 1 gives x_{k+1} = g_k - dG c.
// With an empty history (first step, after a restart) the step is the plain x_{k+1} = g_k
// (times the damping). It changes only the path of the iteration, never its fixed point: a
// fixed point x = F(x) has f = 0 and is returned unchanged (c = 0).
//
// Safeguards: the history is cleared (a restart) when the residual grew by more than
// `restart_growth` against the previous step (the secant model is not trusted), or when the
// extrapolated iterate is not finite (then the plain step is returned). After a growth restart
// the newest difference pair is kept: it is an exact secant of F, only the combination was bad.
#pragma once

#include <deque>

#include <Eigen/Core>

#include "quench/export.h"

namespace quench {

struct AndersonOptions {
  int depth = 3;                  ///< m: residual differences kept (0: plain iteration)
  double regularization = 1e-10;  ///< mu relative to the mean squared column norm of dF
  double damping = 1.0;           ///< beta (1: undamped)
  double restart_growth = 1.0;    ///< restart when |f_k| > restart_growth |f_{k-1}|
};

class QUENCH_API AndersonAccelerator {
 public:
  explicit AndersonAccelerator(const AndersonOptions& options = {});

  /// The next iterate from the current iterate x and its image g = F(x) (same size; a size
  /// change restarts the history).
  Eigen::VectorXd next(const Eigen::VectorXd& x, const Eigen::VectorXd& g);

  /// As next(), for a map of positive vectors, accelerated in log coordinates (the iterate
  /// stays positive and the residual is relative, log g - log x). x and g must be > 0.
  Eigen::VectorXd next_positive(const Eigen::VectorXd& x, const Eigen::VectorXd& g);

  void reset();  ///< forget the history (the next step is a plain step)

  int history() const { return static_cast<int>(dx_.size()); }  ///< differences in use
  int restarts() const { return restarts_; }  ///< restarts by the safeguards so far
  int steps() const { return steps_; }        ///< calls of next() / next_positive()
  const AndersonOptions& options() const { return options_; }

 private:
  AndersonOptions options_;
  std::deque<Eigen::VectorXd> dx_, df_;
  Eigen::VectorXd x_prev_, f_prev_;
  int restarts_ = 0;
  int steps_ = 0;
};

}  // namespace quench
