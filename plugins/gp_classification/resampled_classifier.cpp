#include "resampled_classifier.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "quench/errors.h"

namespace quench::gp_classification {
namespace {

class ResampledClassifier final : public ResampledModel {
 public:
  ResampledClassifier(const Problem& problem, const char* engine, CountedFit fit)
      : engine_(engine),
        t_(class_labels(*problem.data, DataPart::train, engine)),
        noise_(problem.kernel->diagonal_noise()),
        fit_(std::move(fit)) {
    const Dataset& d = *problem.data;
    Eigen::MatrixXd X_eval(d.X_train.rows() + d.X_test.rows(), d.X_train.cols());
    X_eval << d.X_train, d.X_test;
    K_eval_ = problem.kernel->cross(X_eval, d.X_train);
  }

  bool kernel_expansion() const override { return true; }

  Eigen::VectorXd predict(const Eigen::VectorXd& weights,
                          Eigen::VectorXd* coefficients) const override {
    const Eigen::Index n = t_.size();
    if (weights.size() != n) throw NumericalError(engine_, "weight vector has the wrong length");
    std::vector<Eigen::Index> kept;
    for (Eigen::Index i = 0; i < n; ++i) {
      if (!(weights(i) >= 0.0) || std::floor(weights(i)) != weights(i))
        throw ConfigError({}, engine_ +
                                  " retrains on occupation counts (a bootstrap resampler), got "
                                  "the weight " +
                                  std::to_string(weights(i)));
      if (weights(i) > 0) kept.push_back(i);
    }
    const auto m = static_cast<Eigen::Index>(kept.size());
    Eigen::VectorXd a = Eigen::VectorXd::Zero(n);
    if (m > 0) {  // else the prior mean 0
      Eigen::MatrixXd C(m, m);
      Eigen::VectorXd t(m);
      Eigen::VectorXi k(m);
      for (Eigen::Index b = 0; b < m; ++b) {
        const Eigen::Index j = kept[static_cast<std::size_t>(b)];
        for (Eigen::Index c = 0; c < m; ++c)
          C(c, b) = K_eval_(kept[static_cast<std::size_t>(c)], j);
        C(b, b) += noise_;
        t(b) = t_(j);
        k(b) = static_cast<int>(weights(j));
      }
      const Eigen::VectorXd t_alpha = fit_(C, t, k);
      for (Eigen::Index b = 0; b < m; ++b) a(kept[static_cast<std::size_t>(b)]) = t_alpha(b);
    }
    Eigen::VectorXd predictions = K_eval_ * a;
    if (coefficients) *coefficients = std::move(a);
    return predictions;
  }

 private:
  std::string engine_;
  Eigen::VectorXd t_;
  double noise_;
  CountedFit fit_;
  Eigen::MatrixXd K_eval_;  // K(training then test inputs, training inputs)
};

}  // namespace

std::unique_ptr<ResampledModel> make_resampled_classifier(const Problem& problem,
                                                          const char* engine, CountedFit fit) {
  return std::make_unique<ResampledClassifier>(problem, engine, std::move(fit));
}

}  // namespace quench::gp_classification
