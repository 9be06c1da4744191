// A kernel from its record (ComponentRecord): a plugin's kernel, the sum or product of its
// parts' kernels (composite_kernel.h), each on its named input columns (column_subset_kernel.h),
// or, at the top only, a kernel per class (combine "per_class", class_kernels.h). Pipelines and
// saved models build kernels through this one path.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quench/export.h"
#include "quench/fitted_model.h"
#include "quench/kernel.h"

namespace quench {

/// Nesting beyond this depth is refused (a YAML or model file that nests without end).
inline constexpr int kMaxKernelDepth = 16;

/// The record's combine for a kernel per class.
inline constexpr const char* kPerClass = "per_class";

/// The kernel `record` describes, not yet prepared (learned blocks not applied). Plugins come
/// from `source`; column names are looked up among `input_names`. Throws ConfigError for an
/// unknown column, a composite without parts or nested deeper than kMaxKernelDepth, a kernel
/// per class below the top or on columns, or a plugin that is not a kernel (and whatever
/// source.create throws).
QUENCH_API std::shared_ptr<Kernel> build_kernel(const ComponentRecord& record,
                                                const ComponentSource& source,
                                                const std::vector<std::string>& input_names);

/// The name of part i of a composite `combine` in its blocks and learn paths: "i" in a sum or
/// product ("kernel.1.0.period"), "ci" in a kernel per class ("kernel.c2.length_scales").
QUENCH_API std::string kernel_part_name(const std::string& combine, std::size_t i);

/// The record as a formula for messages and reports: "gaussian + gaussian * periodic",
/// "(gaussian + linear) * constant", "gaussian[year]", "per class: gaussian | gaussian + linear";
/// the plugin's name for other families.
QUENCH_API std::string describe_kernel(const ComponentRecord& record);

}  // namespace quench
