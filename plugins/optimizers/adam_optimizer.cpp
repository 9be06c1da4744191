#include "adam_optimizer.h"

#include <cmath>
#include <numeric>
#include <vector>

#include "quench/errors.h"

namespace quench::optimizers {

// First and second moment estimates m, v and the step count t (Kingma & Ba, Algorithm 1).
struct AdamOptimizer::State {
  Eigen::VectorXd m, v;
  long t = 0;
  void step(Eigen::VectorXd& x, const Eigen::VectorXd& g, double lr, double b1, double b2,
            double eps) {
    ++t;
    m = b1 * m + (1 - b1) * g;
    v = b2 * v + (1 - b2) * g.cwiseAbs2();
    const double c1 = 1 - std::pow(b1, double(t)), c2 = 1 - std::pow(b2, double(t));
    x.array() -= lr * (m.array() / c1) / ((v.array() / c2).sqrt() + eps);
  }
};

ParamSchema AdamOptimizer::schema() {
  ParamSchema s;
  s.integer("epochs", "passes over the data (full batch: steps)", 100, 1)
      .integer("batch_size", "examples per mini-batch (0 = all)", 128, 0)
      .real("learning_rate", "step size at the first epoch", 1e-3, 1e-12)
      .real("final_learning_rate_fraction",
            "learning rate at the last epoch relative to the first (geometric decay; 1 = "
            "constant)",
            1.0, 1e-12, 1.0)
      .real("beta1", "decay of the first-moment estimate", 0.9, 0.0, 0.999999)
      .real("beta2", "decay of the second-moment estimate", 0.999, 0.0, 0.99999999)
      .real("epsilon", "denominator offset", 1e-8, 0.0);
  return s;
}

AdamOptimizer::AdamOptimizer(const Params& p)
    : epochs_(static_cast<int>(p.integer("epochs"))),
      batch_size_(p.integer("batch_size")),
      learning_rate_(p.real("learning_rate")),
      final_fraction_(p.real("final_learning_rate_fraction")),
      beta1_(p.real("beta1")),
      beta2_(p.real("beta2")),
      epsilon_(p.real("epsilon")) {}

double AdamOptimizer::learning_rate_at(int epoch) const {
  const double f = epochs_ > 1 ? double(epoch) / double(epochs_ - 1) : 0.0;
  return learning_rate_ * std::pow(final_fraction_, f);
}

OptimizerReport AdamOptimizer::minimize(const SmoothObjective& objective,
                                        Eigen::VectorXd& x) const {
  State s{Eigen::VectorXd::Zero(x.size()), Eigen::VectorXd::Zero(x.size())};
  OptimizerReport r;
  Eigen::VectorXd g(x.size());
  for (int e = 0; e < epochs_; ++e) {
    double value = 0;
    if (!objective.evaluate(x, &value, &g) || !g.allFinite()) {
      r.message = "adam: non-finite objective or gradient at step " + std::to_string(e);
      r.iterations = e;
      return r;
    }
    r.final_value = value;
    s.step(x, g, learning_rate_at(e), beta1_, beta2_, epsilon_);
  }
  r.iterations = epochs_;
  r.converged = true;
  r.message = "adam: fixed number of steps done";
  return r;
}

OptimizerReport AdamOptimizer::minimize_stochastic(const StochasticObjective& objective,
                                                   Eigen::VectorXd& x, RngStream& rng) const {
  const Eigen::Index n = objective.size();
  const Eigen::Index b = batch_size_ <= 0 || batch_size_ >= n ? n : batch_size_;
  State s{Eigen::VectorXd::Zero(x.size()), Eigen::VectorXd::Zero(x.size())};
  OptimizerReport r;
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::vector<Eigen::Index> batch;
  Eigen::VectorXd g(x.size());
  for (int e = 0; e < epochs_; ++e) {
    // Fisher-Yates with the task's own stream (portable, unlike std::shuffle).
    for (std::size_t i = order.size(); i > 1; --i) {
      const auto j = static_cast<std::size_t>(rng.uniform() * double(i));
      std::swap(order[i - 1], order[std::min(j, i - 1)]);
    }
    double sum = 0;
    int batches = 0;
    for (Eigen::Index start = 0; start < n; start += b) {
      batch.assign(order.begin() + start, order.begin() + std::min(n, start + b));
      double value = 0;
      if (!objective.evaluate_batch(x, batch, &value, &g) || !g.allFinite()) {
        r.message = "adam: non-finite objective or gradient in epoch " + std::to_string(e);
        r.iterations = e;
        return r;
      }
      sum += value;
      ++batches;
      s.step(x, g, learning_rate_at(e), beta1_, beta2_, epsilon_);
    }
    r.final_value = sum / batches;  // mean mini-batch estimate over the last epoch
  }
  r.iterations = epochs_;
  r.converged = true;
  r.message = "adam: fixed number of epochs done";
  return r;
}

}  // namespace quench::optimizers
