// Model files (quench/model_archive.h, quench/fitted_model.h): every entry type survives a
// save and load bitwise; a fitted model loaded back predicts bitwise what it predicted before
// (components rebuilt, learned hyperparameters applied, no refit); raw inputs are mapped in and
// target columns out; and damaged, foreign or inconsistent files are refused with a
// ModelFileError naming the file and the problem. A toy engine and model stand in for the
// plugins (whose own models are tested beside them).
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <string>

#include "quench/fitted_model.h"
#include "quench/inference_engine.h"
#include "quench/model_archive.h"
#include "toy_models.h"

namespace quench::model_file_test {
namespace {

namespace fs = std::filesystem;

std::string xxh3_128(const std::string& bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return text;
}

// mean = k(x, X_train) w, variance = s2 (the toy's "posterior").
class ToyModel final : public Model {
 public:
  ToyModel(std::shared_ptr<const Kernel> k, Eigen::MatrixXd X, Eigen::VectorXd w, double s2)
      : k_(std::move(k)), X_(std::move(X)), w_(std::move(w)), s2_(s2) {}
  Predictions predict(const Eigen::MatrixXd& X) const override {
    Predictions p;
    p.add("mean", k_->cross(X, X_) * w_, PredictionUnit::target);
    p.add("variance", Eigen::VectorXd::Constant(X.rows(), s2_), PredictionUnit::target_variance);
    p.add("score", Eigen::VectorXd::Constant(X.rows(), 0.5));
    return p;
  }
  Eigen::Index input_dimension() const override { return X_.cols(); }
  std::string kind() const override { return "toy"; }
  void write(ModelArchive& a) const override {
    a.put("posterior/w", w_);
    a.put("posterior/s2", s2_);
  }

 private:
  std::shared_ptr<const Kernel> k_;
  Eigen::MatrixXd X_;
  Eigen::VectorXd w_;
  double s2_;
};

class ToyEngine final : public InferenceEngine {
 public:
  Results run(const Problem&) const override { return {}; }
  std::unique_ptr<Model> read_model(ModelArchive& a, const ModelParts& parts) const override {
    return std::make_unique<ToyModel>(parts.kernel, *parts.X_train,
                                      a.vector("posterior/w", parts.X_train->rows()),
                                      a.real("posterior/s2"));
  }
};

class ToySource final : public ComponentSource {
 public:
  std::shared_ptr<Component> create(
      Family family, const std::string& plugin, const std::string& version,
      const std::map<std::string, ParamValue>& params) const override {
    if (version != "1")
      throw ConfigError({}, "plugin '" + plugin + "' is version 1, not " + version);
    if (family == Family::engine && plugin == "toy_engine") return std::make_shared<ToyEngine>();
    if (family == Family::kernel && plugin == "toy_kernel") {
      const auto& l = std::get<std::vector<double>>(params.at("length_scales"));
      return std::make_shared<testing::ArdSquaredExponential>(
          Eigen::Map<const Eigen::VectorXd>(l.data(), static_cast<Eigen::Index>(l.size())),
          std::get<double>(params.at("amplitude")), 0.0);
    }
    throw ConfigError({}, "no " + std::string(to_string(family)) + " plugin '" + plugin + "'");
  }
};

class ModelFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("quench_model_file_test_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A fitted toy model on 6 training rows of 2 inputs whose kernel has a learned length scale.
  FittedModel toy() const {
    ModelCard card;
    card.kind = "toy";
    card.engine.family = Family::engine;
    card.engine.plugin = "toy_engine";
    card.engine.version = "1";
    card.engine.params = {{"flag", true}, {"count", std::int64_t{3}}};
    ComponentRecord kernel;
    kernel.plugin = "toy_kernel";
    kernel.version = "1";
    kernel.params = {{"length_scales", std::vector<double>{1.0, 2.0}}, {"amplitude", 1.5}};
    kernel.learned = {{"length_scales", Eigen::Vector2d(0.7, 3.1)}};
    card.components = {kernel};
    card.input_names = {"a", "b"};
    card.target_name = "y";
    card.input_mean = Eigen::RowVector2d(1.0, -2.0);
    card.input_scale = Eigen::RowVector2d(2.0, 0.5);
    card.target_mean = 10.0;
    card.target_scale = 3.0;
    card.provenance = {{"pipeline", "toy.yaml"}, {"seed", "7"}};
    const Eigen::MatrixXd X = Eigen::MatrixXd::Random(6, 2);
    auto k = std::make_shared<testing::ArdSquaredExponential>(Eigen::Vector2d(0.7, 3.1), 1.5, 0.0);
    auto model = std::make_shared<ToyModel>(k, X, Eigen::VectorXd::Random(6), 0.25);
    return FittedModel(card, X, model);
  }

  std::string bytes(const std::string& file) const {
    std::ifstream in(file, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  void write(const std::string& file, const std::string& contents) const {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << contents;
  }
  // The message of the ModelFileError loading `file` throws ("" when it loads).
  std::string load_error(const std::string& file) const {
    try {
      load_model(file, ToySource());
    } catch (const ModelFileError& e) {
      EXPECT_EQ(e.file(), file);
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(ModelFileTest, EveryEntryTypeSurvivesBitwise) {
  ModelArchive a;
  Eigen::MatrixXd m = Eigen::MatrixXd::Random(37, 5);
  m(3, 4) = std::numeric_limits<double>::quiet_NaN();
  m(0, 0) = -0.0;
  m(1, 0) = std::numeric_limits<double>::denorm_min();
  m(2, 0) = -std::numeric_limits<double>::infinity();
  a.put("posterior/m", m);
  a.put("posterior/v", Eigen::VectorXd::Random(11).eval());
  a.put("empty/v", Eigen::VectorXd());
  a.put("empty/m", Eigen::MatrixXd(0, 3));
  a.put("empty/texts", std::vector<std::string>{});
  a.put("r", 0.1);
  a.put("i", std::int64_t{-(1LL << 62)});
  a.put("t", std::string("na\xc3\xafve \xe2\x9c\x93, \"quoted\"\nsecond line"));
  a.put("ts", std::vector<std::string>{"x1", "", "\xce\xbb"});
  save_archive(a, path("all.h5"));
  const ModelArchive b = load_archive(path("all.h5"));
  ASSERT_EQ(b.entries().size(), a.entries().size());
  const Eigen::MatrixXd& mb = b.matrix("posterior/m", 37, 5);
  EXPECT_EQ(std::memcmp(mb.data(), m.data(), sizeof(double) * m.size()), 0);
  EXPECT_EQ(b.vector("posterior/v"), a.vector("posterior/v"));
  EXPECT_EQ(b.vector("empty/v").size(), 0);
  EXPECT_EQ(b.matrix("empty/m").rows(), 0);
  EXPECT_EQ(b.matrix("empty/m").cols(), 3);
  EXPECT_TRUE(b.texts("empty/texts").empty());
  EXPECT_EQ(b.real("r"), 0.1);
  EXPECT_EQ(b.integer("i"), -(1LL << 62));
  EXPECT_EQ(b.text("t"), a.text("t"));
  EXPECT_EQ(b.texts("ts"), a.texts("ts"));
  EXPECT_EQ(b.file(), path("all.h5"));
}

TEST_F(ModelFileTest, TheFileStartsWithItsHeaderAndLeavesNoPartialFile) {
  save_archive(ModelArchive(), path("m.h5"));
  save_archive(ModelArchive(), path("m.h5"));  // replaces
  const std::string b = bytes(path("m.h5"));
  EXPECT_EQ(b.rfind("quench-model\nformat_version: 1\nchecksum: xxh3-128 ", 0), 0u);
  EXPECT_EQ(b.compare(512, 4, "\x89HDF"), 0);  // HDF5 superblock after the user block
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
  EXPECT_THROW(save_archive(ModelArchive(), path("missing_dir/m.h5")), ModelFileError);
  EXPECT_FALSE(fs::exists(path("missing_dir")));
}

TEST_F(ModelFileTest, ALoadedModelPredictsBitwiseWhatItPredictedBefore) {
  const FittedModel m = toy();
  m.save(path("toy.h5"));
  const FittedModel back = load_model(path("toy.h5"), ToySource());
  const Eigen::MatrixXd X = Eigen::MatrixXd::Random(9, 2) * 3.0;
  const Predictions p = m.predict(X), q = back.predict(X);
  EXPECT_EQ(q.columns, p.columns);
  EXPECT_EQ(q.values, p.values);  // bitwise
  EXPECT_EQ(back.training_inputs(), m.training_inputs());
  const ModelCard& c = back.card();
  EXPECT_EQ(c.input_names, m.card().input_names);
  EXPECT_EQ(c.input_scale, m.card().input_scale);
  EXPECT_EQ(c.target_mean, 10.0);
  EXPECT_EQ(std::get<std::int64_t>(c.engine.params.at("flag")), 1);  // booleans as integers
  EXPECT_EQ(c.components.at(0).learned.at("length_scales"), Eigen::Vector2d(0.7, 3.1));
  EXPECT_EQ(c.provenance.at("pipeline"), "toy.yaml");
}

// Inputs standardized with the stored transform; target columns mapped back, others not.
TEST_F(ModelFileTest, RawInputsInTargetUnitsOut) {
  const FittedModel m = toy();
  const Eigen::MatrixXd X = Eigen::MatrixXd::Random(4, 2);
  const Eigen::MatrixXd Xs =
      (X.rowwise() - m.card().input_mean).array().rowwise() / m.card().input_scale.array();
  const Predictions raw = m.model().predict(Xs), p = m.predict(X);
  EXPECT_EQ(p.column("mean"), (raw.column("mean").array() * 3.0 + 10.0).matrix());
  EXPECT_EQ(p.column("variance"), (raw.column("variance") * 9.0).eval());
  EXPECT_EQ(p.column("score"), raw.column("score"));
  try {
    m.predict(Eigen::MatrixXd::Zero(2, 3));
    ADD_FAILURE() << "three inputs accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "the model takes 2 inputs (a, b), got 3");
  }
}

TEST_F(ModelFileTest, DamagedAndForeignFilesAreRefusedWithTheirReason) {
  toy().save(path("good.h5"));
  const std::string good = bytes(path("good.h5"));
  ASSERT_EQ(load_error(path("good.h5")), "");
  auto with = [&](const std::string& name, const std::string& contents) {
    write(path(name), contents);
    return load_error(path(name));
  };
  auto contains = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos ? ::testing::AssertionSuccess()
                                                : ::testing::AssertionFailure() << text;
  };
  EXPECT_TRUE(contains(load_error(path("absent.h5")), "cannot open the file"));
  EXPECT_TRUE(contains(with("empty.h5", ""), "not a quench model file"));
  EXPECT_TRUE(contains(with("text.h5", "a,b,y\n1,2,3\n"), "not a quench model file"));
  EXPECT_TRUE(contains(with("plain_hdf5.h5", good.substr(512)), "not a quench model file"));
  EXPECT_TRUE(contains(with("header_only.h5", good.substr(0, 512)), "truncated"));
  EXPECT_TRUE(contains(with("half.h5", good.substr(0, good.size() / 2)), "checksum mismatch"));
  std::string flipped = good;
  flipped[flipped.size() * 3 / 4] ^= 0x10;
  EXPECT_TRUE(contains(with("flipped.h5", flipped), "checksum mismatch"));
  std::string version = good;
  version.replace(version.find("format_version: 1"), 17, "format_version: 2");
  EXPECT_TRUE(
      contains(with("version.h5", version), "model format version '2', this quench reads 1"));
  std::string checksum = good;
  checksum[checksum.find("xxh3-128 ") + 9] ^= 0x01;
  EXPECT_TRUE(contains(with("checksum.h5", checksum), "checksum mismatch"));
  fs::create_directories(path("directory.h5"));
  EXPECT_TRUE(contains(load_error(path("directory.h5")), "not a regular file"));
  // The header's checksum is XXH3-128 of the bytes after it (computed here independently):
  // a consistent header over bytes that are not HDF5 passes the checksum and is refused by
  // the HDF5 reader.
  EXPECT_EQ(good.substr(good.find("xxh3-128 ") + 9, 32), xxh3_128(good.substr(512)));
  const std::string junk(4096, 'x');
  std::string header =
      "quench-model\nformat_version: 1\nchecksum: xxh3-128 " + xxh3_128(junk) + "\n";
  header.resize(512, '\0');
  EXPECT_TRUE(contains(with("junk_body.h5", header + junk), "not a readable HDF5 file"));
}

TEST_F(ModelFileTest, InconsistentContentsAreRefusedNamingTheEntry) {
  const ModelArchive good = toy().to_archive();
  auto saved_with = [&](const std::string& name, const std::function<void(ModelArchive&)>& edit) {
    ModelArchive a = good;
    edit(a);
    save_archive(a, path(name));
    return load_error(path(name));
  };
  auto contains = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos ? ::testing::AssertionSuccess()
                                                : ::testing::AssertionFailure() << text;
  };
  // Rebuilding a ModelArchive without an entry: copy all but one.
  auto without = [&](const std::string& entry) {
    return [entry](ModelArchive& a) {
      ModelArchive b(a.file());
      for (const auto& [name, value] : a.entries())
        if (name != entry) b.put(name, value);
      a = b;
    };
  };
  EXPECT_TRUE(
      contains(saved_with("no_w.h5", without("posterior/w")), "entry 'posterior/w' is missing"));
  EXPECT_TRUE(contains(
      saved_with("short_w.h5", [](ModelArchive& a) { a.put("posterior/w", Eigen::VectorXd(3)); }),
      "entry 'posterior/w' has 3 values, expected 6"));
  EXPECT_TRUE(
      contains(saved_with("kind_real.h5", [](ModelArchive& a) { a.put("model/kind", 1.0); }),
               "entry 'model/kind' is a real, expected a text"));
  EXPECT_TRUE(contains(
      saved_with("other_kind.h5", [](ModelArchive& a) { a.put("model/kind", std::string("gp")); }),
      "the file says model kind 'gp', engine 'toy_engine' read a 'toy'"));
  EXPECT_TRUE(contains(
      saved_with("unknown_engine.h5",
                 [](ModelArchive& a) { a.put("model/engine/plugin", std::string("nope")); }),
      "cannot rebuild its engine 'nope': no engine plugin 'nope'"));
  EXPECT_TRUE(contains(
      saved_with("other_version.h5",
                 [](ModelArchive& a) { a.put("components/kernel/version", std::string("2")); }),
      "cannot rebuild its kernel 'toy_kernel': plugin 'toy_kernel' is version 1, "
      "not 2"));
  EXPECT_TRUE(
      contains(saved_with("wide_mean.h5",
                          [](ModelArchive& a) { a.put("data/input_mean", Eigen::VectorXd(3)); }),
               "entry 'data/input_mean' has 3 values, expected 2"));
  EXPECT_TRUE(contains(saved_with("bad_learned.h5",
                                  [](ModelArchive& a) {
                                    a.put("components/kernel/learned/width", Eigen::VectorXd(1));
                                  }),
                       "its kernel 'toy_kernel' does not take the stored values"));
}

}  // namespace
}  // namespace quench::model_file_test
