"""What validates the statistics, kept out of the package: only tests and benchmarks use it.

* :mod:`.stats`: coverage, type-I error and family-wise error of the public tests;
* :mod:`.departures`: the same under unequal spreads, clustered tasks, outliers, skew;
* :mod:`.leaderboards`: simulated leaderboards (a factor model with departures) for the
  estimator;
* :mod:`.held_out`: the estimator's held-out checks on a real leaderboard,
  :func:`~.held_out.cross_fit_selection` and :func:`~.held_out.validate_by_release_date`.

One implementation, two users, both importing it as ``_sim``: the scripts of
``benchmarks/`` (run with many replicates; ``python benchmarks/<script>.py`` puts
``benchmarks/`` on ``sys.path``) and the tests (few replicates; ``pythonpath =
["benchmarks"]`` in ``pyproject.toml``'s pytest options). ``tools/lite_tasks.py`` adds
``benchmarks/`` itself.
"""
