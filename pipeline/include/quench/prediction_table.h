// New rows for a saved model (quench predict): a CSV file's columns matched to the model's
// inputs by name, in any order, and the predictions written back as a CSV table in the data's
// units (docs/models.md).
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/export.h"
#include "quench/fitted_model.h"

namespace quench {

struct PredictionInputs {
  std::string file;
  Eigen::MatrixXd X;                ///< rows x model inputs, in the model's input order
  std::vector<std::string> target;  ///< the target column's cells when present, else empty
  bool has_target = false;
  /// Each row's size from the model's size column (ModelCard::size_column); empty when the
  /// model has none.
  Eigen::VectorXd sizes;
};

/// Reads `file` (read_csv) and takes the model's input columns by name, and its size column
/// when the model's likelihood has one (quench::valid_size: an exposure positive, trials
/// positive whole numbers).
/// DataError naming the file (and the row and column for a cell that is not a finite number or
/// not a valid size) when an input or the size column is missing or a column is neither an
/// input, the size nor the target — unless ignore_extra_columns.
QUENCH_API PredictionInputs read_prediction_inputs(const std::string& file, const ModelCard& card,
                                                   bool ignore_extra_columns);

/// One row per input: the target column first when the inputs had one, then every prediction
/// column (17 significant digits, so the numbers read back exactly); a "label" column holds
/// the class names of a model trained on named classes (two classes: a value > 0 is the second
/// name; C > 2 classes: the class index c is class_names[c], and a column "probability.<c>" is
/// headed "probability.<class name>").
QUENCH_API std::string predictions_csv(const Predictions& predictions, const ModelCard& card,
                                       const PredictionInputs& inputs);

}  // namespace quench
