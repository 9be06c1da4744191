// A run's Results as bytes (CBOR through nlohmann::json: every double kept to the bit, NaN and
// infinities included) — what a run computed on another process (MPI, docs/distributed.md)
// travels as. The model and the learning report stay behind: runs are distributed only when no
// model is kept, and the learning report is the pipeline's own.
#pragma once

#include <string>

#include "quench/results.h"

namespace quench {

std::string encode_results(const Results& results);
/// The Results encode_results(r) was made from (model and learning empty). Throws Error on
/// bytes it did not make.
Results decode_results(const std::string& bytes);

}  // namespace quench
