"""Tests of analysis.notebook and of the notebooks run through it."""
