"""The local executor's fork server imports this, and only this: what its workers run.

The runner, mteb and the encoders (torch), imported once: a worker forked from the server
starts at once. Meanwhile SIGINT is ignored (the command reports a stop; workers get the
handler back); on Linux the server gets SIGTERM when the command is gone. It ends with
``os._exit`` (no seconds of freeing objects: it holds no data); ``gc.freeze()`` shares pages.
"""

import atexit
import contextlib
import ctypes
import gc
import os
import signal
import sys

_default = signal.signal(signal.SIGINT, signal.SIG_IGN)
with contextlib.suppress(AttributeError, OSError):  # prctl(PR_SET_PDEATHSIG): Linux only
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)
try:
    import analysis.runs.executors.local
    import analysis.runs.runner  # noqa: F401

    with contextlib.suppress(ImportError):  # the encoders of most models, if installed
        import sentence_transformers  # noqa: F401
finally:
    signal.signal(signal.SIGINT, _default)
gc.freeze()
atexit.register(lambda: (sys.stdout.flush(), sys.stderr.flush(), os._exit(0)))
