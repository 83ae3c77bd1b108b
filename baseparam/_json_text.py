"""JSON text as every JSON file baseparam writes holds it: strict (NaN and infinities as ``null``), indented."""
from __future__ import annotations

import json
import math


def _json_ready(value):
    """``value`` with every NaN or infinite float (Python or numpy) replaced by None, tuples as lists."""
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):      # numpy's float64 is a float
        return None
    if hasattr(value, "dtype") and hasattr(value, "tolist"):       # numpy scalars and arrays
        return _json_ready(value.tolist())
    return value


def json_text(doc):
    """``doc`` as strict JSON text (indented, with a final newline): NaN and ±inf are written as ``null``,
    never as the bare ``NaN``/``Infinity`` that strict readers refuse. Every JSON file baseparam writes
    goes through here."""
    return json.dumps(_json_ready(doc), indent=2, allow_nan=False) + "\n"
