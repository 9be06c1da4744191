// Registry tests against the fixture libraries in QUENCH_FIXTURE_DIR: broken ones must each be
// refused with one line, good ones must load next to them, and created objects must keep
// their library loaded.
#include <dlfcn.h>
#include <elf.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "quench/errors.h"
#include "quench/kernel.h"
#include "quench/likelihood.h"
#include "quench/registry.h"

namespace quench {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = QUENCH_FIXTURE_DIR;

std::string fixture(const std::string& file) { return kFixtures + "/" + file; }

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<const LoadFailure*> failures_for(const Registry& registry, const std::string& path) {
  std::vector<const LoadFailure*> found;
  for (const auto& failure : registry.failures())
    if (failure.path == path) found.push_back(&failure);
  return found;
}

// Sets or unsets an environment variable for one test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

Registry load_fixtures() {
  Registry registry;
  registry.load(kFixtures);
  return registry;
}

struct BrokenCase {
  std::string file;
  std::string phrase;
};

const std::vector<BrokenCase>& broken_cases() {
  static const std::vector<BrokenCase> cases = {
      {"libbad_api.so",
       "plugin API version 1000, this quench expects " + std::to_string(kPluginApiVersion)},
      {"libbad_size.so", "plugin descriptor size"},
      {"libbroken.so", "not an ELF file (no ELF magic number)"},
      {"libno_export.so", "does not export quench_plugin_descriptor; not a quench plugin"},
      {"libthrows.so", "plugin descriptor function threw: descriptor exploded"},
      {"libnull_descriptor.so", "returned no descriptor"},
      {"libdup_names.so", "declares kernel plugin 'twin' more than once"},
      {"libempty_factory.so", "kernel plugin 'hollow' has no factory"},
  };
  return cases;
}

TEST(RegistryLoad, EachBrokenLibraryIsRefusedWithOneLine) {
  const Registry registry = load_fixtures();
  for (const auto& c : broken_cases()) {
    SCOPED_TRACE(c.file);
    const auto found = failures_for(registry, fixture(c.file));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(contains(found[0]->reason, c.phrase)) << found[0]->reason;
    const std::string line = found[0]->str();
    EXPECT_TRUE(contains(line, fixture(c.file))) << line;
    EXPECT_FALSE(contains(line, "\n")) << line;
  }
  EXPECT_EQ(registry.failures().size(), broken_cases().size());
}

TEST(RegistryLoad, EachBrokenLibraryAloneIsRefused) {
  for (const auto& c : broken_cases()) {
    SCOPED_TRACE(c.file);
    Registry registry;
    EXPECT_FALSE(registry.load_library(fixture(c.file)));
    ASSERT_EQ(registry.failures().size(), 1u);
    EXPECT_TRUE(contains(registry.failures()[0].str(), fixture(c.file)));
    EXPECT_TRUE(contains(registry.failures()[0].reason, c.phrase));
    EXPECT_TRUE(registry.plugins().empty());
  }
}

TEST(RegistryLoad, ApiMismatchMessageNamesBothVersionsAndThePath) {
  Registry registry;
  registry.load_library(fixture("libbad_api.so"));
  ASSERT_EQ(registry.failures().size(), 1u);
  EXPECT_EQ(registry.failures()[0].str(),
            fixture("libbad_api.so") + ": plugin API version 1000, this quench expects " +
                std::to_string(kPluginApiVersion) + "; rebuild the plugin against this quench");
}

TEST(RegistryLoad, NotAnElfFileIsRefusedBeforeDlopen) {
  Registry registry;
  registry.load_library(fixture("libbroken.so"));
  ASSERT_EQ(registry.failures().size(), 1u);
  EXPECT_EQ(registry.failures()[0].str(),
            fixture("libbroken.so") + ": not an ELF file (no ELF magic number)");
}

TEST(RegistryLoad, GoodLibrariesLoadNextToBrokenOnes) {
  const Registry registry = load_fixtures();
  const std::vector<std::string> kernels = {"constant",    "not_a_kernel", "null",
                                            "shadow_only", "throwing",     "throws_int"};
  EXPECT_EQ(registry.names(Family::kernel), kernels);
  EXPECT_EQ(registry.names(Family::engine), std::vector<std::string>{"fake_engine"});

  const PluginEntry* constant = registry.find(Family::kernel, "constant");
  ASSERT_NE(constant, nullptr);
  EXPECT_EQ(constant->library_path, fixture("libgood.so"));
  EXPECT_EQ(constant->library_name, "fixture-good");
  EXPECT_EQ(constant->library_version, "2.3.4");
  EXPECT_EQ(constant->info->name, "constant");
  EXPECT_TRUE(constant->library);
  EXPECT_EQ(registry.find(Family::likelihood, "constant"), nullptr);
}

TEST(RegistryLoad, PluginsAreSortedByFamilyThenName) {
  const Registry registry = load_fixtures();
  const auto plugins = registry.plugins();
  ASSERT_EQ(plugins.size(), 7u);
  for (std::size_t i = 1; i < plugins.size(); ++i) {
    const auto& a = *plugins[i - 1]->info;
    const auto& b = *plugins[i]->info;
    EXPECT_TRUE(a.family < b.family || (a.family == b.family && a.name < b.name));
  }
  EXPECT_EQ(plugins.back()->info->name, "fake_engine");
}

TEST(RegistryLoad, LaterPluginOfTheSameNameIsShadowedWithAWarning) {
  const Registry registry = load_fixtures();
  EXPECT_EQ(registry.find(Family::kernel, "constant")->library_path, fixture("libgood.so"));
  EXPECT_EQ(registry.find(Family::kernel, "shadow_only")->library_path, fixture("libshadow.so"));
  ASSERT_EQ(registry.warnings().size(), 1u);
  const std::string& warning = registry.warnings()[0];
  EXPECT_TRUE(contains(warning, "kernel plugin 'constant'")) << warning;
  EXPECT_TRUE(contains(warning, fixture("libgood.so"))) << warning;
  EXPECT_TRUE(contains(warning, fixture("libshadow.so"))) << warning;
}

TEST(RegistryLoad, DirectoryLoadingIsNotRecursiveAndSkipsOtherFiles) {
  const Registry registry = load_fixtures();
  EXPECT_EQ(registry.find(Family::kernel, "nested"), nullptr);
  for (const auto& failure : registry.failures()) {
    EXPECT_FALSE(contains(failure.path, "notes.txt"));
    EXPECT_FALSE(contains(failure.path, "libdirectory.so"));
    EXPECT_FALSE(contains(failure.path, "nested"));
  }
}

TEST(RegistryLoad, SingleFileCanBeLoaded) {
  Registry registry;
  registry.load(fixture("nested/libnested.so"));
  EXPECT_TRUE(registry.failures().empty());
  ASSERT_NE(registry.find(Family::kernel, "nested"), nullptr);
  EXPECT_TRUE(registry.load_library(fixture("libgood.so")));
  EXPECT_NE(registry.find(Family::kernel, "constant"), nullptr);
}

TEST(RegistryLoad, MissingPathIsRecorded) {
  Registry registry;
  const std::string missing = kFixtures + "/does-not-exist";
  registry.load(missing);
  ASSERT_EQ(registry.failures().size(), 1u);
  EXPECT_EQ(registry.failures()[0].str(), missing + ": no such file or directory");
  EXPECT_FALSE(registry.load_library(missing + "/libx.so"));
  EXPECT_EQ(registry.failures().size(), 2u);
}

TEST(RegistryLoad, SameDirectoryOrLibraryTwiceIsLoadedOnce) {
  Registry registry;
  registry.load(kFixtures);
  registry.load(kFixtures + "/");
  registry.load(kFixtures + "/../fixtures");
  EXPECT_TRUE(registry.load_library(kFixtures + "/./libgood.so"));
  EXPECT_EQ(registry.failures().size(), broken_cases().size());
  EXPECT_EQ(registry.warnings().size(), 1u);  // only libshadow's 'constant'
}

TEST(RegistryLoad, RegistryCanBeMoved) {
  Registry registry = load_fixtures();
  Registry moved = std::move(registry);
  EXPECT_NE(moved.find(Family::kernel, "constant"), nullptr);
  Registry assigned;
  assigned = std::move(moved);
  EXPECT_NE(assigned.find(Family::kernel, "constant"), nullptr);
  EXPECT_EQ(assigned.failures().size(), broken_cases().size());
}

TEST(RegistryCreate, BuildsAKernelWithValidatedParameters) {
  const Registry registry = load_fixtures();
  const auto* info = registry.find(Family::kernel, "constant")->info;
  auto kernel = registry.create_as<Kernel>(Family::kernel, "constant",
                                           Params(info->schema, {{"value", 2.5}}));
  ASSERT_TRUE(kernel);
  const Eigen::MatrixXd K = kernel->cross(Eigen::MatrixXd::Zero(2, 1), Eigen::MatrixXd::Zero(3, 1));
  EXPECT_EQ(K.rows(), 2);
  EXPECT_EQ(K.cols(), 3);
  EXPECT_DOUBLE_EQ(K(1, 2), 2.5);
}

TEST(RegistryCreate, FillsDefaultsFromTheSchema) {
  const Registry registry = load_fixtures();
  auto kernel = registry.create_as<Kernel>(Family::kernel, "constant", Params());
  EXPECT_DOUBLE_EQ(kernel->cross(Eigen::MatrixXd::Zero(1, 1), Eigen::MatrixXd::Zero(1, 1))(0, 0),
                   1.0);
}

TEST(RegistryCreate, InvalidParametersAreConfigErrors) {
  const Registry registry = load_fixtures();
  ParamSchema loose;
  loose.real("value", "", 1.0).real("bogus", "").optional();
  try {
    registry.create(Family::kernel, "constant", Params(loose, {{"bogus", 1.0}}));
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "kernel plugin 'constant'")) << e.what();
    EXPECT_TRUE(contains(e.what(), "unknown parameter 'bogus'")) << e.what();
  }
  EXPECT_THROW(registry.create(Family::kernel, "constant", Params(loose, {{"value", 1000.0}})),
               ConfigError);
}

TEST(RegistryCreate, UnknownPluginIsAConfigError) {
  const Registry registry = load_fixtures();
  try {
    registry.create(Family::kernel, "nope", Params());
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "unknown kernel plugin 'nope'")) << e.what();
    EXPECT_TRUE(contains(e.what(), "constant")) << e.what();
  }
  EXPECT_THROW(registry.create(Family::likelihood, "constant", Params()), ConfigError);
}

void expect_plugin_error(const Registry& registry, const std::string& name,
                         const std::vector<std::string>& phrases) {
  SCOPED_TRACE(name);
  try {
    registry.create(Family::kernel, name, Params());
    ADD_FAILURE() << "expected PluginError";
  } catch (const PluginError& e) {
    EXPECT_EQ(e.library_path(), fixture("libgood.so"));
    EXPECT_TRUE(contains(e.what(), fixture("libgood.so"))) << e.what();
    EXPECT_TRUE(contains(e.what(), "kernel plugin '" + name + "'")) << e.what();
    for (const auto& phrase : phrases) EXPECT_TRUE(contains(e.what(), phrase)) << e.what();
  }
}

TEST(RegistryCreate, ThrowingFactoryBecomesPluginError) {
  const Registry registry = load_fixtures();
  expect_plugin_error(registry, "throwing", {"fixture factory failure"});
}

TEST(RegistryCreate, NonStandardExceptionBecomesPluginError) {
  const Registry registry = load_fixtures();
  expect_plugin_error(registry, "throws_int", {"unknown exception"});
}

TEST(RegistryCreate, NullFactoryResultBecomesPluginError) {
  const Registry registry = load_fixtures();
  expect_plugin_error(registry, "null", {"returned no object"});
}

TEST(RegistryCreate, ObjectOfTheWrongFamilyIsAPluginError) {
  const Registry registry = load_fixtures();
  expect_plugin_error(registry, "not_a_kernel", {"does not implement the kernel interface"});
  try {
    registry.create_as<Likelihood>(Family::kernel, "constant", Params());
    FAIL() << "expected PluginError";
  } catch (const PluginError& e) {
    EXPECT_EQ(e.library_path(), fixture("libgood.so"));
    EXPECT_TRUE(contains(e.what(), "kernel plugin 'constant'")) << e.what();
  }
}

bool library_is_loaded(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (!handle) return false;
  dlclose(handle);  // RTLD_NOLOAD still took a reference
  return true;
}

TEST(RegistryLifetime, ObjectKeepsItsLibraryLoadedAfterTheRegistryIsGone) {
  std::shared_ptr<Kernel> kernel;
  std::weak_ptr<void> library;
  {
    const Registry registry = load_fixtures();
    const PluginEntry* entry = registry.find(Family::kernel, "constant");
    library = entry->library;
    kernel = registry.create_as<Kernel>(Family::kernel, "constant",
                                        Params(entry->info->schema, {{"value", 4.0}}));
    EXPECT_TRUE(library_is_loaded(fixture("libgood.so")));
  }
  // The object holds the last reference to its library.
  EXPECT_FALSE(library.expired());
  EXPECT_TRUE(library_is_loaded(fixture("libgood.so")));
  // Virtual calls into the plugin's code still work.
  const Eigen::MatrixXd X = Eigen::MatrixXd::Zero(2, 1);
  EXPECT_DOUBLE_EQ(kernel->cross(X, X)(0, 1), 4.0);
  EXPECT_DOUBLE_EQ(kernel->gram(X)(1, 1), 4.0);
  EXPECT_DOUBLE_EQ(kernel->diagonal(X)(0), 4.0);
  std::shared_ptr<Component> copy = kernel;
  kernel.reset();
  EXPECT_FALSE(library.expired());
  copy.reset();  // deletes the object, then releases the library
  EXPECT_TRUE(library.expired());
}

// RTLD_NODELETE: nothing a library registered (static objects, atexit handlers, glog and
// Ceres registrations of the optimizer plugin) outlives its code.
TEST(RegistryLifetime, LibrariesStayLoadedAfterTheRegistryIsGone) {
  std::weak_ptr<void> library;
  {
    const Registry registry = load_fixtures();
    library = registry.find(Family::kernel, "constant")->library;
    EXPECT_FALSE(library.expired());
  }
  EXPECT_TRUE(library.expired());                         // the handle is released ...
  EXPECT_TRUE(library_is_loaded(fixture("libgood.so")));  // ... the code stays mapped
}

// Files are checked before dlopen (which runs constructors and faults on a truncated file):
// each bad file below is refused with its reason while a good library in the same
// directory loads.
class PreLoadCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "quench-preload-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    std::ifstream in(fixture("libgood.so"), std::ios::binary);
    good_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    ASSERT_GT(good_.size(), sizeof(Elf64_Ehdr));
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes) const {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
  }
  // libgood.so with the header field at `offset` set to `value`.
  template <class T>
  std::string patched(const std::string& name, std::size_t offset, T value) const {
    std::string bytes = good_;
    std::memcpy(bytes.data() + offset, &value, sizeof value);
    return write(name, bytes);
  }
  std::string refusal(const std::string& path) const {
    Registry registry;
    EXPECT_FALSE(registry.load_library(path));
    EXPECT_EQ(registry.failures().size(), 1u);
    return registry.failures().empty() ? "" : registry.failures()[0].str();
  }

  fs::path dir_;
  std::string good_;
};

TEST_F(PreLoadCheck, TruncatedLibraryIsRefusedNamingTheSegment) {
  // Half of a real library: its headers are intact, its later segments are missing. dlopen
  // of this file dies with SIGBUS.
  const std::string path = write("libtruncated.so", good_.substr(0, good_.size() / 2));
  const std::string line = refusal(path);
  EXPECT_TRUE(contains(line, path + ": truncated: program header ")) << line;
  EXPECT_TRUE(contains(line, ", file has " + std::to_string(good_.size() / 2))) << line;
}

TEST_F(PreLoadCheck, HeaderOnlyIsRefused) {
  const std::string path = write("libheader.so", good_.substr(0, sizeof(Elf64_Ehdr)));
  EXPECT_TRUE(contains(refusal(path), ": truncated: program header table ends at byte "))
      << refusal(path);
  EXPECT_EQ(refusal(write("libshort.so", good_.substr(0, 10))),
            dir_.string() +
                "/libshort.so: truncated: ELF identification ends at byte 16, file "
                "has 10");
}

TEST_F(PreLoadCheck, NonElfFileIsRefused) {
  const std::string path = write("libx.so", "#!/bin/sh\necho not a library\n");
  EXPECT_EQ(refusal(path), path + ": not an ELF file (no ELF magic number)");
}

TEST_F(PreLoadCheck, OtherClassByteOrderMachineOrTypeIsRefused) {
  const std::string path32 = patched("libclass32.so", EI_CLASS, std::uint8_t{ELFCLASS32});
  EXPECT_EQ(refusal(path32),
            path32 + ": ELF class 1 (32-bit), host 2 (64-bit); only 64-bit libraries are loaded");
  const std::string big = patched("libbig.so", EI_DATA, std::uint8_t{ELFDATA2MSB});
  EXPECT_EQ(refusal(big), big + ": ELF byte order 2 (big-endian), host 1 (little-endian)");
  const std::string s390 =
      patched("libs390.so", offsetof(Elf64_Ehdr, e_machine), std::uint16_t{EM_S390});
  EXPECT_TRUE(contains(refusal(s390), s390 + ": ELF machine 22 (S/390), host ")) << refusal(s390);
#if defined(__x86_64__)
  EXPECT_EQ(refusal(s390), s390 + ": ELF machine 22 (S/390), host 62 (x86-64)");
#endif
  const std::string exec =
      patched("libexec.so", offsetof(Elf64_Ehdr, e_type), std::uint16_t{ET_EXEC});
  EXPECT_EQ(refusal(exec), exec + ": ELF type 2 (executable), not a shared library (ET_DYN)");
}

TEST_F(PreLoadCheck, SegmentBeyondTheFileIsRefusedEvenWhenTheFileIsWhole) {
  // The first program header's p_filesz made larger than the file.
  Elf64_Ehdr header;
  std::memcpy(&header, good_.data(), sizeof header);
  const std::size_t filesz = header.e_phoff + offsetof(Elf64_Phdr, p_filesz);
  const std::string path = patched("libhuge.so", filesz, std::uint64_t{1} << 40);
  EXPECT_TRUE(contains(refusal(path), ": truncated: program header 0 ends at byte ")) << path;
}

TEST_F(PreLoadCheck, GoodLibraryLoadsNextToTheBadOnes) {
  write("libgood.so", good_);
  write("libtruncated.so", good_.substr(0, good_.size() / 2));
  write("libx.so", "garbage");
  patched("libs390.so", offsetof(Elf64_Ehdr, e_machine), std::uint16_t{EM_S390});
  Registry registry;
  registry.load(dir_.string());
  EXPECT_NE(registry.find(Family::kernel, "constant"), nullptr);
  ASSERT_EQ(registry.failures().size(), 3u);
  for (const char* file : {"libtruncated.so", "libx.so", "libs390.so"})
    EXPECT_EQ(failures_for(registry, (dir_ / file).string()).size(), 1u) << file;
}

// A plugin built with -mavx2 next to a host built without: the fingerprints differ in
// Eigen's alignment, and the library is refused naming both values. Without the check it
// loads, and freeing the matrix its kernel returns aborts the process (free(): invalid
// pointer) -- the branch below shows what the refusal prevents.
TEST(AbiFingerprint, PluginBuiltWithAvx2IsRefusedNamingBothValues) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "this CPU cannot run the -mavx2 fixture";
  const std::string path = fixture("isa/libavx2.so");
  Registry registry;
  const bool loaded = registry.load_library(path);
  if (loaded) {
    auto kernel = registry.create_as<Kernel>(Family::kernel, "avx2_constant", Params());
    const Eigen::MatrixXd K =
        kernel->cross(Eigen::MatrixXd::Zero(3, 1), Eigen::MatrixXd::Zero(3, 1));
    EXPECT_EQ(K.rows(), 3);
  }
  ASSERT_FALSE(loaded);
  ASSERT_EQ(registry.failures().size(), 1u);
  const std::string line = registry.failures()[0].str();
  EXPECT_TRUE(contains(line, path + ": built for another ABI (")) << line;
  EXPECT_TRUE(contains(line, "EIGEN_MAX_ALIGN_BYTES: plugin 32, host 16")) << line;
  EXPECT_TRUE(contains(line, "EIGEN_MAX_STATIC_ALIGN_BYTES: plugin 32, host 16")) << line;
  EXPECT_TRUE(contains(line, "EIGEN_VECTORIZE_AVX: plugin 1, host 0")) << line;
  EXPECT_TRUE(contains(line, "rebuild the plugin with the compiler and flags of this quench"))
      << line;
  EXPECT_FALSE(contains(line, "__GXX_ABI_VERSION")) << line;
  EXPECT_FALSE(contains(line, "EIGEN_WORLD_VERSION")) << line;
}

TEST(SearchPath, OrderIsCommandLineEnvironmentPipelineDefault) {
  ScopedEnv env("QUENCH_PLUGIN_PATH", "/env/a::/env/b:");
  const auto path = plugin_search_path({"/cli/a", "/cli/b"}, {"/pipe/a"});
  const std::vector<std::string> expected = {"/cli/a", "/cli/b",  "/env/a",
                                             "/env/b", "/pipe/a", default_plugin_directory()};
  EXPECT_EQ(path, expected);
}

TEST(SearchPath, WithoutEnvironmentVariable) {
  ScopedEnv env("QUENCH_PLUGIN_PATH", nullptr);
  const std::vector<std::string> expected = {"/cli", "/pipe", default_plugin_directory()};
  EXPECT_EQ(plugin_search_path({"/cli"}, {"/pipe"}), expected);
  EXPECT_EQ(plugin_search_path({}, {}), std::vector<std::string>{default_plugin_directory()});
}

TEST(SearchPath, DuplicateDirectoriesAppearOnce) {
  ScopedEnv env("QUENCH_PLUGIN_PATH", "/x:/y/");
  const auto path = plugin_search_path({"/y", "/x/"}, {"/x", "/z", default_plugin_directory()});
  const std::vector<std::string> expected = {"/y", "/x/", "/z", default_plugin_directory()};
  EXPECT_EQ(path, expected);
}

TEST(SearchPath, DefaultDirectoryIsNextToTheFrameworkLibrary) {
  const std::string dir = default_plugin_directory();
  EXPECT_TRUE(contains(dir, "quench/plugins")) << dir;
  EXPECT_EQ(fs::weakly_canonical(dir), fs::weakly_canonical(QUENCH_BUILD_PLUGIN_DIR));
}

TEST(SearchPath, DiscoverVisitsEachDirectoryOnceInSearchOrder) {
  ScopedEnv env("QUENCH_PLUGIN_PATH", (kFixtures + "/nested").c_str());
  const Registry registry = Registry::discover({kFixtures}, {kFixtures, kFixtures + "/"});
  ASSERT_NE(registry.find(Family::kernel, "constant"), nullptr);
  EXPECT_EQ(registry.find(Family::kernel, "constant")->library_path, fixture("libgood.so"));
  ASSERT_NE(registry.find(Family::kernel, "nested"), nullptr);
  // The fixture directory was listed three times but visited once.
  for (const auto& c : broken_cases())
    EXPECT_EQ(failures_for(registry, fixture(c.file)).size(), 1u) << c.file;
}

TEST(SearchPath, CommandLineDirectoriesComeBeforeTheEnvironment) {
  // A directory holding only a link to libshadow.so, given on the command line: its
  // 'constant' now wins over libgood.so's from QUENCH_PLUGIN_PATH.
  const fs::path dir = fs::temp_directory_path() /
                       ("quench-registry-test-" + std::to_string(static_cast<long>(getpid())));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::create_symlink(fixture("libshadow.so"), dir / "libshadow.so");
  {
    ScopedEnv env("QUENCH_PLUGIN_PATH", kFixtures.c_str());
    const Registry registry = Registry::discover({dir.string()});
    ASSERT_NE(registry.find(Family::kernel, "constant"), nullptr);
    EXPECT_EQ(registry.find(Family::kernel, "constant")->library_path,
              (dir / "libshadow.so").string());
    // The same library reached again through the fixture directory is not loaded twice.
    std::vector<std::string> fixture_warnings;
    for (const auto& w : registry.warnings())
      if (contains(w, kFixtures)) fixture_warnings.push_back(w);
    ASSERT_EQ(fixture_warnings.size(), 1u);
    EXPECT_TRUE(contains(fixture_warnings[0], fixture("libgood.so"))) << fixture_warnings[0];
    EXPECT_TRUE(contains(fixture_warnings[0], (dir / "libshadow.so").string()));
  }
  fs::remove_all(dir);
}

TEST(DescribePlugins, ListsPluginsParametersAndRefusedLibraries) {
  const Registry registry = load_fixtures();
  const std::string text = describe_plugins(registry);
  EXPECT_TRUE(contains(text, "kernel plugins:")) << text;
  EXPECT_TRUE(contains(text, "engine plugins:")) << text;
  EXPECT_TRUE(contains(text, "Constant covariance k(x, x') = value.")) << text;
  // Below the kernels: how they combine.
  EXPECT_TRUE(contains(text, "\nkernel combinations (of the kernels above")) << text;
  EXPECT_TRUE(contains(text, "  product  {product: [k0, k1, ...]}")) << text;
  EXPECT_TRUE(contains(text, fixture("libgood.so") + " (fixture-good 2.3.4)")) << text;
  EXPECT_TRUE(contains(text, "needs       kernel")) << text;

  // One line per parameter: name, type, default, range or choices, doc.
  std::map<std::string, std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (!first.empty() && !lines.count(first)) lines[first] = line;
  }
  ASSERT_TRUE(lines.count("value")) << text;
  EXPECT_TRUE(contains(lines["value"], "real")) << lines["value"];
  EXPECT_TRUE(contains(lines["value"], "default 1")) << lines["value"];
  EXPECT_TRUE(contains(lines["value"], "[0, 100]")) << lines["value"];
  EXPECT_TRUE(contains(lines["value"], "The constant value.")) << lines["value"];
  EXPECT_TRUE(contains(lines["copies"], "integer")) << text;
  EXPECT_TRUE(contains(lines["copies"], ">= 1")) << text;
  EXPECT_TRUE(contains(lines["mode"], "one of a, b")) << text;
  EXPECT_TRUE(contains(lines["scale"], "required")) << text;
  EXPECT_TRUE(contains(lines["shift"], "list of reals")) << text;
  EXPECT_TRUE(contains(lines["shift"], "optional")) << text;
  EXPECT_TRUE(contains(lines["shift"], "items [0, 1]")) << text;
  EXPECT_TRUE(contains(lines["inner"], "kernel plugin")) << text;
  // Columns are aligned: every parameter's doc starts at the same column.
  EXPECT_EQ(lines["value"].find("The constant value."), lines["copies"].find("How many"));

  EXPECT_TRUE(contains(text, "refused libraries:")) << text;
  for (const auto& failure : registry.failures())
    EXPECT_TRUE(contains(text, "  " + failure.str() + "\n")) << failure.str();
  EXPECT_TRUE(contains(text, "warnings:")) << text;
  EXPECT_TRUE(contains(text, registry.warnings().at(0))) << text;
}

TEST(DescribePlugins, EmptyRegistry) {
  EXPECT_EQ(describe_plugins(Registry()), "No plugins found.\n");
}

}  // namespace
}  // namespace quench
