// The covariance functions of 001 App. B (and 000 Sec. 5), and of R&W Ch. 4 and scikit-learn.
// Each has a schema and a factory; registration.cpp lists them in the library's descriptor.
// Learnable hyperparameters (after prepare()), in flat-vector order: length_scales (or width,
// when configured with width), amplitude (not linear), bias, noise, then period (periodic) or
// alpha (rational_quadratic) (weighted_kernel.h); constant has the one block value, white noise.
#pragma once

#include <memory>

#include "quench/kernel.h"
#include "quench/parameters.h"

namespace quench::kernels {

/// v0 exp(-1/2 sum_l w_l (x_l - x'_l)^2) + v1  (001 App. B).
ParamSchema gaussian_schema();
std::unique_ptr<Kernel> make_gaussian(const Params& params);

/// sum_l w_l x_l x'_l + v1, the simple perceptron (001 App. B).
ParamSchema linear_schema();
std::unique_ptr<Kernel> make_linear(const Params& params);

/// v0 (2/pi) arcsin(x~^T W x~' / sqrt((1 + x^T W x)(1 + x'^T W x'))) + v1 with
/// x~^T W x~' = 1 + sum_l w_l x_l x'_l  (003 eq 1; the infinite network).
ParamSchema infinite_net_schema();
std::unique_ptr<Kernel> make_infinite_net(const Params& params);

/// v0 / (1 + sum_l w_l (x_l - x'_l)^2)^beta + v1, rational quadratic (001 App. B, beta = 1), the
/// parametrization of the 001 papers' pipelines and saved models, beta fixed. rational_quadratic
/// is the learnable-shape form: alpha learnable, and the length scales keep their meaning as alpha
/// varies (alpha -> infinity gives the gaussian).
ParamSchema cauchy_schema();
std::unique_ptr<Kernel> make_cauchy(const Params& params);

/// v0 f_nu(r) + v1, r^2 = sum_l w_l (x_l - x'_l)^2, nu = 0.5, 1.5 or 2.5 (R&W eq 4.17).
ParamSchema matern_schema();
std::unique_ptr<Kernel> make_matern(const Params& params);

/// v0 exp(-2 sum_l w_l sin^2(pi (x_l - x'_l) / p)) + v1, exp-sine-squared (R&W eq 4.31, MacKay
/// 1998; scikit-learn's ExpSineSquared with ARD weights).
ParamSchema periodic_schema();
std::unique_ptr<Kernel> make_periodic(const Params& params);

/// v0 (1 + sum_l w_l (x_l - x'_l)^2 / (2 alpha))^-alpha + v1, alpha learnable (R&W eq 4.19;
/// scikit-learn's RationalQuadratic with ARD weights).
ParamSchema rational_quadratic_schema();
std::unique_ptr<Kernel> make_rational_quadratic(const Params& params);

/// c for every pair of inputs (scikit-learn's ConstantKernel): a learnable scale as a factor of
/// a product, or a bias as a term of a sum.
ParamSchema constant_schema();
std::unique_ptr<Kernel> make_constant(const Params& params);

/// White noise (scikit-learn's WhiteKernel): cross() is 0 and the variance noise is added to the
/// diagonal of the training Gram matrix only, as the other kernels' noise v2.
ParamSchema white_schema();
std::unique_ptr<Kernel> make_white(const Params& params);

}  // namespace quench::kernels
