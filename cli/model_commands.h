// quench predict and quench info: using a saved model (docs/models.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace quench::cli {

/// What quench predict is asked besides the model and the rows.
struct PredictOptions {
  bool ignore_extra_columns = false;
  /// --quantiles: the probabilities of the quantiles of y (empty: the model's 5/50/95 %).
  std::vector<double> quantiles;
  /// --max-count: p(y = k) for k = 0..K (nullopt: the default 10; -1: none).
  std::optional<int> max_count;
  std::vector<std::string> plugin_paths;
};

/// Predicts the rows of `data_file` with the model (each row's size from the model's size
/// column) and writes the CSV table to `out` (atomically). Returns the exit code. ConfigError
/// (exit 2) for a quantile outside (0, 1), or options the model's predictions do not take (a
/// model without quantiles or count probabilities of y), before anything is written.
int predict_command(const std::string& model_file, const std::string& data_file,
                    const std::string& out, const PredictOptions& options);

/// Prints what the model is, what it was trained on and with, and where it came from.
int info_command(const std::string& model_file, const std::vector<std::string>& plugin_paths);

}  // namespace quench::cli
