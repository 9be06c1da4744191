"""scikit-learn's estimator checks (sklearn.utils.estimator_checks, the suite
check_estimator runs) on every estimator, one pytest case per check (docs/python.md lists what
they cover). Any check the estimators do not pass would be listed in XFAIL with its reason,
strict: a listed check that starts passing fails too. None is listed."""
import pytest

import quench

pytest.importorskip("sklearn")
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

# Defaults, except the Monte-Carlo and draw counts, cut so the ~40 fits per estimator stay
# short: the checks exercise the API, not the numbers. The GP classifiers get two-class and
# three-class data (inducing points: two classes only, its binary_only tag): the default fits
# the joint multi-class model (the same whatever the method, so once: it takes most of this
# file's time), the other methods one-vs-rest over themselves.
ESTIMATORS = [
    quench.GaussianProcessClassifier(),
    quench.GaussianProcessClassifier(method="ep", multi_class="one_vs_rest"),
    quench.GaussianProcessClassifier(method="ep", inducing_points=5),
    quench.GaussianProcessClassifier(method="naive", multi_class="one_vs_rest"),
    quench.GaussianProcessClassifier(method="svm", multi_class="one_vs_rest"),
    quench.GaussianProcessRegressor(),
    quench.GaussianProcessRegressor(inducing_points=5),
    quench.AdatapBootstrap(),
    quench.AdatapBootstrap(inducing_points=5),
    quench.MonteCarloBootstrap(samples=50),
    quench.MonteCarloBootstrap(samples=20, inducing_points=5),
    quench.WeightedBayesianBootstrap(draws=100),
    quench.WeightedBayesianBootstrap(penalty="l2", draws=100),
    quench.VBootClassifier(particles=10, features=200),
]

XFAIL = {}  # (estimator class name, check name) -> reason


@parametrize_with_checks(ESTIMATORS)
def test_scikit_learn_check(estimator, check, request):
    name = getattr(check, "func", check).__name__
    reason = XFAIL.get((type(estimator).__name__, name))
    if reason:
        request.node.add_marker(pytest.mark.xfail(reason=reason, strict=True))
    check(estimator)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_dataframe_column_names_are_kept_and_checked(estimator):
    """scikit-learn's own check of DataFrame column names (not in check_estimator's suite in
    scikit-learn 1.2, so called here): feature_names_in_ after a fit on a DataFrame, and a
    ValueError with scikit-learn's message for columns reordered, renamed or missing at
    predict (issue 36: reordered columns changed probabilities by up to 0.97 without a word)."""
    pytest.importorskip("pandas")
    from sklearn.utils.estimator_checks import check_dataframe_column_names_consistency

    check_dataframe_column_names_consistency(type(estimator).__name__, estimator)
