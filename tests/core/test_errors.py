"""analysis.core.errors: where the stop exceptions live, and how a message spells an option."""

from __future__ import annotations

import pytest

from analysis.core import errors
from analysis.notebook import batch


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
