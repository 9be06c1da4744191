#include "quench/kernel_record.h"

#include <algorithm>

#include "quench/class_kernels.h"
#include "quench/column_subset_kernel.h"
#include "quench/composite_kernel.h"
#include "quench/errors.h"

namespace quench {
namespace {

std::vector<Eigen::Index> column_indices(const std::vector<std::string>& columns,
                                         const std::vector<std::string>& input_names) {
  std::vector<Eigen::Index> out;
  for (const std::string& c : columns) {
    const auto it = std::find(input_names.begin(), input_names.end(), c);
    if (it == input_names.end()) {
      std::string names;
      for (const std::string& n : input_names) names += (names.empty() ? "" : ", ") + n;
      throw ConfigError({},
                        "the kernel's column '" + c + "' is not an input (inputs: " + names + ")");
    }
    out.push_back(it - input_names.begin());
  }
  return out;
}

std::shared_ptr<Kernel> build(const ComponentRecord& r, const ComponentSource& source,
                              const std::vector<std::string>& input_names, int depth) {
  if (depth > kMaxKernelDepth)
    throw ConfigError(
        {}, "kernels nest deeper than " + std::to_string(kMaxKernelDepth) + " sums and products");
  std::shared_ptr<Kernel> kernel;
  if (r.combine.empty()) {
    kernel = std::dynamic_pointer_cast<Kernel>(
        source.create(Family::kernel, r.plugin, r.version, r.params));
    if (!kernel) throw ConfigError({}, "plugin '" + r.plugin + "' is not a kernel");
  } else {
    const bool per_class = r.combine == kPerClass;
    if (per_class && depth > 0)
      throw ConfigError({},
                        "a kernel per class is the whole kernel, not a part of a sum or "
                        "product");
    if (per_class && !r.columns.empty())
      throw ConfigError({},
                        "a kernel per class takes no columns; give each class's kernel its "
                        "own");
    std::vector<std::shared_ptr<Kernel>> parts;
    for (const ComponentRecord& p : r.parts)
      parts.push_back(build(p, source, input_names, depth + 1));
    if (per_class)
      kernel = std::make_shared<ClassKernels>(std::move(parts));
    else if (r.combine == "sum")
      kernel = std::make_shared<KernelSum>(std::move(parts));
    else if (r.combine == "product")
      kernel = std::make_shared<KernelProduct>(std::move(parts));
    else
      throw ConfigError({},
                        "kernels combine by sum, product or per_class, not '" + r.combine + "'");
  }
  if (r.columns.empty()) return kernel;
  return std::make_shared<ColumnSubsetKernel>(std::move(kernel),
                                              column_indices(r.columns, input_names));
}

std::string formula(const ComponentRecord& r, bool in_product) {
  std::string s;
  if (r.combine.empty()) {
    s = r.plugin;
  } else if (r.combine == kPerClass) {
    s = "per class: ";
    for (std::size_t i = 0; i < r.parts.size(); ++i)
      s += (i ? " | " : "") + formula(r.parts[i], false);
  } else {
    const char* op = r.combine == "sum" ? " + " : " * ";
    for (std::size_t i = 0; i < r.parts.size(); ++i)
      s += (i ? op : "") + formula(r.parts[i], r.combine == "product");
    if ((in_product && r.combine == "sum") || !r.columns.empty()) s = "(" + s + ")";
  }
  if (!r.columns.empty()) {
    s += "[";
    for (std::size_t i = 0; i < r.columns.size(); ++i) s += (i ? ", " : "") + r.columns[i];
    s += "]";
  }
  return s;
}

}  // namespace

std::shared_ptr<Kernel> build_kernel(const ComponentRecord& record, const ComponentSource& source,
                                     const std::vector<std::string>& input_names) {
  return build(record, source, input_names, 0);
}

std::string kernel_part_name(const std::string& combine, std::size_t i) {
  return (combine == kPerClass ? "c" : "") + std::to_string(i);
}

std::string describe_kernel(const ComponentRecord& record) { return formula(record, false); }

}  // namespace quench
