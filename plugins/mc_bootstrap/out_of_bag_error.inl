// Implementation of out_of_bag_error (a template; see mc_bootstrap.h).
#include <cmath>
#include <limits>

namespace quench::mc_bootstrap {

template <class Loss>
OutOfBagError out_of_bag_error(const Eigen::MatrixXd& F, const Eigen::MatrixXd& O,
                               const Eigen::VectorXd& y, Loss loss) {
  const Eigen::Index n = F.rows(), T = F.cols();
  Eigen::MatrixXd A(n, T);  // a_it = O_it g(F_it, y_i)
  for (Eigen::Index t = 0; t < T; ++t)
    for (Eigen::Index i = 0; i < n; ++i) A(i, t) = O(i, t) > 0 ? loss(F(i, t), y(i)) : 0.0;
  const Eigen::VectorXd a_mean = A.rowwise().mean(), b_mean = O.rowwise().mean();
  OutOfBagError out;
  Eigen::VectorXd ratio = Eigen::VectorXd::Zero(n);
  out.per_point = Eigen::VectorXd::Constant(n, std::numeric_limits<double>::quiet_NaN());
  for (Eigen::Index i = 0; i < n; ++i)
    if (b_mean(i) > 0) {
      ratio(i) = a_mean(i) / b_mean(i);
      out.per_point(i) = ratio(i);
      out.value += ratio(i);
      ++out.points;
    }
  if (out.points == 0) return out;
  out.value /= static_cast<double>(out.points);
  // Linearization: z_t = (1/N') sum_i (a_it - r_i b_it) / mean(b_i); Var(est) ~ Var(z)/T.
  Eigen::VectorXd z = Eigen::VectorXd::Zero(T);
  for (Eigen::Index t = 0; t < T; ++t)
    for (Eigen::Index i = 0; i < n; ++i)
      if (b_mean(i) > 0) z(t) += (A(i, t) - ratio(i) * O(i, t)) / b_mean(i);
  z /= static_cast<double>(out.points);
  if (T > 1) {
    const double var = (z.array() - z.mean()).square().sum() / static_cast<double>(T - 1);
    out.standard_error = std::sqrt(var / static_cast<double>(T));
  }
  return out;
}

}  // namespace quench::mc_bootstrap
