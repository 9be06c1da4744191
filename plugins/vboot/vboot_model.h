// The variational bootstrap's fitted model (kind "vboot"): the K particles f^(k) of a run and
// the prediction of 002 eq 12, P(y = c | x) = (1/K) sum_k softmax(f^(k)(x))_c, with the
// particles' spread. The engine's own test outputs are this model's ensemble() at X_test, so
// a saved model predicts exactly what the run reported. Nothing is regenerated from a seed:
// the random Fourier features are stored as realized arrays, the networks as parameters.
//
// Entries (C classes, K particles, d inputs):
//   posterior/particle_model  text    "rff" or "mlp"
//   posterior/class_values    vector C  the label value of class c: -1, +1 when the data's
//                                       labels were -1/+1, else c
//   posterior/particles       integer K
//   rff (f_c^(k)(x) = phi(x)^T w_c^(k)):
//     posterior/frequencies   matrix d x D0  Omega of phi(x) = [s cos(Omega^T x + b), sqrt(v1)]
//     posterior/phases        vector D0      b
//     posterior/feature_scale real           s = sqrt(2 v0 / D0)
//     posterior/feature_bias  real           v1 (0: no constant feature; D = D0 + (v1 > 0))
//     posterior/weights       matrix D x (C K)  column c K + k = w_c^(k)
//   mlp (f^(k)(x) = the network of 002 eq 2 with parameters theta^(k), quench/mlp.h):
//     posterior/layer_sizes   vector 4       d, D1, D2, C
//     posterior/parameters    matrix P x K   column k = theta^(k) (W1, b1, W2, b2, W3, b3)
//
// Columns, two classes: probability P(y = class 1 | x) (class 1 is +1 for -1/+1 data: the GP
// classifiers' `probability`), probability_sd, label. More classes: probability_c<c> and
// probability_sd_c<c> for c = 0..C-1, label. The sd is the spread of the equal-weight particle
// ensemble eq 12 averages over, sqrt((1/K) sum_k (p_k - p)^2) (0 for K = 1). label is
// class_values(argmax_c P(y = c | x)), the first class on ties (as the run's predicted_class).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quench/cosine_features.h"
#include "quench/inference_engine.h"
#include "quench/mlp.h"

namespace quench::vboot {

/// The particles at some inputs (m rows) and what eq 12 makes of them.
struct ParticleEnsemble {
  Eigen::MatrixXd probabilities;  ///< m x C, eq 12
  Eigen::MatrixXd sd;             ///< m x C, spread of softmax(f^(k)(x))_c over the particles
  /// Only when asked (keep): per class, m x K, column k = particle k.
  std::vector<Eigen::MatrixXd> latent, samples;  ///< f^(k)_c(x); softmax(f^(k)(x))_c
};

class VbootModel : public Model {
 public:
  explicit VbootModel(Eigen::VectorXd class_values);

  /// The K particles' latent outputs at the rows of X, one X.rows() x K matrix per class.
  virtual std::vector<Eigen::MatrixXd> latent(const Eigen::MatrixXd& X) const = 0;
  virtual Eigen::Index particles() const = 0;
  Eigen::Index classes() const { return class_values_.size(); }
  const Eigen::VectorXd& class_values() const { return class_values_; }

  /// Eq 12 and the spread at the rows of X, in blocks of rows spread over `threads` workers
  /// (0 = all cores) with one BLAS thread each: the numbers do not depend on `threads`.
  ParticleEnsemble ensemble(const Eigen::MatrixXd& X, int threads, bool keep = false) const;
  /// The columns of ensemble(X, 0) (header comment).
  Predictions predict(const Eigen::MatrixXd& X) const override;
  std::string kind() const override { return "vboot"; }
  void write(ModelArchive& archive) const override;

  /// The model written by write(); ModelFileError naming the entry when one is missing, has
  /// the wrong shape or an impossible value.
  static std::unique_ptr<VbootModel> read(ModelArchive& archive);

 protected:
  virtual void write_particles(ModelArchive& archive) const = 0;

 private:
  Eigen::VectorXd class_values_;
};

/// RFF particles: a linear model on realized random Fourier features (002 eq 8).
class RffModel final : public VbootModel {
 public:
  /// weights: D x (C K), column c K + k the weights of particle k for class c.
  RffModel(CosineFeatures features, Eigen::MatrixXd weights, Eigen::VectorXd class_values);

  std::vector<Eigen::MatrixXd> latent(const Eigen::MatrixXd& X) const override;
  Eigen::Index particles() const override { return weights_.cols() / classes(); }
  Eigen::Index input_dimension() const override { return features_.frequencies().rows(); }

 private:
  void write_particles(ModelArchive& archive) const override;
  CosineFeatures features_;
  Eigen::MatrixXd weights_;
};

/// MLP particles: the network of 002 eq 2 with one parameter vector per particle.
class MlpModel final : public VbootModel {
 public:
  /// parameters: P x K (P = net.parameter_count()), net.outputs() == class_values.size().
  MlpModel(Mlp net, Eigen::MatrixXd parameters, Eigen::VectorXd class_values);

  std::vector<Eigen::MatrixXd> latent(const Eigen::MatrixXd& X) const override;
  Eigen::Index particles() const override { return parameters_.cols(); }
  Eigen::Index input_dimension() const override { return net_.inputs(); }

 private:
  void write_particles(ModelArchive& archive) const override;
  Mlp net_;
  Eigen::MatrixXd parameters_;
};

}  // namespace quench::vboot
