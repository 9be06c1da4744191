// The LAPACK-backed Cholesky against Eigen's own factorization, and its failure modes.
#include <gtest/gtest.h>
#include <Eigen/Dense>

#include "quench/cholesky.h"
#include "quench/errors.h"

namespace quench::cholesky_test {
namespace {

Eigen::MatrixXd spd(int n, unsigned seed) {
  std::srand(seed);
  const Eigen::MatrixXd M = Eigen::MatrixXd::Random(n, n);
  return M * M.transpose() + n * Eigen::MatrixXd::Identity(n, n);
}

TEST(Cholesky, AgreesWithEigenLlt) {
  const Eigen::MatrixXd A = spd(40, 1);
  const Cholesky chol(A);
  const Eigen::LLT<Eigen::MatrixXd> ref(A);
  EXPECT_LT((chol.lower() - Eigen::MatrixXd(ref.matrixL())).cwiseAbs().maxCoeff(), 1e-10);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(40, -1, 2);
  EXPECT_LT((A * chol.solve(b) - b).norm(), 1e-10 * b.norm());
  EXPECT_LT((chol.inverse() * A - Eigen::MatrixXd::Identity(40, 40)).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_NEAR(chol.log_determinant(), std::log(A.determinant()), 1e-8);
  EXPECT_LT((chol.inverse_diagonal() - A.inverse().diagonal()).cwiseAbs().maxCoeff(), 1e-12);
  const Eigen::MatrixXd B = Eigen::MatrixXd::Random(40, 3);
  EXPECT_LT((chol.lower() * chol.solve_lower(B) - B).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_EQ(chol.jitter(), 0.0);
}

TEST(Cholesky, LowerInverseAndInverseFromIt) {
  const Eigen::MatrixXd A = spd(30, 3);
  const Cholesky chol(A);
  const Eigen::MatrixXd inv_l = chol.inverse_lower();
  EXPECT_LT((inv_l * chol.lower() - Eigen::MatrixXd::Identity(30, 30)).cwiseAbs().maxCoeff(),
            1e-12);
  EXPECT_EQ(inv_l.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().cwiseAbs().maxCoeff(),
            0.0);
  const Eigen::MatrixXd inv = Cholesky::inverse_from_lower_inverse(inv_l);
  EXPECT_LT((inv - A.inverse()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_EQ((inv - inv.transpose()).cwiseAbs().maxCoeff(), 0.0);
  const Eigen::MatrixXf inv_s = inverse_lower_single(A.cast<float>());
  EXPECT_LT((inv_s.cast<double>() - inv_l).cwiseAbs().maxCoeff(),
            1e-5 * inv_l.cwiseAbs().maxCoeff());
  EXPECT_THROW(inverse_lower_single(-Eigen::MatrixXf::Identity(3, 3)), NumericalError);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> ref(A);
  EXPECT_LT((symmetric_eigenvalues(A) - ref.eigenvalues()).cwiseAbs().maxCoeff(),
            1e-9 * ref.eigenvalues().maxCoeff());
}

TEST(Cholesky, RecursiveLowerInverseAtSizesAboveTheLapackBlock) {
  // Sizes above the 64 x 64 LAPACK base case of the recursive inverse, odd splits included.
  for (const int n : {65, 129, 301}) {
    SCOPED_TRACE(n);
    const Eigen::MatrixXd A = spd(n, 5);
    const Cholesky chol(A);
    const Eigen::MatrixXd inv_l = chol.inverse_lower();
    const Eigen::MatrixXd ref = chol.lower().triangularView<Eigen::Lower>().solve(
        Eigen::MatrixXd::Identity(n, n));  // forward substitution, independent of LAPACK
    EXPECT_LT((inv_l - ref).cwiseAbs().maxCoeff(), 1e-12 * ref.cwiseAbs().maxCoeff());
    EXPECT_EQ(inv_l.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().cwiseAbs().maxCoeff(),
              0.0);
    EXPECT_LT((chol.inverse_diagonal() - A.inverse().diagonal()).cwiseAbs().maxCoeff(),
              1e-12 * A.inverse().diagonal().maxCoeff());
    Eigen::MatrixXd lower_only = A;  // only the lower triangle may be read
    lower_only.triangularView<Eigen::StrictlyUpper>().setConstant(std::nan(""));
    const Eigen::MatrixXd inv_d = inverse_lower_double(lower_only);
    EXPECT_LT((inv_d - ref).cwiseAbs().maxCoeff(), 1e-12 * ref.cwiseAbs().maxCoeff());
    EXPECT_EQ(inv_d.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().cwiseAbs().maxCoeff(),
              0.0);
    const Eigen::MatrixXf inv_s = inverse_lower_single(A.cast<float>());
    EXPECT_LT((inv_s.cast<double>() - ref).cwiseAbs().maxCoeff(), 1e-5 * ref.cwiseAbs().maxCoeff());
    // Lower triangle of A^-1 in place from L^-1, double and single.
    const Eigen::MatrixXd A_inv = A.inverse();
    Eigen::MatrixXd in_place = inv_d;
    inverse_from_lower_inverse_in_place(in_place);
    const Eigen::MatrixXd err = in_place - A_inv;
    EXPECT_LT(err.triangularView<Eigen::Lower>().toDenseMatrix().cwiseAbs().maxCoeff(),
              1e-12 * A_inv.cwiseAbs().maxCoeff());
    Eigen::MatrixXf in_place_s = inv_s;
    inverse_from_lower_inverse_in_place(in_place_s);
    const Eigen::MatrixXd err_s = in_place_s.cast<double>() - A_inv;
    EXPECT_LT(err_s.triangularView<Eigen::Lower>().toDenseMatrix().cwiseAbs().maxCoeff(),
              1e-4 * A_inv.cwiseAbs().maxCoeff());
  }
  Eigen::MatrixXd bad = spd(100, 6);
  bad(80, 80) = -1.0;
  EXPECT_THROW(inverse_lower_double(bad), NumericalError);
}

TEST(Cholesky, ReadsOnlyTheLowerTriangle) {
  Eigen::MatrixXd A = spd(5, 2);
  const Cholesky reference(A);
  A.triangularView<Eigen::StrictlyUpper>().setConstant(std::nan(""));
  const Cholesky chol(A);
  EXPECT_EQ(chol.lower(), reference.lower());
}

TEST(Cholesky, JitterRescuesASemiDefiniteMatrix) {
  Eigen::MatrixXd v(3, 1);
  v << 1, 2, 3;
  const Eigen::MatrixXd A = v * v.transpose();  // rank one
  const Cholesky chol(A);
  EXPECT_GT(chol.jitter(), 0.0);
  EXPECT_LT((chol.lower() * chol.lower().transpose() - A).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(Cholesky, IndefiniteMatrixIsANumericalErrorNotNaN) {
  Eigen::MatrixXd A(2, 2);
  A << 1, 2, 2, 1;  // eigenvalues 3 and -1
  try {
    Cholesky chol(A, JitterPolicy{}, "test matrix");
    FAIL() << "expected NumericalError";
  } catch (const NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("test matrix (2x2) is not positive definite"),
              std::string::npos)
        << e.what();
  }
  Eigen::MatrixXd N = Eigen::MatrixXd::Identity(2, 2);
  N(0, 1) = N(1, 0) = std::nan("");
  EXPECT_THROW(Cholesky{N}, NumericalError);
}

}  // namespace
}  // namespace quench::cholesky_test
