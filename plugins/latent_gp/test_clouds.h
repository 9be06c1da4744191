// The classifier tests' data: two Gaussian clouds in 2-D whose centres are `gap` apart along
// the first input (large gap: separable), labels alternating -1/+1, n training and n_test test
// rows drawn from one seeded stream.
#pragma once

#include <random>

#include <Eigen/Core>

#include "quench/dataset.h"

namespace quench::latent_gp::test_support {

inline Dataset toy_clouds(int n, int n_test, double gap, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> g;
  auto fill = [&](Eigen::MatrixXd& X, Eigen::VectorXd& y, int count) {
    X.resize(count, 2);
    y.resize(count);
    for (int i = 0; i < count; ++i) {
      y(i) = i % 2 ? 1.0 : -1.0;
      X(i, 0) = g(gen) + 0.5 * gap * y(i);
      X(i, 1) = g(gen);
    }
  };
  Dataset d;
  fill(d.X_train, d.y_train, n);
  fill(d.X_test, d.y_test, n_test);
  return d;
}

}  // namespace quench::latent_gp::test_support
