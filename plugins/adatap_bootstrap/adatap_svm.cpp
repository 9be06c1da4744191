#include "adatap_svm.h"

#include <chrono>

#include "adatap_model.h"
#include "classifier_outputs.h"
#include "quench/errors.h"

namespace quench::adatap {

ParamSchema AdatapSvm::schema() {
  ParamSchema s;
  s.real("site_tolerance",
         "stop when the three computations of each site's bootstrap mean, within-sample and "
         "bootstrap variance agree to this (docs/adatap_classification.md)",
         1e-6, 1e-14, 0.1)
      .real("damping", "the fraction of the new site parameters taken per iteration", 0.5, 0.01,
            1.0)
      .integer("max_iterations", "iterations before reporting not_converged", 500, 1, 100000);
  return s;
}

AdatapSvm::AdatapSvm(const Params& p) {
  options_.tolerance = p.real("site_tolerance");
  options_.damping = p.real("damping");
  options_.max_iterations = static_cast<int>(p.integer("max_iterations"));
}

Results AdatapSvm::run(const Problem& problem) const {
  using clock = std::chrono::steady_clock;
  using seconds = std::chrono::duration<double>;
  const auto start = clock::now();
  const Dataset& data = *problem.data;
  const Kernel& kernel = *problem.kernel;
  const double p0 = problem.resampler->occupation_pmf(0);
  if (!(p0 > 0))
    throw ConfigError({},
                      "adatap_svm needs resamples that leave points out (p(k = 0) > 0): a "
                      "point in every sample is a support vector of infinite site precision");
  Observations y;
  y.y = class_labels(data, DataPart::train, "adatap_svm");
  Eigen::MatrixXd K = kernel.cross(data.X_train, data.X_train);
  K.diagonal().array() += kernel.diagonal_noise();  // 001 App. B: noise v2 as for svm_limit
  const auto kernel_done = clock::now();
  const GeneralOptions o = for_run(options_, problem.context);
  GeneralSolution sol = solve_general(
      K, y,
      [p0](Eigen::Index, const Observation& yi, double dlc, double gammac, double lamc) {
        return svm_limit_site(yi.y, dlc, gammac, lamc, p0);
      },
      o);
  const auto solved = clock::now();
  Results r = classifier_results(problem, y, sol, AdatapModel::Form::svm,
                                 dense_classifier_model(problem, sol, AdatapModel::Form::svm));
  r.info["method"] = "SVM limit (docs/adatap_classification.md eq 23)";
  r.timings["kernel"] = seconds(kernel_done - start).count();
  r.timings["solve"] = seconds(solved - kernel_done).count();
  r.timings["total"] = seconds(clock::now() - start).count();
  return r;
}

std::unique_ptr<Model> AdatapSvm::read_model(ModelArchive& archive, const ModelParts& parts) const {
  return AdatapModel::read(archive, parts, AdatapModel::Form::svm);
}

}  // namespace quench::adatap
