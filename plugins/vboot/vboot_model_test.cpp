// The vboot model (vboot_model.h): saved to a file and loaded back it predicts bitwise what it
// predicted before; at the test rows it is exactly the engine's own outputs; its columns equal
// eq 12 of 002 and the particles' spread computed independently from the stored arrays alone
// (random Fourier features from the stored frequencies, the network of eq 2 written out with
// loops); the numbers do not depend on the thread count; a file with a missing, misshapen or
// impossible entry is refused by name.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dirichlet_likelihood.h"
#include "kernels.h"
#include "model_round_trip.h"
#include "perturbation.h"
#include "quench/rng.h"
#include "vboot.h"
#include "vboot_model.h"

namespace quench::vboot::vboot_model_test {
namespace {

// Blobs around `classes` points on a circle in 2-D, labels 0..classes-1 (or -1/+1).
Dataset blobs(int classes, bool plus_minus, Eigen::Index n_train, Eigen::Index n_test) {
  RngStream rng(8, static_cast<std::uint64_t>(classes));
  Dataset d;
  auto fill = [&](Eigen::MatrixXd& X, Eigen::VectorXd& y, Eigen::Index n) {
    X.resize(n, 2);
    y.resize(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const int c = int(i % classes);
      X(i, 0) = 2.0 * std::cos(6.28 * c / classes) + 0.9 * rng.normal();
      X(i, 1) = 2.0 * std::sin(6.28 * c / classes) + 0.9 * rng.normal();
      y(i) = plus_minus ? (c == 0 ? -1.0 : 1.0) : double(c);
    }
  };
  fill(d.X_train, d.y_train, n_train);
  fill(d.X_test, d.y_test, n_test);
  return d;
}

// A fixed number of plain gradient steps (the MLP particles' optimizer).
class FixedSteps final : public Optimizer {
 public:
  OptimizerReport minimize(const SmoothObjective& f, Eigen::VectorXd& x) const override {
    Eigen::VectorXd g(x.size());
    double v = 0;
    for (int i = 0; i < 100; ++i) {
      f.evaluate(x, &v, &g);
      x -= 1e-3 * g;
    }
    return {true, 100, v, ""};
  }
};

struct Case {
  std::string model;  // rff or mlp
  int classes;
  bool plus_minus;
};
std::string name(const Case& c) {
  return c.model + "_" + std::to_string(c.classes) + (c.plus_minus ? "_pm" : "");
}
const Case kCases[] = {
    {"rff", 3, false}, {"rff", 2, true}, {"rff", 2, false}, {"mlp", 3, false}, {"mlp", 2, true}};

struct Fixture {
  Dataset data;
  Problem problem;
  VBoot engine;
  Fixture(const Case& c, int threads = 2, bool keep = false)
      : data(blobs(c.classes, c.plus_minus, 60, 40)),
        engine(Params(VBoot::schema(), {{"model", c.model},
                                        {"particles", std::int64_t{7}},
                                        {"hidden_units", std::int64_t{12}},
                                        {"keep_particles", keep}})) {
    problem.data = &data;
    std::shared_ptr<Kernel> kernel = kernels::make_gaussian(
        Params(kernels::gaussian_schema(), {{"random_features", std::int64_t{150}},
                                            {"feature_seed", std::int64_t{3}},
                                            {"amplitude", 2.0},
                                            {"bias", 1.5}}));
    kernel->prepare(data.X_train);
    problem.kernel = kernel;
    problem.likelihood = std::make_shared<likelihoods::DirichletLikelihood>(
        Params(likelihoods::DirichletLikelihood::schema(), {}));
    problem.resampler =
        std::make_shared<PerturbationResampler>(Params(PerturbationResampler::schema(), {}));
    problem.optimizer = std::make_shared<FixedSteps>();
    problem.seed = 17;
    problem.context.threads = threads;
    problem.make_model = true;
  }
  Results run() const {
    Results r = engine.run(problem);
    EXPECT_EQ(r.status.code, RunStatus::ok) << r.status.message;
    EXPECT_TRUE(r.model);
    return r;
  }
};

Eigen::MatrixXd new_inputs(Eigen::Index rows) {
  RngStream rng(99, 0);
  Eigen::MatrixXd X(rows, 2);
  for (Eigen::Index i = 0; i < rows; ++i) X.row(i) << 2.5 * rng.normal(), 2.5 * rng.normal();
  return X;
}

void expect_bitwise_equal(const Predictions& a, const Predictions& b) {
  EXPECT_EQ(a.columns, b.columns);
  EXPECT_EQ(a.units, b.units);
  ASSERT_EQ(a.values.rows(), b.values.rows());
  ASSERT_EQ(a.values.cols(), b.values.cols());
  for (Eigen::Index j = 0; j < a.values.cols(); ++j)
    for (Eigen::Index i = 0; i < a.values.rows(); ++i)
      ASSERT_EQ(a.values(i, j), b.values(i, j)) << a.columns[j] << " row " << i;
}

// The model through a real file (tests/support/model_round_trip.h); vboot needs no parts.
std::unique_ptr<Model> through_file(const VBoot& engine, const Model& model) {
  return testing::through_file(engine, model, ModelParts{});
}

std::vector<std::string> expected_columns(int C) {
  if (C == 2) return {"probability", "probability_sd", "label"};
  std::vector<std::string> columns;
  for (int c = 0; c < C; ++c) columns.push_back("probability_c" + std::to_string(c));
  for (int c = 0; c < C; ++c) columns.push_back("probability_sd_c" + std::to_string(c));
  columns.push_back("label");
  return columns;
}

// P(y = c | x) of every class from a model's predictions.
Eigen::MatrixXd class_probabilities(const Predictions& p, int C) {
  Eigen::MatrixXd P(p.values.rows(), C);
  if (C == 2) {
    P.col(1) = p.column("probability");
    P.col(0) = 1.0 - P.col(1).array();
  } else {
    for (int c = 0; c < C; ++c) P.col(c) = p.column("probability_c" + std::to_string(c));
  }
  return P;
}

TEST(VbootModel, SavedToAFileAndLoadedPredictsBitwiseTheSame) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(name(c));
    const Fixture f(c);
    const Results r = f.run();
    EXPECT_EQ(r.model->kind(), "vboot");
    EXPECT_EQ(r.model->input_dimension(), 2);
    EXPECT_EQ(r.info.at("model"), c.model);  // the particle model, as before
    const auto loaded = through_file(f.engine, *r.model);
    const Eigen::MatrixXd X = new_inputs(1100);  // three blocks of new inputs
    const Predictions a = r.model->predict(X);
    EXPECT_EQ(a.columns, expected_columns(c.classes));
    EXPECT_EQ(a.units, std::vector<PredictionUnit>(a.columns.size(), PredictionUnit::none));
    expect_bitwise_equal(a, loaded->predict(X));
  }
}

TEST(VbootModel, IsTheEnginesTestOutputs) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(name(c));
    const Fixture f(c, 2, true);
    const Results r = f.run();
    const Predictions p = r.model->predict(f.data.X_test);
    const Eigen::MatrixXd& P = r.matrices.at("class_probabilities");
    const Eigen::MatrixXd& sd = r.matrices.at("class_probability_sd");
    const Eigen::VectorXd& predicted = r.vectors.at("predicted_class");
    const auto& model = dynamic_cast<const VbootModel&>(*r.model);
    for (Eigen::Index i = 0; i < f.data.X_test.rows(); ++i) {
      if (c.classes == 2) {
        EXPECT_EQ(p.column("probability")(i), P(i, 1));
        EXPECT_EQ(p.column("probability_sd")(i), sd(i, 1));
      } else {
        for (int k = 0; k < c.classes; ++k) {
          EXPECT_EQ(p.column("probability_c" + std::to_string(k))(i), P(i, k));
          EXPECT_EQ(p.column("probability_sd_c" + std::to_string(k))(i), sd(i, k));
        }
      }
      // The label is the data's value of the run's predicted class.
      const double value = c.plus_minus ? (predicted(i) == 0 ? -1.0 : 1.0) : predicted(i);
      EXPECT_EQ(p.column("label")(i), value);
      EXPECT_EQ(model.class_values()(Eigen::Index(predicted(i))), value);
    }
    // keep_particles: the per-particle outputs are the model's particles too.
    const ParticleEnsemble e = model.ensemble(f.data.X_test, 1, true);
    for (int k = 0; k < c.classes; ++k) {
      EXPECT_EQ(e.samples[std::size_t(k)],
                r.matrices.at("probability_samples_c" + std::to_string(k)));
      EXPECT_EQ(e.latent[std::size_t(k)], r.matrices.at("latent_samples_c" + std::to_string(k)));
    }
    // Better than chance on the test rows (the classes are separable up to their overlap).
    EXPECT_LT(r.scalars.at("test_error"), 0.5 * (1.0 - 1.0 / c.classes));
  }
}

// ReLU network of 002 eq 2 written out with loops: f_l = W_l relu(f_{l-1}) / sqrt(D_{l-1}) + b_l,
// parameters W1 (D1 x D0, column-major), b1, W2, b2, W3, b3 (docs/models.md).
Eigen::VectorXd network(const Eigen::VectorXd& theta, const Eigen::VectorXd& sizes,
                        const Eigen::VectorXd& x) {
  Eigen::VectorXd h = x;
  Eigen::Index at = 0;
  for (int l = 0; l < 3; ++l) {
    const auto in = Eigen::Index(sizes(l)), out = Eigen::Index(sizes(l + 1));
    Eigen::VectorXd z(out);
    for (Eigen::Index o = 0; o < out; ++o) {
      double s = 0;
      for (Eigen::Index j = 0; j < in; ++j) s += theta(at + j * out + o) * h(j);
      z(o) = s / std::sqrt(double(in)) + theta(at + in * out + o);
    }
    at += in * out + out;
    h = l < 2 ? Eigen::VectorXd(z.cwiseMax(0.0)) : z;
  }
  EXPECT_EQ(at, theta.size());
  return h;
}

// Eq 12 and the spread from the stored arrays alone: the latent outputs of particle k at x,
// one per class, then softmax by exp / sum, averaged over the particles.
TEST(VbootModel, ColumnsAreEquation12AndTheSpreadFromTheStoredArrays) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(name(c));
    const Fixture f(c);
    const Results r = f.run();
    ModelArchive a;
    r.model->write(a);
    const Eigen::MatrixXd X = new_inputs(30);
    const Predictions p = r.model->predict(X);
    const Eigen::MatrixXd P = class_probabilities(p, c.classes);
    const Eigen::Index K = a.integer("posterior/particles"), C = c.classes;
    ASSERT_EQ(K, 7);
    const Eigen::VectorXd values = a.vector("posterior/class_values");
    const auto* kernel_map = dynamic_cast<const CosineFeatures*>(f.problem.kernel->feature_map());
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      // latent(k, class) at x_i.
      Eigen::MatrixXd latent(K, C);
      if (c.model == "rff") {
        const Eigen::MatrixXd& omega = a.matrix("posterior/frequencies");
        const Eigen::VectorXd& b = a.vector("posterior/phases");
        const double s = a.real("posterior/feature_scale"), v1 = a.real("posterior/feature_bias");
        EXPECT_EQ(omega, kernel_map->frequencies());  // the kernel's realized map
        EXPECT_EQ(v1, 1.5);
        EXPECT_DOUBLE_EQ(s, std::sqrt(2.0 * 2.0 / 150));
        Eigen::VectorXd phi(omega.cols() + 1);
        for (Eigen::Index j = 0; j < omega.cols(); ++j)
          phi(j) = s * std::cos(omega(0, j) * X(i, 0) + omega(1, j) * X(i, 1) + b(j));
        phi(omega.cols()) = std::sqrt(v1);
        const Eigen::MatrixXd& W = a.matrix("posterior/weights");
        ASSERT_EQ(W.rows(), 151);
        ASSERT_EQ(W.cols(), C * K);
        for (Eigen::Index k = 0; k < K; ++k)
          for (Eigen::Index cl = 0; cl < C; ++cl) latent(k, cl) = phi.dot(W.col(cl * K + k));
      } else {
        const Eigen::VectorXd& sizes = a.vector("posterior/layer_sizes");
        EXPECT_EQ(sizes, (Eigen::Vector4d(2, 12, 12, double(C))));
        const Eigen::MatrixXd& theta = a.matrix("posterior/parameters");
        for (Eigen::Index k = 0; k < K; ++k)
          latent.row(k) = network(theta.col(k), sizes, X.row(i).transpose()).transpose();
      }
      Eigen::MatrixXd soft(K, C);
      for (Eigen::Index k = 0; k < K; ++k) {
        double total = 0;
        for (Eigen::Index cl = 0; cl < C; ++cl) total += std::exp(latent(k, cl));
        for (Eigen::Index cl = 0; cl < C; ++cl) soft(k, cl) = std::exp(latent(k, cl)) / total;
      }
      Eigen::Index best = 0;
      for (Eigen::Index cl = 0; cl < C; ++cl) {
        const double mean = soft.col(cl).mean();
        const double sd = std::sqrt((soft.col(cl).array() - mean).square().sum() / double(K));
        EXPECT_NEAR(P(i, cl), mean, 1e-12) << "row " << i << " class " << cl;
        const std::string sd_column =
            C == 2 ? "probability_sd" : "probability_sd_c" + std::to_string(cl);
        if (C > 2 || cl == 1) {
          EXPECT_NEAR(p.column(sd_column)(i), sd, 1e-12) << "row " << i;
        }
        if (mean > soft.col(best).mean()) best = cl;
      }
      EXPECT_EQ(p.column("label")(i), values(best)) << "row " << i;
    }
    // The spread is not trivially zero: the particles differ.
    const Eigen::VectorXd spread = p.column(C == 2 ? "probability_sd" : "probability_sd_c0");
    EXPECT_GT(spread.maxCoeff(), 1e-3);
  }
}

TEST(VbootModel, NumbersDoNotDependOnTheThreadCount) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(name(c));
    const Results one = Fixture(c, 1).run(), two = Fixture(c, 2).run();
    EXPECT_EQ(one.matrices.at("class_probabilities"), two.matrices.at("class_probabilities"));
    EXPECT_EQ(one.matrices.at("class_probability_sd"), two.matrices.at("class_probability_sd"));
    const Eigen::MatrixXd X = new_inputs(1100);
    expect_bitwise_equal(one.model->predict(X), two.model->predict(X));
    const auto& model = dynamic_cast<const VbootModel&>(*one.model);
    const ParticleEnsemble e1 = model.ensemble(X, 1), e3 = model.ensemble(X, 3);
    EXPECT_EQ(e1.probabilities, e3.probabilities);
    EXPECT_EQ(e1.sd, e3.sd);
  }
}

TEST(VbootModel, NoModelUnlessAskedAndTestOutputsWithout) {
  Fixture f({"rff", 3, false});
  f.problem.make_model = false;
  const Results r = f.engine.run(f.problem);
  EXPECT_FALSE(r.model);
  const Results with = Fixture({"rff", 3, false}).run();
  EXPECT_EQ(r.matrices.at("class_probabilities"), with.matrices.at("class_probabilities"));
}

TEST(VbootModel, AMissingMisshapenOrImpossibleEntryIsRefusedByName) {
  for (const std::string model : {"rff", "mlp"}) {
    const Fixture f({model, 3, false});
    const Results r = f.run();
    ModelArchive good;
    r.model->write(good);
    std::vector<std::pair<std::string, ModelArchive::Entry>> bad = {
        {"posterior/class_values", Eigen::VectorXd()},
        {"posterior/class_values", std::string("0 1 2")},
        {"posterior/particles", std::int64_t{0}},
        {"posterior/particle_model", std::string("svm")}};
    if (model == "rff")
      bad.insert(bad.end(), {{"posterior/phases", Eigen::VectorXd(149)},
                             {"posterior/feature_bias", -1.0},
                             {"posterior/feature_scale", std::nan("")},
                             {"posterior/weights", Eigen::MatrixXd(150, 21)}});
    else
      bad.insert(bad.end(),
                 {{"posterior/layer_sizes", Eigen::VectorXd(3)},
                  {"posterior/layer_sizes", Eigen::VectorXd(Eigen::Vector4d(2, 12.5, 12, 3))},
                  {"posterior/layer_sizes", Eigen::VectorXd(Eigen::Vector4d(2, 12, 12, 4))},
                  {"posterior/parameters", Eigen::MatrixXd(10, 7)}});
    for (const auto& [entry, value] : bad) {
      SCOPED_TRACE(model + " " + entry);
      ModelArchive a = good;
      a.put(entry, value);
      try {
        f.engine.read_model(a, ModelParts{});
        ADD_FAILURE() << "accepted";
      } catch (const ModelFileError& e) {
        EXPECT_NE(std::string(e.what()).find(entry), std::string::npos) << e.what();
      }
    }
    // Every entry of the file is needed.
    for (const auto& [entry, value] : good.entries()) {
      ModelArchive a;
      for (const auto& [other, v] : good.entries())
        if (other != entry) a.put(other, v);
      try {
        f.engine.read_model(a, ModelParts{});
        ADD_FAILURE() << entry << " missing but accepted";
      } catch (const ModelFileError& e) {
        EXPECT_NE(std::string(e.what()).find(entry), std::string::npos) << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace quench::vboot::vboot_model_test
