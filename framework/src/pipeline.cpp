#include "quench/pipeline.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipeline_spec.h"
#include "quench/errors.h"
#include "quench/printable.h"

namespace quench {

Pipeline::Pipeline(std::unique_ptr<PipelineSpec> spec) : spec_(std::move(spec)) {}
Pipeline::Pipeline(Pipeline&&) noexcept = default;
Pipeline& Pipeline::operator=(Pipeline&&) noexcept = default;
Pipeline::~Pipeline() = default;

Pipeline Pipeline::from_file(const std::string& path) {
  if (std::filesystem::is_directory(path))
    throw ConfigError(SourceLocation{printable(path, 4096), 0, 0},
                      "cannot read: it is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ConfigError(SourceLocation{printable(path, 4096), 0, 0},
                      std::string("cannot read: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  const auto dir = std::filesystem::path(path).parent_path();
  return Pipeline(std::make_unique<PipelineSpec>(
      parse_pipeline(text.str(), path, dir.empty() ? "." : dir.string(), true)));
}

Pipeline Pipeline::from_string(const std::string& yaml, const std::string& name,
                               const std::string& base_directory) {
  return Pipeline(std::make_unique<PipelineSpec>(parse_pipeline(yaml, name, base_directory, true)));
}

const std::vector<std::string>& Pipeline::plugin_paths() const { return spec_->plugin_paths; }
const std::string& Pipeline::output_directory() const { return spec_->outputs.dir; }
const std::string& Pipeline::name() const { return spec_->name; }
bool Pipeline::writes_plots() const { return spec_->outputs.plots; }
bool Pipeline::writes_tables() const { return spec_->outputs.tables; }
std::uint64_t Pipeline::seed() const { return spec_->seed; }
const PipelineSpec& Pipeline::spec() const { return *spec_; }

void Pipeline::validate(const Registry& registry) const { resolve_pipeline(*spec_, registry); }

}  // namespace quench
