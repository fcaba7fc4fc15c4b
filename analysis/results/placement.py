"""Own runs next to the leaderboard: score differences and where a model would rank."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .leaderboard import Leaderboard


def compare_with_leaderboard(own: pd.DataFrame, board: Leaderboard) -> pd.DataFrame:
    """Own scores beside the leaderboard's for the same model and task.

    Returns:
        ``model, task, own, leaderboard, difference`` (own − leaderboard; NaN where the
        leaderboard has no complete score for that model and task).
    """
    ref = board.scores.set_index(["model", "task"])["main_score"]
    out = pd.DataFrame({"model": own["model"], "task": own["task"], "own": own["main_score"]})
    pairs = zip(own["model"], own["task"], strict=True)
    out["leaderboard"] = [ref.get(pair, np.nan) for pair in pairs]
    out["difference"] = out["own"] - out["leaderboard"]
    return out.reset_index(drop=True)


def place(own: pd.DataFrame, board: Leaderboard, *, neighbours: int = 2) -> pd.DataFrame:
    """Where each own model ranks among leaderboard models on the same tasks.

    Leaderboard models enter when they have a complete score on every task of
    ``board`` (no partial means); own models must have every task too. Own models are
    ranked by mean main score among those leaderboard models (1 = best, ties "min"),
    with the nearest leaderboard models above and below.

    Returns:
        One row per own model: ``model, mean, rank, of, above, below``.
    """
    tasks = board.spec.task_names
    means = board.summary.loc[board.summary.index[board.summary["complete"]], "mean_task"]
    rows = []
    for model, group in own.groupby("model"):
        scores = group.set_index("task")["main_score"].reindex(tasks)
        if scores.isna().any():
            missing = list(scores.index[scores.isna()])
            raise ValueError(f"{model} has no own score for {missing}; run those tasks first.")
        mean = float(scores.mean())
        others = means.drop(index=model, errors="ignore").sort_values(ascending=False)
        rank = int((others > mean).sum()) + 1
        above = others[others > mean].tail(neighbours)
        below = others[others <= mean].head(neighbours)
        rows.append({
            "model": model, "mean": mean, "rank": rank, "of": len(others) + 1,
            "above": "; ".join(f"{m} ({v:.3f})" for m, v in above.items()),
            "below": "; ".join(f"{m} ({v:.3f})" for m, v in below.items()),
        })  # fmt: skip
    return pd.DataFrame(rows)


def own_models(board: Leaderboard, leaderboard: str) -> list[str]:
    """The models with a score read from another folder than the leaderboard's: own runs.

    Args:
        board: A leaderboard loaded from several folders (``results=[leaderboard,
            "data/runs"]``, or ``RESULTS=../shared/mteb-cache:data/runs``).
        leaderboard: The leaderboard's folder as ``board.scores["source"]`` names it
            (``ResultsFolders.label(0)``, e.g. ``"../shared/mteb-cache"``).
    """
    scores = board.scores
    elsewhere = scores["source"].fillna(leaderboard) != leaderboard
    return sorted(map(str, scores.loc[elsewhere, "model"].unique()))
