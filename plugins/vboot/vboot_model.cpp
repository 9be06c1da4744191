#include "vboot_model.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "quench/parallel.h"

namespace quench::vboot {
namespace {

// New inputs per block: the features of a block are kBlockRows x D.
constexpr Eigen::Index kBlockRows = 512;

// A positive whole number stored as a real (posterior/layer_sizes).
Eigen::Index layer_size(const ModelArchive& archive, double v) {
  if (!(v >= 1 && v <= 1e9 && v == std::floor(v)))
    throw archive.error("entry 'posterior/layer_sizes' holds " + std::to_string(v) +
                        ", not a layer width");
  return static_cast<Eigen::Index>(v);
}

}  // namespace

VbootModel::VbootModel(Eigen::VectorXd class_values) : class_values_(std::move(class_values)) {}

ParticleEnsemble VbootModel::ensemble(const Eigen::MatrixXd& X, int threads, bool keep) const {
  const Eigen::Index m = X.rows(), C = classes(), K = particles();
  ParticleEnsemble e;
  e.probabilities.resize(m, C);
  e.sd.resize(m, C);
  if (keep) {
    e.latent.assign(static_cast<std::size_t>(C), Eigen::MatrixXd(m, K));
    e.samples.assign(static_cast<std::size_t>(C), Eigen::MatrixXd(m, K));
  }
  const auto blocks = static_cast<std::size_t>((m + kBlockRows - 1) / kBlockRows);
  parallel_for(blocks, threads, [&](std::size_t b) {
    const Eigen::Index start = static_cast<Eigen::Index>(b) * kBlockRows,
                       rows = std::min(kBlockRows, m - start);
    const std::vector<Eigen::MatrixXd> F = latent(X.middleRows(start, rows));
    // eq 12: P(y = c | x) = (1/K) sum_k softmax(f^(k)(x))_c.
    std::vector<Eigen::MatrixXd> S(static_cast<std::size_t>(K));
    Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(rows, C);
    for (Eigen::Index k = 0; k < K; ++k) {
      Eigen::MatrixXd Fk(rows, C);
      for (Eigen::Index c = 0; c < C; ++c) Fk.col(c) = F[std::size_t(c)].col(k);
      S[std::size_t(k)] = softmax_rows(Fk);
      mean += S[std::size_t(k)];
    }
    mean /= double(K);
    // The spread of the equal-weight ensemble: sqrt((1/K) sum_k (p_k - p)^2).
    Eigen::ArrayXXd squares = Eigen::ArrayXXd::Zero(rows, C);
    for (const Eigen::MatrixXd& Sk : S) squares += (Sk - mean).array().square();
    e.probabilities.middleRows(start, rows) = mean;
    e.sd.middleRows(start, rows) = (squares / double(K)).sqrt().matrix();
    for (Eigen::Index c = 0; c < C && keep; ++c) {
      e.latent[std::size_t(c)].middleRows(start, rows) = F[std::size_t(c)];
      for (Eigen::Index k = 0; k < K; ++k)
        e.samples[std::size_t(c)].block(start, k, rows, 1) = S[std::size_t(k)].col(c);
    }
  });
  return e;
}

Predictions VbootModel::predict(const Eigen::MatrixXd& X) const {
  const ParticleEnsemble e = ensemble(X, 0);
  const Eigen::Index C = classes();
  Eigen::VectorXd label(X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    Eigen::Index c = 0;
    e.probabilities.row(i).maxCoeff(&c);  // the first class on ties
    label(i) = class_values_(c);
  }
  Predictions out;
  if (C == 2) {
    out.add("probability", e.probabilities.col(1));
    out.add("probability_sd", e.sd.col(1));
  } else {
    for (Eigen::Index c = 0; c < C; ++c)
      out.add("probability_c" + std::to_string(c), e.probabilities.col(c));
    for (Eigen::Index c = 0; c < C; ++c)
      out.add("probability_sd_c" + std::to_string(c), e.sd.col(c));
  }
  out.add("label", label);
  return out;
}

void VbootModel::write(ModelArchive& archive) const {
  archive.put("posterior/class_values", class_values_);
  archive.put("posterior/particles", std::int64_t{particles()});
  write_particles(archive);
}

std::unique_ptr<VbootModel> VbootModel::read(ModelArchive& archive) {
  Eigen::VectorXd values = archive.vector("posterior/class_values");
  const std::int64_t K = archive.integer("posterior/particles");
  if (values.size() < 1 || !values.allFinite())
    throw archive.error("entry 'posterior/class_values' must hold one finite value per class");
  if (K < 1) throw archive.error("entry 'posterior/particles' must be at least 1");
  const Eigen::Index C = values.size();
  const std::string form = archive.text("posterior/particle_model");
  if (form == "rff") {
    Eigen::MatrixXd omega = archive.take_matrix("posterior/frequencies");
    Eigen::RowVectorXd phases = archive.vector("posterior/phases", omega.cols()).transpose();
    // One scale for every feature (one kernel), or one per feature (a sum of kernels).
    const Eigen::RowVectorXd scales =
        archive.has("posterior/feature_scales")
            ? Eigen::RowVectorXd(archive.vector("posterior/feature_scales", omega.cols()))
            : Eigen::RowVectorXd::Constant(omega.cols(), archive.real("posterior/feature_scale"));
    const double bias = archive.real("posterior/feature_bias");
    if (!scales.allFinite() || !std::isfinite(bias) || bias < 0)
      throw archive.error(
          "entries 'posterior/feature_scale(s)' and 'posterior/feature_bias' must be finite, the "
          "bias >= 0");
    CosineFeatures features(std::move(omega), std::move(phases), scales, bias);
    Eigen::MatrixXd weights =
        archive.take_matrix("posterior/weights", features.dimension(), C * Eigen::Index(K));
    return std::make_unique<RffModel>(std::move(features), std::move(weights), std::move(values));
  }
  if (form == "mlp") {
    const Eigen::VectorXd& sizes = archive.vector("posterior/layer_sizes", 4);
    const Mlp net(layer_size(archive, sizes(0)), layer_size(archive, sizes(1)),
                  layer_size(archive, sizes(2)), layer_size(archive, sizes(3)));
    if (net.outputs() != C)
      throw archive.error("entry 'posterior/layer_sizes' has " + std::to_string(net.outputs()) +
                          " outputs for " + std::to_string(C) + " classes");
    Eigen::MatrixXd parameters =
        archive.take_matrix("posterior/parameters", net.parameter_count(), Eigen::Index(K));
    return std::make_unique<MlpModel>(net, std::move(parameters), std::move(values));
  }
  throw archive.error("entry 'posterior/particle_model' is '" + form + "', expected rff or mlp");
}

RffModel::RffModel(CosineFeatures features, Eigen::MatrixXd weights, Eigen::VectorXd class_values)
    : VbootModel(std::move(class_values)),
      features_(std::move(features)),
      weights_(std::move(weights)) {}

std::vector<Eigen::MatrixXd> RffModel::latent(const Eigen::MatrixXd& X) const {
  // f_c^(k)(x) = phi(x)^T w_c^(k) for every class and particle: one GEMM.
  const Eigen::MatrixXd F = features_.features(X) * weights_;
  const Eigen::Index K = particles();
  std::vector<Eigen::MatrixXd> out;
  for (Eigen::Index c = 0; c < classes(); ++c) out.push_back(F.middleCols(c * K, K));
  return out;
}

void RffModel::write_particles(ModelArchive& archive) const {
  archive.put("posterior/particle_model", std::string("rff"));
  archive.put("posterior/frequencies", features_.frequencies());
  archive.put("posterior/phases", Eigen::VectorXd(features_.phases().transpose()));
  const Eigen::RowVectorXd& scales = features_.scales();
  if (scales.size() > 0 && (scales.array() == scales(0)).all())
    archive.put("posterior/feature_scale", scales(0));
  else
    archive.put("posterior/feature_scales", Eigen::VectorXd(scales.transpose()));
  archive.put("posterior/feature_bias", features_.bias());
  archive.put("posterior/weights", weights_);
}

MlpModel::MlpModel(Mlp net, Eigen::MatrixXd parameters, Eigen::VectorXd class_values)
    : VbootModel(std::move(class_values)),
      net_(std::move(net)),
      parameters_(std::move(parameters)) {}

std::vector<Eigen::MatrixXd> MlpModel::latent(const Eigen::MatrixXd& X) const {
  const Eigen::Index K = particles();
  std::vector<Eigen::MatrixXd> out(static_cast<std::size_t>(classes()),
                                   Eigen::MatrixXd(X.rows(), K));
  for (Eigen::Index k = 0; k < K; ++k) {
    const Eigen::MatrixXd f = net_.forward(parameters_.col(k), X);
    for (Eigen::Index c = 0; c < classes(); ++c) out[std::size_t(c)].col(k) = f.col(c);
  }
  return out;
}

void MlpModel::write_particles(ModelArchive& archive) const {
  archive.put("posterior/particle_model", std::string("mlp"));
  archive.put("posterior/layer_sizes",
              Eigen::VectorXd((Eigen::VectorXd(4) << double(net_.inputs()), double(net_.width(1)),
                               double(net_.width(2)), double(net_.outputs()))
                                  .finished()));
  archive.put("posterior/parameters", parameters_);
}

}  // namespace quench::vboot
