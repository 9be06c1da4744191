// The quench Python module's native part (`quench._quench`): pipelines run through the same
// registry and plugins as the CLI, results as NumPy arrays without copies, quench's errors as
// Python exceptions with the same messages (docs/python.md).
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "quench/cancellation.h"
#include "quench/dataset.h"
#include "quench/errors.h"
#include "quench/fitted_model.h"
#include "quench/likelihood.h"
#include "quench/model_archive.h"
#include "quench/pipeline.h"
#include "quench/registry.h"
#include "quench/registry_models.h"
#include "quench/results.h"
#include "quench/target_prediction.h"
#include "quench/version.h"

namespace py = pybind11;

namespace {

// An Eigen vector or matrix handed to NumPy: moved to the heap, owned by the array's capsule
// (no copy); matrices keep their column-major layout (Fortran order).
template <class M>
py::array_t<double> to_numpy(M&& m) {
  auto* owned = new M(std::move(m));
  py::capsule owner(owned, [](void* p) { delete static_cast<M*>(p); });
  if constexpr (M::ColsAtCompileTime == 1) {
    return py::array_t<double>({owned->size()}, {sizeof(double)}, owned->data(), owner);
  } else {
    return py::array_t<double>({owned->rows(), owned->cols()},
                               {sizeof(double), sizeof(double) * owned->rows()}, owned->data(),
                               owner);
  }
}

// A fitted model (a run with outputs: {models: true}, or quench.load_model) with the registry
// whose plugin libraries its components live in, kept loaded as long as the model.
struct PyModel {
  std::shared_ptr<const quench::Registry> registry;
  std::shared_ptr<const quench::FittedModel> model;
};

// Predictions at raw inputs (columns in the model's input_names order): one array per column,
// views into one buffer. `sizes`: each row's exposure or trials, required exactly when the
// model's likelihood reads a size column (ValueError otherwise, and for a size that is not
// positive, or not whole for trials).
py::dict predict(const PyModel& m, const Eigen::Ref<const Eigen::MatrixXd>& X,
                 const std::optional<Eigen::VectorXd>& sizes) {
  const quench::ModelCard& card = m.model->card();
  const std::string what = quench::size_meaning(card.target_kind);
  if (!card.size_column.empty() && !sizes)
    throw py::value_error("predict: this model reads each row's " + what + " (column '" +
                          card.size_column + "' in training): pass sizes=, one per row");
  if (card.size_column.empty() && sizes)
    throw py::value_error("predict: this " + card.kind +
                          " model's likelihood takes no sizes (exposures or trials)");
  quench::TargetQuery query;
  if (sizes) {
    if (sizes->size() != X.rows())
      throw py::value_error("predict: " + std::to_string(X.rows()) + " inputs but " +
                            std::to_string(sizes->size()) + " sizes");
    for (Eigen::Index i = 0; i < sizes->size(); ++i) {
      const double n = (*sizes)(i);
      if (!quench::valid_size(card.target_kind, n))
        throw py::value_error("predict: the size of row " + std::to_string(i) + " is " +
                              py::repr(py::float_(n)).cast<std::string>() + ", not " +
                              quench::size_requirement(card.target_kind));
    }
    query.sizes = *sizes;
  }
  quench::Predictions p;
  {
    py::gil_scoped_release release;
    p = m.model->predict(X, query);
  }
  py::array_t<double> all = to_numpy(std::move(p.values));
  py::dict out;
  for (std::size_t c = 0; c < p.columns.size(); ++c)
    out[py::str(p.columns[c])] = all[py::make_tuple(py::slice(0, all.shape(0), 1), c)];
  return out;
}

// Benchmark support (benchmarks/python_predict_overhead.py): the wall time of the C++ call
// Model.predict wraps, on inputs already in C++ memory.
double native_predict_seconds(const PyModel& m, const Eigen::MatrixXd& X) {
  py::gil_scoped_release release;
  const auto start = std::chrono::steady_clock::now();
  const quench::Predictions p = m.model->predict(X);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The plugin name of a model's likelihood ("" when it has none).
std::string likelihood_name(const quench::ModelCard& card) {
  for (const quench::ComponentRecord& r : card.components)
    if (r.family == quench::Family::likelihood) return r.plugin;
  return {};
}

// The likelihood a model was fitted with, rebuilt from its card by the model's registry (the
// plugin of the version it was saved with, its parameters, its learned values).
std::shared_ptr<quench::Likelihood> model_likelihood(const PyModel& m) {
  for (const quench::ComponentRecord& r : m.model->card().components) {
    if (r.family != quench::Family::likelihood) continue;
    auto likelihood = std::dynamic_pointer_cast<quench::Likelihood>(
        quench::RegistryComponentSource(*m.registry)
            .create(r.family, r.plugin, r.version, r.params));
    if (!likelihood) break;
    for (const auto& [block, value] : r.learned) likelihood->set_hyperparameter(block, value);
    return likelihood;
  }
  throw py::value_error("this " + m.model->card().kind + " model has no likelihood");
}

// ValueError naming the first target (0-based row) the likelihood cannot read: counts are
// non-negative integers, successes integers from 0 to the row's size, binary targets -1 or +1.
void check_targets(const quench::Likelihood& likelihood, const std::string& name,
                   const quench::Observations& y) {
  const auto kind = likelihood.target_kind();
  if (!kind) return;
  for (Eigen::Index i = 0; i < y.rows(); ++i) {
    const quench::Observation o = y[i];
    if (quench::valid_target(*kind, o)) continue;
    const char* needs = *kind == quench::TargetKind::count ? "a count (a non-negative integer)"
                        : *kind == quench::TargetKind::successes
                            ? "a number of successes (an integer from 0 to the row's size)"
                        : *kind == quench::TargetKind::binary ? "a binary target (-1 or +1)"
                                                              : "a finite number";
    throw py::value_error("log_predictive_density: the target of row " + std::to_string(i) +
                          " is " + py::repr(py::float_(o.y)).cast<std::string>() + ", not " +
                          needs + " as likelihood '" + name + "' reads");
  }
}

bool has_column(const quench::Predictions& p, const std::string& name) {
  return std::find(p.columns.begin(), p.columns.end(), name) != p.columns.end();
}

// log p(y_i | training data) at the raw inputs X, in y's units: the likelihood's log predictive
// density (quench/target_prediction.h) at the model's latent predictive N(m_i, v_i) in engine
// units (latent_mean and latent_variance, or a GP regression's mean and variance mapped back),
// minus log target_scale for a standardized target (the Jacobian of y's transform).
py::array_t<double> log_predictive_density(const PyModel& m,
                                           const Eigen::Ref<const Eigen::MatrixXd>& X,
                                           const Eigen::VectorXd& y,
                                           const std::optional<Eigen::VectorXd>& sizes) {
  if (y.size() != X.rows() || (sizes && sizes->size() != X.rows()))
    throw py::value_error("log_predictive_density: " + std::to_string(X.rows()) + " inputs but " +
                          std::to_string(y.size()) + " targets" +
                          (sizes ? " and " + std::to_string(sizes->size()) + " sizes" : ""));
  const std::shared_ptr<const quench::Likelihood> likelihood = model_likelihood(m);
  const quench::ModelCard& card = m.model->card();
  const double shift = card.target_mean, scale = card.target_scale;
  const quench::Observations observed((y.array() - shift) / scale,
                                      sizes ? *sizes : Eigen::VectorXd());
  check_targets(*likelihood, likelihood_name(card), observed);
  Eigen::VectorXd density;
  {
    py::gil_scoped_release release;
    const quench::Predictions p = m.model->predict(X);
    Eigen::VectorXd mean, variance;
    if (has_column(p, "latent_mean") && has_column(p, "latent_variance")) {
      mean = p.column("latent_mean");
      variance = p.column("latent_variance");
    } else if (has_column(p, "mean") && has_column(p, "variance")) {  // target units
      mean = (p.column("mean").array() - shift) / scale;
      variance = p.column("variance") / (scale * scale);
    } else {
      throw py::value_error("a " + card.kind + " model gives no latent predictive distribution");
    }
    density = quench::log_predictive_density(*likelihood, observed, mean, variance);
    density.array() -= std::log(scale);
  }
  return to_numpy(std::move(density));
}

// A Python parameter value as a plugin parameter (numbers, booleans, strings, lists of numbers).
quench::ParamValue param_value(const std::string& name, const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) return value.cast<std::int64_t>();
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::sequence>(value)) return value.cast<std::vector<double>>();
  throw py::value_error("parameter '" + name + "' must be a number, boolean, string or list " +
                        "of numbers, got " + py::repr(value).cast<std::string>());
}

// A likelihood plugin as a pipeline would build it with `params`: its target kind (None when it
// declares none), the data column of its observations' sizes, its learnable hyperparameters,
// those of them it learns by default (Hyperparameter::learned_by_default) and the powers of the
// target's units of those in such units (Hyperparameter::target_unit_power). ValueError naming
// the plugins found for an unknown name, or the problem with a parameter.
py::dict likelihood_info(const std::string& name, const py::dict& params,
                         const std::vector<std::string>& plugin_paths) {
  std::map<std::string, quench::ParamValue> values;
  for (const auto& [key, value] : params) {
    const auto text = key.cast<std::string>();
    values[text] = param_value(text, value);
  }
  const quench::Registry registry = quench::Registry::discover(plugin_paths);
  const quench::PluginEntry* entry = registry.find(quench::Family::likelihood, name);
  if (!entry) {
    std::string found;
    for (const std::string& n : registry.names(quench::Family::likelihood))
      found += (found.empty() ? "" : ", ") + n;
    throw py::value_error("unknown likelihood '" + name + "': the likelihood plugins found are " +
                          found);
  }
  quench::Params checked;
  try {
    checked = quench::Params(entry->info->schema, std::move(values));
  } catch (const quench::ConfigError& e) {
    throw py::value_error("likelihood '" + name + "': " + e.what());
  }
  std::shared_ptr<quench::Likelihood> likelihood;
  try {  // the plugin's own checks name it
    likelihood = registry.create_as<quench::Likelihood>(quench::Family::likelihood, name, checked);
  } catch (const quench::ConfigError& e) {
    throw py::value_error(e.what());
  }
  const auto kind = likelihood->target_kind();
  py::list hyperparameters, learned_by_default;
  py::dict target_unit_powers;
  for (const quench::Hyperparameter& h : likelihood->hyperparameters()) {
    hyperparameters.append(h.name);
    if (h.learned_by_default) learned_by_default.append(h.name);
    if (h.target_unit_power != 0) target_unit_powers[py::str(h.name)] = h.target_unit_power;
  }
  return py::dict(py::arg("target_kind") = kind ? py::cast(quench::to_string(*kind)) : py::none(),
                  py::arg("size_column") = likelihood->size_column(),
                  py::arg("hyperparameters") = hyperparameters,
                  py::arg("learned_by_default") = learned_by_default,
                  py::arg("target_unit_powers") = target_unit_powers);
}

py::dict to_dict(quench::Results&& r, const std::shared_ptr<const quench::Registry>& registry) {
  py::dict d;
  d["engine"] = r.engine;
  d["plugin"] = r.plugin;
  d["sweep"] = r.sweep;
  d["scalars"] = r.scalars;
  py::dict vectors, matrices;
  for (auto& [name, v] : r.vectors) vectors[py::str(name)] = to_numpy(std::move(v));
  for (auto& [name, m] : r.matrices) matrices[py::str(name)] = to_numpy(std::move(m));
  d["vectors"] = vectors;
  d["matrices"] = matrices;
  d["info"] = r.info;
  d["timings"] = r.timings;
  d["status"] =
      py::dict(py::arg("code") = quench::to_string(r.status.code),
               py::arg("message") = r.status.message, py::arg("iterations") = r.status.iterations);
  d["model"] = r.fitted_model ? py::cast(PyModel{registry, r.fitted_model}) : py::none();
  if (r.learning) {  // the learned hyperparameters: objective, its value, the values per key,
                     // the keys that ended on a bound, the work done
    py::dict values;
    py::list at_bound;
    for (auto& v : r.learning->learned) {
      if (v.at_bound) at_bound.append(v.key);
      values[py::str(v.key)] = to_numpy(std::move(v.value));
    }
    d["learning"] = py::dict(
        py::arg("objective") = r.learning->objective, py::arg("quantity") = r.learning->quantity,
        py::arg("value") = r.learning->value, py::arg("learned") = values,
        py::arg("at_bound") = at_bound, py::arg("iterations") = r.learning->iterations,
        py::arg("evaluations") = r.learning->evaluations,
        py::arg("status") = quench::to_string(r.learning->status.code));
  } else {
    d["learning"] = py::none();
  }
  return d;
}

// Ctrl-C during a run. While a call holds no GIL, Python's own SIGINT handler cannot run (it
// would only set a flag Python checks between bytecodes, after the fit): for the call's
// duration SIGINT requests quench's stop instead (quench/cancellation.h), which learning, EP
// sweeps, draws and the report check, and Interrupted becomes KeyboardInterrupt (the
// translator in PYBIND11_MODULE). Installed from the main thread only (a signal handler is
// process-wide, and Python delivers SIGINT to its main thread); the previous handler is back
// when the run returns.
class StopOnInterrupt {
 public:
  StopOnInterrupt() {
    quench::clear_stop_request();  // a request left from an earlier call is not this call's
    const py::object threading = py::module_::import("threading");
    if (!threading.attr("current_thread")().is(threading.attr("main_thread")())) return;
    struct sigaction action {};
    action.sa_handler = [](int signal) { quench::request_stop(signal); };
    sigemptyset(&action.sa_mask);
    installed_ = ::sigaction(SIGINT, &action, &previous_) == 0;
  }
  ~StopOnInterrupt() {
    if (installed_) ::sigaction(SIGINT, &previous_, nullptr);
  }
  StopOnInterrupt(const StopOnInterrupt&) = delete;
  StopOnInterrupt& operator=(const StopOnInterrupt&) = delete;

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

// The worker threads asked for, as the CLI's --threads takes them (0: all cores, at most 4096);
// ValueError otherwise.
void check_threads(int threads) {
  if (threads < 0 || threads > 4096)
    throw py::value_error("threads must be 0 (all cores) or a number of threads up to 4096, got " +
                          std::to_string(threads));
}

// Runs a pipeline (`text` is YAML; data paths resolve against `base_directory`) with the
// plugins found like the CLI finds them, the GIL released while it runs.
py::list run(const std::string& text, const std::string& name, const std::string& base_directory,
             bool is_file, int threads, const std::vector<std::string>& plugin_paths) {
  check_threads(threads);
  const StopOnInterrupt stop_on_interrupt;
  std::vector<quench::Results> runs;
  std::shared_ptr<const quench::Registry> registry;
  {
    py::gil_scoped_release release;
    const quench::Pipeline pipeline =
        is_file ? quench::Pipeline::from_file(text)
                : quench::Pipeline::from_string(text, name, base_directory);
    registry = std::make_shared<const quench::Registry>(quench::Registry::discover(plugin_paths));
    pipeline.validate(*registry);
    quench::RunOptions options;
    options.threads = threads;
    runs = pipeline.run(*registry, options);
  }
  py::list out;
  for (auto& r : runs) out.append(to_dict(std::move(r), registry));
  return out;
}

// A host's arrays as the table a CSV file would give: the input columns, then the target; cells
// are the numbers' shortest exact text (%.17g; NaN is a missing cell) and the target's given
// texts (numbers or class names); row i is the 1-based sample index.
std::shared_ptr<const quench::CsvTable> table(const std::string& name,
                                              const std::vector<std::string>& input_names,
                                              const std::string& target,
                                              const Eigen::Ref<const Eigen::MatrixXd>& X,
                                              const std::vector<std::string>& y) {
  if (static_cast<Eigen::Index>(input_names.size()) != X.cols())
    throw std::invalid_argument(name + ": " + std::to_string(X.cols()) + " columns but " +
                                std::to_string(input_names.size()) + " input names");
  if (static_cast<Eigen::Index>(y.size()) != X.rows())
    throw std::invalid_argument(name + ": " + std::to_string(X.rows()) + " rows but " +
                                std::to_string(y.size()) + " targets");
  auto t = std::make_shared<quench::CsvTable>();
  t->file = name;
  t->columns = input_names;
  t->columns.push_back(target);
  t->cells.reserve(static_cast<std::size_t>(X.rows() * (X.cols() + 1)));
  char text[32];
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    for (Eigen::Index j = 0; j < X.cols(); ++j) {
      if (std::isnan(X(i, j))) {
        t->cells.emplace_back();
      } else {
        std::snprintf(text, sizeof text, "%.17g", X(i, j));
        t->cells.emplace_back(text);
      }
    }
    t->cells.push_back(y[static_cast<std::size_t>(i)]);
    t->rows.push_back(static_cast<int>(i + 1));
  }
  return t;
}

// A pipeline (YAML text whose data.file and data.test_file are `train_name` and `test_name`)
// on arrays instead of files.
py::list run_arrays(const std::string& text, const std::string& train_name,
                    const std::string& test_name, int threads,
                    const std::vector<std::string>& plugin_paths,
                    const std::vector<std::string>& input_names, const std::string& target,
                    const Eigen::Ref<const Eigen::MatrixXd>& X_train,
                    const std::vector<std::string>& y_train,
                    const std::optional<Eigen::MatrixXd>& X_test,
                    const std::vector<std::string>& y_test, bool verbose) {
  check_threads(threads);
  const StopOnInterrupt stop_on_interrupt;
  std::vector<quench::Results> runs;
  std::shared_ptr<const quench::Registry> registry;
  {
    py::gil_scoped_release release;
    const quench::Pipeline pipeline = quench::Pipeline::from_string(text, "<estimator>", "");
    quench::RunOptions options;
    options.threads = threads;
    // The CLI's lines on stderr (the data's notes, each learning evaluation, the learned
    // values) and its progress bar on a terminal only with verbose: the estimator's fitted
    // attributes say it all.
    options.report = verbose;
    options.progress = verbose;
    options.train_table = table(train_name, input_names, target, X_train, y_train);
    if (X_test) options.test_table = table(test_name, input_names, target, *X_test, y_test);
    registry = std::make_shared<const quench::Registry>(quench::Registry::discover(plugin_paths));
    runs = pipeline.run(*registry, options);
  }
  py::list out;
  for (auto& r : runs) out.append(to_dict(std::move(r), registry));
  return out;
}

py::list plugins(const std::vector<std::string>& plugin_paths) {
  const quench::Registry registry = quench::Registry::discover(plugin_paths);
  py::list out;
  for (const quench::PluginEntry* entry : registry.plugins()) {
    py::list parameters;
    for (const auto& p : entry->info->schema.specs())
      parameters.append(py::dict(py::arg("name") = p.name, py::arg("doc") = p.doc));
    out.append(py::dict(py::arg("family") = quench::to_string(entry->info->family),
                        py::arg("name") = entry->info->name,
                        py::arg("version") = entry->info->version,
                        py::arg("doc") = entry->info->doc, py::arg("library") = entry->library_path,
                        py::arg("parameters") = parameters));
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_quench, m) {
  m.doc() = "quench: approximate Bayesian inference and resampling averages (native part)";
  m.attr("__version__") = std::string(quench::kVersion);
  auto base = py::register_exception<quench::Error>(m, "Error", PyExc_RuntimeError);
  static py::exception<quench::ConfigError> pipeline_error(m, "PipelineError", base.ptr());
  py::register_exception<quench::DataError>(m, "DataError", base.ptr());
  py::register_exception<quench::PluginError>(m, "PluginError", base.ptr());
  py::register_exception<quench::NumericalError>(m, "NumericalError", base.ptr());
  py::register_exception<quench::ModelFileError>(m, "ModelFileError", base.ptr());
  // A pipeline error carries every diagnostic, one "file:line:col: message" per line.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const quench::ConfigError& e) {
      std::string text;
      for (const auto& d : e.diagnostics()) text += (text.empty() ? "" : "\n") + d.str();
      pipeline_error(text.empty() ? e.what() : text.c_str());
    } catch (const quench::Interrupted&) {
      quench::clear_stop_request();  // the next call starts afresh
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
  });
  m.def("run", &run, py::arg("text"), py::arg("name"), py::arg("base_directory"),
        py::arg("is_file"), py::arg("threads") = 0,
        py::arg("plugin_paths") = std::vector<std::string>{});
  m.def("plugins", &plugins, py::arg("plugin_paths") = std::vector<std::string>{});
  m.def("likelihood_info", &likelihood_info, py::arg("name"), py::arg("params"),
        py::arg("plugin_paths") = std::vector<std::string>{});
  m.def("run_arrays", &run_arrays, py::arg("text"), py::arg("train_name"), py::arg("test_name"),
        py::arg("threads"), py::arg("plugin_paths"), py::arg("input_names"), py::arg("target"),
        py::arg("X_train"), py::arg("y_train"), py::arg("X_test"), py::arg("y_test"),
        py::arg("verbose") = false);

  py::class_<PyModel>(m, "Model", "A fitted model: predict at new raw inputs, save, load.")
      .def_property_readonly("kind", [](const PyModel& m) { return m.model->card().kind; })
      .def_property_readonly("input_names",
                             [](const PyModel& m) { return m.model->card().input_names; })
      .def_property_readonly("target_name",
                             [](const PyModel& m) { return m.model->card().target_name; })
      .def_property_readonly("class_names",
                             [](const PyModel& m) { return m.model->card().class_names; })
      .def_property_readonly("target_mean",
                             [](const PyModel& m) { return m.model->card().target_mean; })
      .def_property_readonly("target_scale",
                             [](const PyModel& m) { return m.model->card().target_scale; })
      .def("predict", &predict, py::arg("X"), py::arg("sizes") = std::nullopt)
      .def("log_predictive_density", &log_predictive_density, py::arg("X"), py::arg("y"),
           py::arg("sizes") = std::nullopt)
      .def(
          "save",
          [](const PyModel& m, const std::filesystem::path& path) {
            py::gil_scoped_release release;
            m.model->save(path.string());
          },
          py::arg("path"));
  m.def("native_predict_seconds", &native_predict_seconds, py::arg("model"), py::arg("X"));
  m.def(
      "load_model",
      [](const std::string& path, const std::vector<std::string>& plugin_paths) {
        py::gil_scoped_release release;
        auto registry =
            std::make_shared<const quench::Registry>(quench::Registry::discover(plugin_paths));
        auto model =
            std::make_shared<const quench::FittedModel>(quench::load_model(path, *registry));
        return PyModel{std::move(registry), std::move(model)};
      },
      py::arg("path"), py::arg("plugin_paths") = std::vector<std::string>{});
}
