"""Reference derivatives for the gradient tests: Richardson-extrapolated central differences."""

import numpy as np


def central_differences(f, rows, columns, rel_step):
    """∂f/∂(column i) at every row of a table, for i in ``columns``, from one call of ``f``.

    ``f`` maps the columns of a table (one 1-D array each) to one value per row; it is called
    once, on every shifted table stacked. Central differences with steps h and h/2,
    h = ``rel_step`` · max(|x|, 1) per entry, combined by Richardson extrapolation (error
    O(h⁴) plus rounding ~ε|f|/h). Returns an array (rows, len(columns)).
    """
    rows = np.asarray(rows, float)
    m, k = rows.shape
    shifts = np.array([1.0, -1.0, 0.5, -0.5])
    h = rel_step * np.maximum(np.abs(rows), 1.0)  # (m, k)
    tables = [
        rows + s * h[:, i : i + 1] * np.eye(k)[i] for i in columns for s in shifts
    ]
    values = np.asarray(f(*np.concatenate(tables).T), float).reshape(len(columns), 4, m)
    wide = (values[:, 0] - values[:, 1]) / (2.0 * h[:, columns].T)
    narrow = (values[:, 2] - values[:, 3]) / h[:, columns].T
    return ((4.0 * narrow - wide) / 3.0).T
