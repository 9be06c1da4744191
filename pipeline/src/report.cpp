#include <charconv>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "quench/cancellation.h"
#include "quench/fitted_model.h"
#include "quench/report.h"
#include "quench/version.h"
#include "quench_build_info.h"
#include "report_internal.h"

// OpenBLAS's build description (declared here to avoid depending on OpenBLAS's own header).
extern "C" char* openblas_get_config(void);

namespace quench {

std::string run_label(const Results& r) {
  std::string label = r.engine;
  for (const auto& [key, value] : r.sweep) {
    const auto dot = key.rfind('.');
    std::ostringstream v;
    v << value;
    label += "__" + key.substr(dot == std::string::npos ? 0 : dot + 1) + "-" + v.str();
  }
  for (char& c : label)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  return label;
}

namespace {

nlohmann::json number(double x) {
  // JSON has no NaN/Inf: write null so readers see a missing value, never a parse error.
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

// A table cell: the number, or NA where there is none (NaN: a failed run's scalars, a value
// an engine could not compute), as R and pandas read a missing value.
std::string cell(double x) { return std::isnan(x) ? "NA" : format_number(x); }

std::string csv_of_columns(
    const std::vector<std::pair<std::string, const Eigen::VectorXd*>>& cols) {
  std::string text;
  for (std::size_t c = 0; c < cols.size(); ++c) text += (c ? "," : "") + cols[c].first;
  text += '\n';
  const Eigen::Index rows = cols.empty() ? 0 : cols.front().second->size();
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (std::size_t c = 0; c < cols.size(); ++c)
      text += (c ? "," : "") + cell((*cols[c].second)(i));
    text += '\n';
  }
  return text;
}

std::string csv_of_matrix(const Eigen::MatrixXd& M) {
  std::string text;
  for (Eigen::Index j = 0; j < M.cols(); ++j) text += (j ? ",c" : "c") + std::to_string(j);
  text += '\n';
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    for (Eigen::Index j = 0; j < M.cols(); ++j) text += (j ? "," : "") + cell(M(i, j));
    text += '\n';
  }
  return text;
}

// Vectors are grouped into tables by length: training-input quantities, test-input
// quantities, and any other length in a table of its own.
std::map<std::string, std::vector<std::pair<std::string, const Eigen::VectorXd*>>> vector_tables(
    const Results& r) {
  std::map<Eigen::Index, std::vector<std::pair<std::string, const Eigen::VectorXd*>>> by_length;
  for (const auto& [name, v] : r.vectors) by_length[v.size()].push_back({name, &v});
  std::map<std::string, std::vector<std::pair<std::string, const Eigen::VectorXd*>>> tables;
  for (auto& [length, cols] : by_length) {
    bool train = true;
    for (const auto& c : cols) train = train && c.first.rfind("train_", 0) == 0;
    tables[train ? "train" : "n" + std::to_string(length)] = cols;
  }
  return tables;
}

nlohmann::json json_of(const ParamValue& value) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

nlohmann::json build_json() {
  return {{"quench_version", kVersion},
          {"git_revision", QUENCH_GIT_REVISION},
          {"compiler", __VERSION__},
          {"blas", openblas_get_config()}};  // "OpenBLAS 0.3.21 DYNAMIC_ARCH ..."
}

nlohmann::json provenance_json(const Provenance& p) {
  nlohmann::json doc = build_json();
  doc["plugins"] = nlohmann::json::array();
  for (const PluginRecord& plugin : p.plugins) {
    nlohmann::json parameters = nlohmann::json::object(), swept = nlohmann::json::object();
    for (const auto& [k, v] : plugin.parameters) parameters[k] = json_of(v);
    for (const auto& [k, values] : plugin.swept)
      for (const auto& v : values) swept[k].push_back(json_of(v));
    doc["plugins"].push_back({{"role", plugin.role},
                              {"family", plugin.family},
                              {"plugin", plugin.plugin},
                              {"plugin_version", plugin.plugin_version},
                              {"library", plugin.library},
                              {"library_version", plugin.library_version},
                              {"library_path", plugin.library_path},
                              {"parameters", parameters},
                              {"swept", swept}});
  }
  doc["data"] = {{"files", nlohmann::json::array()},
                 {"train_rows", p.train_rows},
                 {"test_rows", p.test_rows},
                 {"inputs", p.inputs},
                 {"target", p.target}};
  for (const DataFileRecord& file : p.data_files)
    doc["data"]["files"].push_back({{"path", file.path}, {"sha256", file.sha256}});
  doc["seed"] = p.seed;
  doc["threads"] = p.threads;
  doc["processes"] = p.processes;
  doc["blas_threads"] = p.blas_threads;
  doc["blas_threads_reason"] = p.blas_threads_reason;
  doc["command_line"] = p.command_line;
  doc["started"] = p.started;
  doc["finished"] = p.finished;
  return doc;
}

}  // namespace

std::string results_to_json(const std::vector<Results>& runs, const ReportOptions& options) {
  nlohmann::json doc;
  doc["schema"] = std::string(kResultsSchemaFamily) + "1";
  doc["pipeline"] = options.pipeline_name;
  doc["seed"] = options.seed;
  doc["runs"] = nlohmann::json::array();
  for (const auto& r : runs) {
    nlohmann::json run;
    run["engine"] = r.engine;
    run["plugin"] = r.plugin;
    run["label"] = run_label(r);
    run["sweep"] = nlohmann::json::object();
    for (const auto& [k, v] : r.sweep) run["sweep"][k] = number(v);
    run["status"] = {{"code", to_string(r.status.code)},
                     {"message", r.status.message},
                     {"iterations", r.status.iterations}};
    run["scalars"] = nlohmann::json::object();
    for (const auto& [k, v] : r.scalars) run["scalars"][k] = number(v);
    run["vectors"] = nlohmann::json::object();
    for (const auto& [k, v] : r.vectors) {
      auto arr = nlohmann::json::array();
      for (Eigen::Index i = 0; i < v.size(); ++i) arr.push_back(number(v(i)));
      run["vectors"][k] = arr;
    }
    // Matrices can be large: results.json names their CSV file and shape.
    run["matrices"] = nlohmann::json::object();
    for (const auto& [k, m] : r.matrices)
      run["matrices"][k] = {{"rows", m.rows()},
                            {"cols", m.cols()},
                            {"file", "tables/" + run_label(r) + "__" + k + ".csv"}};
    if (r.fitted_model) run["model"] = model_file(r);
    if (r.learning) {
      const LearningReport& l = *r.learning;
      run["hyperparameters"] = nlohmann::json::object();
      for (const LearnedValue& v : l.learned) {
        if (v.is_list) {
          auto arr = nlohmann::json::array();
          for (Eigen::Index i = 0; i < v.value.size(); ++i) arr.push_back(number(v.value(i)));
          run["hyperparameters"][v.key] = arr;
        } else {
          run["hyperparameters"][v.key] = number(v.value(0));
        }
      }
      auto at_bound = nlohmann::json::array();
      for (const LearnedValue& v : l.learned)
        if (v.at_bound) at_bound.push_back(v.key);
      auto starts = nlohmann::json::array();
      for (double x : l.start_results) starts.push_back(number(x));
      run["learning"] = {{"objective", l.objective},
                         {"engine", l.engine},
                         {l.quantity, number(l.value)},
                         {"start_" + l.quantity, number(l.start_value)},
                         {"gradient_norm", number(l.gradient_norm)},
                         {"stopped_by", l.stopped_by},
                         {"iterations", l.iterations},
                         {"evaluations", l.evaluations},
                         {"restarts", l.restarts},
                         {"start_results", starts},
                         {"at_bound", at_bound},
                         {"seconds", number(l.seconds)},
                         {"status",
                          {{"code", to_string(l.status.code)},
                           {"message", l.status.message},
                           {"iterations", l.status.iterations}}}};
    }
    run["info"] = r.info;
    run["timings"] = nlohmann::json::object();
    for (const auto& [k, v] : r.timings) run["timings"][k] = number(v);
    doc["runs"].push_back(run);
  }
  if (options.provenance) doc["provenance"] = provenance_json(*options.provenance);
  return doc.dump(1) + "\n";
}

namespace {

// The report's files, written under `directory`.
ReportFiles write_report_files(const std::vector<Results>& runs, const std::string& directory,
                               const ReportOptions& options) {
  namespace fs = std::filesystem;
  ReportFiles files;
  if (options.tables) {
    // One row per run: engine, swept values, every scalar.
    std::vector<std::string> sweep_keys, scalar_keys;
    for (const auto& r : runs) {
      for (const auto& [k, v] : r.sweep)
        if (std::find(sweep_keys.begin(), sweep_keys.end(), k) == sweep_keys.end())
          sweep_keys.push_back(k);
      for (const auto& [k, v] : r.scalars)
        if (std::find(scalar_keys.begin(), scalar_keys.end(), k) == scalar_keys.end())
          scalar_keys.push_back(k);
    }
    std::string text = "engine,status";
    for (const auto& k : sweep_keys) text += "," + k;
    for (const auto& k : scalar_keys) text += "," + k;
    text += '\n';
    for (const auto& r : runs) {
      text += r.engine + "," + to_string(r.status.code);
      for (const auto& k : sweep_keys)
        text += "," + (r.sweep.count(k) ? format_number(r.sweep.at(k)) : std::string());
      for (const auto& k : scalar_keys)
        text += "," + (r.scalars.count(k) ? cell(r.scalars.at(k)) : std::string());
      text += '\n';
    }
    const std::string summary = (fs::path(directory) / "tables" / "scalars.csv").string();
    write_file_atomically(summary, text);
    files.tables.push_back(summary);
    for (const auto& r : runs) {
      throw_if_stop_requested();
      for (const auto& [suffix, cols] : vector_tables(r)) {
        const auto path =
            (fs::path(directory) / "tables" / (run_label(r) + "__" + suffix + ".csv")).string();
        write_file_atomically(path, csv_of_columns(cols));
        files.tables.push_back(path);
      }
      for (const auto& [name, m] : r.matrices) {
        const auto path =
            (fs::path(directory) / "tables" / (run_label(r) + "__" + name + ".csv")).string();
        write_file_atomically(path, csv_of_matrix(m));
        files.tables.push_back(path);
      }
    }
  }
  for (const auto& r : runs) {
    if (!r.fitted_model) continue;
    throw_if_stop_requested();
    const auto path = fs::path(directory) / model_file(r);
    fs::create_directories(path.parent_path());
    r.fitted_model->save(path.string());
    files.models.push_back(path.string());
  }
  throw_if_stop_requested();
  if (options.plots) write_plots(runs, directory, files);
  files.results_json = (fs::path(directory) / "results.json").string();
  write_file_atomically(files.results_json, results_to_json(runs, options));
  return files;
}

}  // namespace

ReportFiles write_report(const std::vector<Results>& runs, const std::string& directory,
                         const ReportOptions& options) {
  namespace fs = std::filesystem;
  StagingDirectory staging(directory);
  ReportFiles files = write_report_files(runs, staging.path().string(), options);
  throw_if_stop_requested();
  staging.commit();
  const auto moved = [&](std::string& path) {
    path = (fs::path(directory) / fs::path(path).lexically_relative(staging.path())).string();
  };
  moved(files.results_json);
  for (auto& path : files.tables) moved(path);
  for (auto& path : files.plots) moved(path);
  for (auto& path : files.models) moved(path);
  // Warnings name files by their final paths too.
  const std::string staged = staging.path().string();
  for (auto& warning : files.warnings)
    for (auto at = warning.find(staged); at != std::string::npos;
         at = warning.find(staged, at + directory.size()))
      warning.replace(at, staged.size(), directory);
  return files;
}

std::string summarize(const std::vector<Results>& runs) {
  std::ostringstream out;
  // Every run carries the same learning report: print it once, first.
  if (!runs.empty() && runs.front().learning) {
    const LearningReport& l = *runs.front().learning;
    out << "learned hyperparameters (" << l.objective << " of " << l.engine << ")  ["
        << to_string(l.status.code) << ", " << l.iterations << " iterations, " << l.restarts
        << " restarts]\n";
    if (!l.status.message.empty()) out << "    " << l.status.message << "\n";
    out << "    " << std::left << std::setw(34) << l.quantity << std::setprecision(10) << l.value
        << "   (start " << l.start_value << ")\n";
    for (const LearnedValue& v : l.learned) {
      out << "    " << std::left << std::setw(34) << v.key << std::setprecision(6);
      for (Eigen::Index i = 0; i < v.value.size(); ++i) out << (i ? " " : "") << v.value(i);
      out << (v.at_bound ? "   (at a bound)" : "") << "\n";
    }
  }
  for (const auto& r : runs) {
    out << r.engine << " (" << r.plugin << ")";
    for (const auto& [k, v] : r.sweep) out << "  " << k << "=" << v;
    out << "  [" << to_string(r.status.code);
    if (r.status.iterations) out << ", " << r.status.iterations << " iterations";
    out << "]\n";
    if (!r.status.message.empty()) out << "    " << r.status.message << "\n";
    for (const auto& [k, v] : r.scalars) {
      if (k.size() > 7 && k.compare(k.size() - 7, 7, "_stderr") == 0) continue;
      out << "    " << std::left << std::setw(34) << k << std::setprecision(6) << v;
      if (r.scalars.count(k + "_stderr"))
        out << " +- " << std::setprecision(2) << r.scalars.at(k + "_stderr");
      out << "\n";
    }
    const auto total_it = r.timings.find("total");
    const double total = total_it == r.timings.end() ? 0.0 : total_it->second;
    if (total > 0)
      out << "    " << std::left << std::setw(34) << "time [s]" << std::setprecision(4) << total
          << "\n";
  }
  return out.str();
}

}  // namespace quench
