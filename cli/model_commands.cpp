#include "model_commands.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "quench/errors.h"
#include "quench/kernel_record.h"
#include "quench/prediction_table.h"
#include "quench/printable.h"
#include "quench/registry.h"
#include "quench/registry_models.h"
#include "quench/report.h"

namespace quench::cli {
namespace {

// The plugins found (refused libraries said on stderr).
Registry discover(const std::vector<std::string>& plugin_paths) {
  Registry registry = Registry::discover(plugin_paths);
  for (const auto& f : registry.failures())
    std::cerr << "quench: plugin refused: " << f.str() << "\n";
  return registry;
}

// A saved parameter as a pipeline writes it: a boolean, stored as 0/1 (the archive has no
// booleans), is true/false by its plugin's schema.
std::string value_text(const Registry& registry, const ComponentRecord& r, const std::string& name,
                       const ParamValue& value) {
  const PluginEntry* entry = registry.find(r.family, r.plugin);
  const ParamSpec* spec = entry ? entry->info->schema.find(name) : nullptr;
  if (const auto* i = std::get_if<std::int64_t>(&value);
      i && spec && spec->type == ParamType::boolean)
    return *i != 0 ? "true" : "false";
  return to_string(value);
}

void print_values(const Registry& registry, const ComponentRecord& r, const std::string& indent) {
  for (const auto& [name, value] : r.params)
    std::cout << indent << printable(name) << " = "
              << printable(value_text(registry, r, name, value), 200) << "\n";
  for (const auto& [block, value] : r.learned) {
    std::cout << indent << printable(block) << " (learned) =";
    for (Eigen::Index i = 0; i < value.size(); ++i) std::cout << " " << format_number(value(i));
    std::cout << "\n";
  }
}

// A composite kernel's plugin parts, each under its learn path ("1.0: periodic 0.1.0").
void print_parts(const Registry& registry, const ComponentRecord& r, const std::string& path) {
  if (r.combine.empty()) {
    std::cout << "      " << path << ": " << printable(r.plugin) << " " << r.version << "\n";
    print_values(registry, r, "          ");
  }
  for (std::size_t i = 0; i < r.parts.size(); ++i)
    print_parts(registry, r.parts[i],
                (path.empty() ? "" : path + ".") + kernel_part_name(r.combine, i));
}

void print_record(const Registry& registry, const ComponentRecord& r) {
  if (!r.combine.empty()) {
    std::cout << "  " << to_string(r.family) << ": " << printable(describe_kernel(r), 200) << "\n";
    print_parts(registry, r, "");
    print_values(registry, r, "      ");
    return;
  }
  std::cout << "  " << to_string(r.family) << ": " << printable(r.plugin) << " " << r.version;
  if (!r.columns.empty()) std::cout << " on " << printable(describe_kernel(r), 200);
  std::cout << "\n";
  print_values(registry, r, "      ");
}

}  // namespace

namespace {

// The predictions must not replace a file predict reads: `--out m.h5` wrote the table over the
// model and exited 0.
void check_not_read(const std::string& out, const std::string& input, const char* what) {
  std::error_code ignored;  // an --out that does not exist yet is no input
  if (std::filesystem::equivalent(out, input, ignored))
    throw ConfigError({}, "quench predict: --out '" + printable(out) + "' is the " + what +
                              " file it reads; write the predictions to another file");
}

}  // namespace

int predict_command(const std::string& model_file, const std::string& data_file,
                    const std::string& out, const PredictOptions& options) {
  check_not_read(out, model_file, "model");
  check_not_read(out, data_file, "data");
  TargetQuery query;
  for (const double q : options.quantiles)
    if (!(q > 0 && q < 1))
      throw ConfigError(
          {}, "quench predict: --quantiles takes probabilities in (0, 1), got " + format_number(q));
  if (!options.quantiles.empty()) query.quantiles = options.quantiles;
  if (options.max_count) query.max_count = *options.max_count;
  const FittedModel model = load_model(model_file, discover(options.plugin_paths));
  const PredictionInputs inputs =
      read_prediction_inputs(data_file, model.card(), options.ignore_extra_columns);
  query.sizes = inputs.sizes;
  const Predictions predictions = model.predict(inputs.X, query);
  const auto has = [&](const std::string& column) {
    return std::find(predictions.columns.begin(), predictions.columns.end(), column) !=
           predictions.columns.end();
  };
  if (!options.quantiles.empty() && !has(quantile_column(options.quantiles.front())))
    throw ConfigError({}, "quench predict: --quantiles: this model ('" + model.card().kind +
                              "') gives no quantiles of its target");
  if (options.max_count && *options.max_count >= 0 && !has("target_p0"))
    throw ConfigError({}, "quench predict: --max-count: this model ('" + model.card().kind +
                              "') gives no probabilities of counts or successes");
  write_file_atomically(out, predictions_csv(predictions, model.card(), inputs));
  std::cout << "predictions: " << out << " (" << inputs.X.rows() << " rows; " << [&] {
    std::string names;
    for (const auto& c : predictions.columns) names += (names.empty() ? "" : ", ") + c;
    return names;
  }() << ")\n";
  return 0;
}

int info_command(const std::string& model_file, const std::vector<std::string>& plugin_paths) {
  const Registry registry = discover(plugin_paths);
  const FittedModel model = load_model(model_file, registry);
  const ModelCard& c = model.card();
  std::cout << printable(model_file) << ": " << c.kind << " model of engine "
            << printable(c.engine.plugin) << " " << c.engine.version << "\n";
  std::cout << "trained on " << model.training_inputs().rows() << " rows of "
            << c.input_names.size() << " inputs:";
  for (const auto& n : c.input_names) std::cout << " " << printable(n);
  std::cout << "\ntarget: " << printable(c.target_name);
  if (c.class_names.size() == 2) {
    std::cout << " (classes: " << printable(c.class_names[0]) << " -> -1, "
              << printable(c.class_names[1]) << " -> +1)";
  } else if (c.class_names.size() > 2) {  // a classes target: class index c is class_names[c]
    std::cout << " (classes: ";
    for (std::size_t k = 0; k < c.class_names.size(); ++k)
      std::cout << (k == 0 ? "'" : ", '") << printable(c.class_names[k]) << "' -> " << k;
    std::cout << ")";
  }
  std::cout << "\nstandardization: inputs (x - mean) / scale";
  if (c.target_scale != 1.0 || c.target_mean != 0.0)
    std::cout << ", target mean " << format_number(c.target_mean) << " scale "
              << format_number(c.target_scale);
  std::cout << "\ncomponents:\n";
  print_record(registry, c.engine);
  for (const auto& r : c.components) print_record(registry, r);
  std::cout << "provenance:\n";
  for (const auto& [key, value] : c.provenance)
    std::cout << "  " << printable(key) << ": " << printable(value, 200) << "\n";
  return 0;
}

}  // namespace quench::cli
