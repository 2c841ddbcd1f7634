# Type stubs of the package `signorini` (the extension module signorini._signorini).
#
# Conventions (every function): array arguments are numpy float64, C-contiguous, of the
# documented shape and finite, or the call raises TypeError (not an ndarray, wrong dtype) or
# ValueError (shape, contiguity, NaN/inf) naming the argument. Unknown names raise KeyError.
# What the engine refuses (a URDF, a configuration key, a solver failure) raises
# signorini.Error; a Rust panic is never unwound into Python (it becomes InternalError).
# `out=` arguments are preallocated outputs of the same shape as the return value.
# Conventions of the engine: Pinocchio's q/v layout (free flyer: x y z qx qy qz qw, then the
# joints), contact frames (Tx, Ty, N) with N from the environment into the body, impulses in
# N·s per step, forces in N.

from os import PathLike
from typing import Literal, Mapping, Optional, Sequence, Union

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
FrameRef = Union[str, int]
StrPath = Union[str, PathLike]

class Error(RuntimeError): ...
class InternalError(Error): ...

# ---------------------------------------------------------------------------------------
# Model and dynamics (Pinocchio's shape)

class Model:
    @staticmethod
    def from_urdf(
        path: StrPath,
        floating_base: bool = False,
        package_dirs: Sequence[StrPath] = (),
        mimic: Literal["error", "independent"] = "error",
        skip_meshes: bool = False,
        allow_invalid_inertia: bool = False,
    ) -> Model: ...
    def data(self) -> Data: ...
    @property
    def name(self) -> str: ...
    @property
    def nq(self) -> int: ...
    @property
    def nv(self) -> int: ...
    @property
    def njoints(self) -> int: ...
    @property
    def joint_names(self) -> list[str]: ...
    @property
    def frame_names(self) -> list[str]: ...
    def frame_id(self, name: str) -> int: ...
    @property
    def has_floating_base(self) -> bool: ...
    @property
    def total_mass(self) -> float: ...
    @property
    def gravity(self) -> F64: ...
    def neutral(self) -> F64: ...
    @property
    def lower_position_limit(self) -> F64: ...
    @property
    def upper_position_limit(self) -> F64: ...
    @property
    def effort_limit(self) -> F64: ...

class Data: ...

def rnea(model: Model, data: Data, q: F64, v: F64, a: F64, out: Optional[F64] = None) -> F64: ...
def crba(model: Model, data: Data, q: F64, out: Optional[F64] = None) -> F64: ...
def aba(model: Model, data: Data, q: F64, v: F64, tau: F64, out: Optional[F64] = None) -> F64: ...
def gravity(model: Model, data: Data, q: F64, out: Optional[F64] = None) -> F64: ...
def forward_kinematics(model: Model, data: Data, q: F64, v: Optional[F64] = None, a: Optional[F64] = None) -> None: ...
def frame_placement(model: Model, data: Data, frame: FrameRef, out: Optional[F64] = None) -> F64: ...
def jacobian(
    model: Model,
    data: Data,
    q: F64,
    frame: FrameRef,
    reference: Literal["local_world_aligned", "local", "world"] = "local_world_aligned",
    out: Optional[F64] = None,
) -> F64: ...
def integrate(model: Model, q: F64, v: F64, out: Optional[F64] = None) -> F64: ...
def difference(model: Model, q0: F64, q1: F64, out: Optional[F64] = None) -> F64: ...

# ---------------------------------------------------------------------------------------
# The contact problem and its solvers

SOLVERS: tuple[str, ...]  # "admm", "pgs", "lcp", "chrono-admm", "chrono-fadmm", "sap", "vfpi", "vfpi-block"
MODELS: tuple[str, ...]  # "ncp", "ccp"

class ContactProblem:
    """min over impulses λ (3 per contact, (Tx, Ty, N)) of the frictional contact problem
    σ = (G + diag(compliance)) λ + g, λ_i in the Coulomb cone of μ_i, with Signorini and
    maximum dissipation (the NCP) or the cone complementarity relaxation (the CCP).

    From arrays: n = len(mu) sizes the others; G must be symmetric (to 1e-9 of its largest
    entry) with a non-negative diagonal, mu and compliance ≥ 0 (ValueError naming the
    array otherwise). The arrays are copied in; the properties return copies."""
    def __init__(self, G: F64, g: F64, mu: F64, compliance: Optional[F64] = None) -> None: ...
    @staticmethod
    def from_world(world: World) -> ContactProblem: ...  # the problem of the world's last step (G built from its factor)
    @property
    def num_contacts(self) -> int: ...
    @property
    def G(self) -> F64: ...  # (3n, 3n)
    @property
    def g(self) -> F64: ...  # (3n,)
    @property
    def mu(self) -> F64: ...  # (n,); 0 for a joint-friction block of a world's problem
    @property
    def compliance(self) -> F64: ...  # (3n,)

class Criteria:
    """The physical criteria of seed 002 (force units for dt; 1: the problem's own units)."""
    eps_p: float  # Coulomb cone violation
    eps_d: float  # dual feasibility (Signorini, with the De Saxcé term for the NCP)
    eps_c: float  # complementarity
    eps_abs: float  # max of the three: the NCP criterion
    signorini: float
    mdp: float  # maximum dissipation

class Solution:
    impulses: F64  # (3n,) λ
    velocities: F64  # (3n,) σ = (G + R)λ + g
    iterations: int  # 0: the start (a warm start) already met the tolerance
    converged: bool
    residuals: tuple[float, float, float]  # primal, dual, complementarity (seed 000 eqs. 40–42)
    criteria: Criteria  # against the NCP, whatever `model` was solved, in force units for `dt`

def solve(
    problem: ContactProblem,
    solver: str = "admm",
    model: Literal["ncp", "ccp"] = "ncp",
    tol: float = 1e-6,
    max_iterations: int = 1000,
    warm_start: Optional[Union[Solution, F64]] = None,
    dt: float = 1.0,
    anderson: int = 5,
    polish: bool = True,
    scaling: float = 1.0,
) -> Solution:
    """Solves `problem` with one of SOLVERS (KeyError otherwise) with its default settings,
    as the simulator's `contact.solver` runs it (`anderson`: the ADMM's Anderson depth,
    `contact.anderson`, 0 to 20; 0 runs seed 000's plain iteration; `polish`: the ADMM
    tries Newton's method on its iterate's contact modes mid-solve, `contact.polish`;
    `scaling`: the exponent, 0 to 1, of the ADMM's per-contact penalty scale by the Delassus
    diagonal, `contact.scaling`; 0 runs seed 000's scalar penalty). `model` applies to admm, pgs, vfpi and
    vfpi-block; lcp solves the pyramid LCP, chrono-admm/chrono-fadmm/sap the CCP whatever
    `model` (for sap, `tol` is its relative tolerance; vfpi's virtual nodes have stiffness
    1e4 relative to the contact's). `warm_start`: a previous Solution of a problem with as
    many contacts (impulses, duals and penalty), or impulses (3n,) (duals from them).
    The interpreter is released while it runs. A solver that gives non-finite values (PGS
    or the LCP on a contact with a zero normal row of G pushed into: no solution) raises
    signorini.Error."""
    ...

def criteria(problem: ContactProblem, impulses: F64, model: Literal["ncp", "ccp"] = "ncp", dt: float = 1.0) -> Criteria: ...

# ---------------------------------------------------------------------------------------
# Worlds

class Contacts:
    """The contacts of the last step, n of them (copies)."""
    points: F64  # (n, 3) world
    normals: F64  # (n, 3) world, from the environment into the body
    frames: F64  # (n, 3, 3) columns (Tx, Ty, N)
    impulses: F64  # (n, 3) in the contact frame (Tx, Ty, N), N·s
    forces: F64  # (n, 3) world, N (frame · impulse / dt)
    depths: F64  # (n,) m, positive when interpenetrating (−distance; contacts within the margin are negative)
    ids: list[int]  # persistent ids (warm start keys)
    bodies: list[str]  # the body of each contact (link or free-body name)
    def __len__(self) -> int: ...

class StepInfo:
    """What the last step of a `World.step` call did."""
    contacts: int
    contacts_dropped: int  # beyond collision.max_contacts (the deepest kept)
    iterations: int
    converged: bool
    polished: bool
    criteria: Criteria
    max_penetration: float
    fallback: str  # "none" unless the solve missed its tolerance ("warm_start", "ccp")
    refused: bool  # the guard scaled down impulses that were not finite or created energy
    regenerated: int  # times the step was solved again with points it put below a half-space (contact.regenerate)

class World:
    """One simulated world: a robot, its environment and free bodies; one step = free
    velocity, collision, contact problem, solve, integrate. A step whose state ends
    non-finite raises signorini.Error naming its time, the state before that step restored
    (Python never sees NaN). The GIL is released while stepping."""
    @staticmethod
    def from_config(path: StrPath) -> World: ...  # a signorini YAML config (robot, environment, sim, contact, collision)
    def __init__(
        self,
        model: Model,
        environment: Optional[Mapping] = None,  # the YAML `environment:` section as a dict (None: ground at z = 0)
        bodies: Sequence[Mapping] = (),  # the YAML `sim.bodies` entries as dicts
        dt: float = 1e-3,
        contact: Optional[Mapping] = None,  # the YAML `contact:` section as a dict
        q: Optional[F64] = None,  # (nq,) the initial configuration; None: neutral, a floating base lowered onto the ground
    ) -> None: ...  # bad keys/values raise signorini.Error naming the YAML key (`sim.bodies[0].mass`)
    @property
    def model(self) -> Model: ...
    @property
    def dt(self) -> float: ...
    @property
    def nu(self) -> int: ...  # controls: from_config, the configured joints (robot.joints); World(model), every dof but a floating base's
    @property
    def control_names(self) -> list[str]: ...  # (nu,) the joint of each control
    @property
    def time(self) -> float: ...
    def step(self, tau: Optional[F64] = None, nstep: int = 1) -> StepInfo: ...  # tau (nu,) held over nstep steps; None: the hold PD of sim.hold_kp/hold_kd (zeros for World(model, ...)), as Batch.step
    def reset(self) -> None: ...  # the initial state (time 0, warm start cleared): the steps after repeat the first run exactly
    def close(self) -> None: ...  # any later call raises ValueError("world: closed")
    q: F64  # (nq,) get / set (a copy; setting forgets the warm start)
    v: F64  # (nv,)
    def get_state(self) -> F64: ...  # (nstate,) = time, q, v, each free body's pose (7) and twist in its frame (linear, angular)
    def set_state(self, state: F64) -> None: ...  # the steps after are those of a new world set to `state` (bit for bit)
    @property
    def nstate(self) -> int: ...
    @property
    def body_names(self) -> list[str]: ...
    body_poses: F64  # (nbodies, 7) position, quaternion (x y z w)
    body_velocities: F64  # (nbodies, 6) linear (of the body's origin), angular (world)
    def contacts(self) -> Contacts: ...

# ---------------------------------------------------------------------------------------
# The controller (proximal inverse dynamics)

class Controller:
    """The controller (proximal inverse dynamics) of a signorini YAML configuration, as
    `signorini control` builds it (robot, environment, `collision:`, `contact:`,
    `control:`); a missing or bad file raises signorini.Error naming it."""
    @staticmethod
    def from_config(path: StrPath) -> Controller: ...
    @property
    def model(self) -> Model: ...
    @property
    def dt(self) -> float: ...  # the step of a tick: 1/rate_hz
    def tick(
        self, q: F64, v: F64, q_des: Optional[F64] = None, v_des: Optional[F64] = None, a_des: Optional[F64] = None
    ) -> tuple[F64, F64]:
        """(tau (nv,), predicted contact forces (n, 3) world, N) at the measured (q (nq,),
        v (nv,)) towards q_des (default: the posture reference at q: `control.posture`,
        else the initial posture, the floating base where q has it), v_des and a_des
        (default 0). A floating base's rows of tau are the wrench it still lacks. A tick
        the controller refuses (contact overflow, a predicted force beyond
        `control.max_contact_force`) raises signorini.Error with its one-line message.
        Each tick warm-starts the next."""
        ...
    def contact_points(self) -> F64: ...  # (n, 3) world, of the last tick, in the order of its forces

# ---------------------------------------------------------------------------------------
# Batched rollouts (every core, GIL released, deterministic whatever the thread count)

class Batch:
    """N worlds of one configuration (one shared Model; a world whose gravity or masses are
    changed gets its own copy), stepped on num_threads threads with the GIL released;
    bit-identical whatever num_threads. A world whose state turns non-finite is reset and
    flagged in `diverged`. A panic in a worker raises InternalError and closes the batch."""
    def __init__(self, world: Union[StrPath, World], num_worlds: int, num_threads: Optional[int] = None) -> None: ...
    # world: a configuration path, or a World (its N copies built as it was, from its configuration or
    # its model and sections, each at its initial state). num_threads None: every core.
    @property
    def num_worlds(self) -> int: ...
    @property
    def nq(self) -> int: ...
    @property
    def nv(self) -> int: ...
    @property
    def nu(self) -> int: ...  # the configuration's controlled joints
    @property
    def control_names(self) -> list[str]: ...
    @property
    def nstate(self) -> int: ...
    @property
    def dt(self) -> float: ...
    @property
    def max_contacts(self) -> int: ...  # collision.max_contacts
    num_threads: int
    # Live views of the batch state over memory the batch owns (valid as long as they are
    # held, even after close()); they show the state after each step. q and v are writable:
    # a world whose rows were written starts its next step from them (as set_state: quaternions
    # normalized, warm start forgotten). The others are read-only.
    q: F64  # (N, nq)
    v: F64  # (N, nv)
    time: F64  # (N,)
    contact_forces: F64  # (N, max_contacts, 3) world forces of the last step, rows past contact_counts zero
    contact_counts: NDArray[np.int64]  # (N,)
    diverged: NDArray[np.bool_]  # (N,) the world went non-finite and was reset (cleared by reset/set_state)
    def step(self, tau: Optional[F64] = None, nstep: int = 1) -> None: ...
    # tau (N, nu), held for the nstep steps; None: the configuration's hold PD (sim.hold_kp/kd
    # towards the initial posture, zero torque when 0), as the sim node without commands.
    def reset(self, worlds: Optional[Sequence[int]] = None) -> None: ...
    def set_friction(self, mu: F64) -> None: ...  # (N,) ≥ 0, every contact pair's Coulomb coefficient
    def set_gravity(self, gravity: F64) -> None: ...  # (N, 3) m/s², robot and free bodies
    def set_mass_scale(self, scale: F64) -> None: ...  # (N,) > 0 scales every body's mass and inertia
    def set_initial_state(self, state: F64) -> None: ...  # (N, nstate) where reset returns (time ignored)
    def get_state(self, out: Optional[F64] = None) -> F64: ...  # (N, nstate)
    def set_state(self, state: F64) -> None: ...
    def stats(self) -> dict[str, Union[int, float]]: ...
    # since construction / reset_stats(), all worlds: steps, unconverged, iterations, contacts,
    # divergences, max_criterion (the largest NCP criterion ε_abs of a step, N), above_1e-6 (steps
    # whose criterion exceeds 1e-6 N)
    def reset_stats(self) -> None: ...
    def close(self) -> None: ...  # any later call raises ValueError("batch: closed")

def rollout(
    world: Union[World, Batch, StrPath],  # a Batch of N (left at the final states), or a World / config path (N built)
    initial_state: F64,  # (N, nstate)
    control: F64,  # (N, T, nu)
    state: Optional[F64] = None,  # out (N, T, nstate)
    num_threads: Optional[int] = None,
) -> F64: ...  # (N, T, nstate): the state after each step, as mujoco.rollout
