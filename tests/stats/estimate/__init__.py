"""Tests of analysis.stats.estimate, the estimator; its command is tested in tests/cli/test_estimate.py."""
