// A fitted model with everything it needs outside the engine's units: the components it was
// trained with (plugins, versions, parameters, learned hyperparameters), the data transform
// (input names, standardization, class names), the training inputs and its provenance.
// Saved as one file (quench/model_archive.h; layout in docs/models.md) and loaded back
// without refitting.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/component.h"
#include "quench/export.h"
#include "quench/inference_engine.h"
#include "quench/model.h"
#include "quench/model_archive.h"
#include "quench/parameters.h"
#include "quench/target.h"
#include "quench/target_prediction.h"

namespace quench {

/// A component as the model used it: its plugin and version, its parameters as the pipeline
/// resolved them, and the hyperparameter blocks set after prepare() (learned values). A kernel
/// may instead be a sum or product of parts (composite_kernel.h; plugin and version empty,
/// the learned blocks on the outermost record) and may act on named input columns; build it
/// with build_kernel (kernel_record.h).
struct ComponentRecord {
  Family family = Family::kernel;
  std::string plugin, version;
  std::map<std::string, ParamValue> params;
  std::map<std::string, Eigen::VectorXd> learned;
  std::string combine;  ///< "sum", "product" or "per_class" of `parts`; empty for a plugin
  std::vector<ComponentRecord> parts;
  std::vector<std::string> columns;  ///< input names the kernel acts on; empty: all
};

struct ModelCard {
  std::string kind;  ///< Model::kind()
  ComponentRecord engine;
  std::vector<ComponentRecord> components;  ///< kernel, likelihood, resampler (those used)
  std::vector<std::string> input_names;
  std::string target_name;
  /// Raw inputs to engine units: (x - input_mean) / input_scale; targets likewise.
  Eigen::RowVectorXd input_mean, input_scale;
  double target_mean = 0.0, target_scale = 1.0;
  /// The raw target values of the classes -1 and +1 (classifiers; empty for regression), or
  /// the C > 2 class names of a classes target in class-index order.
  std::vector<std::string> class_names;
  /// The data column of each row's size (an exposure or trials: Likelihood::size_column; empty:
  /// none) and the likelihood's kind of target, which says what a size is (any: none declared).
  /// Not stored: taken from the likelihood when the model is built or loaded.
  std::string size_column;
  TargetKind target_kind = TargetKind::any;
  /// Where it came from: pipeline, data file and its SHA-256, seed, sweep, quench version...
  std::map<std::string, std::string> provenance;
};

class QUENCH_API FittedModel {
 public:
  /// X_train: the training inputs in engine units (the kernel is prepared on them at load).
  FittedModel(ModelCard card, Eigen::MatrixXd X_train, std::shared_ptr<const Model> model);

  const ModelCard& card() const { return card_; }
  const Model& model() const { return *model_; }
  const Eigen::MatrixXd& training_inputs() const { return X_train_; }

  /// Predictions at raw inputs, columns in card().input_names order: standardized as in
  /// training, predicted (with the predictions of y `query` asks for: each row's size, the
  /// quantiles, p(y = k) up to a bound; quench/target_prediction.h), and the target-valued
  /// columns mapped back to the target's units. Throws std::invalid_argument when X has
  /// another number of columns or a non-finite entry (naming its row and input), or
  /// query.sizes is neither empty nor one per row.
  Predictions predict(const Eigen::MatrixXd& X, const TargetQuery& query = {}) const;

  ModelArchive to_archive() const;
  /// save_archive(to_archive(), path): atomic.
  void save(const std::string& path) const;

 private:
  ModelCard card_;
  Eigen::MatrixXd X_train_;
  std::shared_ptr<const Model> model_;
};

/// Builds the components of a saved model (the registry implements it: the core cannot see
/// plugins). create() throws ConfigError when the plugin is absent or its version differs from
/// `version`, and rebuilds the parameters from their stored values (integers stored for
/// booleans are given back as the schema's type).
class QUENCH_API ComponentSource {
 public:
  virtual ~ComponentSource();
  virtual std::shared_ptr<Component> create(
      Family family, const std::string& plugin, const std::string& version,
      const std::map<std::string, ParamValue>& params) const = 0;
  /// The engines as loaded now, by name with default parameters (an inner engine that a saved
  /// model's engine names reads its part of the model); empty (the default): none.
  virtual EngineFactory engines() const { return {}; }
  /// Whether the engine plugin `engine` takes a kernel per class (PluginInfo::class_kernels);
  /// false (the default) when the source cannot say.
  virtual bool takes_class_kernels(const std::string& /*engine*/) const { return false; }
};

/// Loads a model saved by FittedModel::save: checks the file (load_archive), rebuilds the
/// components with `source`, prepares the kernel on the stored training inputs, applies the
/// learned hyperparameters and lets the engine read its posterior (InferenceEngine::read_model).
/// ModelFileError names the file and what is wrong (a plugin missing or of another version, a
/// kernel per class for an engine that takes one kernel included).
QUENCH_API FittedModel load_model(const std::string& path, const ComponentSource& source);

}  // namespace quench
