#include "quench/model.h"

#include <stdexcept>

#include "quench/errors.h"
#include "quench/inference_engine.h"

namespace quench {

void Predictions::add(std::string name, const Eigen::VectorXd& column, PredictionUnit unit) {
  if (!columns.empty() && column.size() != values.rows())
    throw std::invalid_argument("prediction column '" + name + "' has " +
                                std::to_string(column.size()) + " rows, the others " +
                                std::to_string(values.rows()));
  if (columns.empty()) values.resize(column.size(), 0);
  values.conservativeResize(Eigen::NoChange, values.cols() + 1);
  values.col(values.cols() - 1) = column;
  columns.push_back(std::move(name));
  units.push_back(unit);
}

Eigen::VectorXd Predictions::column(const std::string& name) const {
  for (std::size_t j = 0; j < columns.size(); ++j)
    if (columns[j] == name) return values.col(static_cast<Eigen::Index>(j));
  throw std::out_of_range("no prediction column '" + name + "'");
}

Model::~Model() = default;

Predictions Model::predict(const Eigen::MatrixXd& X, const TargetQuery& /*query*/) const {
  return predict(X);
}

std::unique_ptr<Model> InferenceEngine::read_model(ModelArchive& /*archive*/,
                                                   const ModelParts& /*parts*/) const {
  throw ConfigError({}, "this engine makes no models");
}

}  // namespace quench
