// The Gaussian likelihood's closed forms against independent computations: finite
// differences for the derivatives, and the framework's Gauss-Hermite tilted moments.
#include <cmath>

#include <gtest/gtest.h>

#include "gaussian_likelihood.h"
#include "quench/errors.h"

namespace quench::likelihoods::likelihoods_test {
namespace {

// The base-class quadrature path, reached by hiding the closed form.
class QuadratureOnly final : public Likelihood {
 public:
  explicit QuadratureOnly(const Likelihood& l) : l_(l) {}
  double log_likelihood(const Observation& y, double f) const override {
    return l_.log_likelihood(y, f);
  }
  double d_log_likelihood(const Observation& y, double f) const override {
    return l_.d_log_likelihood(y, f);
  }
  double d2_log_likelihood(const Observation& y, double f) const override {
    return l_.d2_log_likelihood(y, f);
  }

 private:
  const Likelihood& l_;
};

TEST(GaussianLikelihood, DerivativesMatchFiniteDifferences) {
  GaussianLikelihood l(Params(GaussianLikelihood::schema(), {{"noise", 0.3}}));
  const double y = 0.7, f = -0.2, h = 1e-5;
  EXPECT_NEAR(l.d_log_likelihood({y}, f),
              (l.log_likelihood({y}, f + h) - l.log_likelihood({y}, f - h)) / (2 * h), 1e-7);
  EXPECT_NEAR(l.d2_log_likelihood({y}, f),
              (l.d_log_likelihood({y}, f + h) - l.d_log_likelihood({y}, f - h)) / (2 * h), 1e-7);
  EXPECT_EQ(l.gaussian_noise_variance().value(), 0.3);
}

TEST(GaussianLikelihood, TiltedMomentsEqualGaussHermite) {
  GaussianLikelihood l(Params(GaussianLikelihood::schema(), {{"noise", 1.0}}));
  QuadratureOnly q(l);
  // With v <= sigma^2 the likelihood is no narrower than the prior in the quadrature
  // variable, an entire function the 64-point rule integrates to near machine precision.
  for (double m : {-2.0, 0.0, 1.3})
    for (double v : {0.1, 0.5, 1.0}) {
      const TiltedMoments exact = l.tilted_moments({0.4}, m, v);
      const TiltedMoments quad = q.tilted_moments({0.4}, m, v);
      EXPECT_NEAR(exact.log_z, quad.log_z, 1e-10);
      EXPECT_NEAR(exact.mean, quad.mean, 1e-10);
      EXPECT_NEAR(exact.variance, quad.variance, 1e-10);
    }
}

TEST(GaussianLikelihood, NoiseDerivativeMatchesFiniteDifferences) {
  GaussianLikelihood l(Params(GaussianLikelihood::schema(), {{"noise", 0.3}}));
  ASSERT_EQ(l.hyperparameters().size(), 1u);
  EXPECT_EQ(l.hyperparameters()[0].name, "noise");
  for (double m : {-40.0, -1.0, 0.2, 3.0})
    for (double v : {0.01, 0.5, 4.0}) {
      const double y = 0.7, h = 0.3e-5;
      auto log_z = [&](double noise) {
        l.set_hyperparameter("noise", Eigen::VectorXd::Constant(1, noise));
        return l.tilted_moments({y}, m, v).log_z;
      };
      const double fd = (log_z(0.3 + h) - log_z(0.3 - h)) / (2 * h);
      log_z(0.3);
      const double g = l.d_log_tilted_normalizer({y}, m, v)(0);
      EXPECT_NEAR(g, fd, 1e-6 * std::fabs(fd)) << m << " " << v;
    }
  EXPECT_THROW(l.set_hyperparameter("kappa", Eigen::VectorXd::Constant(1, 0.1)), ConfigError);
  EXPECT_THROW(l.set_hyperparameter("noise", Eigen::VectorXd::Constant(1, -1.0)), ConfigError);
}

}  // namespace
}  // namespace quench::likelihoods::likelihoods_test
