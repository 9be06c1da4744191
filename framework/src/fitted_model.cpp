#include "quench/fitted_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "quench/class_kernels.h"
#include "quench/errors.h"
#include "quench/inference_engine.h"
#include "quench/kernel.h"
#include "quench/kernel_record.h"
#include "quench/likelihood.h"
#include "quench/printable.h"
#include "quench/resampler.h"

namespace quench {
namespace {

// Archive entries of a component record under `prefix` ("components/kernel", "model/engine").
// A composite kernel: "combine", its parts under prefix/parts/0, 1, ...; input columns under
// prefix/columns (docs/models.md).
void write_record(ModelArchive& a, const std::string& prefix, const ComponentRecord& r) {
  a.put(prefix + "/family", std::string(to_string(r.family)));
  if (!r.columns.empty()) a.put(prefix + "/columns", r.columns);
  // A composite's block "1.0.period" is the entry learned/1/0/period (names are paths).
  for (const auto& [block, value] : r.learned) {
    std::string path = block;
    std::replace(path.begin(), path.end(), '.', '/');
    a.put(prefix + "/learned/" + path, value);
  }
  if (!r.combine.empty()) {
    a.put(prefix + "/combine", r.combine);
    for (std::size_t i = 0; i < r.parts.size(); ++i)
      write_record(a, prefix + "/parts/" + std::to_string(i), r.parts[i]);
    return;
  }
  a.put(prefix + "/plugin", r.plugin);
  a.put(prefix + "/version", r.version);
  for (const auto& [name, value] : r.params) {
    const std::string key = prefix + "/params/" + name;
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, bool>)
            a.put(key, std::int64_t{v ? 1 : 0});
          else if constexpr (std::is_same_v<T, std::vector<double>>)
            a.put(key, Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(
                           v.data(), static_cast<Eigen::Index>(v.size()))));
          else
            a.put(key, v);
        },
        value);
  }
}

ComponentRecord read_record(const ModelArchive& a, const std::string& prefix) {
  ComponentRecord r;
  const std::string family = a.text(prefix + "/family");
  const auto f = family_from_string(family);
  if (!f) throw a.error("entry '" + prefix + "/family' names no plugin family: '" + family + "'");
  r.family = *f;
  if (a.has(prefix + "/columns")) r.columns = a.texts(prefix + "/columns");
  const std::string learned = prefix + "/learned/";
  for (const std::string& name : a.names_under(prefix + "/learned")) {
    std::string block = name.substr(learned.size());
    std::replace(block.begin(), block.end(), '/', '.');
    r.learned[block] = a.vector(name);
  }
  if (a.has(prefix + "/combine")) {
    r.combine = a.text(prefix + "/combine");
    if (r.family != Family::kernel ||
        (r.combine != "sum" && r.combine != "product" && r.combine != kPerClass))
      throw a.error("entry '" + prefix +
                    "/combine' must be sum, product or per_class of kernels, got " +
                    to_string(r.family) + " '" + r.combine + "'");
    for (std::size_t i = 0; a.has(prefix + "/parts/" + std::to_string(i) + "/family"); ++i)
      r.parts.push_back(read_record(a, prefix + "/parts/" + std::to_string(i)));
    if (r.parts.empty()) throw a.error("the " + r.combine + " '" + prefix + "' has no parts");
    return r;
  }
  r.plugin = a.text(prefix + "/plugin");
  r.version = a.text(prefix + "/version");
  const std::string params = prefix + "/params/";
  for (const std::string& name : a.names_under(prefix + "/params")) {
    const auto& entry = a.entries().at(name);
    const std::string key = name.substr(params.size());
    if (const auto* v = std::get_if<double>(&entry))
      r.params[key] = *v;
    else if (const auto* i = std::get_if<std::int64_t>(&entry))
      r.params[key] = *i;
    else if (const auto* s = std::get_if<std::string>(&entry))
      r.params[key] = *s;
    else if (const auto* list = std::get_if<Eigen::VectorXd>(&entry))
      r.params[key] = std::vector<double>(list->data(), list->data() + list->size());
    else
      throw a.error("entry '" + name + "' is not a parameter value");
  }
  return r;
}

std::vector<std::string> record_families(const ModelArchive& a) {
  std::vector<std::string> families;
  for (const std::string& name : a.names_under("components")) {
    const std::string rest = name.substr(11);  // after "components/"
    const std::string family = rest.substr(0, rest.find('/'));
    if (families.empty() || families.back() != family) families.push_back(family);
  }
  return families;
}

}  // namespace

FittedModel::FittedModel(ModelCard card, Eigen::MatrixXd X_train,
                         std::shared_ptr<const Model> model)
    : card_(std::move(card)), X_train_(std::move(X_train)), model_(std::move(model)) {
  if (!model_) throw std::invalid_argument("FittedModel without a model");
  const auto d = static_cast<Eigen::Index>(card_.input_names.size());
  if (card_.input_mean.size() != d || card_.input_scale.size() != d || X_train_.cols() != d ||
      model_->input_dimension() != d)
    throw std::invalid_argument("FittedModel: " + std::to_string(d) +
                                " input names but other widths in the transform, the training "
                                "inputs or the model");
}

Predictions FittedModel::predict(const Eigen::MatrixXd& X, const TargetQuery& query) const {
  const auto d = static_cast<Eigen::Index>(card_.input_names.size());
  if (X.cols() != d) {
    std::string names;
    for (const std::string& n : card_.input_names) names += (names.empty() ? "" : ", ") + n;
    throw std::invalid_argument("the model takes " + std::to_string(d) + " inputs (" + names +
                                "), got " + std::to_string(X.cols()));
  }
  // A NaN input would give a prediction that reads like one (a row with a missing feature).
  for (Eigen::Index j = 0; j < X.cols(); ++j)
    for (Eigen::Index i = 0; i < X.rows(); ++i)
      if (!std::isfinite(X(i, j)))
        throw std::invalid_argument("row " + std::to_string(i) + ", input '" +
                                    card_.input_names[static_cast<std::size_t>(j)] + "' is " +
                                    format_number(X(i, j)) +
                                    ": every input to predict at must be a finite number");
  if (query.sizes.size() != 0 && query.sizes.size() != X.rows())
    throw std::invalid_argument("the model was asked for " + std::to_string(X.rows()) +
                                " rows with " + std::to_string(query.sizes.size()) + " sizes");
  const Eigen::MatrixXd Xs =
      (X.rowwise() - card_.input_mean).array().rowwise() / card_.input_scale.array();
  Predictions p = model_->predict(Xs, query);
  for (std::size_t j = 0; j < p.columns.size(); ++j) {
    auto column = p.values.col(static_cast<Eigen::Index>(j)).array();
    if (p.units[j] == PredictionUnit::target)
      column = column * card_.target_scale + card_.target_mean;
    else if (p.units[j] == PredictionUnit::target_variance)
      column *= card_.target_scale * card_.target_scale;
  }
  return p;
}

ModelArchive FittedModel::to_archive() const {
  ModelArchive a;
  a.put("model/kind", card_.kind);
  write_record(a, "model/engine", card_.engine);
  for (const ComponentRecord& r : card_.components)
    write_record(a, std::string("components/") + to_string(r.family), r);
  a.put("data/input_names", card_.input_names);
  a.put("data/target_name", card_.target_name);
  a.put("data/input_mean", Eigen::VectorXd(card_.input_mean.transpose()));
  a.put("data/input_scale", Eigen::VectorXd(card_.input_scale.transpose()));
  a.put("data/target_mean", card_.target_mean);
  a.put("data/target_scale", card_.target_scale);
  a.put("data/class_names", card_.class_names);
  a.put("data/X_train", X_train_);
  for (const auto& [key, value] : card_.provenance) a.put("provenance/" + key, value);
  model_->write(a);
  return a;
}

void FittedModel::save(const std::string& path) const { save_archive(to_archive(), path); }

ComponentSource::~ComponentSource() = default;

FittedModel load_model(const std::string& path, const ComponentSource& source) {
  ModelArchive a = load_archive(path);
  ModelCard card;
  card.kind = a.text("model/kind");
  card.engine = read_record(a, "model/engine");
  for (const std::string& family : record_families(a))
    card.components.push_back(read_record(a, "components/" + family));
  card.input_names = a.texts("data/input_names");
  const auto d = static_cast<Eigen::Index>(card.input_names.size());
  card.target_name = a.text("data/target_name");
  card.input_mean = a.vector("data/input_mean", d).transpose();
  card.input_scale = a.vector("data/input_scale", d).transpose();
  card.target_mean = a.real("data/target_mean");
  card.target_scale = a.real("data/target_scale");
  card.class_names = a.texts("data/class_names");
  Eigen::MatrixXd X_train = a.take_matrix("data/X_train", -1, d);
  for (const std::string& name : a.names_under("provenance"))
    card.provenance[name.substr(11)] = a.text(name);

  auto build = [&](const ComponentRecord& r) -> std::shared_ptr<Component> {
    try {
      if (r.family == Family::kernel) return build_kernel(r, source, card.input_names);
      return source.create(r.family, r.plugin, r.version, r.params);
    } catch (const Error& e) {
      throw ModelFileError(path, std::string("cannot rebuild its ") + to_string(r.family) + " '" +
                                     describe_kernel(r) + "': " + e.what());
    }
  };
  ModelParts parts;
  parts.X_train = &X_train;
  parts.make_engine = source.engines();
  for (const ComponentRecord& r : card.components) {
    std::shared_ptr<Component> c = build(r);
    try {
      if (auto k = std::dynamic_pointer_cast<Kernel>(c)) {
        k->prepare(X_train);
        for (const auto& [block, value] : r.learned) k->set_hyperparameter(block, value);
        parts.kernel = k;
      } else if (auto l = std::dynamic_pointer_cast<Likelihood>(c)) {
        for (const auto& [block, value] : r.learned) l->set_hyperparameter(block, value);
        parts.likelihood = l;
        card.size_column = l->size_column();
        card.target_kind = l->target_kind().value_or(TargetKind::any);
      } else if (auto s = std::dynamic_pointer_cast<Resampler>(c)) {
        parts.resampler = s;
      }
    } catch (const Error& e) {
      throw ModelFileError(path, std::string("its ") + to_string(r.family) + " '" +
                                     describe_kernel(r) +
                                     "' does not take the stored values: " + e.what());
    }
  }
  const auto engine = std::dynamic_pointer_cast<InferenceEngine>(build(card.engine));
  if (!engine) throw ModelFileError(path, "'" + card.engine.plugin + "' is not an engine");
  if (parts.kernel && kernel_classes(*parts.kernel) > 0 &&
      !source.takes_class_kernels(card.engine.plugin))
    throw ModelFileError(path, "its kernel is a kernel per class, but engine '" +
                                   card.engine.plugin + "' takes one kernel");
  std::shared_ptr<const Model> model;
  try {
    model = engine->read_model(a, parts);
  } catch (const ModelFileError&) {
    throw;
  } catch (const Error& e) {
    throw ModelFileError(path, "engine '" + card.engine.plugin + "' cannot read it: " + e.what());
  }
  if (model->kind() != card.kind)
    throw ModelFileError(path, "the file says model kind '" + card.kind + "', engine '" +
                                   card.engine.plugin + "' read a '" + model->kind() + "'");
  try {
    return FittedModel(std::move(card), std::move(X_train), std::move(model));
  } catch (const std::invalid_argument& e) {
    throw ModelFileError(path, e.what());
  }
}

}  // namespace quench
