// A fitted model through a real model file, as `quench run` then `quench predict` take it:
// Model::write, save_archive, load_archive and the engine's read_model with the parts the model
// was trained with.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "quench/inference_engine.h"
#include "quench/model_archive.h"

namespace quench::testing {

inline std::unique_ptr<Model> through_file(const InferenceEngine& engine, const Model& model,
                                           const ModelParts& parts) {
  ModelArchive archive;
  model.write(archive);
  const auto path = std::filesystem::temp_directory_path() /
                    ("quench_" + model.kind() + "_" + std::to_string(::getpid()) + ".h5");
  save_archive(archive, path.string());
  ModelArchive back = load_archive(path.string());
  std::filesystem::remove(path);
  return engine.read_model(back, parts);
}

}  // namespace quench::testing
