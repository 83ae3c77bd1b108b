"""bp.Model and bp.BaseModel: the dynamics take a model and the state.

Checked against pinocchio (independent dynamics), the deprecated robot-and-p calls (the same numbers,
bit for bit, with a DeprecationWarning), the base set's own methods, and several threads at once.
"""
import copy
import pickle
import threading
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam.model._kernels import kernels_of
from baseparam.dynamics.forward import kernel
from conftest import ROOT, in_threads
from random_bodies import assert_close, custom_robot, random_parameters, random_states, with_drives

PARAMS = ["pseudo", "khalil"]


def ur10e():
    return bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml")


def drives_robot():
    return with_drives(bp.load_robot(ROOT / "robots" / "puma560.yaml"))


def test_model_defaults_to_the_description_and_is_an_immutable_value():
    robot = ur10e()
    model = bp.Model(robot)
    np.testing.assert_array_equal(model.p, bp.standard_parameters(robot))
    assert model.parameters == "pseudo" and model.names == bp.ColumnLayout(robot).names
    assert (model.n_dof, model.n_q, model.n_v) == (6, 6, 6)
    with pytest.raises(ValueError):
        model.p[0] = 1.0                                    # read-only values
    with pytest.raises(AttributeError, match="immutable"):
        model.p = np.zeros(len(model.p))
    assert model == bp.Model(robot) and hash(model) == hash(bp.Model(robot))
    khalil = bp.Model(robot, parameters="khalil")
    np.testing.assert_array_equal(khalil.p, bp.standard_parameters(robot, "khalil"))
    assert khalil != model
    heavier = model.with_parameters(2 * model.p)
    assert heavier != model and heavier.robot is robot and heavier.kernels is model.kernels
    assert model.with_parameters(model.p) == model
    text = repr(model)
    assert text.startswith("Model(robot='UR10e (CAD inertias)', parameters='pseudo', p=[") and len(text) < 150
    again = pickle.loads(pickle.dumps(model))
    assert again.parameters == model.parameters and again.robot.signature() == robot.signature()
    np.testing.assert_array_equal(again.p, model.p)
    assert len(again.kernels) == 0                          # compiled code stays in its process


def test_models_of_equal_descriptions_are_equal_also_after_pickling():
    # a description with inertias: its Inertia values must compare by value, not identity
    first, second = ur10e(), ur10e()
    assert first == second and hash(first) == hash(second)
    assert bp.Model(first) == bp.Model(second) and hash(bp.Model(first)) == hash(bp.Model(second))
    model = bp.Model(first)
    again = pickle.loads(pickle.dumps(model))
    assert again == model and hash(again) == hash(model)
    with pytest.raises(ValueError):
        again.p[0] = 1.0                                    # still read-only after unpickling
    base = bp.find_base_parameters(first).model()
    back = pickle.loads(pickle.dumps(base))
    assert back == base and not back.p.flags.writeable
    lighter = bp.Model(first, bp.standard_parameters(first) * 0.5)
    assert lighter != model
    moved = bp.Inertia(1.0, np.array([0.0, 0.0, 0.1]), np.eye(3) * 0.01)
    assert moved != bp.Inertia(1.0, np.array([0.0, 0.0, 0.2]), np.eye(3) * 0.01)
    # -0.0 == 0.0: equal values hash alike
    zero = np.zeros(len(model.p))
    assert model.with_parameters(zero) == model.with_parameters(-zero)
    assert hash(model.with_parameters(zero)) == hash(model.with_parameters(-zero))
    assert hash(bp.Inertia(1.0, np.array([0.0, 0.0, 0.1]), np.eye(3))) == \
        hash(bp.Inertia(1.0, np.array([-0.0, 0.0, 0.1]), np.eye(3)))


def test_a_model_without_values_serves_regressors_and_says_what_is_missing():
    robot = bp.load_robot(ROOT / "robots" / "puma560.yaml")        # no inertias in the description
    model = bp.Model(robot)
    assert model.p is None
    q = np.zeros((2, 6))
    assert bp.regressor(model, q, q, q).shape == (2, 6, len(model.names))
    for call in (lambda: bp.inverse_dynamics(model, q, q, q), lambda: bp.mass_matrix(model, q),
                 lambda: bp.forward_dynamics(model, q, q, q), lambda: bp.ForwardDynamics(model)):
        with pytest.raises(bp.ArgumentError, match=r"^p: the model of 'PUMA 560' has no parameter values: .*"
                                                   r"joints\[1\]\.inertia.*bp\.Model\(robot, p\)") as caught:
            call()
        assert "\n" not in str(caught.value)
    with pytest.raises(bp.ArgumentError, match=r"^p: expected shape \(60,\), got \(3,\)$"):
        bp.Model(robot, [1.0, 2.0, 3.0])
    with pytest.raises(bp.ArgumentError, match="parameters: expected one of"):
        bp.Model(robot, parameters="inertia")
    with pytest.raises(TypeError, match="^robot: expected a baseparam.Robot"):
        bp.Model("robots/puma560.yaml")


@pytest.mark.parametrize("parameters", PARAMS)
def test_new_form_against_pinocchio(parameters):
    """Model-form dynamics against pinocchio's rnea, crba and aba (rotor inertia and friction added)."""
    pytest.importorskip("pinocchio")
    from pin_model import PinReference

    rng = np.random.default_rng(22)
    robot = drives_robot()
    p, bodies, drives = random_parameters(robot, parameters, rng)
    ref = PinReference(robot, bodies, drives)
    model = bp.Model(robot, p, parameters)
    q, qd, qdd = random_states(robot, 4, rng)
    tau = bp.inverse_dynamics(model, q, qd, qdd)
    W = bp.regressor(model, q, qd, qdd)
    M = bp.mass_matrix(model, q)
    g = bp.gravity_torque(model, q)
    qdd_fd = bp.forward_dynamics(model, q, qd, tau)
    fd = bp.ForwardDynamics(model)
    base = bp.find_base_parameters(robot, parameters)
    base_model = base.model(base.from_standard(p))
    for s in range(4):
        t_ref = ref.rnea(q[s], qd[s], qdd[s])
        assert_close(tau[s], t_ref, what=f"sample {s}: inverse_dynamics(model) vs pin.rnea")
        assert_close(W[s] @ p, t_ref, what=f"sample {s}: regressor(model) p vs pin.rnea")
        assert_close(M[s], ref.mass_matrix(q[s]), what=f"sample {s}: mass_matrix(model) vs pin.crba")
        assert_close(g[s], ref.gravity(q[s]), what=f"sample {s}: gravity_torque(model) vs pinocchio")
        assert_close(qdd_fd[s], qdd[s], what=f"sample {s}: forward_dynamics(model) inverts pin.rnea")
        assert_close(fd(q[s], qd[s], t_ref), qdd[s], what=f"sample {s}: ForwardDynamics(model) inverts pin.rnea")
        assert_close(bp.inverse_dynamics(base_model, q[s], qd[s], qdd[s]), t_ref,
                     what=f"sample {s}: inverse_dynamics(base model) vs pin.rnea")
        assert_close(bp.regressor(base_model, q[s], qd[s], qdd[s]) @ base_model.p, t_ref,
                     what=f"sample {s}: regressor(base model) p_base vs pin.rnea")
        assert_close(bp.forward_dynamics(base_model, q[s], qd[s], t_ref), qdd[s],
                     what=f"sample {s}: forward_dynamics(base model) inverts pin.rnea")
        assert_close(bp.mass_matrix(base_model, q[s]), ref.mass_matrix(q[s]),
                     what=f"sample {s}: mass_matrix(base model) vs pin.crba")


def _calls(robot, p, parameters, q, qd, qdd, tau):
    """(name, deprecated call, new call) of every dynamics function."""
    m = bp.Model(robot, p, parameters)
    return [
        ("inverse_dynamics", lambda: bp.inverse_dynamics(robot, p, q, qd, qdd, parameters),
         lambda: bp.inverse_dynamics(m, q, qd, qdd)),
        ("regressor", lambda: bp.regressor(robot, q, qd, qdd, parameters), lambda: bp.regressor(m, q, qd, qdd)),
        ("slotine_li_regressor", lambda: bp.slotine_li_regressor(robot, q, qd, qd, qdd, parameters=parameters),
         lambda: bp.slotine_li_regressor(m, q, qd, qd, qdd)),
        ("mass_matrix", lambda: bp.mass_matrix(robot, p, q, parameters), lambda: bp.mass_matrix(m, q)),
        ("coriolis_matrix", lambda: bp.coriolis_matrix(robot, p, q, qd, parameters=parameters),
         lambda: bp.coriolis_matrix(m, q, qd)),
        ("gravity_torque", lambda: bp.gravity_torque(robot, p, q, parameters), lambda: bp.gravity_torque(m, q)),
        ("coriolis_torque", lambda: bp.coriolis_torque(robot, p, q, qd, parameters),
         lambda: bp.coriolis_torque(m, q, qd)),
        ("friction_torque", lambda: bp.friction_torque(robot, p, qd, parameters), lambda: bp.friction_torque(m, qd)),
        ("reaction_wrenches", lambda: bp.reaction_wrenches(robot, p, q, qd, qdd, parameters, "joint"),
         lambda: bp.reaction_wrenches(m, q, qd, qdd, frame="joint")),
        ("forward_dynamics", lambda: bp.forward_dynamics(robot, p, q, qd, tau, parameters),
         lambda: bp.forward_dynamics(m, q, qd, tau)),
        ("forward_dynamics, one sample", lambda: bp.forward_dynamics(robot, p, q[0], qd[0], tau[0], parameters),
         lambda: bp.forward_dynamics(m, q[0], qd[0], tau[0])),
        ("ForwardDynamics", lambda: bp.ForwardDynamics(robot, p, parameters)(q[1], qd[1], tau[1]),
         lambda: bp.ForwardDynamics(m)(q[1], qd[1], tau[1])),
        ("generalized_momenta", lambda: bp.generalized_momenta(robot, p, q, qd, parameters),
         lambda: bp.generalized_momenta(m, q, qd)),
        ("velocities_from_momenta", lambda: bp.velocities_from_momenta(robot, p, q, qd, "sweep", parameters),
         lambda: bp.velocities_from_momenta(m, q, qd, solver="sweep")),
        ("momenta_rate", lambda: bp.momenta_rate(robot, p, q, qd, tau, parameters),
         lambda: bp.momenta_rate(m, q, qd, tau)),
        ("momentum", lambda: bp.momentum(robot, p, q, qd, parameters), lambda: bp.momentum(m, q, qd)),
        ("kinetic_energy", lambda: bp.kinetic_energy(robot, p, q, qd, parameters),
         lambda: bp.kinetic_energy(m, q, qd)),
        ("potential_energy", lambda: bp.potential_energy(robot, p, q, parameters),
         lambda: bp.potential_energy(m, q)),
    ]


@pytest.mark.parametrize("parameters", PARAMS)
def test_deprecated_calls_warn_and_give_the_same_bits(parameters):
    rng = np.random.default_rng(5)
    robot = drives_robot()
    p = random_parameters(robot, parameters, rng)[0]
    q, qd, qdd = random_states(robot, 7, rng)
    tau = rng.uniform(-5, 5, q.shape)
    for name, old, new in _calls(robot, p, parameters, q, qd, qdd, tau):
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)          # the new form does not warn
            expected = new()
        with pytest.warns(DeprecationWarning, match=r"is deprecated .*bp\.Model\(robot") as caught:
            got = old()
        assert caught[0].filename == __file__, f"{name}: the warning points at the caller"
        np.testing.assert_array_equal(got, expected, err_msg=name)


def test_deprecated_forward_dynamics_object_by_keywords():
    """ForwardDynamics(robot=..., p=..., parameters=...): the old signature's names work as keywords too."""
    rng = np.random.default_rng(6)
    robot = drives_robot()
    p = random_parameters(robot, "khalil", rng)[0]
    q, qd, _ = random_states(robot, 1, rng)
    tau = rng.uniform(-5, 5, robot.n_dof)
    expected = bp.ForwardDynamics(bp.Model(robot, p, "khalil"))(q[0], qd[0], tau)
    with pytest.warns(DeprecationWarning, match="is deprecated"):
        got = bp.ForwardDynamics(robot=robot, p=p, parameters="khalil", native=False)(q[0], qd[0], tau)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(bp.ForwardDynamics(model=bp.Model(robot, p, "khalil"))(q[0], qd[0], tau), expected)


def test_deprecated_simulate_gives_the_same_bits():
    robot = ur10e()
    p = bp.standard_parameters(robot)
    t = np.arange(30) * 1e-3
    q0 = np.linspace(-0.5, 0.5, 6)
    new = bp.simulate(bp.Model(robot), t, q0, np.zeros(6), np.ones(6), method="rk4")
    with pytest.warns(DeprecationWarning, match="simulate"):
        old = bp.simulate(robot, p, t, q0, np.zeros(6), np.ones(6), method="rk4", parameters="pseudo")
    for field in ("q", "qd", "qdd", "tau"):
        np.testing.assert_array_equal(getattr(old, field), getattr(new, field), err_msg=field)
    momenta = bp.simulate(bp.Model(robot), t, q0, np.zeros(6), np.ones(6), method="rk4", state="momenta")
    # RK4 in other variables: the same motion up to the scheme's truncation error (h = 1 ms)
    assert_close(momenta.q, new.q, 1e-7, "(q, p) vs (q, q̇) integration")


def test_base_model_is_the_base_set_in_model_form():
    rng = np.random.default_rng(8)
    robot = drives_robot()
    p = random_parameters(robot, "pseudo", rng)[0]
    base = bp.find_base_parameters(robot)
    p_base = base.from_standard(p)
    model = base.model(p_base)
    assert isinstance(model, bp.BaseModel) and model.names == base.names and model.robot is robot
    assert model == base.model(p_base) and model != model.with_parameters(2 * p_base)
    assert repr(model).startswith("BaseModel(robot='PUMA 560 with drives', parameters='pseudo', rank=45, p=[")
    q, qd, qdd = random_states(robot, 6, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        np.testing.assert_array_equal(bp.regressor(model, q, qd, qdd), base.regressor(q, qd, qdd))
        np.testing.assert_array_equal(bp.regressor(base, q, qd, qdd), base.regressor(q, qd, qdd))
        np.testing.assert_array_equal(bp.slotine_li_regressor(base, q, qd, qd, qdd),
                                      base.slotine_li_regressor(q, qd, qd, qdd))
        tau = bp.inverse_dynamics(model, q, qd, qdd)
        qdd_back = bp.forward_dynamics(model, q, qd, tau)
    with pytest.warns(DeprecationWarning):          # the base set's own methods: deprecated, the same bits
        np.testing.assert_array_equal(tau, base.inverse_dynamics(p_base, q, qd, qdd))
        np.testing.assert_array_equal(qdd_back, base.forward_dynamics(p_base, q, qd, tau))
    standard = bp.Model(robot, p)
    for name in ("mass_matrix", "gravity_torque"):
        assert_close(getattr(bp, name)(model, q), getattr(bp, name)(standard, q), 1e-12, name)
    for name in ("coriolis_torque", "coriolis_matrix", "generalized_momenta", "kinetic_energy"):
        assert_close(getattr(bp, name)(model, q, qd), getattr(bp, name)(standard, q, qd), 1e-12, name)
    assert_close(bp.friction_torque(model, qd), bp.friction_torque(standard, qd), 1e-12, "friction_torque")
    for call in (lambda: bp.reaction_wrenches(model, q, qd, qdd), lambda: bp.momentum(model, q, qd),
                 lambda: bp.potential_energy(model, q)):
        with pytest.raises(bp.ArgumentError, match="depends on more than the base parameters"):
            call()
    for call in (lambda: bp.inverse_dynamics(base, q, qd, qdd), lambda: bp.ForwardDynamics(base)):
        with pytest.raises(bp.ArgumentError, match=r"^p: a base set carries no parameter values: use base.model"):
            call()
    preimage = bp.Model(robot, base.standard_preimage(p_base))
    np.testing.assert_array_equal(bp.ForwardDynamics(model)(q[0], qd[0], tau[0]),
                                  bp.ForwardDynamics(preimage)(q[0], qd[0], tau[0]))
    with pytest.raises(bp.ArgumentError, match=r"^p_base: expected shape"):
        base.model(p)


def test_threads_share_one_model():
    """Several threads evaluating one model at once, its kernels built while they run: the same bits as
    one thread."""
    rng = np.random.default_rng(3)
    robot = custom_robot("tree_prismatic")
    p = random_parameters(robot, "pseudo", rng)[0]
    q, qd, qdd = random_states(robot, 40, rng)
    tau = rng.uniform(-3, 3, q.shape)

    def work(model):
        return (bp.inverse_dynamics(model, q, qd, qdd), bp.regressor(model, q, qd, qdd), bp.mass_matrix(model, q),
                bp.forward_dynamics(model, q, qd, tau),
                np.array([bp.forward_dynamics(model, q[s], qd[s], tau[s]) for s in range(len(q))]))
    fresh = copy.deepcopy(robot)                          # no kernel built yet: the threads race to build them
    model = bp.Model(fresh, p)
    start = threading.Barrier(4)

    def run(i):
        start.wait()
        return work(model)
    results = in_threads(run, 4)
    expected = work(bp.Model(robot, p))
    for result in results:
        for got, want in zip(result, expected):
            np.testing.assert_array_equal(got, want)


def test_a_few_samples_in_python_never_touch_the_shared_buffers():
    """forward_dynamics shares one bound ForwardDynamics between threads and locks only its one-sample
    calls: a batch of a few samples that started without the C kernel must stay in Python (local lists)
    even when another thread finishes the kernel meanwhile."""
    from baseparam.dynamics.forward import bound
    rng = np.random.default_rng(4)
    robot = custom_robot("tree_prismatic")
    model = bp.Model(copy.deepcopy(robot), random_parameters(robot, "pseudo", rng)[0])
    q, qd, _ = random_states(robot, 5, rng)
    tau = rng.uniform(-3, 3, q.shape)
    fd = bound(model)
    expected = fd.batch(q, qd, tau)

    class CompiledMeanwhile:
        """The kernel, whose C library appears after the batch looked (as another thread compiled it)."""
        def __init__(self, kernel):
            self.kernel, self.looked = kernel, False

        def native(self, build=True):
            if self.looked:
                raise AssertionError("the batch of a few samples went to the C kernel (shared buffers)")
            self.looked = True
            return None

        def __getattr__(self, name):
            return getattr(self.kernel, name)
    kernel = fd.kernel
    fd.kernel = CompiledMeanwhile(kernel)
    try:
        got = fd.batch(q, qd, tau)
    finally:
        fd.kernel = kernel
    np.testing.assert_array_equal(got, expected)


def test_two_robots_never_share_kernels():
    """Kernels live in the robot object: equal robots loaded twice, or differing only in friction declared
    as 0 vs not declared, each get their own."""
    a, b = (bp.load_robot(ROOT / "robots" / "puma560.yaml") for _ in range(2))
    assert a == b and kernels_of(a) is not kernels_of(b)
    assert kernel(a) is not kernel(b) and kernel(a) is kernel(a)
    assert bp.Model(a).kernels is kernels_of(a) and bp.Model(a, parameters="khalil").kernels is kernels_of(a)
    q = np.zeros((2, 6))
    bp.regressor(bp.Model(a), q, q, q)
    assert "regressor" in repr(kernels_of(a)) and "regressor" not in repr(kernels_of(b))
    text = (ROOT / "robots" / "puma560.yaml").read_text()
    declared = bp.parse_robot(text.replace("alpha: -90, a: 0,", "alpha: -90, friction: [0, 0, 0], a: 0,", 1))
    plain = bp.parse_robot(text)
    assert declared.signature() != plain.signature()
    Wd, Wp = (bp.regressor(bp.Model(r), q, q, q) for r in (declared, plain))
    assert Wd.shape[2] == Wp.shape[2] + 3
    assert copy.deepcopy(a).__dict__.get("_kernels") is None or len(kernels_of(copy.deepcopy(a))) == 0


def test_identification_and_excitation_take_a_model_for_the_description():
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    t = np.linspace(0, 10, 1001)
    q = np.column_stack([np.sin(0.7 * k * t + k) for k in (1, 2, 3)])
    qd, qdd = np.gradient(q, t, axis=0), np.gradient(np.gradient(q, t, axis=0), t, axis=0)
    p = np.random.default_rng(1).uniform(0.1, 1, bp.ColumnLayout(robot, "khalil").n_standard)
    model = bp.Model(robot, p, "khalil")
    log = bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=bp.inverse_dynamics(model, q, qd, qdd))
    by_model = bp.identify(model, log, preprocessing=None)
    by_robot = bp.identify(robot, log, preprocessing=None, parameters="khalil")
    assert by_model.base.parameters == "khalil"
    np.testing.assert_array_equal(by_model.values, by_robot.values)
    assert_close(by_model.values, by_model.base.from_standard(p), 1e-8, "identified vs true base parameters")
    with pytest.raises(bp.DataError, match="parameters: 'khalil', but the model is in 'pseudo'"):
        bp.BaseParameterEstimator(bp.Model(robot), parameters="khalil").fit(log)
    # design_excitation's default is pseudo, as everywhere (issue 24): a khalil argument contradicts a pseudo model
    with pytest.raises(bp.ArgumentError, match="parameters: 'khalil', but the model is in 'pseudo'"):
        bp.design_excitation(bp.Model(robot), parameters="khalil")
