// `learn:` in a pipeline run: the kernel and likelihood built once on the training rows, the
// engine's objective maximized by the learner (quench/hyperparameter_learning.h), and the
// learned values applied to the components of every run.
#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "pipeline_spec.h"
#include "quench/hyperparameter_learning.h"
#include "quench/inference_engine.h"
#include "quench/registry.h"
#include "quench/registry_models.h"

namespace quench {
namespace {

// An objective that reports each evaluation (long learning runs: a line with the count, the
// value and the time, since an optimizer's iterations to go are not known in advance).
class ReportedObjective final : public HyperparameterObjective {
 public:
  ReportedObjective(std::unique_ptr<HyperparameterObjective> inner,
                    std::function<void(int, double)> report)
      : inner_(std::move(inner)), report_(std::move(report)) {}
  std::string quantity() const override { return inner_->quantity(); }
  ObjectiveValue evaluate(const Kernel& kernel, const Likelihood& likelihood) override {
    ObjectiveValue v = inner_->evaluate(kernel, likelihood);
    report_(++evaluations_, v.value);
    return v;
  }

 private:
  std::unique_ptr<HyperparameterObjective> inner_;
  std::function<void(int, double)> report_;
  int evaluations_ = 0;
};

struct Components {
  std::shared_ptr<Kernel> kernel;
  std::shared_ptr<Likelihood> likelihood;
};

Components build(const ResolvedPipeline& resolved, const Registry& registry, const Dataset& data) {
  Components c;
  const auto plain = resolved.components.find(Family::kernel);
  c.kernel = build_pipeline_kernel(
      resolved.kernel_tree
          ? kernel_tree_record(*resolved.kernel_tree, std::nullopt)
          : component_record(*plain->second.entry,
                             Params(plain->second.entry->info->schema, plain->second.fixed),
                             std::nullopt),
      registry, data);
  const auto& l = resolved.components.at(Family::likelihood);
  c.likelihood = registry.create_as<Likelihood>(Family::likelihood, l.entry->info->name,
                                                Params(l.entry->info->schema, l.fixed));
  return c;
}

LearningOptions options_for(const LearnSpec& l, std::uint64_t seed) {
  LearningOptions o;
  for (const auto& [key, where] : l.parameters) o.parameters.push_back(key);
  o.bounds = l.bounds;
  o.restarts = static_cast<int>(l.restarts);
  o.restart_spread = l.restart_spread;
  o.stationarity = l.stationarity;
  o.seed = seed;
  return o;
}

// Whether `name` is a part's name in a learn path: "2" in a sum or product, "c2" in a kernel per
// class (quench/kernel_record.h kernel_part_name).
bool part_name(const std::string& name) {
  const std::size_t digits = name.compare(0, 1, "c") == 0 ? 1 : 0;
  return name.size() > digits && name.find_first_not_of("0123456789", digits) == std::string::npos;
}

// For a path into a composite kernel ("kernel.2.amplitude", "kernel.c7.width") whose part does
// not exist: which part is missing and the parts there are ("kernel.2 is not one of kernel.0,
// kernel.1"); empty when every part on the path exists.
std::string missing_part(const std::string& key, const std::vector<std::string>& names) {
  std::string prefix = "kernel";
  for (std::size_t start = prefix.size() + 1; start < key.size();) {
    const std::size_t dot = key.find('.', start);
    if (dot == std::string::npos) return "";
    const std::string index = key.substr(start, dot - start);
    if (!part_name(index)) return "";
    const std::string part = prefix + "." + index;
    const auto under = [](const std::string& name, const std::string& p) {
      return name.compare(0, p.size() + 1, p + ".") == 0;
    };
    if (std::none_of(names.begin(), names.end(), [&](const auto& n) { return under(n, part); })) {
      std::vector<std::string> parts;
      for (const std::string& n : names) {
        if (!under(n, prefix)) continue;
        const std::string sibling = n.substr(0, n.find('.', prefix.size() + 1));
        if (part_name(sibling.substr(prefix.size() + 1)) &&
            std::find(parts.begin(), parts.end(), sibling) == parts.end())
          parts.push_back(sibling);
      }
      std::string list;
      for (const std::string& p : parts) list += (list.empty() ? "" : ", ") + p;
      return parts.empty() ? part + " is not a part (" + prefix +
                                 " is not a sum, a product or a kernel per class)"
                           : part + " is not one of " + list;
    }
    prefix = part;
    start = dot + 1;
  }
  return "";
}

// Each parameter checked on its own, so every problem is reported at its own entry.
std::vector<Diagnostic> check(const LearnSpec& l, const Components& c) {
  std::vector<Diagnostic> found;
  for (const auto& [key, where] : l.parameters) {
    LearningOptions one;
    one.parameters = {key};
    if (auto b = l.bounds.find(key); b != l.bounds.end()) one.bounds[key] = b->second;
    try {
      check_learning_request(*c.kernel, *c.likelihood, one);
    } catch (const ConfigError& e) {
      for (const Diagnostic& d : e.diagnostics()) {
        std::string message = d.message;
        const auto dot = key.find('.');
        std::vector<std::string> names;
        for (const auto& h : key.substr(0, dot) == "kernel" ? c.kernel->hyperparameters()
                                                            : c.likelihood->hyperparameters())
          names.push_back(key.substr(0, dot) + "." + h.name);
        if (message.find("unknown hyperparameter") != std::string::npos) {
          const std::string part = missing_part(key, names);
          message = part.empty() ? message + suggestion(key, names)
                                 : "learn: '" + key + "' names no part of the kernel: " + part;
        }
        const bool about_bounds =
            message.find("bounds") != std::string::npos && l.bounds_at.count(key) != 0;
        found.push_back({about_bounds ? l.bounds_at.at(key) : where, message});
      }
    }
  }
  for (const auto& [key, where] : l.bounds_at)
    if (std::none_of(l.parameters.begin(), l.parameters.end(),
                     [&bound = key](const auto& p) { return p.first == bound; }))
      found.push_back({where, "learn.bounds: '" + key + "' is not among learn.parameters"});
  return found;
}

}  // namespace

std::vector<Diagnostic> learning_diagnostics(const PipelineSpec& spec,
                                             const ResolvedPipeline& resolved,
                                             const Registry& registry, const Dataset& data) {
  if (!spec.learn || !resolved.learning) return {};
  return check(*spec.learn, build(resolved, registry, data));
}

LearningReport learn_for_pipeline(const PipelineSpec& spec, const ResolvedPipeline& resolved,
                                  const Registry& registry, const Dataset& data, int threads,
                                  const std::function<void(int, double)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  const LearnSpec& l = *spec.learn;
  const ResolvedLearning& how = *resolved.learning;
  Components c = build(resolved, registry, data);
  if (auto problems = check(l, c); !problems.empty()) throw ConfigError(std::move(problems));

  Problem problem;
  problem.data = &data;
  problem.kernel = c.kernel;
  problem.likelihood = c.likelihood;
  problem.seed = spec.seed;
  problem.context.threads = threads;
  problem.context.make_engine = registry_engines(registry);
  problem.inducing = choose_inducing(spec, *c.kernel, data);
  const auto engine =
      registry.create_as<InferenceEngine>(Family::engine, how.engine.entry->info->name,
                                          Params(how.engine.entry->info->schema, how.engine.fixed));
  std::unique_ptr<HyperparameterObjective> objective =
      engine->hyperparameter_objective(problem, l.objective);
  if (progress) objective = std::make_unique<ReportedObjective>(std::move(objective), progress);
  const auto optimizer = registry.create_as<Optimizer>(Family::optimizer, how.optimizer->info->name,
                                                       Params(how.optimizer->info->schema, {}));
  LearningReport report = learn_hyperparameters(*c.kernel, *c.likelihood, *objective, *optimizer,
                                                options_for(l, spec.seed));
  report.objective = l.objective;
  report.engine = how.engine_name;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace quench
