"""The trace-time patches of torchvision's Python code apply only where the model could
run it: once torchvision is imported.  Importing torchvision for a model that does not
use it costs an export about 0.6 s (its models, datasets and ops packages), which is more
than a small model's whole export."""

import importlib
import sys


def module_if_imported(name):
    """The module `name` (say "torchvision.ops.boxes") if its top-level package is
    already imported, else None; also None if that package has no such module."""
    if name.partition(".")[0] not in sys.modules:
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
