"""The repository as a whole: layers, public names, doctests, packaging, scripts, reproducibility."""
