// `inducing:` in a pipeline run: its count checked against the training rows, and the inducing
// inputs chosen with a kernel as it stands (quench/inducing_points.h). Learning chooses them
// with the starting hyperparameters; each run chooses them again with its own (learned or
// swept) values, as Burt et al. (2020) alternate selection and learning
// (docs/design.md, "Inducing points").
#include <string>

#include "pipeline_spec.h"
#include "quench/inducing_points.h"
#include "quench/low_rank_prior.h"

namespace quench {

std::vector<Diagnostic> inducing_diagnostics(const PipelineSpec& spec, const Dataset& data) {
  if (!spec.inducing) return {};
  const Eigen::Index n = data.X_train.rows(), m = spec.inducing->count;
  if (m > n)
    return {{spec.inducing_at, "inducing.count " + std::to_string(m) + " exceeds the " +
                                   std::to_string(n) +
                                   " training rows; with M >= N the exact engines are cheaper "
                                   "(drop 'inducing') or choose a count below N"}};
  try {
    LowRankPrior::check_memory(n, m);  // before any N x M array, here and in every engine
  } catch (const ConfigError& e) {
    return {{spec.inducing_at, "inducing.count: " + e.diagnostics().front().message}};
  }
  return {};
}

std::shared_ptr<const InducingInputs> choose_inducing(const PipelineSpec& spec,
                                                      const Kernel& kernel, const Dataset& data) {
  if (!spec.inducing) return nullptr;
  return std::make_shared<const InducingInputs>(
      select_inducing_inputs(kernel, data.X_train, *spec.inducing, spec.seed));
}

std::string describe_inducing(const InducingInputs& inducing) {
  return std::to_string(inducing.Z.rows()) + " inputs by " + to_string(inducing.method) +
         " among " + std::to_string(inducing.candidates) + " training rows, " +
         to_string(inducing.form) + " prior";
}

}  // namespace quench
