"""Round twenty-one, the Python API and payload leftovers of stop 45 (set "lapi"): each test fails before its fix."""
import json

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT
# the lpay round's arm pair, payload and pinocchio torques (payload=None: the arm alone)
from test_fuzz_round20_lpay import PAYLOAD, UR, UR_CAD, _pin_torques


def _rest_series(period=1.0):
    """A series at rest at both ends: Σ a_l = 0 and Σ l b_l = 0 per joint."""
    a = np.array([[0.3, -0.3], [0.2, -0.2]])
    b = np.array([[0.4, -0.2], [-0.2, 0.1]])
    return bp.FourierSeries(period, np.array([0.1, -0.2]), a, b)


@pytest.mark.parametrize("rate", [2.7, 0.4, 99.5, 1 / 3])
def test_samples_of_a_rate_that_is_no_whole_number_per_period_are_refused(rate):
    """``times(2.7)`` of a 1 s series ran to 1.11 s, past the period, and ``sample`` then took that last sample as
    the rest at T (q̇ zeroed); below 1/(2T) (0.4 Hz) it gave t = 0 alone, documented as both ends."""
    series = _rest_series()
    for call in (series.times, series.sample):
        with pytest.raises(bp.ArgumentError, match=r"^rate: period × rate = 1 s × .* Hz = .* is not a whole number "
                                                   r"of samples$"):
            call(rate)


@pytest.mark.parametrize("period, rate", [(1.0, 100.0), (10.0, 0.1), (0.3, 10.0), (7.0, 1 / 7 * 49)])
def test_samples_of_a_whole_count_end_at_the_period_at_rest(period, rate):
    """The samples run from 0 to T with the steps 1/rate, and the series itself (evaluated independently at T) is at
    rest where the last sample says it is."""
    series = _rest_series(period)
    t = series.times(rate)
    assert len(t) == round(period * rate) + 1 and t[0] == 0.0
    assert t[-1] == pytest.approx(period, rel=1e-12) and np.allclose(np.diff(t), 1 / rate)
    _, qd, qdd = series.evaluate(np.array([period]))
    assert np.abs(qd).max() < 1e-12 and np.abs(qdd).max() < 1e-12
    samples = series.sample(rate)
    assert (samples.qd[-1] == 0).all() and (samples.qdd[-1] == 0).all()


def test_a_saved_design_of_an_edited_rate_is_refused_naming_the_file(tmp_path):
    """A saved design whose rate does not divide its period gave samples past the period (a DataError naming the
    file and the field now, as the file's other fields)."""
    series = _rest_series(2.0)
    doc = {"period": 2.0, "rate": 12.3, "coefficients": {k: getattr(series, k).tolist() for k in ("q0", "a", "b")}}
    path = tmp_path / "design.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(bp.DataError, match=r"design\.json: field rate: period × rate = 2 s × 12.3 Hz = 24.6 is not a "
                                           r"whole number of samples$"):
        bp.load_excitation(path)
    doc["rate"] = 12.5
    path.write_text(json.dumps(doc))
    saved = bp.load_excitation(path)
    assert saved.samples.t[-1] == 2.0 and len(saved.samples.t) == 26


@pytest.mark.parametrize("r, ok", [(-1, True), (-36, True), (35, True), (-37, False), (36, False)])
def test_a_base_parameter_index_message_says_negative_indices_count_from_the_end(r, ok):
    """``terms(-1)`` is the last base parameter (as a sequence's index), yet the refusal of ``terms(99)`` said
    "from 0 to 35" only."""
    base = bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "puma560.yaml"))
    assert base.rank == 36
    if ok:
        assert base.terms(r) == base.terms(r % 36)
    else:
        with pytest.raises(bp.ArgumentError, match=r"^r: expected a base-parameter index from 0 to 35 \(or -36 to -1 "
                                                   rf"from the end\), got {r}$"):
            base.terms(r)


@pytest.mark.parametrize("link", [10 ** 400, 65, 2 ** 63, np.uint64(2 ** 64 - 1)], ids=["1e400", "65", "2^63", "u64"])
def test_a_contact_on_a_link_no_robot_has_is_refused_when_it_is_made(link):
    """``Contact(link=10**400)`` was made and refused only where a robot was given (no robot has more than 64
    joints, so more than 64 links above the base)."""
    with pytest.raises(bp.ArgumentError, match=r"^contact .*: link: expected 0 \(the base\), a link number from 1 to "
                                               r"64 or a joint name, got "):
        bp.Contact(link)
    assert bp.Contact(64).link == 64 and bp.Contact(0).link == 0


@pytest.mark.parametrize("prefix", ["CON", "aux", "nul", "Prn", "com1", "LPT0"])
@pytest.mark.parametrize("lang", ["c", "python"])
def test_an_export_prefix_of_a_windows_device_name_is_refused(tmp_path, prefix, lang):
    """``export(..., prefix='CON')`` wrote CON.h and CON.json: on Windows (in any case, whatever the extension) the
    console, not files; refused as a C header's name is, before anything is written."""
    base = bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "planar_rrr.yaml"))
    with pytest.raises(bp.ExportError, match=rf"^prefix: '{prefix}' would write {prefix}\.json, and on Windows "
                                             rf"{prefix} is a device"):
        bp.export(base, lang, prefix=prefix, out_dir=tmp_path)
    assert not any(tmp_path.iterdir())
    for fine in ("con1", "com10", "console", "nul_x"):
        from baseparam.codegen._export import check_prefix
        assert check_prefix(fine, lang) == fine


# --- 2. PayloadResult remembers the robot it was identified on ------------------------------------------------------

def _payload_result(robot, payload=PAYLOAD):
    from baseparam.identification.payload import PayloadResult, payload_parameters

    mass, com, inertia = payload
    return PayloadResult(mass=mass, com=com, inertia=inertia, mass_std=0.01, com_std=np.full(3, 1e-3),
                         inertia_std=np.full((3, 3), 1e-4), parameters=payload_parameters(mass, com, inertia),
                         unconstrained=payload_parameters(mass, com, inertia), covariance=np.eye(10) * 1e-6,
                         identifiable=[], rank=10, mode="model", n_samples=100, rmse=np.zeros(6), robot=robot)


def test_a_payload_is_refused_on_another_robot_or_arm():
    """``result.attach(other_robot)`` added the payload, in the frame of the last link of the robot it was identified
    on, to any robot's last link: another robot's (other joints) or another arm's (a UR5 for a UR10e) unchecked."""
    ur = bp.load_robot(UR)
    result = _payload_result(ur)
    for other, said in ((ROOT / "robots" / "ur5.yaml", r"joint 3's axis differs"),
                        (ROOT / "robots" / "puma560.yaml", r"joint \d.s axis differs"),
                        (ROOT / "robots" / "planar_rrr.yaml", r"its joints \(RRR for RRRRRR\) differs")):
        for target in (other, bp.load_robot(other)):
            with pytest.raises(bp.ArgumentError, match=rf"^robot: .*{other.name} is not the arm the payload was "
                                                       rf"identified on \(.*ur10e.yaml\): {said}"):
                result.attach(target)
        with pytest.raises(bp.ArgumentError, match=rf"^robot: .*{other.name} is not the arm"):
            result.robot_text(other, "yaml")
    # its own robot, again read from its file or as a model of it: taken as before, bit for bit
    again = bp.load_robot(UR)
    assert np.array_equal(result.attach(again).joints[-1].inertia.com, result.attach(ur).joints[-1].inertia.com)
    from baseparam.model.parameters import ColumnLayout
    p = np.random.default_rng(2).uniform(0.1, 1.0, len(ColumnLayout(ur, "pseudo").names))
    assert np.array_equal(result.attach(bp.Model(again, p)).values(), result.attach(bp.Model(ur, p)).values())


def test_a_payload_attached_to_its_arm_described_in_other_frames_is_carried_into_them():
    """The same arm with its last link frame elsewhere (ur10e_cad.yaml's wrist_3_link, 0.117 m and a quarter turn from
    ur10e.yaml's tool0) took the numbers of tool0's frame as its own: pinocchio's payload torques (loaded − unloaded)
    of the attached description now agree with those of the payload on the robot it was identified on."""
    ur, cad = bp.load_robot(UR), bp.load_robot(UR_CAD)
    result = _payload_result(ur)
    rng = np.random.default_rng(5)
    q, qd, qdd = rng.uniform(-1.5, 1.5, (3, 8, 6))
    truth = _pin_torques(ur, q, qd, qdd, PAYLOAD) - _pin_torques(ur, q, qd, qdd, None)
    attached = result.attach(cad)
    got = _pin_torques(attached, q, qd, qdd, None) - _pin_torques(cad, q, qd, qdd, None)
    # the two descriptions are one arm to tenths of a millimetre (DH rounding): N·m of 2 kg at ~1 m
    scale = np.abs(truth).max()
    assert np.abs(got - truth).max() < 2e-3 * scale, (np.abs(got - truth).max(), scale)
    naive = cad.joints[-1].inertia
    body = attached.joints[-1].inertia
    assert abs(body.mass - naive.mass - PAYLOAD[0]) < 1e-12
    # the frame change is no small correction: the numbers taken as they are miss by a tenth of the torque
    import baseparam.model.attach as attach
    wrong = attach.with_payload(cad, *PAYLOAD)
    wrong_torques = _pin_torques(wrong, q, qd, qdd, None) - _pin_torques(cad, q, qd, qdd, None)
    assert np.abs(wrong_torques - truth).max() > 0.05 * scale
    # robot_text (--robot-out) carries it alike
    text = result.robot_text(cad, "yaml")
    assert np.allclose(bp.parse_robot(text).joints[-1].inertia.com, body.com, atol=1e-9)


def _still_table(robot, payload, seed=4, n=12, noise=5):
    """Still poses (a table: still_duration 0) and pinocchio's torques with ``payload``, a little noise (seeded by
    ``noise``)."""
    poses = np.random.default_rng(seed).uniform(-1.5, 1.5, (n, robot.n_dof))
    zero = np.zeros_like(poses)
    tau = _pin_torques(robot, poses, zero, zero, payload) + np.random.default_rng(noise).normal(0.0, 0.01, poses.shape)
    return bp.Trajectory(t=np.arange(float(n)), q=poses, tau=tau)


def test_identify_payload_keeps_the_robot_the_payload_is_reported_on():
    """The result of identify_payload names its robot (the model's, or ``robot=``'s): attach then refuses another."""
    from baseparam.identification.payload import identify_payload

    ur, cad = bp.load_robot(UR), bp.load_robot(UR_CAD)
    log = _still_table(ur, PAYLOAD)
    own = identify_payload(ur, log, static=True, still_duration=0)
    assert own.robot is ur
    carried = identify_payload(cad, log, unloaded=_still_table(ur, None, noise=6), static=True, still_duration=0,
                               robot=ur)
    assert carried.robot is ur and abs(carried.mass - PAYLOAD[0]) < 0.02
    with pytest.raises(bp.ArgumentError, match=r"ur5.yaml is not the arm the payload was identified on"):
        own.attach(ROOT / "robots" / "ur5.yaml")


# --- 2. an in-process design keeps its deadline within an evaluation, not an SLSQP iteration --------------------------

LIMITS = {"joints": [{"q": [-2.0, 2.5], "qd": 1.5, "qdd": 6.0}, {"q": [-1.5, 1.5], "qd": 2.0},
                     {"q": [-2.5, 2.5], "qd": 2.5, "qdd": 8.0}]}
SHORT = {"period": 4.0, "harmonics": 3, "rate": 50.0, "limits": LIMITS}


def _by_the_solver():
    """Whether the evaluation under way is SLSQP's (or L-BFGS-B's) own, not the start's judging of an iterate it
    returned (its callback)."""
    import sys

    frames = []
    frame = sys._getframe(2)
    while frame is not None:
        frames.append(frame.f_code)
        frame = frame.f_back
    return (any("scipy" in code.co_filename and "optimize" in code.co_filename for code in frames)
            and not any(code.co_name == "step" and code.co_filename.endswith("_search.py") for code in frames))


class _EvaluationClock:
    """The search's clock: 100 s pass in each evaluation of the criterion, its gradient, the constraints or their
    Jacobian, none elsewhere (the budget ends at the same evaluation on any machine); the start of each of the
    solver's own evaluations kept."""

    def __init__(self):
        self.now, self.starts = 1e9, []

    def time(self):
        return self.now

    def timed(self, function):
        def call(problem, x):
            if _by_the_solver():
                self.starts.append(self.now)
            self.now += 100.0
            return function(problem, x)
        return call

    sleep = staticmethod(lambda seconds: None)


@pytest.mark.parametrize("budget", [2550.0, 4250.0, 5150.0])
def test_an_in_process_design_starts_no_evaluation_past_its_deadline(monkeypatch, budget):
    """``design_excitation(workers=1)`` (in this process) checked its deadline at the end of each SLSQP iteration only:
    the iteration under way ran on, its line search's evaluations and all (seconds of a large problem; a pool's worker
    was given up 1 s after the deadline, the caller's own run not). Now none of the solver's evaluations starts past
    it (what remains past it: the evaluation under way, and the start's judging of the iterate SLSQP returned)."""
    from baseparam.excitation import _problem, _search
    import baseparam.excitation.design as design

    clock = _EvaluationClock()
    monkeypatch.setattr(_search, "time", clock)
    for name in ("objective", "gradient", "constraints", "jacobian"):
        monkeypatch.setattr(_problem.DesignProblem, name, clock.timed(getattr(_problem.DesignProblem, name)))
    searched = {}
    real = design.search

    def search(problem, **options):
        searched.update(begin=clock.now, budget=options["time_budget"])
        return real(problem, **options)
    monkeypatch.setattr(design, "search", search)
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    d = bp.design_excitation(robot, seed=3, starts=4, time_budget=budget, **SHORT)
    deadline = searched["begin"] + searched["budget"]
    late = [t for t in clock.starts if t > deadline]
    assert d.search.counted < d.search.starts and not late, (len(clock.starts), len(late))


def test_a_design_within_its_budget_is_the_one_without_a_budget():
    """The deadline's checks change no number: a budget not reached gives the design of no budget, bit for bit."""
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    tiny = {**SHORT, "harmonics": 2, "period": 2.0}
    free = bp.design_excitation(robot, seed=3, starts=1, **tiny)
    budgeted = bp.design_excitation(robot, seed=3, starts=1, time_budget=1e6, **tiny)
    assert budgeted.search.counted == 1
    assert np.array_equal(free.series.coefficients, budgeted.series.coefficients)
    assert (free.search.values, free.search.evaluations) == (budgeted.search.values, budgeted.search.evaluations)


# --- 3. the payload carried across the last frames, every mode, against pinocchio ------------------------------------

def _in_wrist_3_link(payload=PAYLOAD):
    """``payload`` (in ur10e.yaml's last frame, the URDF's tool0) in ur10e_cad.yaml's (the URDF's wrist_3_link), by
    the URDF's own fixed joint wrist_3_link → tool0 (xyz 0 0.117 0, rpy −π/2 0 0): not the library's arm_relation."""
    mass, com, inertia = payload
    c, s = np.cos(-np.pi / 2), np.sin(-np.pi / 2)
    R = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    return mass, R @ com + np.array([0.0, 0.117, 0.0]), R @ inertia @ R.T


def _moving_log(robot, payload, seconds=4.0, dt=0.01, seed=1):
    """A few sines per joint, pinocchio's torques with ``payload`` on the last link, a little noise."""
    t = np.arange(0.0, seconds, dt)
    k = np.arange(1, robot.n_dof + 1)
    q = 0.4 * np.sin(np.outer(t, 0.7 * k) + k) + 0.3 * np.sin(np.outer(t, 1.9 + 0.3 * k))
    qd = 0.28 * k * np.cos(np.outer(t, 0.7 * k) + k) + 0.3 * (1.9 + 0.3 * k) * np.cos(np.outer(t, 1.9 + 0.3 * k))
    qdd = -0.196 * k ** 2 * np.sin(np.outer(t, 0.7 * k) + k) - 0.3 * (1.9 + 0.3 * k) ** 2 * np.sin(
        np.outer(t, 1.9 + 0.3 * k))
    tau = _pin_torques(robot, q, qd, qdd, payload) + np.random.default_rng(seed).normal(0.0, 0.02, q.shape)
    return bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau)


@pytest.mark.parametrize("mode", ["model", "difference", "static", "static difference"])
def test_a_payload_reported_in_another_descriptions_last_frame_is_pinocchios_in_every_mode(mode):
    """identify_payload(model, …, robot=other) was checked against pinocchio in mode 'difference' only (lpay, with a
    model in other frames than the robot): here the model is the description pinocchio simulated (ur10e.yaml, tool0),
    the payload reported in ur10e_cad.yaml's wrist_3_link (0.117 m and a quarter turn away), in the modes 'model'
    (measured − model), 'difference' (loaded − unloaded), 'static' and static with unloaded poses. The wrench fit
    takes no ``robot`` (refused: it reads no body)."""
    from baseparam.identification.payload import identify_payload

    ur, cad = bp.load_robot(UR), bp.load_robot(UR_CAD)
    none = (0.0, np.zeros(3), np.zeros((3, 3)))
    if mode.startswith("static"):
        loaded, unloaded = _still_table(ur, PAYLOAD), _still_table(ur, none, noise=6)
        options = {"static": True, "still_duration": 0}
    else:
        loaded, unloaded = _moving_log(ur, PAYLOAD), _moving_log(ur, none, seed=2)
        options = {"preprocessing": None}
    result = identify_payload(ur, loaded, unloaded=unloaded if "difference" in mode else None, robot=cad, **options)
    mass, com, inertia = _in_wrist_3_link()
    assert result.robot is cad and abs(result.mass - mass) < 0.01 * mass, result.mass
    assert np.abs(result.com - com).max() < 1e-3, (result.com, com)
    if not mode.startswith("static"):
        assert np.abs(result.inertia - inertia).max() < 2e-3, (result.inertia, inertia)
    # in the robot's own frame the numbers differ by the frame change: the test sees the carry
    assert np.abs(com - PAYLOAD[1]).max() > 0.05
    with pytest.raises(bp.SettingsError, match="robot: the wrench fit uses the kinematics alone"):
        identify_payload(ur, loaded, wrench=np.zeros((len(loaded.t), 6)), robot=cad)


def test_a_budgeted_design_cut_in_its_first_start_keeps_that_starts_progress_in_process(monkeypatch):
    """a6c4b69 ran ``workers=1`` under a time budget in a pool of one when SLSQP's step was estimated over 0.3 s
    (24 harmonics of a 7-joint arm and up), and gave the worker up 1 s (+ 2 s to terminate) past the deadline: a
    start 0 still inside a step then never reported, and the design was its random starting point, not the best
    point so far that the warning promises (reverted). Here the routing is forced (an estimate of 100 s a step) and
    the search's clock is the evaluations' (100 s each): in this process start 0 runs 150 evaluations and the design
    is better than its starting point; a worker, in its own process and clock, found the deadline passed and returned
    that starting point, as a worker given up inside a step leaves it."""
    from baseparam.excitation import _problem, _search

    clock = _EvaluationClock()
    monkeypatch.setattr(_search, "time", clock)
    for name in ("objective", "gradient", "constraints", "jacobian"):
        monkeypatch.setattr(_problem.DesignProblem, name, clock.timed(getattr(_problem.DesignProblem, name)))
    # in this process (round 23 routes long steps to a pool of one again, whose worker now sends start 0's best point
    # back: a worker's clock is its own, which this test's evaluation clock cannot drive)
    monkeypatch.setattr(_search, "slsqp_step_seconds", lambda problem: 0.0)
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    with pytest.warns(bp.ExcitationWarning, match="best point so far"):
        cut = bp.design_excitation(robot, seed=3, starts=2, time_budget=15050.0, **SHORT)
    assert cut.search.counted == 0
    monkeypatch.setattr(_search, "time", __import__("time"))
    with pytest.warns(bp.ExcitationWarning, match="best point so far"):
        start = bp.design_excitation(robot, seed=3, starts=2, time_budget=1e-9, **SHORT)
    assert cut.condition_number < start.condition_number, (cut.condition_number, start.condition_number)
