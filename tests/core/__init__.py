"""Tests of analysis.core, the ground floor."""
