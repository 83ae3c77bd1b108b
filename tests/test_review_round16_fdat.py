"""Review of fuzz round sixteen (s14-fdat): what its checks said or refused beyond what the round meant."""
import pytest

import baseparam as bp
from baseparam.errors import BaseParamError
from test_fuzz_round16_fdat import floating_csv


def refused(read, *words):
    """The one-line BaseParamError ``read()`` raises, checked to hold ``words``."""
    with pytest.raises(BaseParamError) as caught:
        read()
    message = str(caught.value)
    assert "\n" not in message and all(word in message for word in words), message
    return message


@pytest.mark.parametrize("contacts, column, read", [(0, "q14", ()), (2, "w2_fx", ("left",))])
def test_a_floating_csvs_stray_column_names_the_headers_line(tmp_path, contacts, column, read):
    # the header may stand after comments and blank lines (the text reader skips them): the message said 'line 1'
    robot, path, lines = floating_csv(tmp_path, contacts=contacts)
    header = lines[0] + ("," + column if column == "q14" else "")
    rows = [line + (",0.5" if column == "q14" else "") for line in lines[1:] if line]
    path.write_text("\n".join(["# logged by hand", "", "# second comment", header] + rows) + "\n")
    message = refused(lambda: bp.read_trajectory(path, robot=robot, contacts=list(read)), f"column '{column}'")
    assert ": line 4: " in message and "line 1" not in message, message
