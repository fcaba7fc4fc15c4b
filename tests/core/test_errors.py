"""analysis.core.errors: every exception and warning class is public, in ``__all__``."""

from __future__ import annotations

import inspect

import pytest

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
    stop = errors.BatchInterrupted([], ["b"], ["c"])
    assert (stop.finished, stop.stopped, stop.rest) == ([], ["b"], ["c"])


def test_spell_names_an_option_the_way_the_call_was_typed() -> None:
    assert errors.spell("pin", "as-of-post") == "pin='as-of-post'"
    assert errors.spell("on_conflict", "first", how="cli") == "--on-conflict first"
    assert errors.spell("results", "a b", how="cli") == "--results 'a b'"
    assert errors.spell("results", how="cli") == "--results"
    with errors.spoken_as("cli"):
        assert errors.spelling() == "cli"
        assert errors.spell("pin", "now") == "--pin now"
    assert errors.spelling() == "python"
    with pytest.raises(ValueError, match="how"):
        errors.spoken_as("make").__enter__()  # one spelling per caller: Python or the flags
