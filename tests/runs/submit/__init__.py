"""Tests of analysis.runs.submit: the leaderboard submission."""
