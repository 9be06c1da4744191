// What an engine returns: named scalars, vectors and matrices, with status and timings.
// Names are stable (docs/results.md); engines computing the same quantity use the same name
// so reports can put an analytical answer beside its Monte-Carlo reference.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include <Eigen/Core>

#include "quench/export.h"
#include "quench/learning_report.h"
#include "quench/model.h"
#include "quench/status.h"

namespace quench {

class FittedModel;

struct Results {
  std::string engine;  ///< the engine's name in the pipeline
  std::string plugin;  ///< the engine plugin that produced it
  /// Swept parameters of this run, "resampler.ratio" -> 0.5 (empty without a sweep).
  std::map<std::string, double> sweep;
  std::map<std::string, double> scalars;
  std::map<std::string, Eigen::VectorXd> vectors;
  std::map<std::string, Eigen::MatrixXd> matrices;
  std::map<std::string, std::string> info;  ///< free-form metadata (units, methods)
  std::map<std::string, double> timings;    ///< seconds
  Status status;
  /// The hyperparameters learned before the run and how (pipelines with `learn:`).
  std::optional<LearningReport> learning;
  /// The fitted model, when the host asked for one (Problem::make_model) and the engine
  /// makes models.
  std::shared_ptr<const Model> model;
  /// The model with its components, data transform and provenance, made by the pipeline
  /// from `model` (outputs: {models: true}); saved as models/<run label>.h5.
  std::shared_ptr<const FittedModel> fitted_model;
};

}  // namespace quench
