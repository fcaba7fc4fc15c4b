"""A pytest plugin (this project's) that records each test of a foreign suite as JSON.

Loaded with ``-p _results_ci_plugin`` into the results repository's own test run by
``_submit_fixtures.run_real_suite``. It writes ``{nodeid: {"outcome", "params", "text"}}``
to ``$RESULTS_CI_REPORT`` so that a failure can be attributed to the model folder whose
path is in the test's parameters or in its failure text.
"""

from __future__ import annotations

import json
import os
from typing import Any

_RECORDS: dict[str, dict[str, Any]] = {}
_PARAMS: dict[str, str] = {}


def pytest_collection_modifyitems(items: list[Any]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None:
            _PARAMS[item.nodeid] = repr(callspec.params)


def pytest_collectreport(report: Any) -> None:
    if report.failed:
        _RECORDS[report.nodeid or "<collection>"] = {
            "outcome": "error",
            "params": "",
            "text": str(report.longreprtext),
        }


def pytest_runtest_logreport(report: Any) -> None:
    record = _RECORDS.setdefault(
        report.nodeid, {"outcome": "passed", "params": _PARAMS.get(report.nodeid, ""), "text": ""}
    )
    if report.failed:
        record["outcome"] = "failed" if report.when == "call" else "error"
        record["text"] += str(report.longreprtext)
    elif report.skipped and record["outcome"] == "passed":
        record["outcome"] = "skipped"


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    path = os.environ.get("RESULTS_CI_REPORT")
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(_RECORDS, handle, indent=1)
