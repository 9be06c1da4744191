// Running a resolved pipeline: load the data once, expand sweeps, build components and
// engines through the registry, run each engine and record failures as statuses.
#include <unistd.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include "pipeline_models.h"
#include "pipeline_spec.h"
#include "quench/blas_thread_policy.h"
#include "quench/cancellation.h"
#include "quench/errors.h"
#include "quench/inference_engine.h"
#include "quench/kernel_record.h"
#include "quench/parallel.h"
#include "quench/pipeline.h"
#include "quench/registry.h"
#include "quench/registry_models.h"
#include "quench/units.h"
#include "results_codec.h"

namespace quench {
namespace {

using Values = std::map<std::string, ParamValue>;

// One point of the cartesian product of sweeps: parameter values and the swept numbers.
struct SweepPoint {
  std::vector<Values> values;  // per sweep owner, the swept parameters
  std::map<std::string, double> numbers;
};

double as_number(const ParamValue& v) {
  if (auto* x = std::get_if<double>(&v)) return *x;
  if (auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
  return NAN;  // strings and lists: recorded by position only
}

// Cartesian product of the sweeps of several plugins (the first sweep varies slowest).
std::vector<SweepPoint> expand(const std::vector<const ResolvedPlugin*>& owners) {
  std::vector<SweepPoint> points(1);
  points[0].values.resize(owners.size());
  for (std::size_t o = 0; o < owners.size(); ++o)
    for (const Sweep& sweep : owners[o]->sweeps) {
      std::vector<SweepPoint> next;
      for (const auto& p : points)
        for (std::size_t k = 0; k < sweep.values.size(); ++k) {
          SweepPoint q = p;
          q.values[o][sweep.param] = sweep.values[k];
          const double x = as_number(sweep.values[k]);
          q.numbers[sweep.key] = std::isnan(x) ? static_cast<double>(k) : x;
          next.push_back(std::move(q));
        }
      points = std::move(next);
    }
  return points;
}

Params params_for(const ResolvedPlugin& plugin, const Values& swept) {
  Values values = plugin.fixed;
  for (const auto& [k, v] : swept) values[k] = v;
  return Params(plugin.entry->info->schema, values);
}

// Non-finite numbers in a result are a numerical failure, never silently reported.
void check_finite(Results& r) {
  if (r.status.code != RunStatus::ok) return;
  auto fail = [&](const std::string& what) {
    r.status.code = RunStatus::failed;
    r.status.message = "non-finite values in '" + what + "'";
  };
  for (const auto& [k, v] : r.scalars)
    if (!std::isfinite(v)) return fail(k);
  for (const auto& [k, v] : r.vectors)
    if (!v.allFinite()) return fail(k);
  for (const auto& [k, m] : r.matrices)
    if (!m.allFinite()) return fail(k);
}

std::string format_sweep(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// "label [######    ]  40%  12 s, ~18 s left": the estimate is the elapsed time scaled by the
// fraction left (units of equal cost), shown once 2 % is done.
std::function<void(double)> progress_bar(const std::string& label) {
  const auto start = std::chrono::steady_clock::now();
  return [label, start](double fraction) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const int width = 30, filled = static_cast<int>(fraction * width + 0.5);
    char eta[48] = "";
    if (fraction >= 1.0)
      std::snprintf(eta, sizeof eta, "  %.0f s", elapsed);
    else if (fraction >= 0.02)
      std::snprintf(eta, sizeof eta, "  %.0f s, ~%.0f s left", elapsed,
                    elapsed * (1.0 - fraction) / fraction);
    std::fprintf(stderr, "\r%-40.40s [%.*s%*s] %3d%%%-24s", label.c_str(), filled,
                 "##############################", width - filled, "",
                 static_cast<int>(fraction * 100 + 0.5), eta);
    if (fraction >= 1.0) std::fputc('\n', stderr);
    std::fflush(stderr);
  };
}

PluginRecord plugin_record(const std::string& role, const PluginEntry& entry,
                           const Values& fixed = {}, const std::vector<Sweep>& sweeps = {}) {
  PluginRecord record{role,
                      to_string(entry.info->family),
                      entry.info->name,
                      entry.info->version,
                      entry.library_name,
                      entry.library_version,
                      entry.library_path,
                      fixed,
                      {}};
  for (const Sweep& sweep : sweeps) record.swept[sweep.param] = sweep.values;
  for (const ParamSpec& param : entry.info->schema.specs())
    if (param.default_value && !record.parameters.count(param.name) &&
        !record.swept.count(param.name))
      record.parameters[param.name] = *param.default_value;
  return record;
}

// Records a resolved plugin and the plugins its parameters name (built with their defaults).
// A composite kernel's plugins, each under its learn path ("kernel.1.0").
void record_kernel_tree(const ResolvedKernel& tree, const std::string& path,
                        std::vector<PluginRecord>& records) {
  if (tree.combine.empty())
    records.push_back(plugin_record(path, *tree.plugin.entry, tree.plugin.fixed, {}));
  for (std::size_t i = 0; i < tree.parts.size(); ++i)
    record_kernel_tree(tree.parts[i], path + "." + kernel_part_name(tree.combine, i), records);
}

void record_plugin(const std::string& role, const ResolvedPlugin& plugin, const Registry& registry,
                   std::vector<PluginRecord>& records) {
  records.push_back(plugin_record(role, *plugin.entry, plugin.fixed, plugin.sweeps));
  const Values parameters = records.back().parameters;
  for (const ParamSpec& param : plugin.entry->info->schema.specs()) {
    const auto value = parameters.find(param.name);
    const auto family = family_from_string(param.plugin_family);
    if (param.type != ParamType::plugin || value == parameters.end() || !family) continue;
    if (const PluginEntry* named = registry.find(*family, std::get<std::string>(value->second)))
      records.push_back(plugin_record(role + "." + param.name, *named));
  }
}

}  // namespace

std::vector<Results> Pipeline::run(const Registry& registry, const RunOptions& options) const {
  Provenance ignored;
  return run(registry, options, ignored);
}

std::vector<Results> Pipeline::run(const Registry& registry, const RunOptions& options,
                                   Provenance& provenance) const {
  const PipelineSpec& spec = *spec_;
  const ResolvedPipeline resolved = resolve_pipeline(spec, registry);
  DataSpec data_spec = data_spec_for(spec, resolved.target);
  data_spec.train_table = options.train_table;
  data_spec.test_table = options.test_table;
  const Dataset data = load_dataset(data_spec);
  auto problems = kernel_diagnostics(spec, &resolved, registry, data);
  for (Diagnostic& d : inducing_diagnostics(spec, data)) problems.push_back(std::move(d));
  if (!problems.empty()) throw ConfigError(std::move(problems));
  for (const auto& [key, note] : data.notes)
    if (options.report)
      std::fprintf(stderr, "note: %s: %s: %s\n", data.train_file.c_str(), key.c_str(),
                   note.c_str());

  for (const auto& [family, plugin] : resolved.components)
    record_plugin(to_string(family), plugin, registry, provenance.plugins);
  if (resolved.kernel_tree) record_kernel_tree(*resolved.kernel_tree, "kernel", provenance.plugins);
  for (const auto& [engine_name, plugin] : resolved.engines)
    record_plugin(engine_name, plugin, registry, provenance.plugins);
  for (const auto& [file, table] : {std::pair{data_spec.train_file, data_spec.train_table},
                                    std::pair{data_spec.test_file, data_spec.test_table}})
    if (!file.empty())
      provenance.data_files.push_back({file, table ? "in memory" : sha256_of_file(file)});
  provenance.train_rows = data.X_train.rows();
  provenance.test_rows = data.X_test.rows();
  provenance.inputs = data.input_names;
  provenance.target = data_spec.target;
  provenance.seed = spec.seed;
  provenance.threads = resolve_threads(options.threads);
  provenance.processes = options.processes;
  // One BLAS thread count for learning and every engine, by the training rows (the O(N^3)
  // matrices) unless the host asked for one; the units inside engines use 1 regardless.
  const BlasThreadChoice blas = choose_blas_threads(data.X_train.rows(), options.blas_threads,
                                                    blas_threads(), machine_cores());
  const ScopedBlasThreads run_blas(blas.threads);
  provenance.blas_threads = blas.threads;
  provenance.blas_threads_reason = blas.reason;

  // `learn:` runs once, on the training rows, before any engine; every run uses its values.
  std::optional<LearningReport> learned;
  if (resolved.learning) {
    throw_if_stop_requested();
    std::function<void(int, double)> learning_progress;
    if (options.progress && isatty(STDERR_FILENO)) {
      const auto started = std::chrono::steady_clock::now();
      learning_progress = [started](int evaluations, double value) {
        std::fprintf(
            stderr, "\rlearning: evaluation %d, objective %.10g, %.0f s   ", evaluations, value,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        std::fflush(stderr);
      };
    }
    learned =
        learn_for_pipeline(spec, resolved, registry, data, options.threads, learning_progress);
    if (learning_progress) std::fputc('\n', stderr);
    if (options.report)
      std::fprintf(stderr, "learned hyperparameters by %s (%s): %s = %.10g [%s]\n",
                   learned->objective.c_str(), learned->engine.c_str(), learned->quantity.c_str(),
                   learned->value, to_string(learned->status.code));
  }

  std::vector<const ResolvedPlugin*> component_owners;  // build_point_components' order
  for (const auto& entry : resolved.components) component_owners.push_back(&entry.second);

  // One sweep point's problem: its components, built once and shared by the engines. A
  // component that fails here (e.g. kernel weights that do not fit the data) fails every
  // engine's run at this point, as a status.
  struct PointSetup {
    Problem problem;
    std::string component_failure;
    std::vector<ComponentRecord> model_components;  // what a fitted model is rebuilt with
    double inducing_seconds = 0;                    // choosing the inducing inputs
  };
  auto set_up = [&](const SweepPoint& point) {
    PointSetup s;
    Problem& problem = s.problem;
    problem.data = &data;
    problem.seed = spec.seed;
    problem.context.threads = options.threads;
    problem.context.executor = options.executor;
    problem.context.make_engine = registry_engines(registry);
    try {
      s.model_components =
          build_point_components(resolved, point.values, learned, registry, data, problem);
      // The inducing inputs with this point's kernel (learned or swept values).
      if (spec.inducing && problem.kernel) {
        const auto chosen = std::chrono::steady_clock::now();
        problem.inducing = choose_inducing(spec, *problem.kernel, data);
        s.inducing_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - chosen).count();
      }
    } catch (const Interrupted&) {
      throw;
    } catch (const std::exception& e) {
      s.component_failure = e.what();
    }
    return s;
  };

  // One engine (at one of its sweep points) on one point's problem.
  auto run_engine = [&](const PointSetup& setup, const SweepPoint& point,
                        const std::string& engine_name, const ResolvedPlugin& engine_plugin,
                        const SweepPoint& engine_point, bool show_progress) {
    Results r;
    const auto start = std::chrono::steady_clock::now();
    Problem p = setup.problem;
    p.make_model = spec.outputs.models;
    std::map<std::string, double> sweep = point.numbers;
    sweep.insert(engine_point.numbers.begin(), engine_point.numbers.end());
    if (show_progress && options.progress && isatty(STDERR_FILENO)) {
      std::string label = engine_name;
      for (const auto& [k, v] : sweep)
        label += " " + k.substr(k.rfind('.') + 1) + "=" + format_sweep(v);
      p.context.progress = progress_bar(label);
    }
    // An engine whose last report was not 1 (an iteration that stopped early, or whose final
    // stage is not reported) gets its bar ended here, before its results are printed.
    auto last_fraction = std::make_shared<double>(-1.0);
    if (p.context.progress)
      p.context.progress = [bar = p.context.progress, last_fraction](double fraction) {
        *last_fraction = fraction;
        bar(fraction);
      };
    try {
      if (!setup.component_failure.empty()) throw Error(setup.component_failure);
      const Params engine_params = params_for(engine_plugin, engine_point.values[0]);
      auto engine = registry.create_as<InferenceEngine>(
          Family::engine, engine_plugin.entry->info->name, engine_params);
      engine->check(p, p.inducing ? p.inducing->Z.rows() : 0);
      r = engine->run(p);
      if (p.inducing) {
        r.info["inducing"] = describe_inducing(*p.inducing);
        r.timings["inducing_selection"] = setup.inducing_seconds;
      }
      if (r.model && spec.outputs.models)
        r.fitted_model = fitted_model(
            r.model, component_record(*engine_plugin.entry, engine_params, std::nullopt),
            setup.model_components, data, data_spec, spec.name, provenance, sweep);
    } catch (const Interrupted&) {
      throw;  // a stop request ends the whole run, not this engine's
    } catch (const UnitFailure&) {
      throw;  // so does a unit that failed on another process (under MPI)
    } catch (const std::exception& e) {
      // Numerical failures and configuration problems found only while running (e.g.
      // dimension mismatches) fail this run; the others still run.
      r.status = {RunStatus::failed, e.what(), 0};
    }
    if (*last_fraction >= 0 && *last_fraction < 1.0) p.context.progress(1.0);
    r.engine = engine_name;
    r.plugin = engine_plugin.entry->info->name;
    r.sweep = sweep;
    r.timings["total"] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  };

  // What the pipeline adds to every run's results, wherever it ran.
  auto finish = [&](Results& r) {
    check_finite(r);
    // A failed run's numbers come from a fit that did not succeed: its scalars are reported
    // as missing (null in results.json, NA in the tables), never as values that read like
    // results (a failed EP's test_error of 0).
    if (r.status.code == RunStatus::failed)
      for (auto& [name, value] : r.scalars) value = std::numeric_limits<double>::quiet_NaN();
    r.info.insert(data.notes.begin(), data.notes.end());
    if (spec.data.missing == MissingRule::drop_rows)
      r.scalars["data.dropped_rows"] = double(data.dropped_rows);
    if (learned) {
      r.learning = learned;
      // Results computed with hyperparameters that are not a converged optimum say so.
      if (learned->status.code != RunStatus::ok && r.status.code == RunStatus::ok)
        r.status = {learned->status.code, "hyperparameter learning: " + learned->status.message,
                    r.status.iterations};
    }
  };

  // Every run: each sweep point of the components with each engine at each of its points.
  struct Job {
    std::size_t point;
    std::string engine_name;
    const ResolvedPlugin* engine;
    SweepPoint engine_point;
  };
  const std::vector<SweepPoint> points = expand(component_owners);
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < points.size(); ++i)
    for (const auto& [engine_name, engine_plugin] : resolved.engines)
      for (const SweepPoint& engine_point : expand({&engine_plugin}))
        jobs.push_back({i, engine_name, &engine_plugin, engine_point});

  std::vector<Results> all;
  if (options.executor && jobs.size() > 1 && !spec.outputs.models) {
    // Distributed (MPI): the runs themselves are the units, handed out dynamically — sweep
    // points cost unequally — one at a time per process, with its engine's units on that
    // process's threads and the run's BLAS threads outside them, as in the loop below; their
    // results travel as bytes. With models kept they stay in order below.
    RunContext context = RunContext::on_threads(1);
    context.executor = options.executor;
    const int blas = provenance.blas_threads;
    const UnitOutputs runs =
        map_units(jobs.size(), 0, context,
                  [&](std::size_t j, Eigen::Ref<Eigen::VectorXd>, std::string& text) {
                    const ScopedBlasThreads run_blas(blas);
                    const Job& job = jobs[j];
                    const PointSetup setup = set_up(points[job.point]);
                    text = encode_results(run_engine(setup, points[job.point], job.engine_name,
                                                     *job.engine, job.engine_point, false));
                  });
    for (const std::string& bytes : runs.text) {
      all.push_back(decode_results(bytes));
      finish(all.back());
    }
    return all;
  }
  std::optional<PointSetup> setup;
  const SweepPoint* current_point = nullptr;
  for (const Job& job : jobs) {
    throw_if_stop_requested();
    if (!setup || &points[job.point] != current_point) {
      setup = set_up(points[job.point]);
      current_point = &points[job.point];
    }
    all.push_back(run_engine(*setup, points[job.point], job.engine_name, *job.engine,
                             job.engine_point, true));
    finish(all.back());
  }
  return all;
}

}  // namespace quench
