// quench predict and quench info: using a saved model (docs/models.md).
#pragma once

#include <string>
#include <vector>

namespace quench::cli {

/// Predicts the rows of `data_file` with the model and writes the CSV table to `out`
/// (atomically). Returns the exit code.
int predict_command(const std::string& model_file, const std::string& data_file,
                    const std::string& out, bool ignore_extra_columns,
                    const std::vector<std::string>& plugin_paths);

/// Prints what the model is, what it was trained on and with, and where it came from.
int info_command(const std::string& model_file, const std::vector<std::string>& plugin_paths);

}  // namespace quench::cli
