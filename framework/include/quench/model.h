// A fitted model: what an engine leaves behind besides its Results when the host asks
// (Problem::make_model), to predict at new inputs and to be saved (quench/fitted_model.h).
// A model works in the engine's units (standardized inputs and targets when the pipeline
// standardizes); FittedModel maps raw inputs in and target-valued columns back out.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/export.h"
#include "quench/model_archive.h"

namespace quench {

/// How a prediction column relates to the target's units: not at all (probabilities, labels,
/// latent values of a classifier), a value of the target (mean: x scale + mean), or a
/// variance of one (x scale^2).
enum class PredictionUnit { none, target, target_variance };

/// Named prediction columns, one row per input.
struct QUENCH_API Predictions {
  std::vector<std::string> columns;
  std::vector<PredictionUnit> units;
  Eigen::MatrixXd values;  ///< inputs x columns

  /// Appends a column; its size must equal the rows of the columns before it.
  void add(std::string name, const Eigen::VectorXd& column,
           PredictionUnit unit = PredictionUnit::none);
  /// The column `name`; std::out_of_range naming it when absent.
  Eigen::VectorXd column(const std::string& name) const;
};

struct TargetQuery;

class QUENCH_API Model {
 public:
  virtual ~Model();
  /// Predictions at the rows of X (engine units, X.cols() == input_dimension(); the host
  /// checks the width before calling). Throws NumericalError on numerical failure.
  virtual Predictions predict(const Eigen::MatrixXd& X) const = 0;
  /// The same with the predictions of y a model of a latent GP gives asked for by `query`
  /// (the rows' sizes, quantiles, p(y = k); quench/target_prediction.h). The default ignores
  /// the query (models whose columns do not depend on it).
  virtual Predictions predict(const Eigen::MatrixXd& X, const TargetQuery& query) const;
  virtual Eigen::Index input_dimension() const = 0;
  /// A stable name of what the model is, e.g. "gp_regression" (written into the file).
  virtual std::string kind() const = 0;
  /// Writes the posterior representation as entries under "posterior/" (not the training
  /// inputs, components or data transform: FittedModel writes those).
  virtual void write(ModelArchive& archive) const = 0;
};

}  // namespace quench
