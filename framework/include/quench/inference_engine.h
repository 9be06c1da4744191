// Inference engines: the methods. An engine receives the data and the components it declared
// it needs, and returns Results.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/component.h"
#include "quench/dataset.h"
#include "quench/hyperparameter_objective.h"
#include "quench/inducing_points.h"
#include "quench/kernel.h"
#include "quench/likelihood.h"
#include "quench/model.h"
#include "quench/optimizer.h"
#include "quench/resampler.h"
#include "quench/results.h"
#include "quench/units.h"

namespace quench {

class InferenceEngine;

/// Creates an engine by plugin name with default parameters (through the host's registry);
/// throws ConfigError for an unknown name. How an engine that wraps engines (exact_loo,
/// one_vs_rest, mc_bootstrap) reaches its inner engine.
using EngineFactory = std::function<std::shared_ptr<InferenceEngine>(const std::string& plugin)>;

/// The prior an engine runs on: the exact one, or the inducing-point prior of `inducing:`.
enum class PriorKind { exact, inducing };

/// Services of the host during a run.
struct RunContext {
  /// Worker threads for independent work (draws, folds); 0 = all cores. Results must not
  /// depend on this number.
  int threads = 0;
  /// Called with the fraction done (0..1) on long runs; may be empty.
  std::function<void(double fraction)> progress;
  /// Creates another engine by plugin name with default parameters (for engines that wrap
  /// an inner engine, e.g. mc_bootstrap). Throws ConfigError for an unknown name.
  EngineFactory make_engine;
  /// Where independent units run (quench/units.h map_units); null: threads in this process.
  std::shared_ptr<const UnitExecutor> executor;

  /// `threads` workers in this process, nothing else (tools and tests).
  static RunContext on_threads(int threads) {
    RunContext context;
    context.threads = threads;
    return context;
  }
};

/// Everything an engine works on. Components an engine did not declare may be null.
struct Problem {
  const Dataset* data = nullptr;
  std::shared_ptr<const Kernel> kernel;
  std::shared_ptr<const Likelihood> likelihood;
  std::shared_ptr<const Resampler> resampler;
  std::shared_ptr<const Optimizer> optimizer;
  std::uint64_t seed = 0;
  RunContext context;
  /// The host keeps a fitted model: engines that make one return it in Results::model.
  bool make_model = false;
  /// The pipeline's `inducing:` block: the inducing inputs, chosen once per run with the
  /// kernel's (learned) hyperparameters; null for the exact prior. Engines of
  /// PluginInfo::inducing optional or required build quench::LowRankPrior from it.
  std::shared_ptr<const InducingInputs> inducing;
};

/// What a saved model is rebuilt with: its components as they were when it was trained
/// (learned hyperparameters applied) and the training inputs in engine units.
struct ModelParts {
  std::shared_ptr<const Kernel> kernel;
  std::shared_ptr<const Likelihood> likelihood;
  std::shared_ptr<const Resampler> resampler;
  const Eigen::MatrixXd* X_train = nullptr;
  /// The engines of the loader's registry (for an engine whose model is an inner engine's).
  EngineFactory make_engine = {};
};

/// A model prepared once for repeated retraining on reweighted training data (bootstrap
/// counts, Bayesian-bootstrap weights). predict() must be safe to call from several threads.
class QUENCH_API ResampledModel {
 public:
  virtual ~ResampledModel();
  /// Whether each retrained predictor is a kernel expansion over the training inputs,
  /// f(x) = sum_i a_i k(x_i, x) with the problem's kernel (a_i = 0 for dropped points), so that
  /// the retrains can be kept as their coefficients and evaluated at new inputs (the
  /// mc_bootstrap model). Default: false.
  virtual bool kernel_expansion() const { return false; }
  /// The inputs a kernel_expansion() model's predictors expand over: null (the default) for
  /// the training inputs. A model on the inducing-point prior expands over its inducing inputs
  /// Z, f(x) = sum_j b_j k(z_j, x), and its coefficients have one entry per row of Z.
  virtual const Eigen::MatrixXd* expansion_inputs() const { return nullptr; }
  /// Predictions at the N training inputs followed by the test inputs, for the model trained
  /// with per-point weights w (w_i = 0 drops point i); when `coefficients` is not null (only
  /// asked of a kernel_expansion() model), the a of that predictor (length N). Throws
  /// NumericalError on failure.
  virtual Eigen::VectorXd predict(const Eigen::VectorXd& weights,
                                  Eigen::VectorXd* coefficients) const = 0;
  Eigen::VectorXd predict(const Eigen::VectorXd& weights) const {
    return predict(weights, nullptr);
  }
  /// Whether each retrain has a Gaussian latent posterior whose variance predict_latent gives
  /// (EP and TAP refits: 001 eq 27 with the retrain's sites), so that the predictive of the target
  /// can be taken at an input (the probability of a label, the log predictive density of a
  /// left-out point). Default: false.
  virtual bool latent_variance() const { return false; }
  /// The number of classes C of a multi-class retrain (0, the default: one value per input).
  /// predict() of a C-class model returns the retrain's class probabilities at the N training
  /// inputs then the test inputs, C per input (input-major, length (N + M) C), and takes no
  /// coefficients.
  virtual Eigen::Index classes() const { return 0; }
  /// predict(weights, coefficients) and that retrain's latent variance at the same inputs in
  /// `variance` (length N + M): at the test inputs always, at the training inputs only with
  /// `training_variance` (NaN there otherwise). Only asked of a latent_variance() model: the
  /// default throws std::logic_error.
  virtual Eigen::VectorXd predict_latent(const Eigen::VectorXd& weights,
                                         Eigen::VectorXd* coefficients, Eigen::VectorXd& variance,
                                         bool training_variance) const;
};

class QUENCH_API InferenceEngine : public Component {
 public:
  ~InferenceEngine() override;

  virtual Results run(const Problem& problem) const = 0;

  /// The configuration errors a run would meet before any numerics, found from the problem's
  /// shape and components alone; throws ConfigError. What the engine cannot do with them (a
  /// method not built for the inducing-point prior, a model needing random features the kernel
  /// lacks, an inner engine that cannot do what this one asks of it: check it too) and memory
  /// beyond what the process may use (quench/memory_budget.h). The host calls it when it
  /// validates a pipeline and again before each run, with the problem as the run builds it
  /// except that the inducing inputs are not chosen yet: `inducing_count` is their number M
  /// (0: the exact prior) and Problem::inducing is null. The default checks nothing.
  virtual void check(const Problem& problem, Eigen::Index inducing_count) const;

  /// A model to retrain on weighted data, or nullptr if the engine cannot be retrained
  /// this way (the default).
  virtual std::unique_ptr<ResampledModel> prepare_resampling(const Problem& problem) const;

  /// What retraining this engine on resampled data (prepare_resampling) takes and gives,
  /// declared before any numerics so that an engine retraining it (mc_bootstrap) checks its
  /// resampler, prior and loss against it. Default: not retrainable.
  struct Retraining {
    bool possible = false;         ///< prepare_resampling returns a model
    bool real_weights = false;     ///< takes real weights (Bayesian bootstraps), not only counts
    bool inducing_prior = false;   ///< also on the inducing-point prior
    bool latent_variance = false;  ///< its retrains give ResampledModel::latent_variance()
  };
  virtual Retraining retraining() const { return {}; }

  /// Names of the hyperparameter objectives the engine offers ("evidence", "loo") on `prior`
  /// (the exact prior, or the inducing-point prior of a pipeline's `inducing:`); empty (the
  /// default) when it offers none. `engines` creates the engines a wrapping engine names
  /// (one_vs_rest offers its inner engine's). `validate` checks learn.objective against it, so
  /// hyperparameter_objective() must accept every name it lists for that prior.
  virtual std::vector<std::string> hyperparameter_objectives(const EngineFactory& /*engines*/,
                                                             PriorKind /*prior*/) const {
    return {};
  }
  /// The objective `name` (one of hyperparameter_objectives()) on the problem's training data,
  /// its targets read by the problem's likelihood (Likelihood::target_kind); the kernel and
  /// likelihood it is evaluated with are passed to evaluate(). Throws
  /// ConfigError for a name the engine does not offer.
  virtual std::unique_ptr<HyperparameterObjective> hyperparameter_objective(
      const Problem& problem, const std::string& name) const;

  /// Rebuilds the model this engine left in Results::model from the entries its write() made
  /// (archive.matrix("posterior/...")) and the parts it was trained with; ModelFileError for
  /// entries that are missing or do not fit the parts. Default: ConfigError (the engine makes
  /// no models).
  virtual std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const;
};

}  // namespace quench
