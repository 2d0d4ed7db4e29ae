"""Reference derivatives for the gradient tests: Richardson-extrapolated central differences."""

import numpy as np


def central_differences(f, rows, columns, rel_step, *, floor=1.0):
    """∂f/∂(column i) at every row of a table, for i in ``columns``, from one call of ``f``,
    and an error estimate of each.

    ``f`` maps the columns of a table (one 1-D array each) to one value per row (or one array
    of outputs per row); it is called once, on every shifted table stacked. Central differences
    D(h) with steps h and h/2, h = ``rel_step`` · max(|x|, ``floor``) per entry, combined by
    Richardson extrapolation, (4 D(h/2) − D(h))/3: error O(h⁴) plus rounding ~ε|f|/h. The
    error estimate is the correction Richardson made, |∂f − D(h/2)|. An entry that is not
    finite (e.g. n_syn = ∞) has none: NaN.

    Returns:
        (derivatives, errors), each of shape (rows, *outputs, len(columns)).
    """
    rows = np.asarray(rows, float)
    m, k = rows.shape
    shifts = np.array([1.0, -1.0, 0.5, -0.5])
    finite = np.isfinite(rows)
    h = rel_step * np.maximum(np.abs(np.where(finite, rows, 1.0)), floor)  # (m, k)
    tables = [rows + s * h[:, i : i + 1] * np.eye(k)[i] for i in columns for s in shifts]
    values = np.asarray(f(*np.concatenate(tables).T), float)
    outputs = values.shape[1:]
    values = values.reshape((len(columns), 4, m) + outputs)
    step = h[:, columns].T.reshape((len(columns), m) + (1,) * len(outputs))
    wide = (values[:, 0] - values[:, 1]) / (2.0 * step)
    narrow = (values[:, 2] - values[:, 3]) / step
    derivative = (4.0 * narrow - wide) / 3.0
    error = np.abs(derivative - narrow)
    infinite = (~finite[:, list(columns)].T).reshape((len(columns), m) + (1,) * len(outputs))
    derivative, error = (np.where(infinite, np.nan, a) for a in (derivative, error))
    return np.moveaxis(derivative, 0, -1), np.moveaxis(error, 0, -1)
