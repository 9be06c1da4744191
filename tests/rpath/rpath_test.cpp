// The library search paths recorded in the built binaries (DT_RUNPATH, DT_RPATH), read from
// the ELF dynamic section. An empty element, as CMake's padding for install-time rewriting
// leaves (`<build>/lib:`, `::::::`), makes glibc search the current directory: a library
// dropped there would be loaded. Every element must be $ORIGIN-relative or an absolute path
// other than the current directory.
#include <elf.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

struct SearchPaths {
  std::optional<std::string> runpath, rpath;
};

template <class T>
T read_at(const std::string& file, std::size_t offset) {
  if (offset > file.size() || file.size() - offset < sizeof(T))
    throw std::runtime_error("truncated ELF file");
  T value;
  std::memcpy(&value, file.data() + offset, sizeof(T));
  return value;
}

/// DT_RUNPATH and DT_RPATH of a 64-bit ELF file, through its SHT_DYNAMIC section and the
/// string table that section links to.
SearchPaths search_paths(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string file{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const auto header = read_at<Elf64_Ehdr>(file, 0);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
    throw std::runtime_error(path.string() + " is not a 64-bit ELF file");
  auto section = [&](std::size_t i) {
    return read_at<Elf64_Shdr>(file, header.e_shoff + i * header.e_shentsize);
  };
  SearchPaths found;
  for (std::size_t i = 0; i < header.e_shnum; ++i) {
    const Elf64_Shdr dynamic = section(i);
    if (dynamic.sh_type != SHT_DYNAMIC) continue;
    const Elf64_Shdr strings = section(dynamic.sh_link);
    for (std::size_t k = 0; k < dynamic.sh_size / sizeof(Elf64_Dyn); ++k) {
      const auto entry = read_at<Elf64_Dyn>(file, dynamic.sh_offset + k * sizeof(Elf64_Dyn));
      if (entry.d_tag != DT_RUNPATH && entry.d_tag != DT_RPATH) continue;
      const std::size_t at = strings.sh_offset + entry.d_un.d_val;
      if (at >= file.size()) throw std::runtime_error("string outside the file");
      (entry.d_tag == DT_RUNPATH ? found.runpath : found.rpath) = std::string(file.c_str() + at);
    }
  }
  return found;
}

std::vector<std::string> elements(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string element; std::getline(in, element, ':');) out.push_back(element);
  if (!list.empty() && list.back() == ':') out.emplace_back();  // getline drops a last empty one
  return out;
}

/// Checks every element of the search paths of `binary`; returns the RUNPATH's elements.
std::vector<std::string> checked_runpath(const fs::path& binary) {
  const SearchPaths paths = search_paths(binary);
  EXPECT_FALSE(paths.rpath) << binary << " has DT_RPATH '" << *paths.rpath
                            << "' (searched before LD_LIBRARY_PATH); expected DT_RUNPATH";
  if (!paths.runpath) return {};
  const auto list = elements(*paths.runpath);
  for (const auto& element : list) {
    SCOPED_TRACE(binary.string() + " RUNPATH '" + *paths.runpath + "'");
    EXPECT_FALSE(element.empty()) << "empty element: the current directory is searched";
    const bool origin = element.rfind("$ORIGIN", 0) == 0 || element.rfind("${ORIGIN}", 0) == 0;
    EXPECT_TRUE(origin || (fs::path(element).is_absolute() &&
                           fs::path(element).lexically_normal() != fs::current_path()))
        << "element '" << element << "' is neither $ORIGIN-relative nor absolute";
  }
  return list;
}

TEST(rpath, CliFindsTheFrameworkBesideItsOwnDirectory) {
  EXPECT_EQ(checked_runpath(QUENCH_CLI), std::vector<std::string>{"$ORIGIN/../lib"});
}

TEST(rpath, FrameworkLibraryHasNoSearchPath) {
  EXPECT_EQ(checked_runpath(QUENCH_FRAMEWORK_LIBRARY), std::vector<std::string>{});
}

TEST(rpath, RegistryAndPipelineLibrariesFindTheirSiblings) {
  for (const char* library : {QUENCH_REGISTRY_LIBRARY, QUENCH_PIPELINE_LIBRARY})
    EXPECT_EQ(checked_runpath(library), std::vector<std::string>{"$ORIGIN"}) << library;
}

TEST(rpath, PluginFindsTheFrameworkTwoLevelsUp) {
  EXPECT_EQ(checked_runpath(QUENCH_PLUGIN_LIBRARY), std::vector<std::string>{"$ORIGIN/../.."});
}

TEST(rpath, TestExecutableAndTestModuleAreOriginRelative) {
  for (const fs::path& binary :
       {fs::read_symlink("/proc/self/exe"), fs::path(QUENCH_FIXTURE_MODULE)}) {
    const auto list = checked_runpath(binary);
    EXPECT_FALSE(list.empty()) << binary;
    for (const auto& element : list) EXPECT_EQ(element.rfind("$ORIGIN", 0), 0u) << binary;
  }
}

}  // namespace
