"""Cross-checks of the FAR release: story ids against URLs, dumps against ``FAMs.pkl``."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from .context import _Context
from .dump import _Sample
from .pickles import _Fams
from .release import FAMS_FILE, URLS_FILE


def _check_story_ids(ctx: _Context, samples: Mapping[int, _Sample]) -> None:
    urls = ctx.read_lines(URLS_FILE)
    if urls is None:
        return
    for idx, sample in sorted(samples.items()):
        if sample.story_id is None:
            continue
        if idx >= len(urls) or not urls[idx].strip():
            ctx.issue(URLS_FILE, f"no URL for sample {idx}", idx + 1)
            continue
        digest = hashlib.sha1(urls[idx].strip().encode("utf-8")).hexdigest()
        if digest != sample.story_id:
            ctx.issue(
                sample.file,
                f"story ID {sample.story_id} of sample {idx} is not the SHA1 of its URL "
                f"({URLS_FILE} line {idx + 1} hashes to {digest})",
                sample.line + 1,
                "ID",
            )


def _check_partition(ctx: _Context, fams: _Fams, samples: Mapping[int, _Sample]) -> None:
    missing = sorted(set(fams.all_idx) - set(samples))
    extra = sorted(set(samples) - set(fams.all_idx))
    if missing:
        ctx.issue(
            FAMS_FILE, f"samples with no entry in the output/ dumps: {missing}", where="all_idx"
        )
    if extra:
        ctx.issue(FAMS_FILE, f"dumped samples missing from all_idx: {extra}", where="all_idx")
    for idx, sample in samples.items():
        category = fams.categories.get(idx)
        if category is not None and category != sample.category:
            ctx.issue(
                sample.file,
                f"sample {idx} is {category!r} in {FAMS_FILE} but dumped as {sample.category!r}",
                sample.line,
                "idx",
            )


def _check_fam_against_dump(ctx: _Context, sample: _Sample, groups: list) -> None:
    if len(groups) != len(sample.facets):
        ctx.issue(
            sample.file,
            f"sample {sample.idx}: {FAMS_FILE} maps {len(groups)} facets, the dump prints "
            f"{len(sample.facets)}",
            sample.reference_line or sample.line,
            "Facet",
        )
        return
    for position, facet_groups in enumerate(groups):
        if set(facet_groups) != set(sample.dump_groups(position)):
            ctx.issue(
                sample.file,
                f"sample {sample.idx} facet {position}: support groups differ from {FAMS_FILE} "
                f"({[sorted(g) for g in facet_groups]})",
                sample.facets[position].line,
                f"Facet-{position}",
            )
