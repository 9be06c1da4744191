// What a likelihood's observations are: the kinds of target (Likelihood::target_kind), one
// observation (its target and its size) and the observations of a set of rows.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "quench/export.h"

namespace quench {

/// The kinds of target a likelihood serves and a data set's target is read as.
enum class TargetKind {
  any,        ///< no reading imposed: the numbers as they are (engines that read them themselves)
  real,       ///< finite numbers
  count,      ///< non-negative integers
  binary,     ///< two classes read as -1 and +1 (numbers -1/+1 or 0/1, or two strings)
  successes,  ///< integers 0..n_i out of the n_i trials of the observation's size column
  classes,    ///< C >= 2 classes (integers or strings) read as class indices 0..C-1
};

/// The kinds of a scalar likelihood, one latent value per observation: real, count, binary,
/// successes.
QUENCH_API std::vector<TargetKind> scalar_target_kinds();

/// "any", "real", "count", "binary", "successes", "classes".
QUENCH_API const char* to_string(TargetKind kind);
/// The kind named by to_string, or nullopt.
QUENCH_API std::optional<TargetKind> target_kind_from_string(std::string_view name);
/// What an observation's size is for the kind: "exposure" (count), "trials" (successes), else
/// "size".
QUENCH_API const char* size_meaning(TargetKind kind);
/// Whether `n` can be the size of an observation of `kind`: positive and finite, and a whole
/// number for trials (successes).
QUENCH_API bool valid_size(TargetKind kind, double n);
/// What valid_size asks of a size of `kind`, for messages: "a positive exposure" (count), "a
/// positive whole number of trials" (successes), else "a positive size".
QUENCH_API const char* size_requirement(TargetKind kind);

/// One observation as a likelihood reads it: the target y in its kind's reading (a real number,
/// a count, -1/+1, a number of successes) and its size n > 0: the exposure of a count (its rate
/// scales with n), the trials of a binomial; 1 when the likelihood names no size column.
struct Observation {
  double y = 0.0;
  double size = 1.0;
};

/// Whether `o.y` can be a target of `kind` with size `o.size`: a real one finite, a count a
/// non-negative integer, a binary one -1 or +1, successes an integer from 0 to the size; any
/// number for `any` and `classes` (read by the engines themselves).
QUENCH_API bool valid_target(TargetKind kind, Observation o);

/// The observations of a set of rows: targets and sizes.
struct QUENCH_API Observations {
  Eigen::VectorXd y;
  Eigen::VectorXd sizes;  ///< one per row, or empty: every size is 1

  Observations() = default;
  /// Targets `y` with sizes `sizes` (empty: 1 each); implicit from targets alone.
  Observations(Eigen::VectorXd targets, Eigen::VectorXd row_sizes = {})  // NOLINT
      : y(std::move(targets)), sizes(std::move(row_sizes)) {}

  Eigen::Index rows() const { return y.size(); }
  Observation operator[](Eigen::Index i) const { return {y(i), sizes.size() ? sizes(i) : 1.0}; }
  /// The observations of `rows`, in that order.
  Observations subset(const std::vector<Eigen::Index>& rows) const;
  /// Every size, ones when sizes is empty.
  Eigen::VectorXd all_sizes() const;
};

}  // namespace quench
