// The BLAS thread policy (quench/blas_thread_policy.h) against fixed thread counts: each engine
// run as a pipeline through quench::Pipeline::run (the layer the CLI and Python use), with the
// policy (--blas-threads 0), with 1 and with 2 BLAS threads, interleaved in the same run; the
// ratio policy / min(1 thread, 2 threads) should stay <= 1.1 in every cell.
//
//   quench_bench_blas_threads [--n 100,250,500,1000,2000,4000] [--methods a,b,...]
//                             [--reps K] [--data path/to/letter.csv]
//
// First the dense kernels alone: dpotrf and dgemm at 1 and 2 BLAS threads per N.
//
// Data: the first N rows of examples/data/letter.csv held in memory (RunOptions::train_table),
// 16 inputs standardized; regression target the letter's index (standardized), classification
// target letters 0-12 against 13-25. Pipelines as the Python estimators build them:
//   gp_learn     exact_gp_regression, ARD Gaussian kernel, learn length scales, amplitude and
//                noise by the evidence (no restarts), then the fit
//   tap_fit      tap, Gaussian kernel width 1 with latent noise 0.01, step likelihood
//   tap_learn    the same, learn width and noise by the TAP evidence, then the fit
//   ep_fit, ep_learn   as tap_fit, tap_learn with ep
//   adatap_reg   adatap_bootstrap (density false), Gaussian kernel width 1, noise 0.1, S = N
//   adatap_cls   adatap_bootstrap, Gaussian kernel width 1, probit noise 1, S = N
//   mc_bootstrap mc_bootstrap of exact_gp_regression, 100 Poisson samples, as adatap_reg
// Learning rows also show the objective evaluations of each setting (policy / 1 / 2): the BLAS
// thread count changes the last bits, so L-BFGS may take another path and another number of
// steps. Worker threads: all cores (the default). Each cell is the best of K interleaved rounds of
// the three settings (the first setting rotating), K = 5 when a round takes under 1 s, 3 under 20
// s, else 1, unless --reps says. Learning cells at N >= 4000 are left out unless named with
// --methods (each would take minutes).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "quench/blas_thread_policy.h"
#include "quench/cholesky.h"
#include "quench/dataset.h"
#include "quench/parallel.h"
#include "quench/pipeline.h"
#include "quench/provenance.h"
#include "quench/registry.h"
#include "quench/rng.h"
#include "quench/tool_main.h"

namespace {

const char* const kInputs =
    "[x.box, y.box, width, high, onpix, x.bar, y.bar, x2bar, y2bar, xybar, x2ybr, xy2br, "
    "x.ege, xegvy, y.ege, yegvx]";

struct Method {
  const char* name;
  const char* what;  // the pipeline's components, learn: and engines (YAML)
  bool classification;
  bool learning;
};

const std::vector<Method>& methods() {
  static const std::vector<Method> all = {
      {"gp_learn",
       "components:\n  kernel: {plugin: gaussian}\n  likelihood: {plugin: gaussian, noise: 0.1}\n"
       "learn: {objective: evidence, parameters: [kernel.length_scales, kernel.amplitude, "
       "likelihood.noise]}\nengines:\n  - {name: gp, plugin: exact_gp_regression}\n",
       false, true},
      {"tap_fit",
       "components:\n  kernel: {plugin: gaussian, width: 1.0, noise: 0.01}\n"
       "  likelihood: {plugin: probit}\nengines:\n  - {name: gp, plugin: tap}\n",
       true, false},
      {"tap_learn",
       "components:\n  kernel: {plugin: gaussian, width: 1.0, noise: 0.01}\n"
       "  likelihood: {plugin: probit}\nlearn: {objective: evidence, engine: tap, parameters: "
       "[kernel.width, kernel.noise]}\nengines:\n  - {name: gp, plugin: tap}\n",
       true, true},
      {"ep_fit",
       "components:\n  kernel: {plugin: gaussian, width: 1.0, noise: 0.01}\n"
       "  likelihood: {plugin: probit}\nengines:\n  - {name: gp, plugin: ep}\n",
       true, false},
      {"ep_learn",
       "components:\n  kernel: {plugin: gaussian, width: 1.0, noise: 0.01}\n"
       "  likelihood: {plugin: probit}\nlearn: {objective: evidence, engine: ep, parameters: "
       "[kernel.width, kernel.noise]}\nengines:\n  - {name: gp, plugin: ep}\n",
       true, true},
      {"adatap_reg",
       "components:\n  kernel: {plugin: gaussian, width: 1.0}\n"
       "  likelihood: {plugin: gaussian, noise: 0.1}\n"
       "  resampler: {plugin: poisson_bootstrap, ratio: 1}\n"
       "engines:\n  - {name: adatap, plugin: adatap_bootstrap, density: false}\n",
       false, false},
      {"adatap_cls",
       "components:\n  kernel: {plugin: gaussian, width: 1.0, noise: 0.0}\n"
       "  likelihood: {plugin: probit, noise: 1.0}\n"
       "  resampler: {plugin: poisson_bootstrap, ratio: 1}\n"
       "engines:\n  - {name: adatap, plugin: adatap_bootstrap}\n",
       true, false},
      {"mc_bootstrap",
       "components:\n  kernel: {plugin: gaussian, width: 1.0}\n"
       "  likelihood: {plugin: gaussian, noise: 0.1}\n"
       "  resampler: {plugin: poisson_bootstrap, ratio: 1}\n"
       "engines:\n  - {name: monte_carlo, plugin: mc_bootstrap, samples: 100, "
       "inner: exact_gp_regression, keep_samples: false}\n",
       false, false},
  };
  return all;
}

std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

// The first n rows of letter.csv: the 16 inputs, `index` (the letter, a regression target) and
// `label` (+1 for letters 0-12, -1 for 13-25).
std::shared_ptr<const quench::CsvTable> first_rows(const quench::CsvTable& letter, int n) {
  if (n > letter.size())
    throw quench::Error("--n " + std::to_string(n) + ": " + letter.file + " has only " +
                        std::to_string(letter.size()) + " rows");
  auto table = std::make_shared<quench::CsvTable>();
  table->file = letter.file;
  const Eigen::Index y = letter.column_index("y");
  std::vector<Eigen::Index> inputs;
  for (Eigen::Index j = 0; j < Eigen::Index(letter.columns.size()); ++j)
    if (j != y && letter.columns[std::size_t(j)] != "train") {
      inputs.push_back(j);
      table->columns.push_back(letter.columns[std::size_t(j)]);
    }
  table->columns.insert(table->columns.end(), {"index", "label"});
  for (int i = 0; i < n; ++i) {
    for (const auto j : inputs) table->cells.push_back(letter.cell(i, j));
    table->cells.push_back(letter.cell(i, y));
    table->cells.push_back(std::stoi(letter.cell(i, y)) <= 12 ? "1" : "-1");
    table->rows.push_back(letter.rows[std::size_t(i)]);
  }
  return table;
}

std::string pipeline_yaml(const Method& m) {
  return std::string("name: blas_threads_bench\nseed: 1\ndata:\n  file: letter rows\n  target: ") +
         (m.classification ? "label" : "index") + "\n  inputs: " + kInputs +
         "\n  standardize_inputs: true\n" +
         (m.classification ? "" : "  standardize_target: true\n") + m.what +
         "outputs: {plots: false, tables: false}\n";
}

struct Cell {
  std::array<double, 3> best{1e300, 1e300, 1e300};  // policy, 1 thread, 2 threads
  std::array<int, 3> evaluations{0, 0, 0};          // learning's objective evaluations, last round
  int policy_threads = 0;
  int rounds = 0;
  std::string failure;
};

// One cell: the three settings interleaved, the first rotating between rounds.
Cell measure(const quench::Pipeline& pipeline, const quench::Registry& registry,
             const std::shared_ptr<const quench::CsvTable>& rows, int reps) {
  constexpr std::array<int, 3> kSettings = {0, 1, 2};  // RunOptions::blas_threads
  Cell cell;
  int rounds = reps > 0 ? reps : 1;
  for (int round = 0; round < rounds; ++round) {
    double round_seconds = 0;
    for (int s = 0; s < 3; ++s) {
      const int setting = (s + round) % 3;
      quench::RunOptions options;
      options.blas_threads = kSettings[std::size_t(setting)];
      options.report = false;
      options.train_table = rows;
      quench::Provenance provenance;
      const auto t0 = std::chrono::steady_clock::now();
      const auto runs = pipeline.run(registry, options, provenance);
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      cell.best[std::size_t(setting)] = std::min(cell.best[std::size_t(setting)], t);
      round_seconds += t;
      if (setting == 0) cell.policy_threads = provenance.blas_threads;
      if (!runs.empty() && runs[0].learning)
        cell.evaluations[std::size_t(setting)] = runs[0].learning->evaluations;
      for (const auto& r : runs)
        if (r.status.code != quench::RunStatus::ok && cell.failure.empty())
          cell.failure = std::string(quench::to_string(r.status.code)) + ": " + r.status.message;
    }
    if (reps <= 0 && round == 0) rounds = round_seconds < 1 ? 5 : round_seconds < 20 ? 3 : 1;
  }
  cell.rounds = rounds;
  return cell;
}

// The dense kernels under the policy: dpotrf (quench::Cholesky) and dgemm (an Eigen product,
// through BLAS) at 1 and 2 BLAS threads, best of interleaved rounds.
void print_dense_kernels(const std::vector<int>& sizes) {
  std::printf("%-13s %5s %12s %12s %12s %12s\n", "dense kernel", "N", "dpotrf 1 [s]",
              "dpotrf 2 [s]", "dgemm 1 [s]", "dgemm 2 [s]");
  for (const int n : sizes) {
    quench::RngStream rng(1, std::uint64_t(n));
    Eigen::MatrixXd M(n, n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) M(i, j) = rng.normal();
    Eigen::MatrixXd A = M * M.transpose(), C(n, n);
    A.diagonal().array() += n;
    std::array<double, 4> best{1e300, 1e300, 1e300, 1e300};
    const int rounds = n <= 1000 ? 20 : 3;
    for (int round = 0; round < rounds; ++round)
      for (const int threads : {1, 2}) {
        const quench::ScopedBlasThreads blas(threads);
        const std::size_t at = std::size_t(2 * (threads - 1));
        best[at] = std::min(best[at], quench::bench::best_of(1, [&] { quench::Cholesky chol(A); }));
        best[at + 1] =
            std::min(best[at + 1], quench::bench::best_of(1, [&] { C.noalias() = A * M; }));
      }
    std::printf("%-13s %5d %12.5f %12.5f %12.5f %12.5f\n", "", n, best[0], best[2], best[1],
                best[3]);
  }
  std::printf("\n");
}

}  // namespace

static int main_body(int argc, char** argv) {
  std::string data = std::string(QUENCH_EXAMPLE_DATA) + "/letter.csv";
  std::vector<int> sizes = {100, 250, 500, 1000, 2000, 4000};
  std::vector<std::string> chosen;
  int reps = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--n" && has_value) {
      sizes.clear();
      for (const auto& n : comma_list(argv[++i])) sizes.push_back(std::stoi(n));
    } else if (arg == "--methods" && has_value) {
      chosen = comma_list(argv[++i]);
    } else if (arg == "--reps" && has_value) {
      reps = std::atoi(argv[++i]);
    } else if (arg == "--data" && has_value) {
      data = argv[++i];
    } else {
      throw quench::Error("unknown argument '" + arg + "' (--help)");
    }
  }
  for (const auto& name : chosen)
    if (std::none_of(methods().begin(), methods().end(),
                     [&](const Method& m) { return name == m.name; }))
      throw quench::Error("unknown method '" + name + "' (--help lists them)");

  const auto registry = quench::Registry::discover();
  const quench::CsvTable letter = quench::read_csv(data);
  std::printf(
      "BLAS thread policy against fixed BLAS threads (wall seconds, best of k interleaved "
      "rounds; worker threads: all cores; policy: 1 BLAS thread below %lld training rows)\n\n",
      static_cast<long long>(quench::kMultithreadedBlasRows));
  print_dense_kernels(sizes);
  std::printf("%-13s %5s %7s %10s %10s %10s %8s %3s  %s\n", "method", "N", "policy", "policy [s]",
              "1 thr [s]", "2 thr [s]", "ratio", "k", "learning evaluations");
  double worst = 0;
  std::vector<std::string> skipped;
  for (const Method& m : methods()) {
    const bool named = std::find(chosen.begin(), chosen.end(), m.name) != chosen.end();
    if (!chosen.empty() && !named) continue;
    const auto pipeline = quench::Pipeline::from_string(pipeline_yaml(m), m.name);
    for (const int n : sizes) {
      if (m.learning && n >= 4000 && !named) {
        skipped.push_back(std::string(m.name) + " N=" + std::to_string(n));
        continue;
      }
      const Cell cell = measure(pipeline, registry, first_rows(letter, n), reps);
      const double ratio = cell.best[0] / std::min(cell.best[1], cell.best[2]);
      worst = std::max(worst, ratio);
      const std::string evaluations = m.learning ? std::to_string(cell.evaluations[0]) + " / " +
                                                       std::to_string(cell.evaluations[1]) + " / " +
                                                       std::to_string(cell.evaluations[2])
                                                 : "";
      std::printf("%-13s %5d %7d %10.3f %10.3f %10.3f %8.2f %3d  %s%s\n", m.name, n,
                  cell.policy_threads, cell.best[0], cell.best[1], cell.best[2], ratio, cell.rounds,
                  evaluations.c_str(), cell.failure.empty() ? "" : "  (a run did not end ok)");
      if (!cell.failure.empty())
        std::fprintf(stderr, "%s N=%d: %s\n", m.name, n, cell.failure.c_str());
      std::fflush(stdout);
    }
  }
  std::printf("\nworst ratio policy / min(1 thread, 2 threads): %.2f (target <= 1.1)\n", worst);
  if (!skipped.empty()) {
    std::printf("left out (minutes per cell; name the method with --methods to run it):");
    for (const auto& s : skipped) std::printf(" %s", s.c_str());
    std::printf("\n");
  }
  return 0;
}

int main(int argc, char** argv) {
  return quench::tool_main(
      argc, argv,
      "[--n 100,250,500,1000,2000,4000] [--methods gp_learn,tap_fit,tap_learn,ep_fit,ep_learn,"
      "adatap_reg,adatap_cls,mc_bootstrap] [--reps K] [--data letter.csv]\n"
      "Wall time of each engine's pipeline with the BLAS thread policy, 1 and 2 BLAS threads, "
      "and policy / min(1, 2).",
      [&] { return main_body(argc, argv); });
}
