"""Dynamic batching's arithmetic: which of the requests that arrived together can run as one
(the same dtypes and non-batch dims, each valid alone along the batch dim, at most
model.max_batch rows in all), their inputs concatenated along dim 0, and the outputs split back
by rows. A request that cannot join runs alone, so it gets what an unbatched server gives it."""
import numpy as np


def plan_runs(model, requests):
    """The runs for `requests` (InferRequests checked against `model`): lists of indices into
    `requests`, each list run at once, in arrival order within a run."""
    runs, open_runs = [], {}  # open_runs: key -> (indices, rows) of the run still filling
    for i, request in enumerate(requests):
        rows = _rows(model, request)
        if rows is None:
            runs.append([i])
            continue
        key = tuple((request.inputs[n].dtype.str, request.inputs[n].shape[1:])
                    for n in model.input_names)
        indices, total = open_runs.get(key, (None, 0))
        if indices is None or total + rows > model.max_batch:
            indices, total = [], 0
            runs.append(indices)
        indices.append(i)
        open_runs[key] = (indices, total + rows)
    return runs


def _rows(model, request):
    """A request's rows along the batch dim when it can share a run, else None: every input
    with the same dim 0, inside the batch dim's range on its own."""
    sizes = {request.inputs[n].shape[0] if request.inputs[n].ndim else None
             for n in model.input_names}
    if len(sizes) != 1 or None in sizes:
        return None
    rows = sizes.pop()
    low = model.batch_dim["min"] or 0
    return rows if low <= rows <= model.max_batch else None


def join(model, requests):
    """The inputs of one run: each input's arrays concatenated along dim 0."""
    return {n: np.concatenate([r.inputs[n] for r in requests]) for n in model.input_names}


def split(outputs, rows):
    """Per request, {output name: its rows}, for the run's `outputs` and each request's
    `rows`."""
    parts, start = [], 0
    for count in rows:
        parts.append({name: array[start:start + count] for name, array in outputs.items()})
        start += count
    return parts
