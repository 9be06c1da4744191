#include "link_likelihood.h"

#include "logistic.h"
#include "quench/normal.h"

namespace quench::likelihoods {

double LinkSite::value(double f) const {
  const double s = f + shift_;
  if (link_ == Link::logit) return a_ * log_logistic(s) + b_ * log_logistic(-s);
  return a_ * normal_log_cdf(s) + b_ * normal_log_cdf(-s);
}

double LinkSite::d1(double f) const {
  const double s = f + shift_;
  if (link_ == Link::logit) return a_ * logistic(-s) - b_ * logistic(s);
  return a_ * normal_pdf_cdf_ratio(s) - b_ * normal_pdf_cdf_ratio(-s);
}

double LinkSite::d2(double f) const {
  const double s = f + shift_;
  if (link_ == Link::logit) return -(a_ + b_) * logistic(s) * logistic(-s);
  // d/ds r(s) = -r(s) (s + r(s)).
  return -a_ * normal_pdf_cdf_ratio(s) * normal_ratio_plus_z(s) -
         b_ * normal_pdf_cdf_ratio(-s) * normal_ratio_plus_z(-s);
}

void LinkSite::values(const double* f, double* out, std::size_t n) const {
  for (std::size_t i = 0; i < n; ++i) out[i] = value(f[i]);
}

int LinkSite::transitions(double* out) const {
  int n = 0;
  if (link_ == Link::logit) {
    for (double s : {-6.0, 0.0, 6.0}) out[n++] = s - shift_;
    return n;
  }
  if (b_ > 0) out[n++] = -9.0 - shift_;
  out[n++] = -shift_;
  if (a_ > 0) out[n++] = 9.0 - shift_;
  return n;
}

double LinkLikelihood::log_likelihood(const Observation& y, double f) const {
  return site(y).value(f) + log_normalizer(y);
}

double LinkLikelihood::d_log_likelihood(const Observation& y, double f) const {
  return site(y).d1(f);
}

double LinkLikelihood::d2_log_likelihood(const Observation& y, double f) const {
  return site(y).d2(f);
}

TiltedMoments LinkLikelihood::tilted_moments(const Observation& y, double m, double v) const {
  return tilted_moments_power(y, m, v, 1);
}

TiltedMoments LinkLikelihood::tilted_moments_power(const Observation& y, double m, double v,
                                                   int k) const {
  check_tilted_power_arguments(m, v, k);
  if (k == 0) return {0.0, m, v};
  TiltedMoments t = tilted_power_moments(site(y), m, v, k);
  t.log_z += k * log_normalizer(y);
  return t;
}

}  // namespace quench::likelihoods
