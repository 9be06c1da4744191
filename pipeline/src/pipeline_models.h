// Fitted models of a pipeline run (outputs: {models: true}): the engine's Model wrapped with
// what a saved model needs to be used without the pipeline (quench/fitted_model.h).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "quench/dataset.h"
#include "quench/fitted_model.h"
#include "quench/learning_report.h"
#include "quench/provenance.h"
#include "quench/registry.h"

namespace quench {

/// The engine's model with its card: the components, the data transform and class names,
/// the training inputs and the provenance of the run (pipeline, data files, seed, sweep).
std::shared_ptr<const FittedModel> fitted_model(std::shared_ptr<const Model> model,
                                                ComponentRecord engine,
                                                std::vector<ComponentRecord> components,
                                                const Dataset& data, const DataSpec& data_spec,
                                                const std::string& pipeline_name,
                                                const Provenance& provenance,
                                                const std::map<std::string, double>& sweep);

}  // namespace quench
