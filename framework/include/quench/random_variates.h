// Non-uniform random variates from an RngStream, written out (not std:: distributions, whose
// algorithms differ between standard libraries) so draws are reproducible everywhere.
#pragma once

#include <cstddef>

#include "quench/export.h"

namespace quench {

class RngStream;

/// Gamma(shape, 1) by Marsaglia & Tsang (2000); shape < 1 through the u^(1/shape) boost.
QUENCH_API double gamma_variate(RngStream& rng, double shape);

/// Inverse Gaussian IG(mean mu, shape lambda) by Michael, Schucany & Haas (1976).
QUENCH_API double inverse_gaussian_variate(RngStream& rng, double mu, double lambda);

/// n i.i.d. Exp(1) variates by the ziggurat method (Marsaglia & Tsang 2000, 256 layers,
/// exact in distribution at 32-bit resolution) from a xoshiro256++ generator whose state is
/// four outputs of `rng`: reproducible from the stream, several times cheaper than -log u.
QUENCH_API void exponential_ziggurat(RngStream& rng, double* out, std::size_t n);

}  // namespace quench
