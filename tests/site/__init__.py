"""What a reader sees: the documentation site, JupyterLab, the README, the getting-started walk."""
