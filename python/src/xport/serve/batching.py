"""Dynamic batching's arithmetic: which of the requests that arrived together can run as one
(the same dtypes and non-batch dims, each valid alone along the batch dim, at most
model.max_batch rows in all), their inputs concatenated along dim 0, and the outputs split back
by rows. A request that cannot join runs alone, so it gets what an unbatched server gives it."""
from collections.abc import Sequence

import numpy as np

from .model import ServedModel
from .protocol import Array, InferRequest


def plan_runs(model: ServedModel, requests: Sequence[InferRequest]) -> list[list[int]]:
    """The runs for `requests` (InferRequests checked against `model`): lists of indices into
    `requests`, each list run at once, in arrival order within a run."""
    runs: list[list[int]] = []
    open_runs: dict[object, tuple[list[int], int]] = {}  # key -> the filling run, its rows
    for i, request in enumerate(requests):
        rows = _rows(model, request)
        if rows is None:
            runs.append([i])
            continue
        key = tuple((request.inputs[n].dtype.str, request.inputs[n].shape[1:])
                    for n in model.input_names)
        indices, total = open_runs.get(key, ([], 0))
        if not indices or total + rows > model.max_batch:
            indices, total = [], 0
            runs.append(indices)
        indices.append(i)
        open_runs[key] = (indices, total + rows)
    return runs


def _rows(model: ServedModel, request: InferRequest) -> int | None:
    """A request's rows along the batch dim when it can share a run, else None: every input
    with the same dim 0, inside the batch dim's range on its own."""
    sizes = {request.inputs[n].shape[0] if request.inputs[n].ndim else None
             for n in model.input_names}
    rows = sizes.pop() if len(sizes) == 1 else None
    if rows is None or model.batch_dim is None:
        return None
    return rows if model.min_batch <= rows <= model.max_batch else None


def join(model: ServedModel, requests: Sequence[InferRequest]) -> dict[str, Array]:
    """The inputs of one run: each input's arrays concatenated along dim 0."""
    return {n: np.concatenate([r.inputs[n] for r in requests]) for n in model.input_names}


def split(outputs: dict[str, Array], rows: Sequence[int]) -> list[dict[str, Array]]:
    """Per request, {output name: its rows}, for the run's `outputs` and each request's
    `rows`."""
    parts: list[dict[str, Array]] = []
    start = 0
    for count in rows:
        parts.append({name: array[start:start + count] for name, array in outputs.items()})
        start += count
    return parts
