#include "site_equations.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace quench::adatap {

using Eigen::Index;
using Eigen::VectorXd;

KSums::KSums(const Occupation& occ, double s2) {
  std::vector<double> p, ks;
  for (Index k = 0; k < occ.pmf.size(); ++k)
    if (occ.pmf(k) > 0) p.push_back(occ.pmf(k)), ks.push_back(static_cast<double>(k) / s2);
  p_ = Eigen::Map<const Eigen::ArrayXd>(p.data(), static_cast<Index>(p.size()));
  ks_ = Eigen::Map<const Eigen::ArrayXd>(ks.data(), static_cast<Index>(ks.size()));
}

VectorXd cavity_precision(const VectorXd& g_diagonal, const VectorXd& dl, double floor) {
  return (g_diagonal.cwiseInverse() - dl).cwiseMax(floor);  // eq 63
}

VectorXd site_precision(const KSums& ksum, const VectorXd& dlc) {
  VectorXd out(dlc.size());
  for (Index i = 0; i < dlc.size(); ++i)
    out(i) = std::max(0.0, 1.0 / ksum.inv(dlc(i)) - dlc(i));  // eq 64
  return out;
}

double relative_change(const VectorXd& a, const VectorXd& b) {
  double c = 0;
  for (Index i = 0; i < a.size(); ++i) {
    const double scale = std::max(std::abs(a(i)), 1e-300);
    c = std::max(c, std::abs(a(i) - b(i)) / scale);
  }
  return c;
}

}  // namespace quench::adatap
