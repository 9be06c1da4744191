#include "quench/class_results.h"

#include <cmath>
#include <string>
#include <utility>

namespace quench {

std::string class_column(const char* name, Eigen::Index c) {
  return name + ("." + std::to_string(c));
}

Eigen::VectorXi row_argmax(const Eigen::MatrixXd& values) {
  Eigen::VectorXi best(values.rows());
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    Eigen::Index c = 0;
    values.row(i).maxCoeff(&c);  // the first maximum
    best(i) = static_cast<int>(c);
  }
  return best;
}

Eigen::MatrixXd class_probabilities(const Predictions& p, Eigen::Index classes) {
  Eigen::MatrixXd out(p.values.rows(), classes);
  for (Eigen::Index c = 0; c < classes; ++c) out.col(c) = p.column(class_column("probability", c));
  return out;
}

namespace {

// Errors (argmax != label) and the mean log probability of the labels.
std::pair<Eigen::Index, double> score(const Eigen::VectorXi& y, const Eigen::MatrixXd& p) {
  const Eigen::VectorXi guess = row_argmax(p);
  Eigen::Index errors = 0;
  double log_p = 0.0;
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    errors += guess(i) != y(i);
    log_p += std::log(p(i, y(i)));
  }
  return {errors, y.size() > 0 ? log_p / static_cast<double>(y.size()) : 0.0};
}

}  // namespace

void add_class_test_outputs(Results& r, const Dataset& data, const Eigen::MatrixXd& probability) {
  r.matrices["test_probability"] = probability;
  r.vectors["test_class"] = row_argmax(probability).cast<double>();
  if (data.y_test.size() != probability.rows() || probability.rows() == 0) return;
  const auto [errors, log_p] =
      score(class_indices(data, DataPart::test, "multi-class classifier"), probability);
  r.scalars["test_errors"] = static_cast<double>(errors);
  r.scalars["test_error"] = static_cast<double>(errors) / static_cast<double>(probability.rows());
  r.scalars["test_log_predictive"] = log_p;
}

void add_class_loo_outputs(Results& r, const Eigen::VectorXi& y,
                           const Eigen::MatrixXd& probability) {
  const auto [errors, log_p] = score(y, probability);
  r.matrices["loo_probability"] = probability;
  r.scalars["loo_errors"] = static_cast<double>(errors);
  r.scalars["loo_error"] =
      y.size() > 0 ? static_cast<double>(errors) / static_cast<double>(y.size()) : 0.0;
  r.scalars["loo_log_predictive"] = log_p;
}

}  // namespace quench
