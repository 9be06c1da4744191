#include "logit_likelihood.h"

#include <cmath>

#include "logistic.h"

namespace quench::likelihoods {

LinkSite LogitLikelihood::site(const Observation& y) const {
  return LinkSite(Link::logit, y.y > 0 ? 1.0 : 0.0, y.y < 0 ? 1.0 : 0.0, 0.0);
}

TargetMoments LogitLikelihood::target_moments(double f, double) const {
  return {std::tanh(0.5 * f), 4.0 * logistic(f) * logistic(-f)};
}

}  // namespace quench::likelihoods
