"""Tests of analysis.runs: models, distillation, local tasks, the runner, plans, executors."""
