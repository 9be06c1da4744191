// Tests' engines by plugin name, as the host's registry would give them (test code names the
// engines it links; plugins reach theirs through RunContext::make_engine only).
#pragma once

#include <memory>
#include <string>

#include "ep.h"
#include "mean_field.h"
#include "quench/errors.h"
#include "quench/inference_engine.h"
#include "svm_limit.h"

namespace quench::latent_gp {

/// tap, naive_mean_field, svm_limit and ep with default parameters.
inline std::shared_ptr<InferenceEngine> make_classifier(const std::string& name) {
  if (name == "tap") return std::make_shared<TapEngine>(Params(TapEngine::schema(), {}));
  if (name == "naive_mean_field")
    return std::make_shared<NaiveMeanFieldEngine>(Params(NaiveMeanFieldEngine::schema(), {}));
  if (name == "svm_limit")
    return std::make_shared<SvmLimitEngine>(Params(SvmLimitEngine::schema(), {}));
  if (name == "ep") return std::make_shared<EpEngine>(Params(EpEngine::schema(), {}));
  throw ConfigError({}, "the tests know no engine '" + name + "'");
}

/// make_classifier as an EngineFactory (RunContext::make_engine, ModelParts::make_engine).
inline EngineFactory latent_gp_engines() { return make_classifier; }

}  // namespace quench::latent_gp
