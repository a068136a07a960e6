"""How the test suites compare results: identical NaN (undefined) patterns,
and values within a tolerance."""

import numpy as np


def assert_same(actual, expected, rtol=1e-9, atol=1e-9):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert np.array_equal(np.isnan(actual), np.isnan(expected)), (actual, expected)
    np.testing.assert_allclose(actual[~np.isnan(actual)],
                               expected[~np.isnan(expected)], rtol=rtol, atol=atol)
