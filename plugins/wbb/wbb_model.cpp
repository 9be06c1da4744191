#include "wbb_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "quench/draw_summary.h"
#include "quench/errors.h"

namespace quench::wbb {
namespace {

// New inputs per block: the draws' values at a block are kBlockRows x T.
constexpr Eigen::Index kBlockRows = 512;

// block(start, rows) -> the Predictions of rows [start, start + rows); stacked.
template <class F>
Predictions in_blocks(Eigen::Index m, F&& block) {
  Predictions out = block(0, std::min(kBlockRows, m));
  if (m <= kBlockRows) return out;
  Eigen::MatrixXd values(m, out.values.cols());
  values.topRows(kBlockRows) = out.values;
  for (Eigen::Index start = kBlockRows; start < m; start += kBlockRows) {
    const Eigen::Index rows = std::min(kBlockRows, m - start);
    values.middleRows(start, rows) = block(start, rows).values;
  }
  out.values = std::move(values);
  return out;
}

void require_inputs(const ModelParts& parts, const char* kind) {
  if (!parts.X_train) throw ConfigError({}, std::string(kind) + " model needs its training inputs");
}

std::vector<double> read_levels(const ModelArchive& archive) {
  const Eigen::VectorXd& v = archive.vector("posterior/quantile_levels");
  for (Eigen::Index j = 0; j < v.size(); ++j)
    if (!(v(j) >= 0.0 && v(j) <= 1.0))
      throw archive.error("entry 'posterior/quantile_levels' has a level outside [0, 1]");
  return {v.data(), v.data() + v.size()};
}

void write_levels(ModelArchive& archive, const std::vector<double>& levels) {
  archive.put("posterior/quantile_levels",
              Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(
                  levels.data(), static_cast<Eigen::Index>(levels.size()))));
}

Eigen::MatrixXd read_draws(ModelArchive& archive, const std::string& name, Eigen::Index cols) {
  Eigen::MatrixXd draws = archive.take_matrix(name, -1, cols);
  if (draws.rows() == 0) throw archive.error("entry '" + name + "' holds no draws");
  return draws;
}

std::int64_t read_positive(const ModelArchive& archive, const std::string& name,
                           std::int64_t least) {
  const std::int64_t v = archive.integer(name);
  if (v < least)
    throw archive.error("entry '" + name + "' is " + std::to_string(v) + ", less than " +
                        std::to_string(least));
  return v;
}

}  // namespace

std::vector<double> quantile_levels(double level) {
  return {(1 - level) / 2, 0.5, (1 + level) / 2};  // as summarize_draws
}

std::string quantile_column(double level) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10f", level);
  std::string s = text;
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return "q" + s;
}

void add_draw_summary(Predictions& p, const Eigen::MatrixXd& F, const std::string& name,
                      const std::string& prefix, const std::vector<double>& levels,
                      PredictionUnit unit, bool variance) {
  const Eigen::Index m = F.rows(), T = F.cols();
  const Eigen::VectorXd mean = F.rowwise().mean();
  p.add(name, mean, unit);
  if (variance)
    p.add("variance",
          (F.colwise() - mean).rowwise().squaredNorm() /
              std::max<double>(static_cast<double>(T - 1), 1),
          unit == PredictionUnit::target ? PredictionUnit::target_variance : unit);
  Eigen::MatrixXd q(m, static_cast<Eigen::Index>(levels.size()));
  for (Eigen::Index i = 0; i < m; ++i) {
    Eigen::VectorXd v = F.row(i).transpose();
    std::sort(v.data(), v.data() + T);  // once; quantile() then sorts a sorted copy
    for (std::size_t l = 0; l < levels.size(); ++l)
      q(i, static_cast<Eigen::Index>(l)) = quantile(v, levels[l]);
  }
  for (std::size_t l = 0; l < levels.size(); ++l)
    p.add(prefix + quantile_column(levels[l]), q.col(static_cast<Eigen::Index>(l)), unit);
}

LinearDrawsModel::LinearDrawsModel(Eigen::MatrixXd coefficients, Eigen::VectorXd intercepts,
                                   std::vector<double> levels)
    : beta_(std::move(coefficients)),
      intercept_(std::move(intercepts)),
      levels_(std::move(levels)) {}

std::unique_ptr<LinearDrawsModel> LinearDrawsModel::read(ModelArchive& archive,
                                                         const ModelParts& parts) {
  require_inputs(parts, "wbb_linear");
  Eigen::MatrixXd beta = read_draws(archive, "posterior/coefficients", parts.X_train->cols());
  Eigen::VectorXd b = archive.vector("posterior/intercepts", beta.rows());
  return std::make_unique<LinearDrawsModel>(std::move(beta), std::move(b), read_levels(archive));
}

Predictions LinearDrawsModel::predict(const Eigen::MatrixXd& X) const {
  return in_blocks(X.rows(), [&](Eigen::Index start, Eigen::Index rows) {
    // 004 eq 4: draw t's fit b_t + x^T beta_t at every input of the block (one GEMM).
    const Eigen::MatrixXd F =
        (X.middleRows(start, rows) * beta_.transpose()).rowwise() + intercept_.transpose();
    Predictions p;
    add_draw_summary(p, F, "mean", "", levels_, PredictionUnit::target, true);
    return p;
  });
}

void LinearDrawsModel::write(ModelArchive& archive) const {
  archive.put("posterior/coefficients", beta_);
  archive.put("posterior/intercepts", intercept_);
  write_levels(archive, levels_);
}

TrendFilterDrawsModel::TrendFilterDrawsModel(const Eigen::MatrixXd& positions,
                                             Eigen::MatrixXd fitted_values, int order,
                                             std::vector<double> levels)
    : spline_(positions.col(0), order),
      theta_(std::move(fitted_values)),
      levels_(std::move(levels)) {}

std::unique_ptr<TrendFilterDrawsModel> TrendFilterDrawsModel::read(ModelArchive& archive,
                                                                   const ModelParts& parts) {
  require_inputs(parts, "wbb_trend_filter");
  const std::int64_t order = read_positive(archive, "posterior/order", 0);
  if (order > 100) throw archive.error("entry 'posterior/order' is " + std::to_string(order));
  const std::string why = check_positions(*parts.X_train, static_cast<int>(order));
  if (!why.empty())
    throw archive.error("its training inputs cannot hold the trend filter of 'posterior/order' " +
                        std::to_string(order) + ": " + why);
  Eigen::MatrixXd theta = read_draws(archive, "posterior/fitted_values", parts.X_train->rows());
  return std::make_unique<TrendFilterDrawsModel>(*parts.X_train, std::move(theta),
                                                 static_cast<int>(order), read_levels(archive));
}

Predictions TrendFilterDrawsModel::predict(const Eigen::MatrixXd& X) const {
  const Eigen::Index width = spline_.order() + 1;
  return in_blocks(X.rows(), [&](Eigen::Index start, Eigen::Index rows) {
    Eigen::MatrixXd F(rows, theta_.rows());
    for (Eigen::Index i = 0; i < rows; ++i) {
      const SplineStencil s = spline_.stencil(X(start + i, 0));
      F.row(i).noalias() = (theta_.middleCols(s.first, width) * s.weights).transpose();
    }
    Predictions p;
    add_draw_summary(p, F, "mean", "", levels_, PredictionUnit::target, true);
    return p;
  });
}

void TrendFilterDrawsModel::write(ModelArchive& archive) const {
  archive.put("posterior/fitted_values", theta_);
  archive.put("posterior/order", static_cast<std::int64_t>(spline_.order()));
  write_levels(archive, levels_);
}

NetworkDrawsModel::NetworkDrawsModel(Mlp net, Eigen::MatrixXd parameters,
                                     std::vector<double> levels)
    : net_(std::move(net)), theta_(std::move(parameters)), levels_(std::move(levels)) {}

std::unique_ptr<NetworkDrawsModel> NetworkDrawsModel::read(ModelArchive& archive,
                                                           const ModelParts& parts) {
  require_inputs(parts, "wbb_network");
  Mlp net(parts.X_train->cols(), read_positive(archive, "posterior/hidden1", 1),
          read_positive(archive, "posterior/hidden2", 1),
          read_positive(archive, "posterior/classes", 2));
  Eigen::MatrixXd theta = read_draws(archive, "posterior/parameters", net.parameter_count());
  return std::make_unique<NetworkDrawsModel>(std::move(net), std::move(theta),
                                             read_levels(archive));
}

Predictions NetworkDrawsModel::predict(const Eigen::MatrixXd& X) const {
  const Eigen::Index C = net_.outputs(), T = theta_.rows();
  return in_blocks(X.rows(), [&](Eigen::Index start, Eigen::Index rows) {
    const Eigen::MatrixXd Xb = X.middleRows(start, rows);
    // 004 Sec. 3.4: draw t's class probabilities softmax(f_t(x)); prob[c] is rows x T.
    std::vector<Eigen::MatrixXd> prob(static_cast<std::size_t>(C), Eigen::MatrixXd(rows, T));
    for (Eigen::Index t = 0; t < T; ++t) {
      const Eigen::MatrixXd P = softmax_rows(net_.forward(theta_.row(t).transpose(), Xb));
      for (Eigen::Index c = 0; c < C; ++c) prob[static_cast<std::size_t>(c)].col(t) = P.col(c);
    }
    Predictions p;
    Eigen::MatrixXd mean(rows, C);
    for (Eigen::Index c = 0; c < C; ++c) {
      const Eigen::MatrixXd& F = prob[static_cast<std::size_t>(c)];
      mean.col(c) = F.rowwise().mean();
      if (C > 2) {
        const std::string name = "probability_" + std::to_string(c);
        add_draw_summary(p, F, name, name + "_", levels_, PredictionUnit::none, false);
      } else if (c == 1) {
        add_draw_summary(p, F, "probability", "probability_", levels_, PredictionUnit::none, false);
      }
    }
    Eigen::VectorXd label(rows);
    for (Eigen::Index i = 0; i < rows; ++i) {
      Eigen::Index c;
      mean.row(i).maxCoeff(&c);
      label(i) = static_cast<double>(c);
    }
    p.add("label", label);
    return p;
  });
}

void NetworkDrawsModel::write(ModelArchive& archive) const {
  archive.put("posterior/parameters", theta_);
  archive.put("posterior/hidden1", static_cast<std::int64_t>(net_.width(1)));
  archive.put("posterior/hidden2", static_cast<std::int64_t>(net_.width(2)));
  archive.put("posterior/classes", static_cast<std::int64_t>(net_.outputs()));
  write_levels(archive, levels_);
}

}  // namespace quench::wbb
