// adatap_compare: runs a pipeline holding adatap_bootstrap engine(s) and one mc_bootstrap
// engine and prints the deviations the 000 reproductions ask for:
//   - learning curve (Fig. 1): relative deviation of every test_error_* per sweep point;
//   - predictions at test inputs (Fig. 2): per-input relative deviation of the bootstrap mean
//     (in the original target units) and variance, with the fractions within 1.5 % / 15 %;
//   - predictor density (Figs. 3-5): bounded L1 distance between the Monte-Carlo histogram of
//     predictor_samples and the binned eq-67 density (same bins), per training input.
//
//   - with --equal-cost R (Fig. 2 setting, issue item 8): the pipeline's mc_bootstrap engine is
//     the reference (e.g. 20000 samples); Monte-Carlo is rerun R times (other seeds) with the
//     number of samples that fits in the ADATAP wall time (its `total` timing, against the
//     reference's prepare + per-sample time), and the errors of the means and variances at the
//     test inputs against the reference are printed for ADATAP and for equal-cost Monte-Carlo.
//
//   adatap_compare <pipeline.yaml> [--equal-cost R] [plugin_dir ...]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "quench/errors.h"
#include "quench/pipeline.h"
#include "quench/registry.h"
#include "quench/results.h"
#include "quench/tool_main.h"

namespace {

using quench::Results;

const char* status_name(quench::RunStatus s) {
  switch (s) {
    case quench::RunStatus::ok:
      return "ok";
    case quench::RunStatus::not_converged:
      return "not_converged";
    default:
      return "failed";
  }
}

std::string sweep_label(const Results& r) {
  std::string s;
  for (const auto& [k, v] : r.sweep) s += k + "=" + std::to_string(v) + " ";
  return s.empty() ? "(no sweep)" : s;
}

void compare_errors(const Results& a, const Results& mc) {
  for (const char* name : {"test_error_square", "test_error_eps_insensitive"}) {
    if (!a.scalars.count(name) || !mc.scalars.count(name)) continue;
    const double x = a.scalars.at(name), ref = mc.scalars.at(name);
    const double se = mc.scalars.at(std::string(name) + "_stderr");
    std::printf("  %-28s %-16s adatap %.5f  mc %.5f +- %.5f  deviation %+6.2f %%\n", name,
                a.engine.c_str(), x, ref, se, 100 * (x - ref) / ref);
  }
}

void compare_predictions(const Results& a, const Results& mc) {
  if (!a.vectors.count("prediction_mean") || !mc.vectors.count("prediction_mean")) return;
  const Eigen::VectorXd &am = a.vectors.at("prediction_mean"),
                        &mm = mc.vectors.at("prediction_mean");
  const Eigen::VectorXd &av = a.vectors.at("prediction_variance"),
                        &mv = mc.vectors.at("prediction_variance");
  const double mu = a.scalars.at("target_mean"), sd = a.scalars.at("target_scale");
  int mean_ok = 0, var_ok = 0;
  double mean_max = 0, var_max = 0;
  const auto n = am.size();
  std::printf("  %s vs %s at %ld test inputs (means in original units: y = %.4g + %.4g y_std)\n",
              a.engine.c_str(), mc.engine.c_str(), static_cast<long>(n), mu, sd);
  std::printf("    %4s %10s %10s %8s %10s %10s %8s\n", "i", "mean_a", "mean_mc", "dev%", "var_a",
              "var_mc", "dev%");
  for (Eigen::Index i = 0; i < n; ++i) {
    const double ma = mu + sd * am(i), mmc = mu + sd * mm(i);
    const double va = sd * sd * av(i), vmc = sd * sd * mv(i);
    const double dm = 100 * (ma - mmc) / std::abs(mmc), dv = 100 * (va - vmc) / vmc;
    mean_ok += std::abs(dm) <= 1.5;
    var_ok += std::abs(dv) <= 15;
    mean_max = std::max(mean_max, std::abs(dm));
    var_max = std::max(var_max, std::abs(dv));
    std::printf("    %4ld %10.4f %10.4f %+8.3f %10.5f %10.5f %+8.2f\n", static_cast<long>(i), ma,
                mmc, dm, va, vmc, dv);
  }
  std::printf("  means within 1.5 %%: %d/%ld (%.1f %%), max %.2f %%\n", mean_ok,
              static_cast<long>(n), 100.0 * mean_ok / n, mean_max);
  std::printf("  variances within 15 %%: %d/%ld (%.1f %%), max %.2f %%\n", var_ok,
              static_cast<long>(n), 100.0 * var_ok / n, var_max);
}

void compare_density(const Results& a, const Results& mc) {
  if (!a.matrices.count("predictor_density_bins") || !mc.matrices.count("predictor_samples"))
    return;
  const Eigen::MatrixXd& P = a.matrices.at("predictor_density_bins");
  const Eigen::VectorXd& edges = a.vectors.at("predictor_density_edges");
  const Eigen::MatrixXd& F = mc.matrices.at("predictor_samples");
  const auto n = P.rows(), B = P.cols(), T = F.cols();
  const double lo = edges(0), width = edges(1) - edges(0);
  std::vector<double> l1(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::VectorXd h = Eigen::VectorXd::Zero(B);
    double outside = 0;
    for (Eigen::Index t = 0; t < T; ++t) {
      const auto b = static_cast<Eigen::Index>(std::floor((F(i, t) - lo) / width));
      if (b < 0 || b >= B)
        outside += 1;
      else
        h(b) += 1;
    }
    h /= static_cast<double>(T);
    // L1 = 1/2 int |rho_0 - rho| on the histogram bins; MC mass outside the grid counts fully.
    l1[static_cast<std::size_t>(i)] =
        0.5 * ((h - P.row(i).transpose()).cwiseAbs().sum() + outside / static_cast<double>(T));
  }
  int le01 = 0, ge02 = 0;
  double mx = 0, sum = 0;
  std::size_t arg = 0;
  for (std::size_t i = 0; i < l1.size(); ++i) {
    le01 += l1[i] <= 0.1;
    ge02 += l1[i] >= 0.2;
    sum += l1[i];
    if (l1[i] > mx) mx = l1[i], arg = i;
  }
  std::printf("  density L1 (%s vs %s histogram, bin %.3g, %ld samples, %ld inputs):\n",
              a.engine.c_str(), mc.engine.c_str(), width, static_cast<long>(T),
              static_cast<long>(n));
  std::printf("    L1 <= 0.1: %.1f %%   L1 >= 0.2: %.1f %%   max %.4f (input %zu)   mean %.4f\n",
              100.0 * le01 / n, 100.0 * ge02 / n, mx, arg, sum / n);
  // Abundance of L1 values (000 Fig. 5), bins of 0.02.
  std::vector<int> counts(26, 0);
  for (double v : l1) ++counts[std::min<std::size_t>(25, static_cast<std::size_t>(v / 0.02))];
  std::printf("    histogram of L1 (bin 0.02):");
  for (int c : counts) std::printf(" %d", c);
  std::printf("\n");
}

// Relative errors of bootstrap means (original units) and variances at the test inputs.
struct PredictionErrors {
  double mean_rms = 0, var_rms = 0, mean_within = 0, var_within = 0;  // fractions in [0, 1]
};

PredictionErrors prediction_errors(const Results& r, const Results& ref, double mu, double sd) {
  const Eigen::VectorXd &m = r.vectors.at("prediction_mean"),
                        &v = r.vectors.at("prediction_variance");
  const Eigen::VectorXd &mr = ref.vectors.at("prediction_mean"),
                        &vr = ref.vectors.at("prediction_variance");
  PredictionErrors e;
  const auto n = m.size();
  for (Eigen::Index i = 0; i < n; ++i) {
    const double dm = sd * (m(i) - mr(i)) / std::abs(mu + sd * mr(i)), dv = (v(i) - vr(i)) / vr(i);
    e.mean_rms += dm * dm / n;
    e.var_rms += dv * dv / n;
    e.mean_within += (std::abs(dm) <= 0.015) / static_cast<double>(n);
    e.var_within += (std::abs(dv) <= 0.15) / static_cast<double>(n);
  }
  e.mean_rms = std::sqrt(e.mean_rms);
  e.var_rms = std::sqrt(e.var_rms);
  return e;
}

void print_errors(const char* who, const PredictionErrors& e) {
  std::printf(
      "  %-34s mean rms %.3f %%  within 1.5 %%: %5.1f %%   variance rms %6.2f %%  "
      "within 15 %%: %5.1f %%\n",
      who, 100 * e.mean_rms, 100 * e.mean_within, 100 * e.var_rms, 100 * e.var_within);
}

// Monte-Carlo with the wall time of ADATAP, `reps` times, against the pipeline's reference.
void equal_cost(const std::string& path, const std::vector<Results>& runs, int reps,
                const quench::Registry& registry, const quench::RunOptions& options) {
  const Results *a = nullptr, *ref = nullptr;
  for (const auto& r : runs) {
    if (r.plugin == "adatap_bootstrap" && !a) a = &r;
    if (r.plugin == "mc_bootstrap" && !ref) ref = &r;
  }
  if (!a || !ref || !a->vectors.count("prediction_mean")) {
    std::printf(
        "equal cost: needs an adatap_bootstrap and an mc_bootstrap engine with test inputs\n");
    return;
  }
  const double t_a = a->timings.at("total");
  const double per_sample = ref->timings.at("per_sample"), prepare = ref->timings.at("prepare");
  const auto samples = std::max<long>(2, static_cast<long>((t_a - prepare) / per_sample));
  std::printf(
      "== equal cost: ADATAP %.3f s (solve %.3f s); Monte-Carlo %.2f ms/sample + %.3f s "
      "prepare -> %ld samples; reference %g samples; %d repetitions\n",
      t_a, a->timings.at("solve"), 1e3 * per_sample, prepare, samples,
      ref->scalars.count("samples") ? ref->scalars.at("samples") : -1.0, reps);
  const double mu = a->scalars.at("target_mean"), sd = a->scalars.at("target_scale");
  print_errors("ADATAP", prediction_errors(*a, *ref, mu, sd));
  YAML::Node root = YAML::LoadFile(path);
  const std::string dir = path.find('/') == std::string::npos
                              ? std::string(".")
                              : path.substr(0, path.find_last_of('/'));
  const auto seed = root["seed"] ? root["seed"].as<std::uint64_t>() : 0;
  std::vector<PredictionErrors> mc;
  for (int rep = 0; rep < reps; ++rep) {
    YAML::Node engine;
    engine["name"] = "monte_carlo_equal_cost";
    engine["plugin"] = "mc_bootstrap";
    engine["samples"] = samples;
    engine["keep_samples"] = false;
    root["engines"] = YAML::Node(YAML::NodeType::Sequence);
    root["engines"].push_back(engine);
    root["seed"] = seed + 1000 + static_cast<std::uint64_t>(rep);
    root.remove("outputs");
    const auto p = quench::Pipeline::from_string(YAML::Dump(root), path, dir);
    const auto out = p.run(registry, options);
    mc.push_back(prediction_errors(out.at(0), *ref, mu, sd));
  }
  PredictionErrors avg;
  for (const auto& e : mc) {
    avg.mean_rms += e.mean_rms / reps;
    avg.var_rms += e.var_rms / reps;
    avg.mean_within += e.mean_within / reps;
    avg.var_within += e.var_within / reps;
  }
  char label[64];
  std::snprintf(label, sizeof label, "Monte-Carlo, %ld samples (avg of %d)", samples, reps);
  print_errors(label, avg);
}

}  // namespace

static int main_body(int argc, char** argv) {
  if (argc < 2)
    throw quench::ConfigError(quench::SourceLocation{},
                              "adatap_compare: no pipeline file given (see --help)");
  const auto pipeline = quench::Pipeline::from_file(argv[1]);
  int equal_cost_reps = 0, first_dir = 2;
  if (argc > 3 && std::string(argv[2]) == "--equal-cost")
    equal_cost_reps = std::stoi(argv[3]), first_dir = 4;
  const std::vector<std::string> dirs(argv + first_dir, argv + argc);
  const auto registry = quench::Registry::discover(dirs, pipeline.plugin_paths());
  quench::RunOptions options;
  options.threads = 2;
  const auto runs = pipeline.run(registry, options);
  // Group by sweep point; in each, compare every adatap engine with the mc_bootstrap one.
  std::map<std::string, std::vector<const Results*>> groups;
  std::vector<std::string> order;
  for (const auto& r : runs) {
    const auto key = sweep_label(r);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  for (const auto& key : order) {
    std::printf("== %s\n", key.c_str());
    const Results* mc = nullptr;
    for (const auto* r : groups[key]) {
      std::printf("  %s (%s): %s %s", r->engine.c_str(), r->plugin.c_str(),
                  status_name(r->status.code), r->status.message.c_str());
      if (r->scalars.count("iterations"))
        std::printf(" iterations %g, exact G %g, solve %.3f s", r->scalars.at("iterations"),
                    r->scalars.at("exact_g_computations"), r->timings.at("solve"));
      std::printf("\n");
      if (r->plugin == "mc_bootstrap") mc = r;
    }
    if (!mc) continue;
    for (const auto* r : groups[key])
      if (r->plugin == "adatap_bootstrap") {
        compare_errors(*r, *mc);
        compare_predictions(*r, *mc);
        compare_density(*r, *mc);
      }
  }
  if (equal_cost_reps > 0) equal_cost(argv[1], runs, equal_cost_reps, registry, options);
  return 0;
}

int main(int argc, char** argv) {
  return quench::tool_main(argc, argv,
                           "<pipeline.yaml> [--equal-cost R] [plugin_dir ...]\nRuns the pipeline "
                           "and compares every adatap engine with the mc_bootstrap one.",
                           [&] { return main_body(argc, argv); });
}
