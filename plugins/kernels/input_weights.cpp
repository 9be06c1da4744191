#include "input_weights.h"

#include <cmath>
#include <limits>

#include "quench/errors.h"

namespace quench::kernels {
namespace {

Eigen::VectorXd to_vector(const std::vector<double>& x) {
  return Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
}

// w_l = 1 / l_l^2: one expression for configured and learned scales, so both give the same
// bits (and the same random Fourier features).
Eigen::VectorXd weights_of_length_scales(const Eigen::VectorXd& l) {
  return l.array().square().inverse().matrix();
}

}  // namespace

void InputWeights::declare(ParamSchema& schema) {
  schema.real_list("weights", "explicit per-dimension weights w_l (ARD)", std::nullopt, 0.0)
      .optional()
      .real_list("length_scales", "per-dimension scales l_l with w_l = 1/l_l^2 (ARD)", std::nullopt,
                 1e-300)
      .optional()
      .real("width", "sigma^2 with w_l = 1/(sigma^2 d) (001 Sec. 8)", std::nullopt, 1e-300)
      .optional()
      .real("l2", "l^2 with w_l = 2/(v_l l^2), i.e. exp(-sum d_l^2/(v_l l^2)) (000 Sec. 5)",
            std::nullopt, 1e-300)
      .optional()
      .string("scaling", "v_l used with l2: none (1), variance, or sqrt_variance of the inputs",
              "none", {"none", "variance", "sqrt_variance"});
}

InputWeights::InputWeights(const Params& params) : scaling_(params.string("scaling")) {
  int given = 0;
  if (params.has("weights"))
    given_ = to_vector(params.real_list("weights")), form_ = Form::weights, ++given;
  if (params.has("length_scales"))
    given_ = to_vector(params.real_list("length_scales")), form_ = Form::length_scales, ++given;
  if (params.has("width")) width_ = params.real("width"), form_ = Form::width, ++given;
  if (params.has("l2")) l2_ = params.real("l2"), form_ = Form::l2, ++given;
  if (given > 1)
    throw ConfigError({}, "give at most one of 'weights', 'length_scales', 'width' and 'l2'");
  if (scaling_ != "none" && form_ != Form::l2)
    throw ConfigError({}, "'scaling' is used with 'l2' only");
}

void InputWeights::prepare(const Eigen::MatrixXd& X) {
  const Eigen::Index d = X.cols();
  switch (form_) {
    case Form::weights:
    case Form::length_scales:
      if (given_.size() != d)
        throw ConfigError({}, "kernel weights (or length_scales) have " +
                                  std::to_string(given_.size()) + " entries but the inputs have " +
                                  std::to_string(d) + " dimensions");
      weights_ = form_ == Form::weights ? given_ : weights_of_length_scales(given_);
      break;
    case Form::width:
      weights_ = Eigen::VectorXd::Constant(d, 1.0 / (width_ * static_cast<double>(d)));
      break;
    case Form::l2: {
      Eigen::VectorXd v = Eigen::VectorXd::Ones(d);
      if (scaling_ != "none") {
        if (X.rows() < 2) throw ConfigError({}, "kernel 'scaling' needs at least 2 training rows");
        const Eigen::RowVectorXd mean = X.colwise().mean();
        // Sample variance (n - 1), as MATLAB's var() used by the paper's code.
        v = ((X.rowwise() - mean).array().square().colwise().sum() /
             static_cast<double>(X.rows() - 1))
                .transpose();
        if (scaling_ == "sqrt_variance") v = v.array().sqrt();
        for (Eigen::Index l = 0; l < d; ++l)
          if (!(v(l) > 0)) v(l) = 1.0;  // a constant input carries no distance
      }
      weights_ = (2.0 / (l2_ * v.array())).matrix();
      break;
    }
    case Form::ones:
      weights_ = Eigen::VectorXd::Ones(d);
      break;
  }
  // The exposed length scales: as given, else 1/sqrt(w_l) (+infinity for a zero weight).
  length_scales_ = form_ == Form::length_scales ? given_ : weights_.cwiseSqrt().cwiseInverse();
}

void InputWeights::require_prepared() const {
  if (weights_.size() == 0)
    throw ConfigError({}, "kernel used before prepare() fixed its input weights");
}

const Eigen::VectorXd& InputWeights::weights(Eigen::Index dimension) const {
  require_prepared();
  if (weights_.size() != dimension)
    throw ConfigError({}, "kernel prepared for " + std::to_string(weights_.size()) +
                              "-dimensional inputs, got " + std::to_string(dimension));
  return weights_;
}

Hyperparameter InputWeights::hyperparameter() const {
  require_prepared();
  Hyperparameter h;
  h.lower = 1e-5;
  h.upper = 1e5;
  h.log_scale = true;
  if (form_ == Form::width) {
    h.name = "width";
    h.value = Eigen::VectorXd::Constant(1, width_);
  } else {
    h.name = "length_scales";
    h.value = length_scales_;
    h.is_list = true;
  }
  return h;
}

void InputWeights::set(const Eigen::VectorXd& value) {
  const Hyperparameter h = hyperparameter();
  if (value.size() != h.value.size())
    throw ConfigError({}, "kernel hyperparameter '" + h.name + "' has " +
                              std::to_string(h.value.size()) + " entries, got " +
                              std::to_string(value.size()));
  if (!(value.array() > 0).all())
    throw ConfigError({}, "kernel hyperparameter '" + h.name + "' must be > 0");
  const Eigen::Index d = weights_.size();
  if (form_ == Form::width) {
    width_ = value(0);
    weights_ = Eigen::VectorXd::Constant(d, 1.0 / (width_ * static_cast<double>(d)));
  } else {
    // Whatever the configured form, the weights are now these length scales.
    form_ = Form::length_scales;
    given_ = length_scales_ = value;
    weights_ = weights_of_length_scales(value);
  }
}

// w_l = 1/(s2 d): dw_l/ds2 = -w_l/s2. w_l = l_l^-2: dw_l/dl_l = -2/l_l^3 (0 for l_l = inf).
Eigen::VectorXd InputWeights::weight_derivative(Eigen::Index j) const {
  require_prepared();
  if (form_ == Form::width) return -weights_ / width_;
  Eigen::VectorXd c = Eigen::VectorXd::Zero(weights_.size());
  c(j) = -2.0 / (length_scales_(j) * length_scales_(j) * length_scales_(j));
  return c;
}

Eigen::VectorXd InputWeights::chain(const Eigen::VectorXd& g) const {
  require_prepared();
  if (form_ == Form::width) return Eigen::VectorXd::Constant(1, -weights_.dot(g) / width_);
  return (-2.0 * g.array() / length_scales_.array().cube()).matrix();
}

Eigen::MatrixXd scale_inputs(const Eigen::MatrixXd& X, const Eigen::VectorXd& w) {
  return X * w.cwiseSqrt().asDiagonal();
}

Eigen::MatrixXd squared_distances(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  const Eigen::VectorXd na = A.rowwise().squaredNorm(), nb = B.rowwise().squaredNorm();
  Eigen::MatrixXd D(A.rows(), B.rows());
  D.noalias() = -2.0 * A * B.transpose();
  // Below the rounding level of the expansion the distance is 0: the diagonal of a Gram
  // matrix is exactly 0, which matters where the kernel is not smooth in D (matern 1/2).
  const double level = 16.0 * std::numeric_limits<double>::epsilon();
  for (Eigen::Index j = 0; j < D.cols(); ++j) {  // one pass over each column, in cache
    auto d = D.col(j).array();
    d += na.array() + nb(j);
    d = (d > level * (na.array() + nb(j))).select(d, 0.0);
  }
  return D;
}

Eigen::MatrixXd weighted_squared_differences(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                             const Eigen::VectorXd& c) {
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(A.rows(), B.rows());
  for (Eigen::Index l = 0; l < c.size(); ++l) {
    if (c(l) == 0.0) continue;
    S.array() +=
        c(l) * (A.col(l).replicate(1, B.rows()) - B.col(l).transpose().replicate(A.rows(), 1))
                   .array()
                   .square();
  }
  return S;
}

Eigen::VectorXd product_contractions(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                     const Eigen::MatrixXd& M) {
  const Eigen::MatrixXd MB = M * B;  // |A| x d, the one GEMM
  return A.cwiseProduct(MB).colwise().sum().transpose();
}

SquaredDifferenceContractions::SquaredDifferenceContractions(const Eigen::MatrixXd& A,
                                                             const Eigen::MatrixXd& B) {
  const Eigen::RowVectorXd centre =
      (A.colwise().sum() + B.colwise().sum()) / static_cast<double>(A.rows() + B.rows());
  Ac_ = A.rowwise() - centre;
  Bc_ = B.rowwise() - centre;
  MB_ = Eigen::MatrixXd::Zero(A.rows(), A.cols());
  row_sums_ = Eigen::VectorXd::Zero(A.rows());
  b_term_ = Eigen::VectorXd::Zero(A.cols());
}

void SquaredDifferenceContractions::add(Eigen::Index first, const Eigen::MatrixXd& M) {
  const auto Bb = Bc_.middleRows(first, M.cols());
  row_sums_ += M.rowwise().sum();
  b_term_.noalias() += Bb.array().square().matrix().transpose() * M.colwise().sum().transpose();
  MB_.noalias() += M * Bb;
}

Eigen::VectorXd SquaredDifferenceContractions::result() const {
  return Ac_.array().square().matrix().transpose() * row_sums_ + b_term_ -
         2.0 * Ac_.cwiseProduct(MB_).colwise().sum().transpose();
}

void declare_amplitude_bias_noise(ParamSchema& schema) {
  schema.real("amplitude", "v0, the prior variance scale", 1.0, 0.0)
      .real("bias", "v1, a constant added to every covariance", 0.0, 0.0)
      .real("noise", "v2, a variance added to the diagonal of the training Gram matrix", 0.0, 0.0);
}

}  // namespace quench::kernels
