#include "svm_limit.h"

#include <chrono>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "fit_outputs.h"
#include "quench/cholesky.h"
#include "quench/errors.h"
#include "quench/memory_budget.h"

namespace quench::latent_gp {

double kkt_violation(const Eigen::VectorXd& t, const Eigen::VectorXd& alpha,
                     const Eigen::VectorXd& h) {
  double v = 0.0;
  for (Eigen::Index i = 0; i < t.size(); ++i) {
    const double margin = t(i) * h(i) - 1.0;
    v = std::max(v, alpha(i) > 0 ? std::fabs(margin) : std::max(0.0, -margin));  // eq 37
  }
  return v;
}

namespace {

// Primal-dual active-set polish of the bias-free hard-margin dual min 1/2 a'TCTa - 1'a,
// a >= 0 (the problem the Adatron solves): with mu = t h - 1 (the gradient), the inactive set
// I = {a_i - mu_i > 0} gets mu_I = 0, i.e. C_II (t a)_I = t_I (one Cholesky), a = 0 elsewhere;
// repeated until the set is stable. Returns true and the solution when it satisfies the KKT
// conditions (eq 37) to tol; false (alpha unchanged) otherwise, e.g. on cycling.
bool active_set_polish(const Eigen::MatrixXd& C, const Eigen::VectorXd& t, double tol,
                       Eigen::VectorXd& alpha, Eigen::VectorXd& h) {
  const Eigen::Index n = t.size();
  Eigen::VectorXd a = alpha, hh = h;
  std::vector<Eigen::Index> previous;
  for (int it = 0; it < 30; ++it) {
    std::vector<Eigen::Index> in;
    for (Eigen::Index i = 0; i < n; ++i)
      if (a(i) - (t(i) * hh(i) - 1.0) > 0.0) in.push_back(i);
    if (in.empty()) return false;
    if (in == previous) break;
    previous = in;
    const auto k = static_cast<Eigen::Index>(in.size());
    Eigen::MatrixXd Cii(k, k);
    Eigen::VectorXd ti(k);
    for (Eigen::Index r = 0; r < k; ++r) {
      ti(r) = t(in[static_cast<std::size_t>(r)]);
      for (Eigen::Index c = 0; c < k; ++c)
        Cii(r, c) = C(in[static_cast<std::size_t>(r)], in[static_cast<std::size_t>(c)]);
    }
    JitterPolicy no_jitter;
    no_jitter.max_tries = 0;
    Eigen::VectorXd u;
    try {
      u = Cholesky(Cii, no_jitter, "C_II").solve(ti);  // (t a)_I
    } catch (const NumericalError&) {
      return false;
    }
    a.setZero();
    for (Eigen::Index r = 0; r < k; ++r) a(in[static_cast<std::size_t>(r)]) = ti(r) * u(r);
    hh = C * t.cwiseProduct(a);
  }
  if (a.minCoeff() < 0.0 || !(kkt_violation(t, a, hh) < tol)) return false;
  alpha = a;
  h = hh;
  return true;
}

}  // namespace

SvmFit solve_svm(const Eigen::MatrixXd& C, const Eigen::VectorXd& t, double tol, int max_sweeps) {
  const Eigen::Index n = t.size();
  SvmFit fit;
  Eigen::VectorXd alpha = Eigen::VectorXd::Zero(n), h = Eigen::VectorXd::Zero(n);
  bool converged = false;
  int sweep = 0;
  for (sweep = 1; sweep <= max_sweeps; ++sweep) {
    // Kernel Adatron (App. E): exact coordinate ascent of sum alpha - 1/2 alpha' T C T alpha
    // subject to alpha >= 0, i.e. alpha_i <- max(0, alpha_i + (1 - t_i h_i) / C_ii).
    for (Eigen::Index i = 0; i < n; ++i) {
      const double updated = std::max(0.0, alpha(i) + (1.0 - t(i) * h(i)) / C(i, i));
      const double d = updated - alpha(i);
      if (d != 0.0) {
        h += C.col(i) * (t(i) * d);
        alpha(i) = updated;
      }
    }
    h = C * t.cwiseProduct(alpha);  // no drift from the incremental updates
    // The Adatron converges slowly on a nearly singular C: from its support-set guess, try
    // the active-set polish (exact solution of the same dual) every 50 sweeps.
    if (sweep % 50 == 0) active_set_polish(C, t, tol, alpha, h);
    fit.kkt_violation = kkt_violation(t, alpha, h);
    if (!std::isfinite(fit.kkt_violation)) break;
    if (fit.kkt_violation < tol) {
      converged = true;
      break;
    }
  }
  fit.status = converged ? Status{RunStatus::ok, "", sweep}
                         : Status{RunStatus::not_converged,
                                  "Adatron: KKT violation " + std::to_string(fit.kkt_violation) +
                                      " after " + std::to_string(max_sweeps) + " sweeps",
                                  max_sweeps};
  fit.alpha = alpha;
  fit.mean_field = h;
  // Eq 38: removing support vector i shifts h_i by alpha_i / [C_SV^{-1}]_ii.
  std::vector<Eigen::Index> sv;
  for (Eigen::Index i = 0; i < n; ++i)
    if (alpha(i) > 0) sv.push_back(i);
  fit.support_vectors = static_cast<int>(sv.size());
  fit.loo_mean = h;
  int& errors = fit.loo_errors;
  if (!sv.empty()) {
    const auto k = static_cast<Eigen::Index>(sv.size());
    Eigen::MatrixXd Csv(k, k);
    for (Eigen::Index a = 0; a < k; ++a)
      for (Eigen::Index b = 0; b < k; ++b)
        Csv(a, b) = C(sv[static_cast<std::size_t>(a)], sv[static_cast<std::size_t>(b)]);
    const Eigen::VectorXd inv_diag = Cholesky(Csv, JitterPolicy{}, "C_SV").inverse_diagonal();
    for (Eigen::Index a = 0; a < k; ++a) {
      const Eigen::Index i = sv[static_cast<std::size_t>(a)];
      const double shift = alpha(i) / inv_diag(a);
      fit.loo_mean(i) = h(i) - t(i) * shift;
      if (shift >= 1.0) ++errors;  // Theta(alpha_i / [C_SV^{-1}]_ii - 1)
    }
  }
  fit.loo_error = n > 0 ? static_cast<double>(errors) / static_cast<double>(n) : 0.0;
  return fit;
}

ParamSchema SvmLimitEngine::schema() {
  ParamSchema s;
  s.real("tol", "stop when the KKT violation of eq 37 is below tol", 1e-10, 0.0)
      .integer("max_sweeps", "maximum number of Adatron sweeps", 200000, 1);
  return s;
}

SvmLimitEngine::SvmLimitEngine(const Params& p)
    : tol_(p.real("tol")), max_sweeps_(static_cast<int>(p.integer("max_sweeps"))) {}

void SvmLimitEngine::check(const Problem& problem, Eigen::Index) const {
  require_dense_memory(problem.data->X_train.rows(), 3, "svm_limit");
}

Results SvmLimitEngine::run(const Problem& problem) const {
  const auto start = std::chrono::steady_clock::now();
  const Dataset& d = *problem.data;
  const Eigen::VectorXd t = class_labels(d, DataPart::train, "svm_limit");
  const Eigen::MatrixXd C = problem.kernel->gram(d.X_train);
  const SvmFit fit = solve_svm(C, t, tol_, max_sweeps_);
  Results r;
  r.vectors["alpha"] = fit.alpha;
  r.vectors["mean_field"] = fit.mean_field;
  r.vectors["stability"] = t.cwiseProduct(fit.mean_field);  // t_i <h_i> (001 Fig. 3)
  r.vectors["cavity_mean"] = fit.loo_mean;
  r.scalars["loo_error"] = fit.loo_error;  // eq 38
  r.scalars["loo_errors"] = fit.loo_errors;
  r.scalars["kkt_violation"] = fit.kkt_violation;
  r.scalars["support_vectors"] = fit.support_vectors;
  r.scalars["train_error"] = error_rate(t, fit.mean_field);
  r.scalars["iterations"] = fit.status.iterations;
  r.status = fit.status;
  add_model_predictions(r, problem, [&] {
    return std::make_shared<const SvmModel>(problem.kernel, d.X_train, t.cwiseProduct(fit.alpha));
  });
  r.info["method"] = "SVM limit (001 Sec. 7, App. E): hard-margin SVM without bias, Adatron";
  r.timings["fit"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::unique_ptr<ResampledModel> SvmLimitEngine::prepare_resampling(const Problem& problem) const {
  const double tol = tol_;
  const int max_sweeps = max_sweeps_;
  Observations labels;
  labels.y = class_labels(*problem.data, DataPart::train, "svm_limit");
  return make_resampled_classifier(
      problem, "svm_limit", std::move(labels),
      [tol, max_sweeps](const Eigen::MatrixXd& C, const Observations& t, const Eigen::VectorXi&) {
        const SvmFit fit = solve_svm(C, t.y, tol, max_sweeps);
        if (fit.status.code != RunStatus::ok)
          throw NumericalError("svm_limit", "bootstrap retrain: " + fit.status.message);
        return CountedFitResult{t.y.cwiseProduct(fit.alpha), {}};
      },
      false);
}

}  // namespace quench::latent_gp
