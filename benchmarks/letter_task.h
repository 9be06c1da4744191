// The benchmarks' binary letter task (classes 0-12 vs 13-25 of examples/data/letter.csv): the
// first N rows, the 16 inputs standardized over those rows, and the Gaussian covariance of
// 001 App. B used by the classification benchmarks.
#pragma once

#include <cmath>
#include <string>

#include <Eigen/Core>

#include "quench/dataset.h"

namespace quench::bench {

struct LetterRows {
  Eigen::MatrixXd X;      ///< N x 16, standardized
  Eigen::VectorXd index;  ///< the letter's index 0..25, standardized (a regression target)
  Eigen::VectorXd label;  ///< +1 for letters 0-12, -1 for 13-25
};

inline LetterRows first_letter_rows(const std::string& path, Eigen::Index n) {
  const CsvTable table = read_csv(path);
  const Eigen::MatrixXd values = to_numbers(table);
  const Eigen::Index ycol = table.column_index("y");
  LetterRows d{Eigen::MatrixXd(n, 16), values.col(ycol).head(n), Eigen::VectorXd(n)};
  int c = 0;
  for (Eigen::Index j = 0; j < values.cols() && c < 16; ++j)
    if (j != ycol && table.columns[static_cast<std::size_t>(j)] != "train")
      d.X.col(c++) = values.col(j).head(n);
  auto standardize = [n](auto&& M) {
    const Eigen::RowVectorXd mean = M.colwise().mean();
    M.rowwise() -= mean;
    const Eigen::RowVectorXd sd = (M.colwise().squaredNorm() / double(n - 1)).cwiseSqrt();
    M = M.array().rowwise() / sd.array();
  };
  standardize(d.X);
  for (Eigen::Index i = 0; i < n; ++i) d.label(i) = d.index(i) <= 12 ? 1.0 : -1.0;
  Eigen::MatrixXd y = d.index;
  standardize(y);
  d.index = y.col(0);
  return d;
}

/// exp(-1/2 w |x - x'|^2), w = 1/(sigma^2 d) (001 App. B, v0 = 1, no noise).
inline Eigen::MatrixXd gaussian_gram(const Eigen::MatrixXd& X, double sigma2) {
  const Eigen::Index n = X.rows();
  const double w = 1.0 / (sigma2 * static_cast<double>(X.cols()));
  Eigen::MatrixXd C(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      C(i, j) = std::exp(-0.5 * w * (X.row(i) - X.row(j)).squaredNorm());
  return C;
}

}  // namespace quench::bench
