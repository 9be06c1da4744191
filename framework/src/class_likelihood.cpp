#include "quench/class_likelihood.h"

#include "quench/errors.h"
#include "quench/likelihood.h"

namespace quench {

ClassLikelihood::~ClassLikelihood() = default;

ClassSiteForm class_site_form(Eigen::Index y, const ClassSite& site) {
  // The header's forms with tau_y = nu_y = 0: q = s e_y - tau, so h_y = s_nu / (1 + s) and
  // h_j = -nu_j + tau_j s_nu / (1 + s).
  const double s = site.tau.sum() - site.tau(y), s_nu = site.nu.sum() - site.nu(y);
  const double shift = s_nu / (1.0 + s);
  ClassSiteForm form;
  form.pi = site.tau;
  form.pi(y) = 1.0;
  form.h = site.tau * shift - site.nu;
  form.h(y) = shift;
  return form;
}

const ClassLikelihood& require_class_likelihood(const Likelihood* likelihood,
                                                const std::string& who) {
  const ClassLikelihood* classes = likelihood ? likelihood->classes() : nullptr;
  if (!classes)
    throw ConfigError({}, who +
                              " needs a multi-class likelihood (a likelihood of one of C classes, "
                              "Likelihood::classes)");
  return *classes;
}

}  // namespace quench
