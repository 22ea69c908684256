"""Every error the metrics core raises for bad input derives from MetricsError."""

import importlib
import inspect
import pkgutil

import scoring.metrics
from scoring.metrics.errors import MetricsError

# Not bad input: a missing optional dependency, and the CLI's own exit-status-2 wrapper.
NOT_INPUT_ERRORS = {"ScorerUnavailableError", "EmbeddingsUnavailableError", "CliError"}


def _error_classes():
    for info in pkgutil.walk_packages(scoring.metrics.__path__, "scoring.metrics."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, Exception) and obj.__module__ == module.__name__:
                yield name, obj


def test_every_input_error_is_a_metrics_error():
    classes = dict(_error_classes())
    assert len(classes) > 20  # the walk really found the packages' errors
    offenders = sorted(
        name
        for name, cls in classes.items()
        if name not in NOT_INPUT_ERRORS and not issubclass(cls, MetricsError)
    )
    assert offenders == []
