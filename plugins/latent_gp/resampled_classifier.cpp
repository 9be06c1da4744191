#include "resampled_classifier.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "classifier_model.h"
#include "quench/errors.h"

namespace quench::latent_gp {
namespace {

class ResampledClassifier final : public ResampledModel {
 public:
  ResampledClassifier(const Problem& problem, const char* engine, CountedFit fit,
                      bool latent_posterior)
      : engine_(engine),
        t_(class_labels(*problem.data, DataPart::train, engine)),
        noise_(problem.kernel->diagonal_noise()),
        fit_(std::move(fit)),
        likelihood_(latent_posterior ? problem.likelihood : nullptr) {
    const Dataset& d = *problem.data;
    Eigen::MatrixXd X_eval(d.X_train.rows() + d.X_test.rows(), d.X_train.cols());
    X_eval << d.X_train, d.X_test;
    K_eval_ = problem.kernel->cross(X_eval, d.X_train);
    if (likelihood_) prior_test_ = problem.kernel->diagonal(d.X_test).array() + noise_;
  }

  bool kernel_expansion() const override { return true; }
  bool test_probability() const override { return likelihood_ != nullptr; }

  Eigen::VectorXd predict(const Eigen::VectorXd& weights,
                          Eigen::VectorXd* coefficients) const override {
    return retrain(weights, coefficients, nullptr);
  }

  Eigen::VectorXd predict_with_probability(const Eigen::VectorXd& weights,
                                           Eigen::VectorXd* coefficients,
                                           Eigen::VectorXd& probability) const override {
    if (!likelihood_)
      return ResampledModel::predict_with_probability(weights, coefficients, probability);
    return retrain(weights, coefficients, &probability);
  }

 private:
  Eigen::VectorXd retrain(const Eigen::VectorXd& weights, Eigen::VectorXd* coefficients,
                          Eigen::VectorXd* probability) const {
    const Eigen::Index n = t_.size();
    const DrawnPoints drawn = drawn_points(weights, n, engine_);
    const std::vector<Eigen::Index>& kept = drawn.rows;
    const auto m = static_cast<Eigen::Index>(kept.size());
    const Eigen::Index tests = K_eval_.rows() - n;
    Eigen::VectorXd a = Eigen::VectorXd::Zero(n);
    Eigen::VectorXd variance = prior_test_;  // the prior when no point is drawn
    if (m > 0) {                             // else the prior mean 0
      Eigen::MatrixXd C(m, m);
      Eigen::VectorXd t(m);
      for (Eigen::Index b = 0; b < m; ++b) {
        const Eigen::Index j = kept[static_cast<std::size_t>(b)];
        for (Eigen::Index c = 0; c < m; ++c)
          C(c, b) = K_eval_(kept[static_cast<std::size_t>(c)], j);
        C(b, b) += noise_;
        t(b) = t_(j);
      }
      const CountedFitResult fit = fit_(C, t, drawn.counts);
      for (Eigen::Index b = 0; b < m; ++b) a(kept[static_cast<std::size_t>(b)]) = fit.t_alpha(b);
      if (probability && tests > 0) {
        // Eq 27 at the test inputs with the sites of the drawn points.
        const SiteSystem sites(C, fit.tau);
        Eigen::MatrixXd Kx(m, tests);
        for (Eigen::Index b = 0; b < m; ++b)
          Kx.row(b) = K_eval_.col(kept[static_cast<std::size_t>(b)]).tail(tests).transpose();
        variance = LatentVarianceForm::of(&sites).variance(Kx, prior_test_);
      }
    }
    Eigen::VectorXd predictions = K_eval_ * a;
    if (probability)
      *probability = positive_probability(*likelihood_, predictions.tail(tests), variance);
    if (coefficients) *coefficients = std::move(a);
    return predictions;
  }

  std::string engine_;
  Eigen::VectorXd t_;
  double noise_;
  CountedFit fit_;
  std::shared_ptr<const Likelihood> likelihood_;  // null: no test probabilities
  Eigen::MatrixXd K_eval_;                        // K(training then test inputs, training inputs)
  Eigen::VectorXd prior_test_;                    // C(x, x) at the test inputs, the noise included
};

}  // namespace

DrawnPoints drawn_points(const Eigen::VectorXd& weights, Eigen::Index n,
                         const std::string& engine) {
  if (weights.size() != n) throw NumericalError(engine, "weight vector has the wrong length");
  DrawnPoints drawn;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!(weights(i) >= 0.0) || std::floor(weights(i)) != weights(i))
      throw ConfigError({}, engine +
                                " retrains on occupation counts (a bootstrap resampler), got "
                                "the weight " +
                                std::to_string(weights(i)));
    if (weights(i) > 0) drawn.rows.push_back(i);
  }
  drawn.counts.resize(static_cast<Eigen::Index>(drawn.rows.size()));
  for (std::size_t b = 0; b < drawn.rows.size(); ++b)
    drawn.counts(static_cast<Eigen::Index>(b)) = static_cast<int>(weights(drawn.rows[b]));
  return drawn;
}

std::unique_ptr<ResampledModel> make_resampled_classifier(const Problem& problem,
                                                          const char* engine, CountedFit fit,
                                                          bool latent_posterior) {
  return std::make_unique<ResampledClassifier>(problem, engine, std::move(fit), latent_posterior);
}

}  // namespace quench::latent_gp
