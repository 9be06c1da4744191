// Saved GP regression models (issue 12 targets, ratios measured in one run):
//   predict: 10^4 new inputs from a saved N = 2000 model <= 1.5x the cross-kernel evaluation
//            K(X_new, X_train) plus its GEMV (mean) and triangular solve (variance);
//   load:    load_model <= 2x reading the file's bytes (no refit on load).
//
//   quench_bench_models [path/to/letter.csv] [--n N] [--m M]
//
// Data: the letter data's first N rows train (16 inputs standardized, the class index as a
// standardized regression target), the next M rows are the new inputs. ARD Gaussian kernel
// (length scales 3.5-4.5), Gaussian noise 0.1; the model comes from `quench run`'s pipeline
// path (outputs: {models: true}) through the installed plugins. Each time is the best of 3.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "bench_timing.h"
#include "quench/cholesky.h"
#include "quench/dataset.h"
#include "quench/fitted_model.h"
#include "quench/kernel.h"
#include "quench/pipeline.h"
#include "quench/registry.h"
#include "quench/registry_models.h"
#include "quench/tool_main.h"

namespace {

using quench::bench::best_of;

std::string pipeline_yaml(const std::string& data, int n) {
  std::string scales;
  for (int l = 0; l < 16; ++l) scales += (l ? ", " : "") + std::to_string(3.5 + l / 15.0);
  return "name: model_bench\nseed: 1\ndata:\n  file: " + data +
         "\n  target: y\n  inputs: [x.box, y.box, width, high, onpix, x.bar, y.bar, x2bar, y2bar, "
         "xybar, x2ybr, xy2br, x.ege, xegvy, y.ege, yegvx]\n  split: {rule: first_train, count: " +
         std::to_string(n) +
         "}\n  standardize_inputs: true\n  standardize_target: true\ncomponents:\n  kernel: "
         "{plugin: gaussian, length_scales: [" +
         scales +
         "]}\n  likelihood: {plugin: gaussian, noise: 0.1}\nengines:\n  - {name: gp, plugin: "
         "exact_gp_regression}\noutputs: {models: true, plots: false, tables: false}\n";
}

}  // namespace

static int main_body(int argc, char** argv) {
  std::string path = "examples/data/letter.csv";
  int n = 2000, m = 10000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc)
      n = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--m") == 0 && i + 1 < argc)
      m = std::atoi(argv[++i]);
    else
      path = argv[i];
  }
  namespace fs = std::filesystem;
  const fs::path data = fs::absolute(path);
  const auto registry = quench::Registry::discover();
  const auto pipeline = quench::Pipeline::from_string(pipeline_yaml(data.filename().string(), n),
                                                      "model_bench", data.parent_path().string());
  const auto runs = pipeline.run(registry);
  if (runs.empty() || !runs[0].fitted_model) {
    std::fprintf(stderr, "no model: %s\n", runs.empty() ? "" : runs[0].status.message.c_str());
    return 1;
  }
  const quench::FittedModel& model = *runs[0].fitted_model;

  // New inputs: rows n .. n + m - 1 of the file, raw units, in the model's input order.
  const quench::CsvTable table = quench::read_csv(data.string());
  const Eigen::MatrixXd all = quench::to_numbers(table);
  Eigen::MatrixXd X_new(m, 16);
  for (int j = 0; j < 16; ++j)
    X_new.col(j) = all.col(table.column_index(model.card().input_names[j])).segment(n, m);

  // The reference: K(X_new, X_train), its GEMV and the triangular solve with the factor of
  // K + s2 I, on a kernel built and prepared as the model's.
  const quench::ComponentRecord& kr = model.card().components.at(0);
  auto kernel = quench::RegistryComponentSource(registry).create(quench::Family::kernel, kr.plugin,
                                                                 kr.version, kr.params);
  auto& k = dynamic_cast<quench::Kernel&>(*kernel);
  const Eigen::MatrixXd& X_train = model.training_inputs();
  k.prepare(X_train);
  Eigen::MatrixXd Ky = k.gram(X_train);
  Ky.diagonal().array() += 0.1;
  const quench::Cholesky L(Ky);
  const Eigen::VectorXd alpha = L.solve(Eigen::VectorXd(Eigen::VectorXd::Ones(n)));
  const Eigen::MatrixXd Xs = (X_new.rowwise() - model.card().input_mean).array().rowwise() /
                             model.card().input_scale.array();
  double checksum = 0;
  const double t_reference = best_of(3, [&] {
    const Eigen::MatrixXd Ks = k.cross(Xs, X_train);
    const Eigen::VectorXd mean = Ks * alpha;
    const Eigen::MatrixXd V = L.solve_lower(Ks.transpose());
    checksum += mean.sum() + V.colwise().squaredNorm().sum();
  });
  const double t_predict = best_of(3, [&] { checksum += model.predict(X_new).values.sum(); });

  const std::string file = (fs::temp_directory_path() / "quench_model_bench.h5").string();
  model.save(file);
  const double t_read = best_of(3, [&] {
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    std::string bytes(static_cast<std::size_t>(in.tellg()), '\0');
    in.seekg(0);
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    checksum += double(bytes[bytes.size() / 2]);
  });
  const double t_load = best_of(3, [&] {
    const quench::FittedModel back = quench::load_model(file, registry);
    checksum += double(back.training_inputs().rows());
  });
  const auto bytes = fs::file_size(file);
  fs::remove(file);

  std::printf("N = %d training rows, M = %d new inputs, model file %.1f MB\n", n, m,
              double(bytes) / 1e6);
  std::printf(
      "predict %.4f s = %.2f x (cross kernel + GEMV + triangular solve %.4f s; target <= 1.5)\n",
      t_predict, t_predict / t_reference, t_reference);
  std::printf("load    %.4f s = %.2f x (reading the bytes %.4f s; target <= 2)\n", t_load,
              t_load / t_read, t_read);
  std::fprintf(stderr, "(checksum %g)\n", checksum);
  return 0;
}

int main(int argc, char** argv) {
  return quench::tool_main(argc, argv,
                           "[--n N] [--m M] [letter.csv]\nSaved GP model: predict and load cost "
                           "against their reference operations.",
                           [&] { return main_body(argc, argv); });
}
