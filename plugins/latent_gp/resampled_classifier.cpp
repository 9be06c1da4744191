#include "resampled_classifier.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "classifier_model.h"
#include "quench/errors.h"

namespace quench::latent_gp {
namespace {

class ResampledClassifier final : public ResampledModel {
 public:
  ResampledClassifier(const Problem& problem, const char* engine, Observations y, CountedFit fit,
                      bool latent_posterior)
      : engine_(engine),
        y_(std::move(y)),
        noise_(problem.kernel->diagonal_noise()),
        fit_(std::move(fit)),
        latent_posterior_(latent_posterior) {
    const Dataset& d = *problem.data;
    Eigen::MatrixXd X_eval(d.X_train.rows() + d.X_test.rows(), d.X_train.cols());
    X_eval << d.X_train, d.X_test;
    K_eval_ = problem.kernel->cross(X_eval, d.X_train);
    if (latent_posterior_) {
      prior_test_ = problem.kernel->diagonal(d.X_test).array() + noise_;
      prior_train_ = problem.kernel->diagonal(d.X_train).array() + noise_;
    }
  }

  bool kernel_expansion() const override { return true; }
  bool latent_variance() const override { return latent_posterior_; }

  Eigen::VectorXd predict(const Eigen::VectorXd& weights,
                          Eigen::VectorXd* coefficients) const override {
    return retrain(weights, coefficients, nullptr, false);
  }

  Eigen::VectorXd predict_latent(const Eigen::VectorXd& weights, Eigen::VectorXd* coefficients,
                                 Eigen::VectorXd& variance, bool training_variance) const override {
    if (!latent_posterior_)
      return ResampledModel::predict_latent(weights, coefficients, variance, training_variance);
    return retrain(weights, coefficients, &variance, training_variance);
  }

 private:
  // The retrain's <f> at the training then test inputs; with `variance`, eq 27 at the test
  // inputs (and at the training inputs with `training_variance`, NaN there otherwise).
  Eigen::VectorXd retrain(const Eigen::VectorXd& weights, Eigen::VectorXd* coefficients,
                          Eigen::VectorXd* variance, bool training_variance) const {
    const Eigen::Index n = y_.rows();
    const DrawnPoints drawn = drawn_points(weights, n, engine_);
    const std::vector<Eigen::Index>& kept = drawn.rows;
    const auto m = static_cast<Eigen::Index>(kept.size());
    const Eigen::Index tests = K_eval_.rows() - n;
    Eigen::VectorXd a = Eigen::VectorXd::Zero(n);
    Eigen::VectorXd test_variance = prior_test_, train_variance = prior_train_;  // no point drawn
    if (m > 0) {  // else the prior mean 0
      Eigen::MatrixXd C(m, m);
      for (Eigen::Index b = 0; b < m; ++b) {
        const Eigen::Index j = kept[static_cast<std::size_t>(b)];
        for (Eigen::Index c = 0; c < m; ++c)
          C(c, b) = K_eval_(kept[static_cast<std::size_t>(c)], j);
        C(b, b) += noise_;
      }
      const CountedFitResult fit = fit_(C, y_.subset(kept), drawn.counts);
      for (Eigen::Index b = 0; b < m; ++b) a(kept[static_cast<std::size_t>(b)]) = fit.slope(b);
      if (variance) {
        // Eq 27 with the sites of the drawn points: at the test inputs, then (when asked) at the
        // training inputs, the cross-covariances of each block apart.
        const SiteSystem sites(C, fit.tau);
        const LatentVarianceForm form = LatentVarianceForm::of(&sites);
        const auto eq27 = [&](Eigen::Index first, Eigen::Index rows, const Eigen::VectorXd& prior) {
          Eigen::MatrixXd Kx(m, rows);
          for (Eigen::Index b = 0; b < m; ++b)
            Kx.row(b) =
                K_eval_.col(kept[static_cast<std::size_t>(b)]).segment(first, rows).transpose();
          return form.variance(Kx, prior);
        };
        if (tests > 0) test_variance = eq27(n, tests, prior_test_);
        if (training_variance) train_variance = eq27(0, n, prior_train_);
      }
    }
    Eigen::VectorXd predictions = K_eval_ * a;
    if (variance) {
      variance->resize(n + tests);
      if (training_variance)
        variance->head(n) = train_variance;
      else
        variance->head(n).setConstant(std::numeric_limits<double>::quiet_NaN());
      variance->tail(tests) = test_variance;
    }
    if (coefficients) *coefficients = std::move(a);
    return predictions;
  }

  std::string engine_;
  Observations y_;
  double noise_;
  CountedFit fit_;
  bool latent_posterior_;
  Eigen::MatrixXd K_eval_;                    // K(training then test inputs, training inputs)
  Eigen::VectorXd prior_test_, prior_train_;  // C(x, x) at the test and training inputs, with noise
};

}  // namespace

std::unique_ptr<ResampledModel> make_resampled_classifier(const Problem& problem,
                                                          const char* engine, Observations y,
                                                          CountedFit fit, bool latent_posterior) {
  return std::make_unique<ResampledClassifier>(problem, engine, std::move(y), std::move(fit),
                                               latent_posterior);
}

}  // namespace quench::latent_gp
