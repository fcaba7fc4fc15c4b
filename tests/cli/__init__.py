"""Tests of analysis.cli, the command line."""
