#include "input_weights.h"

#include <cmath>

#include "quench/errors.h"

namespace quench::kernels {

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
  if (params.has("weights")) {
    const auto& w = params.real_list("weights");
    explicit_ = Eigen::Map<const Eigen::VectorXd>(w.data(), static_cast<Eigen::Index>(w.size()));
    ++given;
  }
  if (params.has("length_scales")) {
    const auto& l = params.real_list("length_scales");
    explicit_ = Eigen::Map<const Eigen::VectorXd>(l.data(), static_cast<Eigen::Index>(l.size()))
                    .array()
                    .square()
                    .inverse()
                    .matrix();
    ++given;
  }
  if (params.has("width")) width_ = params.real("width"), ++given;
  if (params.has("l2")) l2_ = params.real("l2"), ++given;
  if (given > 1)
    throw ConfigError({}, "give at most one of 'weights', 'length_scales', 'width' and 'l2'");
  if (scaling_ != "none" && l2_ == 0.0) throw ConfigError({}, "'scaling' is used with 'l2' only");
}

void InputWeights::prepare(const Eigen::MatrixXd& X) {
  const Eigen::Index d = X.cols();
  if (explicit_.size() > 0) {
    if (explicit_.size() != d)
      throw ConfigError({}, "kernel weights (or length_scales) have " +
                                std::to_string(explicit_.size()) + " entries but the inputs have " +
                                std::to_string(d) + " dimensions");
    weights_ = explicit_;
  } else if (width_ > 0) {
    weights_ = Eigen::VectorXd::Constant(d, 1.0 / (width_ * static_cast<double>(d)));
  } else if (l2_ > 0) {
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
  } else {
    weights_ = Eigen::VectorXd::Ones(d);
  }
}

const Eigen::VectorXd& InputWeights::weights(Eigen::Index dimension) const {
  if (weights_.size() == 0)
    throw ConfigError({}, "kernel used before prepare() fixed its input weights");
  if (weights_.size() != dimension)
    throw ConfigError({}, "kernel prepared for " + std::to_string(weights_.size()) +
                              "-dimensional inputs, got " + std::to_string(dimension));
  return weights_;
}

Eigen::MatrixXd scale_inputs(const Eigen::MatrixXd& X, const Eigen::VectorXd& w) {
  return X * w.cwiseSqrt().asDiagonal();
}

Eigen::MatrixXd squared_distances(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  Eigen::MatrixXd D = -2.0 * A * B.transpose();
  D.colwise() += A.rowwise().squaredNorm();
  D.rowwise() += B.rowwise().squaredNorm().transpose();
  return D.cwiseMax(0.0);
}

void declare_amplitude_bias_noise(ParamSchema& schema) {
  schema.real("amplitude", "v0, the prior variance scale", 1.0, 0.0)
      .real("bias", "v1, a constant added to every covariance", 0.0, 0.0)
      .real("noise", "v2, a variance added to the diagonal of the training Gram matrix", 0.0, 0.0);
}

}  // namespace quench::kernels
