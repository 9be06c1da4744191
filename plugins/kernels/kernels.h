// The covariance functions of 001 App. B (and 000 Sec. 5). Each has a schema and a factory;
// registration.cpp lists them in the library's descriptor. Learnable hyperparameters (after
// prepare()), in flat-vector order: length_scales (or width, when configured with width),
// amplitude (not linear), bias, noise (weighted_kernel.h).
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

/// v0 / (1 + sum_l w_l (x_l - x'_l)^2)^beta + v1, rational quadratic (001 App. B, beta = 1).
ParamSchema cauchy_schema();
std::unique_ptr<Kernel> make_cauchy(const Params& params);

/// v0 f_nu(r) + v1, r^2 = sum_l w_l (x_l - x'_l)^2, nu = 0.5, 1.5 or 2.5 (R&W eq 4.17).
ParamSchema matern_schema();
std::unique_ptr<Kernel> make_matern(const Params& params);

}  // namespace quench::kernels
