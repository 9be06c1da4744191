#include "vboot.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "calibration.h"
#include "quench/cosine_features.h"
#include "quench/errors.h"
#include "quench/mlp.h"
#include "quench/parallel.h"
#include "quench/rng.h"
#include "quench/units.h"
#include "rff_particles.h"
#include "vboot_model.h"

namespace quench::vboot {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Labels 0..C-1; binary -1/+1 labels (the GP classifiers' convention) become 0/1.
Eigen::VectorXd class_labels(const Eigen::VectorXd& y, bool plus_minus) {
  return plus_minus ? Eigen::VectorXd((y.array() > 0).cast<double>()) : y;
}
bool is_plus_minus(const Dataset& d) {
  const auto pm = [](const Eigen::VectorXd& y) {
    return (y.array() == -1.0 || y.array() == 1.0).all();
  };
  return pm(d.y_train) && pm(d.y_test) && (d.y_train.array() == -1.0).any();
}
// C from the labels when not given.
Eigen::Index class_count(const Eigen::VectorXd& train, const Eigen::VectorXd& test,
                         std::int64_t given) {
  if (given > 0) return static_cast<Eigen::Index>(given);
  double top = train.size() ? train.maxCoeff() : 0.0;
  if (test.size()) top = std::max(top, test.maxCoeff());
  return static_cast<Eigen::Index>(top) + 1;
}

}  // namespace

ParamSchema VBoot::schema() {
  ParamSchema s;
  s.integer("particles", "number of particles K", 50, 1, 1000000)
      .string("model",
              "rff: linear model on the kernel's random Fourier features, closed form "
              "(eq 8); mlp: 2 hidden ReLU layers trained by the optimizer (eq 2, eq 7)",
              "rff", {"rff", "mlp"})
      .real("prior_variance", "alpha^2 of the prior N(0, alpha^2 I) on the weights (eq 4)", 1.0,
            1e-12)
      .integer("classes", "number of classes C (0 = largest label + 1)", 0, 0, 100000)
      .integer("hidden_units", "width of both hidden layers of the mlp model", 512, 1, 100000)
      .boolean("share_factorization",
               "rff: factorize A_c once per class for all particles (false: per particle, for "
               "benchmarks)",
               true)
      .boolean("keep_particles",
               "return per-particle class probabilities at the test inputs (probability_samples_c"
               "<c>, m x K)",
               false)
      .integer("calibration_bins", "equal-width confidence bins of the ECE and reliability plot",
               10, 1, 1000);
  return s;
}

VBoot::VBoot(const Params& p)
    : particles_(p.integer("particles")),
      classes_(p.integer("classes")),
      width_(p.integer("hidden_units")),
      model_(p.string("model")),
      prior_variance_(p.real("prior_variance")),
      share_factorization_(p.boolean("share_factorization")),
      keep_particles_(p.boolean("keep_particles")),
      bins_(static_cast<int>(p.integer("calibration_bins"))) {}

namespace {

/// The kernel's random Fourier features (vboot model 'rff'); ConfigError without them.
const CosineFeatures& fourier_features(const Problem& problem) {
  const auto* map =
      problem.kernel ? dynamic_cast<const CosineFeatures*>(problem.kernel->feature_map()) : nullptr;
  if (!map)
    throw ConfigError({},
                      "vboot model 'rff' needs a kernel with random Fourier features (gaussian "
                      "with random_features > 0, on any columns, or a sum of such kernels; a "
                      "product of kernels has none)");
  return *map;
}

}  // namespace

void VBoot::check(const Problem& problem, Eigen::Index) const {
  if (problem.resampler && !problem.resampler->perturbs())
    throw ConfigError({},
                      "vboot perturbs the targets and the prior mean (002 eqs 6, 13): its "
                      "resampler must be 'perturbation', not one that draws weight vectors");
  // The label transform is cheap (a few operations per label); a likelihood without one is
  // refused here rather than after the kernel's work.
  const Dataset& data = *problem.data;
  const Eigen::VectorXd y_train = class_labels(data.y_train, is_plus_minus(data)),
                        y_test = class_labels(data.y_test, is_plus_minus(data));
  if (!problem.likelihood->regression_targets(y_train, class_count(y_train, y_test, classes_)))
    throw ConfigError({}, "vboot needs a likelihood with a label transform (e.g. 'dirichlet')");
  if (model_ == "rff") fourier_features(problem);
  if (model_ != "rff" && !problem.optimizer)
    throw ConfigError({},
                      "vboot model '" + model_ + "' needs an optimizer component (e.g. 'adam')");
}

Results VBoot::run(const Problem& problem) const {
  const auto start = Clock::now();
  check(problem, 0);
  const Dataset& data = *problem.data;
  const bool plus_minus = is_plus_minus(data);
  const Eigen::VectorXd y_train = class_labels(data.y_train, plus_minus),
                        y_test = class_labels(data.y_test, plus_minus);
  const Eigen::Index C = class_count(y_train, y_test, classes_), K = particles_;
  const Eigen::Index n = data.X_train.rows(), m = data.X_test.rows();
  const auto targets = problem.likelihood->regression_targets(y_train, C);
  const Eigen::MatrixXd precision = targets->variance.cwiseInverse();
  const int threads = problem.context.threads;
  Results r;

  // Class values of the model's labels: the data's own (-1/+1 read as classes 0/1).
  Eigen::VectorXd class_values(C);
  for (Eigen::Index c = 0; c < C; ++c) class_values(c) = double(c);
  if (plus_minus) class_values(0) = -1.0;
  std::shared_ptr<const VbootModel> model;
  if (model_ == "rff") {
    const CosineFeatures& map = fourier_features(problem);
    const Eigen::MatrixXd Phi = map.features(data.X_train);
    const Eigen::Index D = Phi.cols();
    const auto t_features = Clock::now();
    // Perturbations, one stream per particle (eqs 13 and 6).
    std::vector<Perturbation> draws(static_cast<std::size_t>(K));
    parallel_for(static_cast<std::size_t>(K), threads, [&](std::size_t k) {
      RngStream rng(problem.seed, k);
      draws[k] = problem.resampler->perturb(*targets, D, C, prior_variance_, rng);
    });
    const Eigen::MatrixXd G = feature_gram(Phi, threads);
    r.timings["gram"] = seconds_since(t_features);
    const auto t_solve = Clock::now();
    // One unit per class and fixed block of kBlock particles (the same blocks for any thread
    // or process count): A_c formed and factorized once per class and process (on first use),
    // then the block's particles at once (eq 8). Columns c K .. c K + K - 1 of the weights are
    // class c's particles.
    constexpr Eigen::Index kBlock = 32;
    const Eigen::Index blocks = (K + kBlock - 1) / kBlock;
    std::vector<std::once_flag> formed(static_cast<std::size_t>(C));
    std::vector<std::unique_ptr<const LinearGaussianPosterior>> posts(static_cast<std::size_t>(C));
    const UnitOutputs units =
        map_units(static_cast<std::size_t>(C * blocks), D * kBlock, problem.context,
                  [&](std::size_t u, Eigen::Ref<Eigen::VectorXd> out, std::string&) {
                    const auto c = static_cast<Eigen::Index>(u) / blocks;
                    const Eigen::Index first = (static_cast<Eigen::Index>(u) % blocks) * kBlock;
                    const Eigen::Index B = std::min(kBlock, K - first);
                    const auto cs = static_cast<std::size_t>(c);
                    std::call_once(formed[cs], [&] {
                      posts[cs] = std::make_unique<const LinearGaussianPosterior>(
                          Phi, precision.col(c), prior_variance_, &G);
                    });
                    Eigen::MatrixXd Yt(n, B), Wt(D, B);
                    for (Eigen::Index b = 0; b < B; ++b) {
                      Yt.col(b) = draws[std::size_t(first + b)].targets.col(c);
                      Wt.col(b) = draws[std::size_t(first + b)].prior_mean.col(c);
                    }
                    Eigen::Map<Eigen::MatrixXd>(out.data(), D, B) =
                        share_factorization_ ? posts[cs]->particles(Yt, Wt)
                                             : posts[cs]->particles_refactorizing(Yt, Wt);
                  });
    Eigen::MatrixXd weights(D, C * K);
    for (Eigen::Index c = 0; c < C; ++c)
      for (Eigen::Index b = 0; b < blocks; ++b) {
        const Eigen::Index first = b * kBlock, B = std::min(kBlock, K - first);
        weights.middleCols(c * K + first, B) =
            Eigen::Map<const Eigen::MatrixXd>(units.values.col(c * blocks + b).data(), D, B);
      }
    r.timings["particles"] = seconds_since(t_solve);
    r.scalars["features"] = double(D);
    model = std::make_shared<const RffModel>(map, std::move(weights), std::move(class_values));
  } else {
    const Mlp net(data.X_train.cols(), width_, width_, C);
    const Eigen::Index P = net.parameter_count();
    const auto t_solve = Clock::now();
    // One unit per particle: its parameters, and the optimizer's message when it stopped early.
    const UnitOutputs units = map_units(
        static_cast<std::size_t>(K), P, problem.context,
        [&](std::size_t k, Eigen::Ref<Eigen::VectorXd> out, std::string& failure) {
          RngStream rng(problem.seed, k);
          const Perturbation draw =
              problem.resampler->perturb(*targets, P, 1, prior_variance_, rng);
          // eq 7: sum_ic (y~_ic - f_c(x_i))^2 / (2 sigma^2_ic) + |theta - theta~|^2 / (2 alpha^2),
          // started at the prior sample theta~.
          const MlpObjective objective(net, data.X_train, draw.targets, precision, MlpHead::square,
                                       1.0 / prior_variance_, draw.prior_mean.col(0));
          Eigen::VectorXd theta = draw.prior_mean.col(0);
          const auto report = problem.optimizer->minimize_stochastic(objective, theta, rng);
          if (!report.converged) failure = report.message;
          out = theta;
        });
    Eigen::MatrixXd parameters = units.values;
    r.timings["particles"] = seconds_since(t_solve);
    r.scalars["parameters"] = double(P);
    for (const auto& f : units.text)
      if (!f.empty()) {
        r.status.code = RunStatus::not_converged;
        r.status.message = "a particle's optimizer stopped early: " + f;
        break;
      }
    model = std::make_shared<const MlpModel>(net, std::move(parameters), std::move(class_values));
  }
  if (problem.make_model) r.model = model;

  // eq 12 at the test inputs, by the model: a saved model predicts exactly these numbers.
  const auto t_predict = Clock::now();
  const ParticleEnsemble e = model->ensemble(data.X_test, threads, keep_particles_);
  const Eigen::MatrixXd& probabilities = e.probabilities;
  const std::vector<Eigen::MatrixXd>& samples = e.samples;
  if (!probabilities.allFinite())
    throw NumericalError("vboot", "non-finite predicted probabilities");

  r.scalars["particles"] = double(K);
  r.scalars["classes"] = double(C);
  if (m > 0) {
    const auto s = score_probabilities(probabilities, y_test, bins_);
    r.scalars["test_error"] = s.error;
    r.scalars["test_mnll"] = s.mnll;
    r.scalars["expected_calibration_error"] = s.ece;
    r.matrices["class_probabilities"] = probabilities;
    r.matrices["class_probability_sd"] = e.sd;
    r.matrices["reliability"] = s.reliability;
    r.vectors["predicted_class"] = s.predicted;
    r.vectors["reliability_confidence"] = s.reliability.col(0);
    r.vectors["reliability_accuracy"] = s.reliability.col(1);
    for (std::size_t c = 0; c < samples.size(); ++c)
      r.matrices["probability_samples_c" + std::to_string(c)] = samples[c];
    for (std::size_t c = 0; c < e.latent.size(); ++c)
      r.matrices["latent_samples_c" + std::to_string(c)] = e.latent[c];
    if (keep_particles_ && C == 2 && data.X_test.cols() == 1) {
      // A binary problem on a 1-D input: the particles' P(y = 1 | x) as sampled functions
      // (002 Fig. 1), inputs in the data's original units.
      const auto original = [&](const Eigen::MatrixXd& X) -> Eigen::VectorXd {
        if (data.input_scale.size() == 0) return X.col(0);  // a data set built in code
        return (X.col(0).array() * data.input_scale(0) + data.input_mean(0)).matrix();
      };
      r.vectors["grid_input"] = original(data.X_test);
      r.matrices["grid_samples"] = samples[1];
      r.vectors["grid_mean"] = probabilities.col(1);
      r.vectors["train_input"] = original(data.X_train);
      r.vectors["train_target"] = y_train;
      r.info["grid_quantity"] = "P(y = 1 | x)";
    }
  }
  r.info["model"] = model_;
  if (plus_minus) r.info["labels"] = "-1/+1 read as classes 0/1";
  r.timings["prediction"] = seconds_since(t_predict);
  r.timings["total"] = seconds_since(start);
  r.timings["per_particle"] = r.timings["particles"] / double(K);
  return r;
}

std::unique_ptr<Model> VBoot::read_model(ModelArchive& archive, const ModelParts&) const {
  return VbootModel::read(archive);
}

}  // namespace quench::vboot
