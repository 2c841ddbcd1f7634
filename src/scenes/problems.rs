//! Contact problems with the data to interpret their solutions: stacks of free cubes with
//! their exact corner contacts, seed 000's wall, and the Pinocchio fixtures of
//! tests/fixtures/contact (scripts/gen_contact_fixtures.py). The contact tests, the
//! criterion bench `contact` and examples/contact_timing.rs solve them.

use crate::collision::{Contact, ContactId, Owner};
use crate::contact::{Assembly, Bodies, Build, ContactProblem, ProblemSettings};
use crate::model::{FreeBody, FreeBodyState, Model, ModelOptions};
use crate::spatial::{Force, Mat3, Motion, SE3, Vec3};

use super::{Ball, Cube, G0, SceneError, Sources};

/// A problem with the data to interpret its solution.
pub struct Problem {
    /// What it is.
    pub name: String,
    /// The problem.
    pub problem: ContactProblem,
    /// The time step it was assembled for (s).
    pub dt: f64,
    /// Contacts (for the bodies they join).
    pub contacts: Vec<Contact>,
    /// Masses of the free bodies.
    pub masses: Vec<f64>,
}

fn contact(body1: Owner, body2: Owner, point: Vec3, k: usize, mu: f64) -> Contact {
    Contact {
        object1: 0,
        object2: 0,
        body1,
        body2,
        point,
        frame: Mat3::identity(),
        distance: 0.0,
        friction: mu,
        restitution: 0.0,
        id: ContactId::new(k, 0, 0, 0),
    }
}

/// Cubes resting exactly on each other and on the ground (z = 0), axis-aligned: a contact
/// at every corner of every overlap rectangle between a cube's bottom face and the ground
/// or the top face of a cube below; plus a `ball` touching the top of the cube under it.
/// At rest (but the ball); one step of `dt` under gravity.
///
/// # Panics
///
/// On a non-positive mass or size, or a ball resting on no cube.
pub fn stack(name: &str, cubes: &[Cube], ball: Option<Ball>, mu: f64, dt: f64) -> Problem {
    let mut bodies = Vec::new();
    let mut states = Vec::new();
    for (k, c) in cubes.iter().enumerate() {
        bodies.push(FreeBody::cuboid(&format!("cube{k}"), c.mass, &Vec3::repeat(c.half)).expect("a valid cube"));
        states.push(FreeBodyState::at_rest(SE3::from_translation(c.centre)));
    }
    let mut contacts = Vec::new();
    for (k, c) in cubes.iter().enumerate() {
        let bottom = c.centre.z - c.half;
        let (lo, hi) = (c.centre.xy().add_scalar(-c.half), c.centre.xy().add_scalar(c.half));
        let mut rect = |other: Owner, lo: nalgebra::Vector2<f64>, hi: nalgebra::Vector2<f64>| {
            for (x, y) in [(lo.x, lo.y), (hi.x, lo.y), (hi.x, hi.y), (lo.x, hi.y)] {
                let n = contacts.len();
                contacts.push(contact(Owner::Free { body: k }, other, Vec3::new(x, y, bottom), n, mu));
            }
        };
        if bottom.abs() < 1e-12 {
            rect(Owner::Static, lo, hi);
        }
        for (j, d) in cubes.iter().enumerate() {
            if (d.centre.z + d.half - bottom).abs() < 1e-12 {
                let (dlo, dhi) = (d.centre.xy().add_scalar(-d.half), d.centre.xy().add_scalar(d.half));
                let (olo, ohi) = (lo.sup(&dlo), hi.inf(&dhi));
                if olo.x < ohi.x - 1e-12 && olo.y < ohi.y - 1e-12 {
                    rect(Owner::Free { body: j }, olo, ohi);
                }
            }
        }
    }
    let mut v = vec![0.0; 6 * (cubes.len() + usize::from(ball.is_some()))];
    if let Some(ball) = ball {
        let b = cubes.len();
        bodies.push(FreeBody::ball("ball", ball.mass, ball.radius).expect("a valid ball"));
        states.push(FreeBodyState {
            pose: SE3::from_translation(ball.centre),
            velocity: Motion::new(Vec3::new(0.0, 0.0, ball.speed), Vec3::zeros()),
        });
        v[6 * b + 2] = ball.speed;
        let top = ball.centre - Vec3::new(0.0, 0.0, ball.radius);
        let under = cubes
            .iter()
            .position(|c| (c.centre.z + c.half - top.z).abs() < 1e-12 && (c.centre.xy() - top.xy()).amax() < c.half)
            .expect("the ball rests on a cube");
        let n = contacts.len();
        contacts.push(contact(Owner::Free { body: b }, Owner::Free { body: under }, top, n, mu));
    }
    let gravity = Vec3::new(0.0, 0.0, -G0);
    let mut v_free = Vec::new();
    for (b, s) in bodies.iter().zip(&states) {
        v_free.extend(b.free_velocity(s, &gravity, &Force::ZERO, dt).to_vector().iter());
    }
    let system = Bodies::new(None, &bodies, &states);
    let mut problem = ContactProblem::with_capacity(contacts.len());
    let mut assembly = Assembly::with_capacity(contacts.len(), system.nv(), 0);
    assembly
        .assemble(&system, &contacts, &[], &v, &v_free, dt, &ProblemSettings::default(), &mut problem, Build::Delassus)
        .expect("free bodies assemble");
    Problem { name: name.to_owned(), problem, dt, contacts, masses: bodies.iter().map(|b| b.inertia.mass).collect() }
}

/// One cube of `mass` (side 0.1 m) on the ground: 4 contacts, G 12 × 12 of rank 6.
pub fn box_on_ground(mass: f64, mu: f64) -> Problem {
    stack("box on the ground", &[Cube { centre: Vec3::new(0.0, 0.0, 0.05), half: 0.05, mass }], None, mu, 1e-3)
}

/// A cube of `top` kg on a cube of `bottom` kg on the ground (seed 002 Fig. 13).
pub fn two_cubes(bottom: f64, top: f64, mu: f64) -> Problem {
    stack(&format!("{top:e} kg on {bottom:e} kg"), &super::cube_on_cube(bottom, top), None, mu, 1e-3)
}

/// The wall of seed 000 Fig. 1 ([`super::wall`]), the ball landing on it: 101 contacts,
/// μ = 0.5.
pub fn cube_wall() -> Problem {
    let (cubes, ball) = super::wall();
    stack("15-cube wall, 1 to 1e4 kg, 1e3 kg ball", &cubes, Some(ball), 0.5, 1e-3)
}

/// The fixtures of tests/fixtures/contact.
pub const FIXTURES: [&str; 4] = ["quadruped_standing", "solo12_standing", "solo12_sliding", "cube_stack_4"];

/// The Pinocchio fixture `name` (`tests/fixtures/contact/<name>.json` under the sources'
/// root) as parsed JSON.
pub fn fixture(sources: &Sources, name: &str) -> Result<serde_json::Value, SceneError> {
    let path = sources.root.join(format!("tests/fixtures/contact/{name}.json"));
    let text = std::fs::read_to_string(&path).map_err(|e| SceneError::new(name, format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| SceneError::new(name, format!("{}: {e}", path.display())))
}

fn field<T: serde::de::DeserializeOwned>(name: &str, value: &serde_json::Value) -> Result<T, SceneError> {
    serde_json::from_value(value.clone()).map_err(|e| SceneError::new(name, e))
}

/// The bundled quadruped (floating base) and the configuration of the fixture
/// `quadruped_standing`, its feet exactly on the ground: [`super::robots::QUADRUPED_POSTURE`]
/// at the fixture's height (tests/sim_robots.rs checks that they agree).
pub fn quadruped_standing(sources: &Sources) -> Result<(Model, Vec<f64>), SceneError> {
    let urdf = sources.root.join("urdf/quadruped.urdf");
    let options = ModelOptions { floating_base: true, ..Default::default() };
    let model = Model::from_urdf_file(&urdf, &options)
        .map_err(|e| SceneError::new("quadruped_standing", format!("{}: {e}", urdf.display())))?;
    let q = field("quadruped_standing", &fixture(sources, "quadruped_standing")?["robot"]["q"])?;
    Ok((model, q))
}

/// The fixture's problem (G, g, μ from Pinocchio).
pub fn fixture_scene(sources: &Sources, name: &str) -> Result<Problem, SceneError> {
    let f = fixture(sources, name)?;
    let rows: Vec<Vec<f64>> = field(name, &f["problem"]["G"])?;
    let g: Vec<f64> = field(name, &f["problem"]["g"])?;
    let mu: Vec<f64> = field(name, &f["problem"]["mu"])?;
    let dt = f["dt"].as_f64().ok_or_else(|| SceneError::new(name, "no dt"))?;
    let problem = ContactProblem::from_dense(&rows, &g, &mu, &[]).map_err(|e| SceneError::new(name, e))?;
    Ok(Problem { name: name.to_owned(), problem, dt, contacts: Vec::new(), masses: Vec::new() })
}

/// The problems the solver benchmarks time, with a file-name key: the fixtures, a box on
/// the ground, a ton on a gram and the 15-cube wall.
pub fn benchmark_problems(sources: &Sources) -> Result<Vec<(String, Problem)>, SceneError> {
    let mut out = Vec::new();
    for name in FIXTURES {
        out.push((name.to_owned(), fixture_scene(sources, name)?));
    }
    out.push(("box_on_ground".into(), box_on_ground(1.0, 0.5)));
    out.push(("ton_on_gram".into(), two_cubes(1e-3, 1e3, 0.5)));
    out.push(("cube_wall_15".into(), cube_wall()));
    Ok(out)
}
