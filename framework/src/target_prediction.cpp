#include "quench/target_prediction.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include <boost/math/tools/roots.hpp>

#include "quench/errors.h"
#include "quench/gauss_hermite.h"

namespace quench {

namespace {

// Gauss-Hermite nodes of the predictive distribution function E_f[P(Y <= y | f)].
constexpr int kCdfNodes = 32;

// The tilted normalizer of y under N(m, v); at v = 0 (a latent known exactly) p(y | m) itself.
double log_z(const Likelihood& likelihood, const Observation& y, double m, double v) {
  return v > 0 ? likelihood.tilted_moments(y, m, v).log_z : likelihood.log_likelihood(y, m);
}

bool discrete(TargetKind kind) {
  return kind == TargetKind::binary || kind == TargetKind::count || kind == TargetKind::successes;
}

// P(Y <= y) under f ~ N(m, v).
double predictive_cdf(const Likelihood& likelihood, double y, double m, double v, double size) {
  const GaussHermiteRule& rule = gauss_hermite(kCdfNodes);
  const double s = std::sqrt(std::max(v, 0.0));
  double cdf = 0;
  for (std::size_t j = 0; j < rule.nodes.size(); ++j)
    cdf += rule.weights[j] * likelihood.target_cdf({y, size}, m + s * rule.nodes[j]);
  return cdf;
}

}  // namespace

std::string quantile_column(double q) {
  std::ostringstream name;
  name.precision(6);
  name << "target_quantile_" << q;
  return name.str();
}

double predictive_quantile(const Likelihood& likelihood, double q, double m, double v,
                           double size) {
  if (!(q > 0 && q < 1))
    throw std::invalid_argument("predictive_quantile: q must be in (0, 1), got " +
                                std::to_string(q));
  const auto kind = likelihood.target_kind();
  const auto cdf = [&](double y) { return predictive_cdf(likelihood, y, m, v, size); };
  if (kind == TargetKind::binary) return cdf(-1.0) >= q ? -1.0 : 1.0;
  if (kind && discrete(*kind)) {
    // The smallest integer k >= 0 with P(Y <= k) >= q: a bracket by doubling, then bisection.
    const double top = *kind == TargetKind::successes ? size : std::numeric_limits<double>::max();
    double lo = -1, hi = 1;
    while (hi < top && cdf(hi) < q) {
      lo = hi;
      hi = std::min(2 * hi + 1, top);
    }
    while (hi - lo > 1) {
      const double mid = std::floor(0.5 * (lo + hi));
      (cdf(mid) >= q ? hi : lo) = mid;
    }
    return hi;
  }
  // Real targets: a bracket around the latent mean widened by doubling, then TOMS 748.
  const TargetMoments at_mean = likelihood.target_moments(m, size);
  double width = std::sqrt(std::max(v, 0.0)) +
                 (std::isfinite(at_mean.variance) ? std::sqrt(at_mean.variance) : 1.0) + 1e-300;
  double lo = m - width, hi = m + width;
  for (int it = 0; it < 2000 && cdf(lo) > q; ++it) lo -= (width *= 2);
  for (int it = 0; it < 2000 && cdf(hi) < q; ++it) hi += (width *= 2);
  std::uintmax_t iterations = 200;
  const auto [a, b] =
      boost::math::tools::toms748_solve([&](double y) { return cdf(y) - q; }, lo, hi,
                                        boost::math::tools::eps_tolerance<double>(40), iterations);
  return 0.5 * (a + b);
}

Eigen::VectorXd log_predictive_density(const Likelihood& likelihood, const Observations& y,
                                       const Eigen::VectorXd& mean,
                                       const Eigen::VectorXd& variance) {
  Eigen::VectorXd out(y.rows());
  for (Eigen::Index i = 0; i < y.rows(); ++i)
    out(i) = log_z(likelihood, y[i], mean(i), variance(i));
  return out;
}

void add_target_predictions(Predictions& p, const Likelihood& likelihood,
                            const Eigen::VectorXd& mean, const Eigen::VectorXd& variance,
                            const TargetQuery& query) {
  const Eigen::Index n = mean.size();
  const auto size = [&](Eigen::Index i) { return query.sizes.size() ? query.sizes(i) : 1.0; };
  const auto kind = likelihood.target_kind();
  if (kind == TargetKind::binary) {
    Eigen::VectorXd probability(n), label(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      probability(i) = std::exp(log_z(likelihood, {1.0, size(i)}, mean(i), variance(i)));
      label(i) = mean(i) >= 0 ? 1.0 : -1.0;  // 001 eq 13
    }
    p.add("probability", probability);
    p.add("label", label);
    return;
  }
  if (!kind || !(*kind == TargetKind::real || discrete(*kind)))
    throw ConfigError({}, std::string("no predictions of y for a likelihood of ") +
                              (kind ? to_string(*kind) : "undeclared") + " targets");
  Eigen::VectorXd target_mean(n), target_variance(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const TargetMoments t = likelihood.predictive_moments(mean(i), variance(i), size(i));
    target_mean(i) = t.mean;
    target_variance(i) = t.variance;
  }
  p.add("target_mean", target_mean, PredictionUnit::target);
  p.add("target_variance", target_variance, PredictionUnit::target_variance);
  for (const double q : query.quantiles) {
    Eigen::VectorXd quantile(n);
    for (Eigen::Index i = 0; i < n; ++i)
      quantile(i) = predictive_quantile(likelihood, q, mean(i), variance(i), size(i));
    p.add(quantile_column(q), quantile, PredictionUnit::target);
  }
  if (!discrete(*kind)) return;
  for (int k = 0; k <= query.max_count; ++k) {
    Eigen::VectorXd mass(n);
    for (Eigen::Index i = 0; i < n; ++i)
      mass(i) = *kind == TargetKind::successes && k > size(i)
                    ? 0.0
                    : std::exp(log_z(likelihood, {static_cast<double>(k), size(i)}, mean(i),
                                     variance(i)));
    p.add("target_p" + std::to_string(k), mass);
  }
}

}  // namespace quench
