"""A release's own automatic scores against Loupe's: which key is which, and how close they are."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ..stats import Correlation, correlate
from ..stats.correlation import MIN_POINTS
from ..stats.errors import canonical_key
from ..stats.order import Order, in_order, key_order
from .correlations import MetricScores

# The one table: each released key -> Loupe's keys it is compared with, in order of preference
# (the first Loupe has scores for is used, and named in the result). REALSumm's rouge_l_* are
# sentence-split ROUGE-L (rouge-score's rougeLsum, one sentence per <t>), so they are compared
# with rougeLsum_* once Loupe scores it, and with plain rougeL_* until then.
_ROUGE_L = ("rougeLsum", "rougeL")
RELEASED_LOUPE_KEYS: Mapping[str, Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "realsumm": MappingProxyType(
            {
                f"rouge_{n}_{part}": tuple(f"{rouge}_{short}" for rouge in rouges)
                for n, rouges in (("1", ("rouge1",)), ("2", ("rouge2",)), ("l", _ROUGE_L))
                for part, short in (("precision", "p"), ("recall", "r"), ("f_score", "f"))
            }
        )
    }
)


def released_metric(release: str, key: str) -> str:
    """The name of a released score among the metrics (``realsumm:js-2``)."""
    return f"{release}:{key}"


@dataclass(frozen=True)
class ReleasedComparison:
    """One released score against Loupe's own, output by output.

    Attributes:
        release: the release's name.
        released_key: the key as released (``rouge_1_f_score``).
        loupe_key: Loupe's key it was compared with, or None when Loupe has none of them.
        n: outputs with both values.
        pearson: Pearson's r over those outputs (None with the reason when undefined).
        mean_abs_diff: the mean of |Loupe - released|, or None.
        mean_diff: the mean of Loupe - released (positive: Loupe's is higher), or None.
    """

    release: str
    released_key: str
    loupe_key: str | None
    n: int
    pearson: Correlation | None
    mean_abs_diff: float | None
    mean_diff: float | None

    def as_dict(self) -> dict:
        """JSON-ready data.

        Returns:
            ``{"release", "released_key", "loupe_key", "n", "pearson", "p_value", "reason",
            "mean_abs_diff", "mean_diff"}``.
        """
        pearson = self.pearson
        return {
            "release": self.release,
            "released_key": self.released_key,
            "loupe_key": self.loupe_key,
            "n": self.n,
            "pearson": pearson.value if pearson else None,
            "p_value": pearson.p_value if pearson else None,
            "reason": (pearson.reason if pearson else "Loupe has no score to compare with"),
            "mean_abs_diff": self.mean_abs_diff,
            "mean_diff": self.mean_diff,
        }


def compare_released(
    loupe: MetricScores,
    released: MetricScores,
    *,
    release: str,
    keys: Mapping[str, tuple[str, ...]],
    order: Order = None,
) -> tuple[ReleasedComparison, ...]:
    """Compare each mapped released score with Loupe's, on the outputs that have both.

    Args:
        loupe: Loupe's metric -> system -> document -> value.
        released: the release's key -> system -> document -> value.
        release: the release's name, recorded in each result.
        keys: released key -> Loupe's keys in order of preference (see
            :data:`RELEASED_LOUPE_KEYS`); released keys not listed are not compared.
        order: the documents' order (None: canonical key order).

    Returns:
        One :class:`ReleasedComparison` per listed key the release has, in the table's order.

    Raises:
        NonFiniteValueError: a value is NaN or infinite.
        UnorderedKeyError: ``order`` does not list some document.
    """
    order = key_order(order)
    results = []
    for key, wanted in keys.items():
        theirs = released.get(key)
        if not theirs:
            continue
        loupe_key = next((k for k in wanted if loupe.get(k)), None)
        if loupe_key is None:
            results.append(ReleasedComparison(release, key, None, 0, None, None, None))
            continue
        ours = loupe[loupe_key]
        x, y = [], []
        for system in sorted(theirs.keys() & ours.keys(), key=canonical_key):
            documents = in_order(theirs[system].keys() & ours[system].keys(), order, what=key)
            x += [ours[system][d] for d in documents]
            y += [theirs[system][d] for d in documents]
        results.append(_comparison(release, key, loupe_key, x, y))
    return tuple(results)


def _comparison(release: str, key: str, loupe_key: str, x: list, y: list) -> ReleasedComparison:
    if len(x) < MIN_POINTS:
        reason = f"needs at least {MIN_POINTS} outputs with both values, got {len(x)}"
        pearson = Correlation("pearson", "pairs", None, None, len(x), reason)
    else:
        pearson = correlate(x, y, "pearson")
    if not x:
        return ReleasedComparison(release, key, loupe_key, 0, pearson, None, None)
    difference = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    return ReleasedComparison(
        release,
        key,
        loupe_key,
        len(x),
        pearson,
        float(np.abs(difference).mean()),
        float(difference.mean()),
    )
