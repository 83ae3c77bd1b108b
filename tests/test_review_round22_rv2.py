"""Review round 22 (rv2) of s22-pay (``excite --payload --payload-design wide``) and s22-fzcli."""
import json

import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.errors import ArgumentError
from baseparam.excitation.design import design_excitation
from test_excite_payload import ISSUE_LIMITS, KUKA, RRR, RRR_LIMITS


# A robot all of whose joints already move (planar RRR: 3 joints, the default payload_joints 3) was told to "move more
# joints (payload_joints)", which no value can do; the advice is kept for a robot with joints still held.
def test_wide_refusal_suggests_no_impossible_payload_joints():
    with pytest.raises(ArgumentError, match="no more joints can move on this robot; use payload_design='standard'") \
            as refused:
        design_excitation(bp.load_robot(RRR), payload=True, payload_design="wide", harmonics=16, period=8.0,
                          limits=RRR_LIMITS)
    assert "payload_joints" not in str(refused.value)
    with pytest.raises(ArgumentError, match=r"move more joints \(payload_joints\) or use payload_design='standard'"):
        design_excitation(bp.load_robot(KUKA), payload=True, payload_design="wide", harmonics=16, period=8.0,
                          limits=ISSUE_LIMITS, payload_joints=1)


def test_wide_refusal_on_the_command_line_is_one_line(tmp_path):
    limits = tmp_path / "limits.yaml"
    limits.write_text(json.dumps(RRR_LIMITS))
    result = CliRunner().invoke(main, ["excite", str(RRR), "--limits", str(limits), "--payload", "--payload-design",
                                       "wide", "--harmonics", "16", "--period", "8"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "no more joints can move" in result.output
    assert "--payload-joints" not in result.output


# ExcitationDesign checks its fields' kinds at construction (a public dataclass), but not the new `refinement`: a
# design with refinement='wide' was made, and its to_dict() then failed deep inside ('str' is not a mapping).
def test_a_design_refuses_a_refinement_of_the_wrong_kind():
    from dataclasses import replace

    from baseparam.errors import ArgumentTypeError
    design = design_excitation(bp.load_robot(RRR), limits=RRR_LIMITS, period=4.0, harmonics=2, rate=20.0, starts=1)
    assert replace(design, refinement=None).to_dict() == design.to_dict()
    with pytest.raises(ArgumentTypeError, match="ExcitationDesign.refinement"):
        replace(design, refinement="wide")
