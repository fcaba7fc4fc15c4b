"""Model groups (analysis/results/groups.py): families from mteb's metadata, kinds from cards.

The post's four models and the four model2vec outputs its footnote 3 sets aside get the
kinds the post gives them; the packaged table (static_kinds.csv) names only models mteb
registers as static, each with a source; a static model the table does not list, and a
user's table that says nothing about a model, leave it ``unknown``; a user's table
extends and overrides the packaged one, and a malformed one is refused with an error
that names the problem; audio-text models (CLAP) are not static.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd
import pytest

from analysis.core.compat import registered_meta
from analysis.results import groups as groups_module
from analysis.results.blog import post_comparisons, post_models
from analysis.results.groups import STATIC_KINDS, model_groups, static_kind_table

POST_KINDS = {  # the post: potion = knowledge distillation, static-*-mrl = supervised
    "minishlab/potion-base-8M": "distilled",
    "minishlab/potion-multilingual-128M": "distilled",
    "sentence-transformers/static-retrieval-mrl-en-v1": "supervised",
    "sentence-transformers/static-similarity-mrl-multilingual-v1": "supervised",
}
M2V_OUTPUTS = [  # footnote 3: model2vec outputs, an initialization
    "minishlab/M2V_base_glove",
    "minishlab/M2V_base_glove_subword",
    "minishlab/M2V_base_output",
    "minishlab/M2V_multilingual_output",
]


def _kinds(names, **options) -> dict[str, str]:
    return model_groups(names, **options).set_index("model")["static_kind"].to_dict()


def test_the_posts_models_and_the_model2vec_outputs_get_the_posts_kinds(shared_dir):
    post = shared_dir / "reference" / "blog-evaluating-static-models-on-rteb.md"
    assert set(post_models(post)) == set(POST_KINDS)
    groups = model_groups([*POST_KINDS, *M2V_OUTPUTS])
    assert set(groups["family"]) == {"static"}
    assert _kinds([*POST_KINDS, *M2V_OUTPUTS]) == {
        **POST_KINDS,
        **dict.fromkeys(M2V_OUTPUTS, "model2vec"),
    }
    pairs = post_comparisons(post)
    assert sorted(pairs) == [
        ("sentence-transformers/static-retrieval-mrl-en-v1", "minishlab/potion-base-8M", "english"),
        (
            "sentence-transformers/static-similarity-mrl-multilingual-v1",
            "minishlab/potion-multilingual-128M",
            "multilingual",
        ),
    ]


def test_the_packaged_table_names_registered_static_models_with_a_source():
    table = static_kind_table()
    assert set(table["kind"]) <= set(STATIC_KINDS)
    assert table["source"].str.startswith("https://").all()
    assert (table["evidence"].str.len() > 20).all()
    unregistered = [m for m in table["model"] if registered_meta(m) is None]
    assert not unregistered, f"rows for models mteb does not register: {unregistered}"
    groups = model_groups(table["model"])
    assert set(groups["family"]) == {"static"}, groups[groups["family"] != "static"]
    assert groups["static_kind"].tolist() == table["kind"].tolist()


def test_unregistered_models_and_static_models_the_table_omits_are_unknown(tmp_path, monkeypatch):
    groups = model_groups(["no-such-org/no-such-model", "sentence-transformers/all-MiniLM-L6-v2"])
    assert groups[["family", "static_kind"]].values.tolist() == [
        ["unknown", ""],
        ["transformer", ""],
    ]
    assert math.isnan(groups["n_parameters"].iloc[0])
    shorter = tmp_path / "kinds.csv"
    table = static_kind_table()
    table[table["model"] != "minishlab/potion-base-8M"].to_csv(shorter, index=False)
    monkeypatch.setattr(groups_module, "STATIC_KINDS_FILE", shorter)
    assert _kinds(["minishlab/potion-base-8M", "minishlab/M2V_base_output"]) == {
        "minishlab/potion-base-8M": "unknown",
        "minishlab/M2V_base_output": "model2vec",
    }


def test_a_users_table_extends_and_overrides_the_packaged_one(tmp_path):
    other = "minishlab/potion-base-32M"
    mine = tmp_path / "my_kinds.csv"
    mine.write_text(
        "# my reading of two cards\n"
        "model,kind,source,evidence\n"
        f"{other},hybrid,https://example.org/a,my reading\n"
        "minishlab/M2V_base_output, distilled ,https://example.org/b,\n"
    )
    assert _kinds(
        [other, "minishlab/M2V_base_output", "minishlab/potion-base-8M"], static_kinds=mine
    ) == {
        other: "hybrid",
        "minishlab/M2V_base_output": "distilled",
        "minishlab/potion-base-8M": "distilled",
    }
    frame = pd.DataFrame({"model": [other], "kind": ["supervised"], "source": ["https://x"]})
    assert _kinds([other], static_kinds=frame) == {other: "supervised"}
    assert _kinds(["sentence-transformers/all-MiniLM-L6-v2"], static_kinds=frame) == {
        "sentence-transformers/all-MiniLM-L6-v2": ""  # a kind never makes a model static
    }


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            {"model": ["a/b"], "kind": ["distiled"], "source": ["https://x"]},
            r"unknown kind.*'a/b': 'distiled'.*model2vec, distilled",
        ),
        (
            {"model": ["a/b", "a/b"], "kind": ["distilled"] * 2, "source": ["https://x"] * 2},
            r"listed twice: \['a/b'\]",
        ),
        (
            {"model": ["a/b"], "kind": ["distilled"], "source": [" "]},
            r"needs a model and a source.*\['a/b'\]",
        ),
        ({"model": ["a/b"], "kind": ["distilled"]}, r"missing column\(s\) \['source'\]"),
    ],
    ids=["unknown kind", "duplicate model", "missing source", "missing column"],
)
def test_a_malformed_table_is_refused_naming_the_problem(tmp_path, rows, message):
    with pytest.raises(ValueError, match=message):
        model_groups(["minishlab/potion-base-8M"], static_kinds=pd.DataFrame(rows))
    path = tmp_path / "bad.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    with pytest.raises(ValueError, match=str(path)):
        static_kind_table(path)


def test_audio_text_models_are_not_static(monkeypatch):
    """mteb gives CLAP an infinite max_tokens; its text tower is a transformer."""
    clap = ["laion/clap-htsat-fused", "laion/larger_clap_general"]
    assert all(registered_meta(name) is not None for name in clap)
    assert set(model_groups(clap)["family"]) == {"transformer"}
    fake = SimpleNamespace(  # the rule, independent of what mteb registers
        name="x/audio-text",
        modalities=["audio", "text"],
        max_tokens=float("inf"),
        n_parameters=10,
        n_embedding_parameters=10,
    )
    monkeypatch.setattr(groups_module, "registered_meta", lambda name, **_: fake)
    assert model_groups(["x/audio-text"])["family"].tolist() == ["transformer"]
    fake.modalities = ["text"]
    assert model_groups(["x/audio-text"])[["family", "static_kind"]].values.tolist() == [
        ["static", "unknown"]
    ]
