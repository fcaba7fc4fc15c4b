"""analysis.core.errors: every exception and warning class is public, in ``__all__``."""

from __future__ import annotations

import inspect

from analysis.core import errors
from analysis.notebook import batch


def test_all_lists_every_exception_and_warning_class_of_errors() -> None:
    defined = {
        name
        for name, value in vars(errors).items()
        if inspect.isclass(value)
        and issubclass(value, BaseException)
        and value.__module__ == errors.__name__
    }
    assert len(defined) > 20  # the walk finds the module's classes
    missing = sorted(defined - set(errors.__all__))
    assert not missing, f"errors.__all__ lacks {missing}"
    assert all(hasattr(errors, name) for name in errors.__all__)


def test_batch_interrupted_lives_in_errors_and_keeps_its_old_import_path() -> None:
    assert batch.BatchInterrupted is errors.BatchInterrupted
    assert issubclass(errors.BatchInterrupted, KeyboardInterrupt)
    stop = errors.BatchInterrupted([], "b", ["c"])
    assert (stop.finished, stop.stopped, stop.rest) == ([], "b", ["c"])
