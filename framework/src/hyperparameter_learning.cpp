#include "quench/hyperparameter_learning.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "quench/cancellation.h"
#include "quench/errors.h"
#include "quench/printable.h"
#include "quench/rng.h"

namespace quench {
namespace {

// One requested block: where it lives and how it is transformed. The optimizer's coordinate
// is u = log theta (or theta when not log-scaled), kept within the bounds [a, b] on u by the
// optimizer (Optimizer::minimize_within).
struct Block {
  std::string key;
  bool in_kernel = true;
  std::string name;
  Eigen::Index offset = 0;       // in the component's flat vector
  Eigen::Index grad_offset = 0;  // in the objective's gradient (kernel entries, then likelihood)
  Eigen::Index size = 0;
  double lower = 0, upper = 0;  // natural scale
  bool log_scale = true, is_list = false;
  Eigen::VectorXd start;

  double a() const { return log_scale ? std::log(lower) : lower; }
  double b() const { return log_scale ? std::log(upper) : upper; }
  double to_u(double theta) const { return log_scale ? std::log(theta) : theta; }
  // Clamped, so that exp(log(bound)) cannot step out of the bounds by a rounding.
  double from_u(double u) const { return std::clamp(log_scale ? std::exp(u) : u, lower, upper); }
  // u within 2.5e-4 of the range b - a of a bound (on it exactly when a side is open): an
  // optimizer that approaches a bound without reaching it (the default logistic map) still
  // counts as there.
  bool at_bound(double u) const {
    const double tolerance = std::isfinite(b() - a()) ? 2.5e-4 * (b() - a()) : 0.0;
    return u - a() <= tolerance || b() - u <= tolerance;
  }
};

struct Split {
  bool in_kernel = true;
  std::string name;
  bool ok = false;
};

Split split_key(const std::string& key) {
  const auto dot = key.find('.');
  if (dot == std::string::npos) return {};
  const std::string owner = key.substr(0, dot);
  if (owner != "kernel" && owner != "likelihood") return {};
  return {owner == "kernel", key.substr(dot + 1), true};
}

std::string block_names(const std::vector<Hyperparameter>& blocks, const char* owner) {
  std::string s;
  for (const Hyperparameter& h : blocks)
    s += (s.empty() ? "" : ", ") + std::string(owner) + "." + h.name;
  return s.empty() ? std::string("none") : s;
}

// Resolves the requested keys into blocks; collects every problem.
std::vector<Block> resolve(const Kernel& kernel, const Likelihood& likelihood,
                           const LearningOptions& options, std::vector<std::string>& problems) {
  const auto kb = kernel.hyperparameters();
  const auto lb = likelihood.hyperparameters();
  const Eigen::Index kernel_size = flat_size(kb);
  std::vector<Block> blocks;
  std::set<std::string> seen;
  for (const std::string& key : options.parameters) {
    const Split s = split_key(key);
    if (!s.ok) {
      problems.push_back("'" + key + "' is not kernel.<name> or likelihood.<name>");
      continue;
    }
    const auto& owner = s.in_kernel ? kb : lb;
    const Hyperparameter* h = find_hyperparameter(owner, s.name);
    if (!h) {
      problems.push_back("unknown hyperparameter '" + key + "'; the " +
                         (s.in_kernel ? "kernel" : "likelihood") +
                         " has: " + block_names(owner, s.in_kernel ? "kernel" : "likelihood"));
      continue;
    }
    if (!seen.insert(key).second) {
      problems.push_back("'" + key + "' is named twice");
      continue;
    }
    Block b;
    b.key = key;
    b.in_kernel = s.in_kernel;
    b.name = s.name;
    b.offset = flat_offset(owner, s.name);
    b.grad_offset = b.offset + (s.in_kernel ? 0 : kernel_size);
    b.size = h->value.size();
    b.lower = h->lower;
    b.upper = h->upper;
    b.log_scale = h->log_scale;
    b.is_list = h->is_list;
    b.start = h->value;
    if (auto it = options.bounds.find(key); it != options.bounds.end()) {
      const auto [lo, hi] = it->second;
      if (!(lo < hi)) {
        problems.push_back("bounds of '" + key + "': lower " + format_number(lo) +
                           " must be below upper " + format_number(hi));
        continue;
      }
      if (lo < h->lower || hi > h->upper) {
        problems.push_back("bounds of '" + key + "' [" + format_number(lo) + ", " +
                           format_number(hi) + "] leave the allowed range [" +
                           format_number(h->lower) + ", " + format_number(h->upper) + "]");
        continue;
      }
      b.lower = lo;
      b.upper = hi;
    }
    if (b.log_scale && !(b.lower > 0)) b.lower = std::numeric_limits<double>::min();
    const double first_out = [&] {
      for (Eigen::Index i = 0; i < b.size; ++i)
        if (!(b.start(i) >= b.lower && b.start(i) <= b.upper)) return b.start(i);
      return std::numeric_limits<double>::quiet_NaN();
    }();
    if (!std::isnan(first_out)) {
      problems.push_back("the start value " + format_number(first_out) + " of '" + key +
                         "' is outside its bounds [" + format_number(b.lower) + ", " +
                         format_number(b.upper) + "]" +
                         (first_out <= 0 && b.log_scale
                              ? "; it is learned on a log scale, so give it a positive value to "
                                "start from"
                              : ""));
      continue;
    }
    blocks.push_back(std::move(b));
  }
  if (options.parameters.empty()) problems.push_back("no hyperparameter to learn");
  if (options.restarts < 0) problems.push_back("restarts must be >= 0");
  if (!(options.restart_spread >= 1.0)) problems.push_back("restart_spread must be >= 1");
  if (!(options.stationarity > 0.0)) problems.push_back("stationarity must be > 0");
  return blocks;
}

// -objective as a function of the optimizer's coordinates u.
class TransformedObjective final : public SmoothObjective {
 public:
  TransformedObjective(Kernel& kernel, Likelihood& likelihood, HyperparameterObjective& objective,
                       const std::vector<Block>& blocks)
      : kernel_(kernel), likelihood_(likelihood), objective_(objective), blocks_(blocks) {
    for (const Block& b : blocks) n_ += b.size;
  }
  Eigen::Index dimension() const override { return n_; }

  // Sets the components to the point u.
  void apply(const Eigen::VectorXd& u) const {
    Eigen::Index k = 0;
    for (const Block& b : blocks_) {
      Eigen::VectorXd theta(b.size);
      for (Eigen::Index i = 0; i < b.size; ++i, ++k) theta(i) = b.from_u(u(k));
      if (b.in_kernel)
        kernel_.set_hyperparameter(b.name, theta);
      else
        likelihood_.set_hyperparameter(b.name, theta);
    }
  }

  Eigen::VectorXd start() const {
    return per_entry([](const Block& b, Eigen::Index i) { return b.to_u(b.start(i)); });
  }
  Box box() const {
    return {per_entry([](const Block& b, Eigen::Index) { return b.a(); }),
            per_entry([](const Block& b, Eigen::Index) { return b.b(); })};
  }

  bool evaluate(const Eigen::VectorXd& u, double* value, Eigen::VectorXd* gradient) const override {
    if (!u.allFinite()) return false;
    const ObjectiveValue v = at(u);
    if (v.status.code != RunStatus::ok || !std::isfinite(v.value) || !v.gradient.allFinite())
      return false;
    if (value) *value = -v.value;
    if (gradient) *gradient = -du_gradient(u, v);
    return true;
  }

  // The objective at u. The last kRecent evaluations are kept: the learner asks again for the
  // value at the start, at the optimizer's result (where the optimizer has just been) and, after
  // its probe's steps, at the learned values.
  ObjectiveValue at(const Eigen::VectorXd& u) const {
    const auto known = std::find_if(recent_.begin(), recent_.end(),
                                    [&](const auto& entry) { return entry.first == u; });
    if (known != recent_.end()) {
      apply(u);  // the kernel and likelihood at u again
      return known->second;
    }
    throw_if_stop_requested();  // Ctrl-C between evaluations (the engines check within)
    apply(u);
    ++evaluations_;
    if (recent_.size() == kRecent) recent_.pop_front();
    recent_.emplace_back(u, objective_.evaluate(kernel_, likelihood_));
    return recent_.back().second;
  }

  // The objective's gradient in u (NaN when it has none).
  Eigen::VectorXd du_gradient(const Eigen::VectorXd& u, const ObjectiveValue& v) const {
    Eigen::VectorXd g(n_);
    Eigen::Index k = 0;
    for (const Block& b : blocks_)
      for (Eigen::Index i = 0; i < b.size; ++i, ++k)
        g(k) = v.gradient.size()
                   ? v.gradient(b.grad_offset + i) * (b.log_scale ? b.from_u(u(k)) : 1.0)
                   : std::numeric_limits<double>::quiet_NaN();
    return g;
  }

  int evaluations() const { return evaluations_; }

 private:
  template <class F>
  Eigen::VectorXd per_entry(F entry) const {
    Eigen::VectorXd v(n_);
    Eigen::Index k = 0;
    for (const Block& b : blocks_)
      for (Eigen::Index i = 0; i < b.size; ++i) v(k++) = entry(b, i);
    return v;
  }

  Kernel& kernel_;
  Likelihood& likelihood_;
  HyperparameterObjective& objective_;
  const std::vector<Block>& blocks_;
  Eigen::Index n_ = 0;
  mutable int evaluations_ = 0;
  // More than the probe's steps (probe_descent) and the point it starts from.
  static constexpr std::size_t kRecent = 8;
  mutable std::deque<std::pair<Eigen::VectorXd, ObjectiveValue>> recent_;
};

// A gain in a message, to 3 significant digits.
std::string three_digits(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

// How often learning goes on from a point a probe improved (probe_descent) before it reports
// the optimizer's stop as not converged.
constexpr int kMaxContinuations = 3;

// What steps along the projected steepest-descent direction of f at u find (entries on a
// bound whose gradient points out of the box held), steps that move the largest entry by
// 1e-6, 1e-5, ..., 1e-2 (in u: log units for log-scaled blocks), projected onto the box: a
// neighbourhood of u, so that a local optimum passes (another optimum farther off is the
// restarts' business).
struct Probe {
  /// The best step's point and value when it gains more than `gain` (u is then no optimum).
  std::optional<std::pair<Eigen::VectorXd, double>> better;
  /// The gradient promises more than `gain` over the shortest step, which gains less than a
  /// tenth of that: f's values do not follow its gradient at u (a point where f is not smooth).
  bool gradient_disagrees = false;
  double promised = 0.0, found = 0.0;  ///< over the shortest step
};

Probe probe_descent(const SmoothObjective& f, const Box& box, const Eigen::VectorXd& u,
                    double gain) {
  Probe probe;
  double fu = 0.0;
  Eigen::VectorXd g;
  if (!f.evaluate(u, &fu, &g) || !g.allFinite()) return probe;
  Eigen::VectorXd d = -g;
  for (Eigen::Index i = 0; i < u.size(); ++i)
    if ((u(i) <= box.lower(i) && d(i) < 0) || (u(i) >= box.upper(i) && d(i) > 0)) d(i) = 0.0;
  const double largest = d.lpNorm<Eigen::Infinity>();
  if (!(largest > 0)) return probe;
  d /= largest;
  constexpr double kShortest = 1e-6;
  constexpr double kLongest = 1e-2;
  for (double step = kShortest; step <= kLongest * (1 + 1e-9); step *= 10.0) {
    throw_if_stop_requested();
    const Eigen::VectorXd trial = (u + step * d).cwiseMax(box.lower).cwiseMin(box.upper);
    double value = 0.0;
    const bool evaluated = f.evaluate(trial, &value, nullptr) && std::isfinite(value);
    if (step == kShortest) {
      probe.promised = -g.dot(trial - u);
      probe.found = evaluated ? fu - value : 0.0;
      probe.gradient_disagrees = probe.promised > gain && probe.found < 0.1 * probe.promised;
    }
    if (evaluated && value < (probe.better ? probe.better->second : fu - gain))
      probe.better.emplace(trial, value);
  }
  return probe;
}

}  // namespace

void check_learning_request(const Kernel& kernel, const Likelihood& likelihood,
                            const LearningOptions& options) {
  std::vector<std::string> problems;
  resolve(kernel, likelihood, options, problems);
  if (problems.empty()) return;
  std::vector<Diagnostic> diagnostics;
  for (const std::string& p : problems) {
    Diagnostic d;
    d.message = "learn: " + p;
    diagnostics.push_back(std::move(d));
  }
  throw ConfigError(std::move(diagnostics));
}

LearningReport learn_hyperparameters(Kernel& kernel, Likelihood& likelihood,
                                     HyperparameterObjective& objective, const Optimizer& optimizer,
                                     const LearningOptions& options) {
  check_learning_request(kernel, likelihood, options);
  std::vector<std::string> ignored;
  const std::vector<Block> blocks = resolve(kernel, likelihood, options, ignored);
  const TransformedObjective f(kernel, likelihood, objective, blocks);
  LearningReport report;
  report.quantity = objective.quantity();
  report.restarts = options.restarts;

  const Eigen::VectorXd u0 = f.start();
  const Box box = f.box();
  double start_value = 0.0;
  const bool start_ok = f.evaluate(u0, &start_value, nullptr);
  report.start_value = start_ok ? -start_value : std::numeric_limits<double>::quiet_NaN();

  Eigen::VectorXd best_u = u0;
  double best = start_ok ? start_value : std::numeric_limits<double>::infinity();
  bool best_converged = false;
  std::string best_message = start_ok ? "no start improved on the start values"
                                      : "the objective could not be evaluated at the start";
  for (int r = 0; r <= options.restarts; ++r) {
    Eigen::VectorXd u = u0;
    if (r > 0) {
      RngStream rng(options.seed, static_cast<std::uint64_t>(r));
      Eigen::Index k = 0;
      for (const Block& b : blocks)
        for (Eigen::Index i = 0; i < b.size; ++i, ++k) {
          const double centre = b.to_u(b.start(i));
          const double spread = b.log_scale
                                    ? std::log(options.restart_spread)
                                    : (options.restart_spread - 1.0) * std::fabs(b.start(i));
          const double lo = std::max(b.a(), centre - spread), hi = std::min(b.b(), centre + spread);
          u(k) = lo + (hi - lo) * rng.uniform();
        }
    }
    double value = 0.0;
    OptimizerReport run;
    if (f.evaluate(u, &value, nullptr)) {
      run = optimizer.minimize_within(f, box, u);
      report.iterations += run.iterations;
      // The optimizer's stop is checked, not trusted: where a step along the gradient still
      // gains more than stationarity x max(1, |value|), it goes on from the better point (a
      // stop on a noisy line search, or a curvature that grew faster than its memory), at most
      // kMaxContinuations times; a point still improvable then is not converged.
      for (int c = 0; run.converged; ++c) {
        double at = 0.0;
        if (!f.evaluate(u, &at, nullptr)) break;
        const Probe probe =
            probe_descent(f, box, u, options.stationarity * std::max(1.0, std::fabs(at)));
        if (!probe.better) {
          if (probe.gradient_disagrees) {
            run.converged = false;
            run.message +=
                "; there the objective's values do not follow its gradient (a step "
                "it says gains " +
                three_digits(probe.promised) + " gains " + three_digits(probe.found) +
                "): a point where the objective is not smooth";
          }
          break;
        }
        if (c == kMaxContinuations) {
          run.converged = false;
          run.message += "; a step along the gradient still gains " +
                         three_digits(at - probe.better->second) + " there";
          break;
        }
        u = probe.better->first;
        const Eigen::VectorXd probed = u;
        const std::string first = run.message;
        run = optimizer.minimize_within(f, box, u);
        report.iterations += run.iterations;
        run.message = first + ", went on: " + run.message;
        double after = 0.0;  // an optimizer that ends worse than it began: its start is kept
        if (!f.evaluate(u, &after, nullptr) || after > probe.better->second) u = probed;
      }
    }
    const bool ok = f.evaluate(u, &value, nullptr);
    report.start_results.push_back(ok ? -value : std::numeric_limits<double>::quiet_NaN());
    // The first start's stop counts where it began at the best value (it started at an
    // optimum); a later start must improve on the best.
    if (ok && (value < best || (r == 0 && value <= best))) {
      best = value;
      best_u = u;
      best_converged = run.converged;
      best_message = run.message;
    }
  }

  const ObjectiveValue final_value = f.at(best_u);
  const Eigen::VectorXd du = f.du_gradient(best_u, final_value);
  report.evaluations = f.evaluations();
  report.value = final_value.value;
  double g2 = 0.0;
  Eigen::Index k = 0;
  for (const Block& b : blocks) {
    LearnedValue lv{b.key, Eigen::VectorXd(b.size), b.is_list, false};
    for (Eigen::Index i = 0; i < b.size; ++i, ++k) {
      lv.value(i) = b.from_u(best_u(k));
      const bool at_bound = b.at_bound(best_u(k));
      lv.at_bound = lv.at_bound || at_bound;
      if (!at_bound) g2 += du(k) * du(k);
    }
    report.learned.push_back(std::move(lv));
  }
  report.gradient_norm = std::sqrt(g2);
  report.stopped_by = best_message;
  if (final_value.status.code != RunStatus::ok || !std::isfinite(final_value.value)) {
    report.status = {
        RunStatus::failed,
        "the objective could not be evaluated at the learned values: " + final_value.status.message,
        report.iterations};
  } else if (!best_converged) {
    report.status = {RunStatus::not_converged, "optimizer: " + best_message, report.iterations};
  } else {
    report.status = {RunStatus::ok, "", report.iterations};
  }
  return report;
}

}  // namespace quench
