#include "lbfgs_optimizer.h"

#include <ceres/ceres.h>

namespace quench::optimizers {
namespace {

class CeresFunction final : public ceres::FirstOrderFunction {
 public:
  explicit CeresFunction(const SmoothObjective& f) : f_(f) {}
  bool Evaluate(const double* parameters, double* cost, double* gradient) const override {
    const Eigen::Map<const Eigen::VectorXd> x(parameters, f_.dimension());
    if (gradient == nullptr) return f_.evaluate(x, cost, nullptr);
    Eigen::VectorXd g(f_.dimension());
    if (!f_.evaluate(x, cost, &g)) return false;
    Eigen::Map<Eigen::VectorXd>(gradient, f_.dimension()) = g;
    return true;
  }
  int NumParameters() const override { return static_cast<int>(f_.dimension()); }

 private:
  const SmoothObjective& f_;
};

}  // namespace

ParamSchema LbfgsOptimizer::schema() {
  ParamSchema s;
  s.integer("max_iterations", "iteration limit", 500, 1)
      .integer("memory", "number of L-BFGS correction pairs", 20, 1, 100)
      .real("gradient_tolerance",
            "stop when max |gradient| (projected onto the bounds, if any) falls below this", 1e-10,
            0.0)
      .real("function_tolerance", "stop when the relative decrease falls below this", 1e-12, 0.0);
  return s;
}

LbfgsOptimizer::LbfgsOptimizer(const Params& p)
    : settings_{static_cast<int>(p.integer("max_iterations")),
                static_cast<int>(p.integer("memory")), p.real("gradient_tolerance"),
                p.real("function_tolerance")} {}

OptimizerReport LbfgsOptimizer::minimize(const SmoothObjective& objective,
                                         Eigen::VectorXd& x) const {
  ceres::GradientProblemSolver::Options options;
  options.line_search_direction_type = ceres::LBFGS;
  options.max_lbfgs_rank = settings_.memory;
  options.max_num_iterations = settings_.max_iterations;
  options.gradient_tolerance = settings_.gradient_tolerance;
  options.function_tolerance = settings_.function_tolerance;
  options.logging_type = ceres::SILENT;
  ceres::GradientProblem problem(new CeresFunction(objective));
  ceres::GradientProblemSolver::Summary summary;
  ceres::Solve(options, problem, x.data(), &summary);
  OptimizerReport report;
  report.converged = summary.termination_type == ceres::CONVERGENCE;
  report.iterations = static_cast<int>(summary.iterations.size());
  report.final_value = summary.final_cost;
  report.message = summary.message;
  return report;
}

OptimizerReport LbfgsOptimizer::minimize_within(const SmoothObjective& objective, const Box& box,
                                                Eigen::VectorXd& x) const {
  return projected_lbfgs(objective, box, x, settings_);
}

}  // namespace quench::optimizers
