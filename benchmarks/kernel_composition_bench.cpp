// Cost of composite kernels (quench/composite_kernel.h) against their parts, measured in one
// run (issue target: a sum of two kernels costs <= 1.2 x the sum of its parts' costs, for the
// Gram matrix and for the gradient contractions, at N = 2000).
//
//   quench_bench_kernel_composition [path/to/letter.csv] [--n N]
//
// Data: the first N rows of the letter data, 16 inputs standardized over those rows. Pairs:
// ARD gaussian with ARD rational_quadratic, with ARD periodic, and with the linear kernel;
// each as a sum and as a product. Times are the fastest of 5 calls: gram(X), and
// gram_derivative_contractions(X, W) with a symmetric W (what the evidence gradient needs).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "kernels.h"
#include "letter_task.h"
#include "quench/composite_kernel.h"
#include "quench/tool_main.h"

namespace {

using quench::Kernel;
using quench::Params;
using quench::bench::best_of;

struct Cost {
  double gram = 0, gradient = 0;
};

Cost cost(const Kernel& k, const Eigen::MatrixXd& X, const Eigen::MatrixXd& W) {
  Cost c;
  volatile double sink = 0;
  c.gram = best_of(5, [&] { sink = k.gram(X)(0, 0); });
  c.gradient = best_of(5, [&] { sink = k.gram_derivative_contractions(X, W)(0); });
  return c;
}

}  // namespace

static int main_body(int argc, char** argv) {
  std::string path = "examples/data/letter.csv";
  int n = 2000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc)
      n = std::atoi(argv[++i]);
    else
      path = argv[i];
  }
  const quench::bench::LetterRows d = quench::bench::first_letter_rows(path, n);
  const Eigen::MatrixXd R = Eigen::MatrixXd::Random(n, n);
  const Eigen::MatrixXd W = R + R.transpose();
  std::vector<double> scales(16);
  for (int l = 0; l < 16; ++l) scales[static_cast<std::size_t>(l)] = 3.5 + l / 15.0;
  using namespace quench::kernels;
  auto make = [&](const std::string& name) -> std::shared_ptr<Kernel> {
    if (name == "gaussian")
      return make_gaussian(Params(gaussian_schema(),
                                  {{"length_scales", scales}, {"amplitude", 1.3}, {"noise", 0.1}}));
    if (name == "rational_quadratic")
      return make_rational_quadratic(
          Params(rational_quadratic_schema(), {{"length_scales", scales}, {"alpha", 0.8}}));
    if (name == "periodic")
      return make_periodic(Params(periodic_schema(), {{"length_scales", scales}, {"period", 3.0}}));
    return make_linear(Params(linear_schema(), {{"length_scales", scales}}));
  };
  std::printf("N = %d, d = 16 (letter), fastest of 5; ratio = composite / (part 1 + part 2)\n", n);
  std::printf("%-30s %9s %9s %9s %7s   %9s %9s %9s %7s\n", "parts", "gram1[s]", "gram2[s]",
              "gram[s]", "ratio", "grad1[s]", "grad2[s]", "grad[s]", "ratio");
  for (const std::string other : {"rational_quadratic", "periodic", "linear"}) {
    auto a = make("gaussian"), b = make(other);
    a->prepare(d.X);
    b->prepare(d.X);
    const Cost ca = cost(*a, d.X, W), cb = cost(*b, d.X, W);
    for (const bool product : {false, true}) {
      std::shared_ptr<Kernel> c;
      if (product)
        c = std::make_shared<quench::KernelProduct>(std::vector<std::shared_ptr<Kernel>>{
            make_gaussian(
                Params(gaussian_schema(), {{"length_scales", scales}, {"amplitude", 1.3}})),
            b});
      else
        c = std::make_shared<quench::KernelSum>(std::vector<std::shared_ptr<Kernel>>{a, b});
      c->prepare(d.X);
      const Cost cc = cost(*c, d.X, W);
      const std::string label = std::string("gaussian ") + (product ? "* " : "+ ") + other;
      std::printf("%-30s %9.4f %9.4f %9.4f %7.3f   %9.4f %9.4f %9.4f %7.3f\n", label.c_str(),
                  ca.gram, cb.gram, cc.gram, cc.gram / (ca.gram + cb.gram), ca.gradient,
                  cb.gradient, cc.gradient, cc.gradient / (ca.gradient + cb.gradient));
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  return quench::tool_main(argc, argv,
                           "[--n N] [letter.csv]\nCost of sums and products of kernels against "
                           "their parts.",
                           [&] { return main_body(argc, argv); });
}
