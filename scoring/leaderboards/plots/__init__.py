"""Server-side SVG plots of leaderboards; every mark's data-* values are repr() of Python floats."""

from .bars import CATEGORY_ORDER, category_bars_svg
from .colours import system_colours
from .distribution import box_statistics, distribution_svg
from .scatter import scatter_svg
from .stacked import SUBTYPE_COLOURS, SUBTYPE_ORDER, subtype_bars_svg
from .svg import no_data
from .values import METRIC_LABELS, PlotDataError, fixed, metric_label

__all__ = [
    "CATEGORY_ORDER",
    "METRIC_LABELS",
    "PlotDataError",
    "SUBTYPE_COLOURS",
    "SUBTYPE_ORDER",
    "box_statistics",
    "category_bars_svg",
    "distribution_svg",
    "fixed",
    "metric_label",
    "no_data",
    "scatter_svg",
    "subtype_bars_svg",
    "system_colours",
]
