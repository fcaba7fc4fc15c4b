"""Tests of analysis.results: folders, parsing, the leaderboard loader, the blog's tables."""
