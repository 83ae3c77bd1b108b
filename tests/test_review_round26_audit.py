"""Regression audit of round 26: documented behaviour of the resolved issues re-checked on main."""
import pytest

from baseparam import read_trajectory
from baseparam.errors import DataError


def test_stray_carriage_return_is_not_called_a_decimal_comma(tmp_path):
    # issue 11 item 9: a stray \r inside a line is a damaged field on the right line; the message must say
    # so, not advise against decimal commas (the field's text without the \r is a plain number)
    rows = ["t,q1,tau1"] + [f"{0.01 * i:.2f},{0.1 * i:.1f},1.0" for i in range(20)]
    rows[5] = "0.04,0.4\r,1.0"
    path = tmp_path / "cr.csv"
    path.write_bytes(("\n".join(rows) + "\n").encode())
    with pytest.raises(DataError, match=r"cr\.csv: line 6: field q1: not a number") as info:
        read_trajectory(path)
    message = str(info.value)
    assert "decimal comma" not in message
    assert "carriage return" in message
