// Embedding quench in a host program: a pipeline built from YAML text (no pipeline file, no
// output files), the installed plugins, typed results read back in C++, and every fitted model
// (the GP, its Monte-Carlo and ADATAP bootstraps) kept: predicted in memory, saved, loaded and
// predicted again (docs/models.md).
//
//   quench_embed <data.csv>      e.g. quench_embed examples/data/boston.csv (target column y)
//
// Plugins are discovered like the quench command does: QUENCH_PLUGIN_PATH first, then the
// installation's plugin directory next to libquench_registry.so. Exit codes: 0 success; 1 data,
// plugin or I/O error; 2 invalid pipeline; 3 a run failed or returned non-finite values, or the
// loaded model predicted other numbers than the one in memory.
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "quench/dataset.h"
#include "quench/errors.h"
#include "quench/fitted_model.h"
#include "quench/pipeline.h"
#include "quench/registry.h"
#include "quench/registry_models.h"
#include "quench/results.h"

namespace {

// `text` as a YAML double-quoted scalar.
std::string yaml_quote(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

// The Boston housing learning problem of examples/pipelines/boston_mc_bootstrap.yaml, small:
// the last 50 rows are held out as test inputs, and the bootstrap uses 40 samples.
std::string pipeline_yaml(const std::string& data_file) {
  return R"(name: embedded
seed: 2003
data:
  file: )" +
         yaml_quote(data_file) +
         R"(
  target: y
  split: {rule: first_train, count: 456}
  standardize_target: true
components:
  kernel: {plugin: gaussian, l2: 73.54, scaling: sqrt_variance}
  likelihood: {plugin: gaussian, noise: 0.01}
  resampler: {plugin: poisson_bootstrap, ratio: 1}
engines:
  - {name: gp, plugin: exact_gp_regression}
  - {name: bootstrap, plugin: mc_bootstrap, samples: 40, keep_samples: false}
  - {name: adatap, plugin: adatap_bootstrap, density: false}
outputs: {models: true}
)";
}

const quench::Results* find_run(const std::vector<quench::Results>& runs,
                                const std::string& engine) {
  for (const auto& r : runs)
    if (r.engine == engine) return &r;
  return nullptr;
}

// A run's fitted model on the last three rows of the data (raw units, columns picked by the
// model's input names), then saved, loaded and asked again: the numbers must be identical.
bool use_the_model(const quench::Results& run, const std::string& data_file,
                   const quench::Registry& registry) {
  const quench::FittedModel& model = *run.fitted_model;
  const quench::CsvTable table = quench::read_csv(data_file);
  const Eigen::MatrixXd values = quench::to_numbers(table);
  Eigen::MatrixXd X(3, static_cast<Eigen::Index>(model.card().input_names.size()));
  for (Eigen::Index j = 0; j < X.cols(); ++j)
    X.col(j) = values.col(table.column_index(model.card().input_names[j])).tail(3);
  const quench::Predictions in_memory = model.predict(X);

  const std::string file =
      (std::filesystem::temp_directory_path() / ("quench_embed_" + run.engine + ".h5")).string();
  model.save(file);
  const quench::FittedModel loaded = quench::load_model(file, registry);
  const quench::Predictions again = loaded.predict(X);
  std::filesystem::remove(file);
  std::printf("%s model (%s):\n", run.engine.c_str(), model.card().kind.c_str());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    std::printf("  row %ld", static_cast<long>(i));
    for (std::size_t c = 0; c < again.columns.size(); ++c)
      std::printf(" %s %.10g", again.columns[c].c_str(),
                  again.values(i, static_cast<Eigen::Index>(c)));
    std::printf("\n");
  }
  const bool same = again.columns == in_memory.columns && again.values == in_memory.values;
  std::printf("  saved and loaded model predicts %s\n", same ? "the same numbers" : "DIFFERENTLY");
  try {  // misuse is an error, never a number
    model.predict(Eigen::MatrixXd::Zero(1, X.cols() - 1));
    return false;
  } catch (const std::invalid_argument& e) {
    std::printf("  refused: %s\n", e.what());
  }
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " <data.csv>\n";
    return 64;
  }
  namespace fs = std::filesystem;
  const fs::path data = fs::absolute(argv[1]);
  try {
    // Relative paths in the text would resolve against the base directory (the third
    // argument); the data file is given relative to it here.
    const auto pipeline = quench::Pipeline::from_string(pipeline_yaml(data.filename().string()),
                                                        "embedded", data.parent_path().string());
    // This host wrote the pipeline itself, so its plugin_paths (if any) are trusted.
    const auto registry = quench::Registry::discover({}, pipeline.plugin_paths());
    for (const auto& f : registry.failures())
      std::cerr << "quench_embed: plugin refused: " << f.str() << "\n";

    quench::RunOptions options;
    options.threads = 2;
    const std::vector<quench::Results> runs = pipeline.run(registry, options);

    bool ok = true;
    auto print = [&](const char* name, double value) {
      std::printf("  %s = %.10g\n", name, value);
      ok = ok && std::isfinite(value);
    };
    for (const auto& r : runs) {
      std::printf("%s (%s): %s\n", r.engine.c_str(), r.plugin.c_str(),
                  quench::to_string(r.status.code));
      if (r.status.code != quench::RunStatus::ok) {
        std::printf("  %s\n", r.status.message.c_str());
        ok = false;
      }
    }
    const quench::Results* gp = find_run(runs, "gp");
    const quench::Results* bootstrap = find_run(runs, "bootstrap");
    if (!gp || !bootstrap || !ok) return 3;

    // Typed results: scalars are doubles, vectors Eigen::VectorXd.
    print("gp.log_marginal_likelihood", gp->scalars.at("log_marginal_likelihood"));
    const Eigen::VectorXd& test_mean = gp->vectors.at("test_mean");
    std::printf("  gp.test_mean: %ld values\n", static_cast<long>(test_mean.size()));
    for (Eigen::Index i = 0; i < test_mean.size() && i < 3; ++i)
      print(("gp.test_mean[" + std::to_string(i) + "]").c_str(), test_mean(i));
    print("bootstrap.test_error_square", bootstrap->scalars.at("test_error_square"));
    print("bootstrap.test_error_square_stderr", bootstrap->scalars.at("test_error_square_stderr"));
    for (const auto& r : runs) {
      if (!r.fitted_model) {
        std::printf("%s made no model\n", r.engine.c_str());
        ok = false;
      } else {
        ok = use_the_model(r, data.string(), registry) && ok;
      }
    }
    return ok ? 0 : 3;
  } catch (const quench::ConfigError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << d.str() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "quench_embed: error: " << e.what() << "\n";
    return 1;
  }
}
