"""The root of every error the metrics core raises, so callers can catch them in one place."""


class MetricsError(ValueError):
    """Bad input to a metric: an invalid FAM, a not-allowed PolyTope combination, too few points.

    Every error of ``scoring.metrics`` derives from this class (and so from ``ValueError``), and
    its message names the item at fault. The web app maps it to HTTP 400.
    """
