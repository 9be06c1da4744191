#include "quench/mlp.h"

#include <cmath>
#include <utility>

#include "quench/errors.h"

namespace quench {

namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

// Offsets of W_l (D_l x D_{l-1}) and b_l of layer l (0-based) in the flat parameter vector.
std::pair<Index, Index> layer_offset(const std::vector<Index>& sizes, int layer) {
  Index offset = 0;
  for (int l = 0; l < layer; ++l) offset += sizes[std::size_t(l) + 1] * (sizes[std::size_t(l)] + 1);
  return {offset, offset + sizes[std::size_t(layer) + 1] * sizes[std::size_t(layer)]};
}

Eigen::Map<const MatrixXd> weight(const VectorXd& theta, const std::vector<Index>& s, int l) {
  const auto [w, b] = layer_offset(s, l);
  (void)b;
  return {theta.data() + w, s[std::size_t(l) + 1], s[std::size_t(l)]};
}
Eigen::Map<const VectorXd> bias(const VectorXd& theta, const std::vector<Index>& s, int l) {
  const auto [w, b] = layer_offset(s, l);
  (void)w;
  return {theta.data() + b, s[std::size_t(l) + 1]};
}
Eigen::Map<MatrixXd> weight(VectorXd& g, const std::vector<Index>& s, int l) {
  const auto [w, b] = layer_offset(s, l);
  (void)b;
  return {g.data() + w, s[std::size_t(l) + 1], s[std::size_t(l)]};
}
Eigen::Map<VectorXd> bias(VectorXd& g, const std::vector<Index>& s, int l) {
  const auto [w, b] = layer_offset(s, l);
  (void)w;
  return {g.data() + b, s[std::size_t(l) + 1]};
}

// Pre-activations Z_l = H_{l-1} W_l^T / sqrt(D_{l-1}) + 1 b_l^T (002 eq 2), H_0 = X.
struct Pass {
  MatrixXd Z1, Z2, F;
};

Pass forward_pass(const VectorXd& theta, const MatrixXd& X, const std::vector<Index>& s) {
  Pass p;
  const auto scale = [&](int l) { return 1.0 / std::sqrt(double(s[std::size_t(l)])); };
  p.Z1.noalias() = X * weight(theta, s, 0).transpose();
  p.Z1 *= scale(0);
  p.Z1.rowwise() += bias(theta, s, 0).transpose();
  p.Z2.noalias() = p.Z1.cwiseMax(0.0) * weight(theta, s, 1).transpose();
  p.Z2 *= scale(1);
  p.Z2.rowwise() += bias(theta, s, 1).transpose();
  p.F.noalias() = p.Z2.cwiseMax(0.0) * weight(theta, s, 2).transpose();
  p.F *= scale(2);
  p.F.rowwise() += bias(theta, s, 2).transpose();
  return p;
}

}  // namespace

Mlp::Mlp(Index inputs, Index width1, Index width2, Index outputs)
    : sizes_{inputs, width1, width2, outputs}, count_(0) {
  for (Index d : sizes_)
    if (d < 1) throw ConfigError({}, "mlp: every layer needs at least one unit");
  for (std::size_t l = 0; l < 3; ++l) count_ += sizes_[l + 1] * (sizes_[l] + 1);
}

MatrixXd Mlp::forward(const VectorXd& theta, const MatrixXd& X) const {
  if (theta.size() != count_ || X.cols() != sizes_[0])
    throw ConfigError({}, "mlp: parameter or input size does not match the network");
  return forward_pass(theta, X, sizes_).F;
}

MatrixXd softmax_rows(const MatrixXd& F) {
  MatrixXd P = F.colwise() - F.rowwise().maxCoeff();
  P = P.array().exp().matrix();
  P.array().colwise() /= P.rowwise().sum().array();
  return P;
}

double Mlp::loss(const VectorXd& theta, const MatrixXd& X, const MatrixXd& Y,
                 const MatrixXd& weights, MlpHead head, VectorXd* gradient) const {
  const Index n = X.rows(), C = sizes_[3];
  if (theta.size() != count_ || X.cols() != sizes_[0] || Y.rows() != n || Y.cols() != C)
    throw ConfigError({}, "mlp: parameter, input or target size does not match the network");
  const bool per_output = weights.size() > 0 && weights.cols() == C && C > 1;
  if (weights.size() > 0 && (weights.rows() != n || (weights.cols() != 1 && !per_output)))
    throw ConfigError({}, "mlp: weights must be n x 1 or n x outputs");
  if (per_output && head != MlpHead::square)
    throw ConfigError({}, "mlp: per-output weights need the square head");
  const Pass p = forward_pass(theta, X, sizes_);

  // dL/dF (n x C) and the loss.
  MatrixXd G;
  double value = 0.0;
  if (head == MlpHead::square) {
    G = p.F - Y;
    if (per_output)
      G.array() *= weights.array();
    else if (weights.size() > 0)
      G.array().colwise() *= weights.col(0).array();
    value = 0.5 * (G.array() * (p.F - Y).array()).sum();
  } else {
    const Eigen::VectorXd lse =
        (p.F.colwise() - p.F.rowwise().maxCoeff()).array().exp().rowwise().sum().log().matrix() +
        p.F.rowwise().maxCoeff();
    // -sum_c Y_ic log softmax_c = sum_c Y_ic (lse_i - F_ic)
    Eigen::VectorXd per = (Y.array() * (-(p.F.colwise() - lse)).array()).rowwise().sum();
    const Eigen::VectorXd ysum = Y.rowwise().sum();
    G = softmax_rows(p.F).array().colwise() * ysum.array();
    G -= Y;
    if (weights.size() > 0) {
      per.array() *= weights.col(0).array();
      G.array().colwise() *= weights.col(0).array();
    }
    value = per.sum();
  }
  if (!std::isfinite(value)) return value;
  if (!gradient) return value;

  gradient->resize(count_);
  const auto scale = [&](int l) { return 1.0 / std::sqrt(double(sizes_[std::size_t(l)])); };
  const MatrixXd H2 = p.Z2.cwiseMax(0.0), H1 = p.Z1.cwiseMax(0.0);
  // Layer 3.
  weight(*gradient, sizes_, 2).noalias() = scale(2) * G.transpose() * H2;
  bias(*gradient, sizes_, 2) = G.colwise().sum().transpose();
  // Back through ReLU 2.
  MatrixXd D2 = scale(2) * G * weight(theta, sizes_, 2);
  D2.array() *= (p.Z2.array() > 0.0).cast<double>();
  weight(*gradient, sizes_, 1).noalias() = scale(1) * D2.transpose() * H1;
  bias(*gradient, sizes_, 1) = D2.colwise().sum().transpose();
  MatrixXd D1 = scale(1) * D2 * weight(theta, sizes_, 1);
  D1.array() *= (p.Z1.array() > 0.0).cast<double>();
  weight(*gradient, sizes_, 0).noalias() = scale(0) * D1.transpose() * X;
  bias(*gradient, sizes_, 0) = D1.colwise().sum().transpose();
  return value;
}

MlpObjective::MlpObjective(const Mlp& net, const MatrixXd& X, const MatrixXd& Y,
                           const MatrixXd& weights, MlpHead head, double penalty, VectorXd centre)
    : net_(net),
      X_(X),
      Y_(Y),
      W_(weights),
      head_(head),
      penalty_(penalty),
      centre_(std::move(centre)) {
  if (centre_.size() == 0) centre_ = VectorXd::Zero(net.parameter_count());
  if (centre_.size() != net.parameter_count())
    throw ConfigError({}, "mlp objective: the penalty centre has the wrong size");
}

bool MlpObjective::evaluate(const VectorXd& theta, double* value, VectorXd* gradient) const {
  double v = net_.loss(theta, X_, Y_, W_, head_, gradient);
  const VectorXd d = theta - centre_;
  v += 0.5 * penalty_ * d.squaredNorm();
  if (gradient) *gradient += penalty_ * d;
  if (value) *value = v;
  return std::isfinite(v);
}

bool MlpObjective::evaluate_batch(const VectorXd& theta, const std::vector<Index>& batch,
                                  double* value, VectorXd* gradient) const {
  const auto b = static_cast<Index>(batch.size());
  if (b == 0) throw ConfigError({}, "mlp objective: empty mini-batch");
  MatrixXd Xb(b, X_.cols()), Yb(b, Y_.cols()), Wb(W_.size() > 0 ? b : 0, W_.cols());
  for (Index k = 0; k < b; ++k) {
    const Index i = batch[std::size_t(k)];
    Xb.row(k) = X_.row(i);
    Yb.row(k) = Y_.row(i);
    if (W_.size() > 0) Wb.row(k) = W_.row(i);
  }
  const double factor = double(X_.rows()) / double(b);
  double v = factor * net_.loss(theta, Xb, Yb, Wb, head_, gradient);
  const VectorXd d = theta - centre_;
  v += 0.5 * penalty_ * d.squaredNorm();
  if (gradient) *gradient = factor * *gradient + penalty_ * d;
  if (value) *value = v;
  return std::isfinite(v);
}

}  // namespace quench
