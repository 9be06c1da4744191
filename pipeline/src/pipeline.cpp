#include "quench/pipeline.h"

#include <filesystem>
#include <optional>
#include <string>

#include "pipeline_spec.h"
#include "quench/errors.h"
#include "quench/printable.h"
#include "quench/regular_file.h"

namespace quench {

Pipeline::Pipeline(std::unique_ptr<PipelineSpec> spec) : spec_(std::move(spec)) {}
Pipeline::Pipeline(Pipeline&&) noexcept = default;
Pipeline& Pipeline::operator=(Pipeline&&) noexcept = default;
Pipeline::~Pipeline() = default;

Pipeline Pipeline::from_file(const std::string& path) {
  std::string text;
  try {
    text = read_regular_file(path);
  } catch (const UnreadableFile& e) {
    throw ConfigError(SourceLocation{printable(path, 4096), 0, 0},
                      std::string("cannot read: ") + e.what());
  }
  const auto dir = std::filesystem::path(path).parent_path();
  return Pipeline(std::make_unique<PipelineSpec>(
      parse_pipeline(text, path, dir.empty() ? "." : dir.string(), true)));
}

Pipeline Pipeline::from_string(const std::string& yaml, const std::string& name,
                               const std::string& base_directory) {
  return Pipeline(std::make_unique<PipelineSpec>(parse_pipeline(yaml, name, base_directory, true)));
}

const std::vector<std::string>& Pipeline::plugin_paths() const { return spec_->plugin_paths; }
const std::string& Pipeline::output_directory() const { return spec_->outputs.dir; }
const std::string& Pipeline::name() const { return spec_->name; }
bool Pipeline::writes_plots() const { return spec_->outputs.plots; }
bool Pipeline::writes_tables() const { return spec_->outputs.tables; }
std::uint64_t Pipeline::seed() const { return spec_->seed; }
const PipelineSpec& Pipeline::spec() const { return *spec_; }

namespace {

/// Where the likelihood names its size column: the parameter whose value it is, else the
/// likelihood's `plugin` key.
SourceLocation size_column_at(const PipelineSpec& spec, const std::string& column) {
  const PluginSpec& likelihood = spec.components.at(Family::likelihood);
  for (const auto& [name, raw] : likelihood.params)
    if (raw.node.IsScalar() && raw.node.Scalar() == column) return raw.at;
  return likelihood.at;
}

}  // namespace

DataSpec data_spec_for(const PipelineSpec& spec, const ResolvedTarget& target) {
  DataSpec data = spec.data;
  if (data.seed == 0) data.seed = spec.seed;
  data.target_kind = target.kind;
  data.target_reader = target.reader;
  data.size_column = target.size_column;
  return data;
}

std::vector<Diagnostic> data_diagnostics(const PipelineSpec& spec, const ResolvedTarget& target,
                                         std::optional<Dataset>& loaded) {
  std::vector<Diagnostic> found;
  if (spec.data.train_file.empty()) return found;
  const DataSpec data = data_spec_for(spec, target);
  const auto key_at = [&](const std::string& key) {
    const auto it = spec.data_at.find(key);
    if (it != spec.data_at.end()) return it->second;
    const auto block = spec.data_at.find("data");
    return block != spec.data_at.end() ? block->second : SourceLocation{spec.file, 0, 0};
  };
  std::vector<std::string> columns;
  Dataset dataset;
  const std::vector<DataError> problems = check_dataset(data, &columns, &dataset);
  if (problems.empty()) loaded = std::move(dataset);
  for (const DataError& e : problems) {
    // The key naming the column (and the name as written), else the one naming the file.
    std::string key = !data.test_file.empty() && e.file() == data.test_file ? "test_file" : "file";
    std::string name;
    const auto check = [&](const std::string& candidate, const char* candidate_key) {
      if (!e.column().empty() && e.column() == printable(candidate)) {
        key = candidate_key;
        name = candidate;
      }
    };
    check(data.target, "target");
    if (!data.size_column.empty()) check(data.size_column, "likelihood");
    for (const auto& input : data.inputs) check(input, "inputs");
    if (data.split == SplitRule::column) check(data.split_column, "split");
    std::string message = e.what();
    const std::string list = "; available columns: ";
    const auto at = message.find(list);
    if (!name.empty() && at != std::string::npos) message.insert(at, suggestion(name, columns));
    found.push_back(
        {key == "likelihood" ? size_column_at(spec, data.size_column) : key_at(key), message});
  }
  return found;
}

void Pipeline::validate(const Registry& registry) const {
  std::vector<Diagnostic> all;
  std::optional<ResolvedPipeline> resolved;
  ResolvedTarget target;  // as far as it was resolved
  try {
    resolved = resolve_pipeline(*spec_, registry, &target);
  } catch (const ConfigError& e) {
    all = e.diagnostics();
  }
  // What only the data decides: the kernel built on its inputs, the inducing count against
  // its rows, learn.parameters against the kernel and likelihood prepared on it, and what each
  // engine checks on the problem a run builds (kernel or not).
  std::optional<Dataset> data;
  auto data_problems = data_diagnostics(*spec_, target, data);
  if (data) {
    data_problems = kernel_diagnostics(*spec_, resolved ? &*resolved : nullptr, registry, *data);
    for (Diagnostic& d : inducing_diagnostics(*spec_, *data)) data_problems.push_back(std::move(d));
  }
  // What each engine checks before numerics, once the components build on the data.
  if (resolved && data && data_problems.empty())
    data_problems = engine_diagnostics(*spec_, *resolved, registry, *data);
  if (resolved && data && data_problems.empty() && spec_->learn) {
    try {
      data_problems = learning_diagnostics(*spec_, *resolved, registry, *data);
    } catch (const ConfigError& e) {
      data_problems = e.diagnostics();
    } catch (const Error& e) {
      data_problems.push_back({spec_->learn->at, std::string("learn: ") + e.what()});
    }
  }
  for (auto& d : data_problems) all.push_back(std::move(d));
  if (all.empty()) return;
  sort_diagnostics(all);
  throw ConfigError(std::move(all));
}

}  // namespace quench
