// The WBB's fitted models (004 Algorithm 1): the T draws themselves, every prediction a summary
// over them. At a new input each draw t gives its value f_t(x); a model reports their mean, and
// the type-7 quantiles (quench::quantile, as the engine summarizes its draws) at the levels it
// was made with: (1 - level)/2, 1/2 and (1 + level)/2 of the engine's `level`.
//
// kind "wbb_linear" (model linear: LASSO, ridge, elastic net): f_t(x) = b_t + x^T beta_t.
//   posterior/coefficients    matrix T x p  beta_t as rows
//   posterior/intercepts      vector T      b_t (0 without intercept)
// kind "wbb_trend_filter": f_t is the discrete spline of degree k through draw t's fitted
//   values at the training inputs (discrete_spline.h; outside the training range the end
//   pieces continue as polynomials of degree k).
//   posterior/fitted_values   matrix T x n  beta_t (the trend filter's fitted values) as rows
//   posterior/order           integer       k
// Both: columns mean (target), variance (target variance; the draws' variance, T - 1) and
// q<level> (target), e.g. q0.025, q0.5, q0.975: the posterior of the regression function,
// without observation noise.
//
// kind "wbb_network" (model network): draw t's softmax probabilities p_t(c | x) of the
// two-hidden-layer ReLU network (quench::Mlp, NTK parametrisation).
//   posterior/parameters      matrix T x P  theta_t as rows, quench::Mlp's flat layout
//   posterior/hidden1, posterior/hidden2, posterior/classes   integers: the layer widths
// Columns (no target units): two classes: probability (the mean over draws of p_t(1 | x)) and
// probability_q<level>; C > 2 classes: probability_<c> and probability_<c>_q<level> for every
// class c; then label, the class of largest mean probability (the class value 0, 1, ...).
//
// All: posterior/quantile_levels (vector) the quantile levels of the columns.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "discrete_spline.h"
#include "quench/inference_engine.h"
#include "quench/mlp.h"

namespace quench::wbb {

/// (1 - level)/2, 1/2, (1 + level)/2 (the engine's posterior_lower, _median, _upper).
std::vector<double> quantile_levels(double level);
/// The name of a quantile column: "q" and the level with up to 10 decimals, trailing zeros
/// trimmed ("q0.025").
std::string quantile_column(double level);

/// The summary columns of draws F (rows: inputs, columns: draws): `name` (the mean),
/// with `variance` the draws' variance (T - 1) as "variance", then one column per level
/// named prefix + quantile_column(level); all in `unit` (variance: its variance unit).
void add_draw_summary(Predictions& p, const Eigen::MatrixXd& F, const std::string& name,
                      const std::string& prefix, const std::vector<double>& levels,
                      PredictionUnit unit, bool variance);

class LinearDrawsModel final : public Model {
 public:
  LinearDrawsModel(Eigen::MatrixXd coefficients, Eigen::VectorXd intercepts,
                   std::vector<double> levels);
  static std::unique_ptr<LinearDrawsModel> read(ModelArchive& archive, const ModelParts& parts);

  Predictions predict(const Eigen::MatrixXd& X) const override;
  Eigen::Index input_dimension() const override { return beta_.cols(); }
  std::string kind() const override { return "wbb_linear"; }
  void write(ModelArchive& archive) const override;

 private:
  Eigen::MatrixXd beta_;  ///< T x p
  Eigen::VectorXd intercept_;
  std::vector<double> levels_;
};

class TrendFilterDrawsModel final : public Model {
 public:
  /// positions: the training inputs (n x 1, check_positions must accept them).
  TrendFilterDrawsModel(const Eigen::MatrixXd& positions, Eigen::MatrixXd fitted_values, int order,
                        std::vector<double> levels);
  static std::unique_ptr<TrendFilterDrawsModel> read(ModelArchive& archive,
                                                     const ModelParts& parts);

  Predictions predict(const Eigen::MatrixXd& X) const override;
  Eigen::Index input_dimension() const override { return 1; }
  std::string kind() const override { return "wbb_trend_filter"; }
  void write(ModelArchive& archive) const override;

 private:
  DiscreteSpline spline_;
  Eigen::MatrixXd theta_;  ///< T x n
  std::vector<double> levels_;
};

class NetworkDrawsModel final : public Model {
 public:
  NetworkDrawsModel(Mlp net, Eigen::MatrixXd parameters, std::vector<double> levels);
  static std::unique_ptr<NetworkDrawsModel> read(ModelArchive& archive, const ModelParts& parts);

  Predictions predict(const Eigen::MatrixXd& X) const override;
  Eigen::Index input_dimension() const override { return net_.inputs(); }
  std::string kind() const override { return "wbb_network"; }
  void write(ModelArchive& archive) const override;

 private:
  Mlp net_;
  Eigen::MatrixXd theta_;  ///< T x P
  std::vector<double> levels_;
};

}  // namespace quench::wbb
