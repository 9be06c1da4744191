// The analytical ADATAP bootstrap engine: GP regression with a Gaussian likelihood (000 Secs. 4-5,
// App. A), any other likelihood (GP classifiers with the probit) through the general replica EP
// of general_solver.h (docs/adatap_classification.md), and a C-class likelihood through
// class_solver.h (docs/adatap_multiclass.md). Outputs use the names of mc_bootstrap
// (docs/results.md) so both run side by side in one pipeline.
#pragma once

#include "adatap_solver.h"
#include "class_outputs.h"
#include "general_solver.h"
#include "quench/inference_engine.h"
#include "quench/parameters.h"

namespace quench::adatap {

class AdatapBootstrap final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit AdatapBootstrap(const Params& params);
  Results run(const Problem& problem) const override;
  /// The solver's options on the inducing-point prior (check_sparse_options), the noise of a
  /// non-Gaussian likelihood in the likelihood, the dense prior's N x N matrices in memory.
  void check(const Problem& problem, Eigen::Index inducing_count) const override;
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override;

 private:
  /// A Gaussian likelihood of variance `noise` (000) and any other (the general replica EP),
  /// each on the prior of make_bootstrap_prior (bootstrap_prior.h): dense or inducing points.
  Results run_gaussian(const Problem& problem, double noise) const;
  Results run_general(const Problem& problem) const;
  /// A multi-class likelihood (its ClassLikelihood): the replica EP of class_solver.h on the
  /// dense prior, the outputs of class_outputs.h.
  Results run_classes(const Problem& problem) const;
  /// What a non-Gaussian likelihood needs on either prior: the training observations and the
  /// occupation pmf normalized over the kept k.
  struct GeneralInputs {
    Observations y;
    Occupation occupation;
  };
  GeneralInputs general_inputs(const Problem& problem) const;
  /// The outputs of the per-site parameters on either prior: eqs 53, 54, 39-40, 67, the
  /// solver's counters and the data's units.
  Results site_results(const Solution& sol, const Problem& problem, const Occupation& occ,
                       double s2) const;
  SolverOptions options_;
  GeneralOptions general_;
  ClassOutputOptions classes_;
  double epsilon_, beta_, density_bin_, tail_;
  bool density_;
};

/// The resampler's occupation pmf p(s = k), k = 0..max_occupation(tail) (footnote 2).
Occupation occupation_of(const Resampler& resampler, double tail);
/// The same normalized over the kept k (the truncated tail's mass spread over them), as the
/// non-Gaussian solvers take it.
Occupation normalized_occupation(const Resampler& resampler, double tail);

}  // namespace quench::adatap
