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

// Activations of one batch, kept per thread and reused so that the mini-batch loop neither
// allocates nor page-faults: H_l = relu(Z_l) (a unit is active iff H_l > 0), the outputs F,
// G = dL/dF, the back-propagated pre-activation gradients D_2, D_1 and the gathered batch.
struct Workspace {
  MatrixXd H1, H2, F, G, D2, D1, Xb, Yb, Wb;
};

Workspace& workspace() {
  thread_local Workspace w;
  return w;
}

double inv_sqrt(Index d) { return 1.0 / std::sqrt(double(d)); }

std::vector<Index> layer_sizes(const Mlp& net) {
  return {net.width(0), net.width(1), net.width(2), net.width(3)};
}

// 002 eq 2: Z_l = H_{l-1} W_l^T / sqrt(D_{l-1}) + 1 b_l^T, H_l = relu(Z_l), H_0 = X, F = Z_3.
void forward_pass(const VectorXd& theta, const MatrixXd& X, const std::vector<Index>& s,
                  Workspace& w) {
  w.H1.noalias() = inv_sqrt(s[0]) * X * weight(theta, s, 0).transpose();
  w.H1 = (w.H1.rowwise() + bias(theta, s, 0).transpose()).cwiseMax(0.0);
  w.H2.noalias() = inv_sqrt(s[1]) * w.H1 * weight(theta, s, 1).transpose();
  w.H2 = (w.H2.rowwise() + bias(theta, s, 1).transpose()).cwiseMax(0.0);
  w.F.noalias() = inv_sqrt(s[2]) * w.H2 * weight(theta, s, 2).transpose();
  w.F.rowwise() += bias(theta, s, 2).transpose();
}

// The head's loss summed over the rows of X and, when gradient is non-null, gradient +=
// scale * its gradient (matrix products over the batch accumulated in place by BLAS, so a
// mini-batch factor N/|B| and a penalty cost no extra pass over the parameters).
double accumulate_loss(const std::vector<Index>& s, const VectorXd& theta, const MatrixXd& X,
                       const MatrixXd& Y, const MatrixXd& weights, MlpHead head, double scale,
                       VectorXd* gradient, Workspace& w) {
  const Index n = X.rows(), C = s[3];
  Index count = 0;
  for (std::size_t l = 0; l < 3; ++l) count += s[l + 1] * (s[l] + 1);
  if (theta.size() != count || X.cols() != s[0] || Y.rows() != n || Y.cols() != C)
    throw ConfigError({}, "mlp: parameter, input or target size does not match the network");
  const bool per_output = weights.size() > 0 && weights.cols() == C && C > 1;
  if (weights.size() > 0 && (weights.rows() != n || (weights.cols() != 1 && !per_output)))
    throw ConfigError({}, "mlp: weights must be n x 1 or n x outputs");
  if (per_output && head != MlpHead::square)
    throw ConfigError({}, "mlp: per-output weights need the square head");
  if (gradient && gradient->size() != count)
    throw ConfigError({}, "mlp: gradient size does not match the network");
  forward_pass(theta, X, s, w);

  // G = dL/dF (n x C) and the loss.
  double value = 0.0;
  if (head == MlpHead::square) {
    w.G = w.F - Y;
    if (per_output)
      w.G.array() *= weights.array();
    else if (weights.size() > 0)
      w.G.array().colwise() *= weights.col(0).array();
    value = 0.5 * (w.G.array() * (w.F - Y).array()).sum();
  } else {
    const VectorXd top = w.F.rowwise().maxCoeff();
    const VectorXd lse = (w.F.colwise() - top).array().exp().rowwise().sum().log().matrix() + top;
    // -sum_c Y_ic log softmax_c = sum_c Y_ic (lse_i - F_ic)
    VectorXd per = (Y.array() * (-(w.F.colwise() - lse)).array()).rowwise().sum();
    const VectorXd ysum = Y.rowwise().sum();
    w.G = softmax_rows(w.F).array().colwise() * ysum.array();
    w.G -= Y;
    if (weights.size() > 0) {
      per.array() *= weights.col(0).array();
      w.G.array().colwise() *= weights.col(0).array();
    }
    value = per.sum();
  }
  if (!std::isfinite(value) || !gradient) return value;

  // Layer 3, then back through ReLU 2 and 1 (D_l = dL/dZ_l).
  weight(*gradient, s, 2).noalias() += (scale * inv_sqrt(s[2])) * w.G.transpose() * w.H2;
  bias(*gradient, s, 2) += scale * w.G.colwise().sum().transpose();
  w.D2.noalias() = inv_sqrt(s[2]) * w.G * weight(theta, s, 2);
  w.D2 = (w.H2.array() > 0.0).select(w.D2, 0.0);
  weight(*gradient, s, 1).noalias() += (scale * inv_sqrt(s[1])) * w.D2.transpose() * w.H1;
  bias(*gradient, s, 1) += scale * w.D2.colwise().sum().transpose();
  w.D1.noalias() = inv_sqrt(s[1]) * w.D2 * weight(theta, s, 1);
  w.D1 = (w.H1.array() > 0.0).select(w.D1, 0.0);
  weight(*gradient, s, 0).noalias() += (scale * inv_sqrt(s[0])) * w.D1.transpose() * X;
  bias(*gradient, s, 0) += scale * w.D1.colwise().sum().transpose();
  return value;
}

// gradient = penalty (theta - centre); returns (penalty / 2) ||theta - centre||^2.
double start_with_penalty(const VectorXd& theta, const VectorXd& centre, double penalty,
                          VectorXd* gradient) {
  if (gradient) gradient->noalias() = penalty * (theta - centre);
  return 0.5 * penalty * (theta - centre).squaredNorm();
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
  Workspace w;  // a one-off pass, possibly over many rows: not kept per thread
  forward_pass(theta, X, sizes_, w);
  return std::move(w.F);
}

MatrixXd softmax_rows(const MatrixXd& F) {
  MatrixXd P = F.colwise() - F.rowwise().maxCoeff();
  P = P.array().exp().matrix();
  P.array().colwise() /= P.rowwise().sum().array();
  return P;
}

double Mlp::loss(const VectorXd& theta, const MatrixXd& X, const MatrixXd& Y,
                 const MatrixXd& weights, MlpHead head, VectorXd* gradient) const {
  if (gradient) gradient->setZero(count_);
  return accumulate_loss(sizes_, theta, X, Y, weights, head, 1.0, gradient, workspace());
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
  double v = start_with_penalty(theta, centre_, penalty_, gradient);
  v += accumulate_loss(layer_sizes(net_), theta, X_, Y_, W_, head_, 1.0, gradient, workspace());
  if (value) *value = v;
  return std::isfinite(v);
}

bool MlpObjective::evaluate_batch(const VectorXd& theta, const std::vector<Index>& batch,
                                  double* value, VectorXd* gradient) const {
  const auto b = static_cast<Index>(batch.size());
  if (b == 0) throw ConfigError({}, "mlp objective: empty mini-batch");
  Workspace& w = workspace();
  w.Xb.resize(b, X_.cols());
  w.Yb.resize(b, Y_.cols());
  w.Wb.resize(W_.size() > 0 ? b : 0, W_.cols());
  for (Index k = 0; k < b; ++k) {
    const Index i = batch[std::size_t(k)];
    w.Xb.row(k) = X_.row(i);
    w.Yb.row(k) = Y_.row(i);
    if (W_.size() > 0) w.Wb.row(k) = W_.row(i);
  }
  // Unbiased estimate (N / |B|) sum_{i in B} loss_i, accumulated onto the penalty's gradient.
  const double factor = double(X_.rows()) / double(b);
  double v = start_with_penalty(theta, centre_, penalty_, gradient);
  v += factor *
       accumulate_loss(layer_sizes(net_), theta, w.Xb, w.Yb, w.Wb, head_, factor, gradient, w);
  if (value) *value = v;
  return std::isfinite(v);
}

}  // namespace quench
