// Optimizer::minimize_within's default: bounds through a logistic change of variables, for
// optimizers that only minimize unconstrained objectives.
#include <algorithm>
#include <cmath>

#include "quench/optimizer.h"

namespace quench {
namespace {

// x_i = l_i + (u_i - l_i) / (1 + e^{-z_i}) where l_i and u_i are both finite, x_i = z_i
// otherwise; f as a function of z.
class LogisticBoxMap final : public SmoothObjective {
 public:
  LogisticBoxMap(const SmoothObjective& f, const Box& box) : f_(f), box_(box) {}
  Eigen::Index dimension() const override { return f_.dimension(); }

  bool mapped(Eigen::Index i) const {
    return std::isfinite(box_.lower(i)) && std::isfinite(box_.upper(i));
  }
  Eigen::VectorXd to_z(const Eigen::VectorXd& x) const {
    Eigen::VectorXd z = x;
    for (Eigen::Index i = 0; i < x.size(); ++i)
      if (mapped(i)) {
        const double p =
            std::clamp((x(i) - box_.lower(i)) / (box_.upper(i) - box_.lower(i)), 1e-15, 1 - 1e-15);
        z(i) = std::log(p / (1 - p));
      }
    return z;
  }
  Eigen::VectorXd to_x(const Eigen::VectorXd& z) const {
    Eigen::VectorXd x = z;
    for (Eigen::Index i = 0; i < z.size(); ++i)
      if (mapped(i)) x(i) = box_.lower(i) + (box_.upper(i) - box_.lower(i)) / (1 + std::exp(-z(i)));
    return x;
  }

  bool evaluate(const Eigen::VectorXd& z, double* value, Eigen::VectorXd* gradient) const override {
    if (!z.allFinite() || !f_.evaluate(to_x(z), value, gradient)) return false;
    if (gradient)
      for (Eigen::Index i = 0; i < z.size(); ++i)
        if (mapped(i)) {
          const double s = 1 / (1 + std::exp(-z(i)));
          (*gradient)(i) *= (box_.upper(i) - box_.lower(i)) * s * (1 - s);
        }
    return true;
  }

 private:
  const SmoothObjective& f_;
  const Box& box_;
};

}  // namespace

OptimizerReport Optimizer::minimize_within(const SmoothObjective& objective, const Box& box,
                                           Eigen::VectorXd& x) const {
  const LogisticBoxMap map(objective, box);
  Eigen::VectorXd z = map.to_z(x);
  const OptimizerReport report = minimize(map, z);
  x = map.to_x(z);
  return report;
}

}  // namespace quench
