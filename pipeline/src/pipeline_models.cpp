#include "pipeline_models.h"

#include <chrono>
#include <cmath>
#include <set>
#include <sstream>

#include "quench/version.h"
#include "quench_build_info.h"

namespace quench {
namespace {

// Class names of a numeric two-class target: the raw values read as -1 and +1.
std::vector<std::string> numeric_class_names(const Dataset& data) {
  std::set<double> values(data.y_train.data(), data.y_train.data() + data.y_train.size());
  values.insert(data.y_test.data(), data.y_test.data() + data.y_test.size());
  const bool zero_one = values.count(0.0) != 0;
  return {zero_one ? "0" : "-1", "1"};
}

}  // namespace

std::shared_ptr<const FittedModel> fitted_model(std::shared_ptr<const Model> model,
                                                ComponentRecord engine,
                                                std::vector<ComponentRecord> components,
                                                const Dataset& data, const DataSpec& data_spec,
                                                const std::string& pipeline_name,
                                                const Provenance& provenance,
                                                const std::map<std::string, double>& sweep) {
  ModelCard card;
  card.kind = model->kind();
  card.engine = std::move(engine);
  card.components = std::move(components);
  card.input_names = data.input_names;
  card.target_name = data.target_name;
  card.input_mean = data.input_mean;
  card.input_scale = data.input_scale;
  card.target_mean = data.target_mean;
  card.target_scale = data.target_scale;
  card.size_column = data_spec.size_column;
  card.target_kind = data_spec.target_kind;
  // Two text classes (read as -1/+1), or the C names of a classes target in index order (its
  // class index c is the name class_names[c]); a numeric two-class target: its raw values.
  if (!data.class_names.empty() || data_spec.target_kind == TargetKind::classes)
    card.class_names = data.class_names;
  else if (data_spec.target_kind == TargetKind::binary)
    card.class_names = numeric_class_names(data);
  card.provenance["pipeline"] = pipeline_name;
  for (std::size_t i = 0; i < provenance.data_files.size(); ++i) {
    const std::string key = i == 0 ? "train_file" : "test_file";
    card.provenance[key] = provenance.data_files[i].path;
    card.provenance[key + "_sha256"] = provenance.data_files[i].sha256;
  }
  card.provenance["seed"] = std::to_string(provenance.seed);
  std::ostringstream swept;
  for (const auto& [key, value] : sweep)
    swept << (swept.tellp() > 0 ? ", " : "") << key << "=" << value;
  card.provenance["sweep"] = swept.str();
  card.provenance["quench_version"] = kVersion;
  card.provenance["git_revision"] = QUENCH_GIT_REVISION;
  card.provenance["created"] = iso8601_utc(std::chrono::system_clock::now());
  return std::make_shared<const FittedModel>(std::move(card), data.X_train, std::move(model));
}

}  // namespace quench
