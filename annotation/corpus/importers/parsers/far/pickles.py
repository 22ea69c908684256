"""Shape checks of the FAR pickles: ``FAMs.pkl`` and the ``idx2labels_*.pkl`` files."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .context import _Context
from .release import FAM_KEYS, FAMS_FILE, ReleasedSystem


def _is_index(value: object) -> bool:
    return type(value) is int and value >= 0


def _index_collection(value: object) -> bool:
    return isinstance(value, (list, tuple, set, frozenset)) and all(map(_is_index, value))


@dataclass
class _Fams:
    """FAMs.pkl, checked: sample idx -> category, and the low-abstraction groups."""

    all_idx: list[int]
    categories: dict[int, str]
    groups: dict[int, list[list[frozenset[int]]]]


def _check_fam_sample(ctx: _Context, idx: object, facets: object) -> list | None:
    where = f"low_abs[{idx!r}]"
    if not _is_index(idx) or not isinstance(facets, Mapping):
        ctx.issue(FAMS_FILE, "must map a sample index to {facet: [support groups]}", where=where)
        return None
    keys = list(facets)
    if not keys or not all(map(_is_index, keys)) or sorted(keys) != list(range(len(keys))):
        ctx.issue(FAMS_FILE, f"facet keys must be 0..n-1, got {keys!r}", where=where)
        return None
    result = []
    for facet in range(len(facets)):
        groups = facets[facet]
        if not isinstance(groups, list) or not all(_index_collection(g) and g for g in groups):
            ctx.issue(
                FAMS_FILE,
                "must be a list of non-empty sets of sentence indices",
                None,
                f"{where}[{facet}]",
            )
            return None
        result.append([frozenset(group) for group in groups])
    return result


def _check_fams_shape(ctx: _Context, data: object) -> _Fams | None:
    if not isinstance(data, Mapping) or set(data) != {*FAM_KEYS, "all_idx"}:
        keys = sorted(map(repr, data)) if isinstance(data, Mapping) else type(data).__name__
        ctx.issue(
            FAMS_FILE, f"expected a dict with keys {sorted(FAM_KEYS)} and 'all_idx', got {keys}"
        )
        return None
    all_idx = data["all_idx"]
    if not isinstance(all_idx, list) or not all(map(_is_index, all_idx)):
        ctx.issue(FAMS_FILE, "must be a list of sample indices", where="all_idx")
        return None
    if len(set(all_idx)) != len(all_idx):
        ctx.issue(FAMS_FILE, "repeats a sample index", where="all_idx")
    if not isinstance(data["low_abs"], Mapping):
        ctx.issue(FAMS_FILE, "must be a dict", where="low_abs")
        return None
    for key in ("noise", "high_abs"):
        if not _index_collection(data[key]):
            ctx.issue(FAMS_FILE, "must be a set of sample indices", where=key)
            return None
    groups = {}
    for idx, facets in data["low_abs"].items():
        checked = _check_fam_sample(ctx, idx, facets)
        if checked is not None:
            groups[idx] = checked
    return _Fams(list(all_idx), _categories(ctx, data), groups)


def _categories(ctx: _Context, data: Mapping) -> dict[int, str]:
    categories: dict[int, str] = {}
    for key, category in FAM_KEYS.items():
        for idx in data[key]:
            if idx in categories:
                ctx.issue(
                    FAMS_FILE, f"sample {idx} is both {categories[idx]} and {category}", where=key
                )
            categories[idx] = category
    missing = sorted(set(data["all_idx"]) - set(categories))
    extra = sorted(set(categories) - set(data["all_idx"]))
    if missing:
        ctx.issue(FAMS_FILE, f"samples without a category: {missing}", where="all_idx")
    if extra:
        ctx.issue(FAMS_FILE, f"categorised samples missing from all_idx: {extra}", where="all_idx")
    return categories


def _check_labels_shape(
    ctx: _Context, system: ReleasedSystem, data: object, wanted: set[int]
) -> dict[int, list[int]] | None:
    """Return sample idx -> released indices for the wanted samples; report the rest."""
    if isinstance(data, list):
        entries = dict(enumerate(data))
    elif isinstance(data, Mapping):
        entries = dict(data)
    else:
        ctx.issue(system.file, f"expected a dict or list of index lists, got {type(data).__name__}")
        return None
    bad = [
        key for key, value in entries.items() if not _is_index(key) or not _index_collection(value)
    ]
    if bad:
        ctx.issue(system.file, "must hold lists of sentence indices", where=f"sample {bad[0]!r}")
        return None
    ignored = sorted(set(entries) - wanted)
    if ignored:
        ctx.note(
            system.file,
            f"{len(ignored)} entries for samples outside the 150 annotated ones ignored",
        )
    return {idx: list(value) for idx, value in entries.items() if idx in wanted}
