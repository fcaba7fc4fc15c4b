"""Tests of analysis.stats, one file per public module and the cross-cutting checks."""
