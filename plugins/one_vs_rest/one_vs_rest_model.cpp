#include "one_vs_rest_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "quench/class_results.h"
#include "quench/errors.h"

namespace quench::one_vs_rest {

namespace {

std::string class_prefix(std::size_t c) { return "posterior/class_" + std::to_string(c) + "/"; }
constexpr const char* kPosterior = "posterior/";

}  // namespace

OneVsRestModel::OneVsRestModel(std::vector<std::shared_ptr<const Model>> classes)
    : classes_(std::move(classes)) {
  if (classes_.size() < 2) throw ConfigError({}, "one_vs_rest_classifier needs >= 2 classes");
}

Eigen::MatrixXd one_vs_rest_scores(const std::vector<Predictions>& binary, bool& probabilities) {
  const auto classes = static_cast<Eigen::Index>(binary.size());
  const auto has = [&](const char* name) {
    const auto& cols = binary.front().columns;
    return std::find(cols.begin(), cols.end(), name) != cols.end();
  };
  probabilities = has("probability");
  const char* name = probabilities ? "probability" : has("decision") ? "decision" : "latent_mean";
  Eigen::MatrixXd scores(binary.front().values.rows(), classes);
  for (Eigen::Index c = 0; c < classes; ++c)
    scores.col(c) = binary[static_cast<std::size_t>(c)].column(name);
  if (probabilities)
    scores = scores.array().colwise() / scores.rowwise().sum().array();  // normalized
  return scores;
}

Predictions OneVsRestModel::predict(const Eigen::MatrixXd& X) const {
  std::vector<Predictions> binary;
  for (const auto& model : classes_) binary.push_back(model->predict(X));
  bool probabilities = false;
  const Eigen::MatrixXd scores = one_vs_rest_scores(binary, probabilities);
  Predictions out;
  for (Eigen::Index c = 0; c < scores.cols(); ++c)
    out.add((probabilities ? "probability." : "decision.") + std::to_string(c), scores.col(c));
  out.add("label", row_argmax(scores).cast<double>());
  return out;
}

void OneVsRestModel::write(ModelArchive& archive) const {
  archive.put("posterior/classes", static_cast<std::int64_t>(classes_.size()));
  for (std::size_t c = 0; c < classes_.size(); ++c) {
    ModelArchive own;
    classes_[c]->write(own);
    for (const auto& [name, entry] : own.entries()) {
      if (name.rfind(kPosterior, 0) != 0)
        throw std::logic_error("a binary model wrote '" + name + "' outside posterior/");
      archive.put(class_prefix(c) + name.substr(std::string(kPosterior).size()), entry);
    }
  }
}

std::unique_ptr<OneVsRestModel> OneVsRestModel::read(
    ModelArchive& archive,
    const std::function<std::unique_ptr<Model>(ModelArchive&, Eigen::Index c)>& read_binary) {
  const std::int64_t classes = archive.integer("posterior/classes");
  if (classes < 2 || classes > 100000)
    throw archive.error("entry 'posterior/classes' is " + std::to_string(classes) +
                        ", expected at least 2");
  std::vector<std::shared_ptr<const Model>> models;
  for (std::size_t c = 0; c < static_cast<std::size_t>(classes); ++c) {
    ModelArchive own(archive.file());
    const std::string prefix = class_prefix(c);
    for (const auto& [name, entry] : archive.entries())
      if (name.rfind(prefix, 0) == 0) own.put(kPosterior + name.substr(prefix.size()), entry);
    models.push_back(read_binary(own, static_cast<Eigen::Index>(c)));
  }
  return std::make_unique<OneVsRestModel>(std::move(models));
}

}  // namespace quench::one_vs_rest
