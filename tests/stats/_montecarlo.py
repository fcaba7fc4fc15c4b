"""Monte-Carlo tolerances shared by the statistics tests."""

import math


def mc_tol(p, n_resamples, k=4.5):
    """Tolerance for two independent Monte-Carlo estimates of the same p-value."""
    return k * math.sqrt(2 * max(p * (1 - p), 1e-4) / n_resamples)
