//! Contact-problem scenes shared by the contact tests, benches/contact.rs and
//! examples/contact_timing.rs: stacks of free cubes (with their exact corner contacts),
//! the robots standing, and the Pinocchio fixtures of tests/fixtures/contact.
#![allow(dead_code)]

use signorini::collision::{Contact, ContactId, Owner};
use signorini::contact::{Assembly, Bodies, Build, ContactProblem, ProblemSettings};
use signorini::model::{FreeBody, FreeBodyState};
use signorini::spatial::{Force, Mat3, Motion, SE3, Vec3};

/// Gravity, m/s².
pub const G0: f64 = 9.81;

/// A problem with the data to interpret its solution.
pub struct Scene {
    pub name: String,
    pub problem: ContactProblem,
    pub dt: f64,
    /// Contacts (for the bodies they join).
    pub contacts: Vec<Contact>,
    /// Masses of the free bodies.
    pub masses: Vec<f64>,
}

/// A cube of the stack: centre, half side, mass.
#[derive(Copy, Clone, Debug)]
pub struct Cube {
    pub centre: Vec3,
    pub half: f64,
    pub mass: f64,
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
/// or the top face of a cube below; plus `extra` bodies (ball: centre, radius, mass, velocity
/// along z) touching the top of the cube under them. At rest; one step of `dt` under
/// gravity.
pub fn stack(name: &str, cubes: &[Cube], ball: Option<(Vec3, f64, f64, f64)>, mu: f64, dt: f64) -> Scene {
    let mut bodies = Vec::new();
    let mut states = Vec::new();
    for (k, c) in cubes.iter().enumerate() {
        bodies.push(FreeBody::cuboid(&format!("cube{k}"), c.mass, &Vec3::repeat(c.half)).unwrap());
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
    if let Some((centre, radius, mass, speed)) = ball {
        let b = cubes.len();
        bodies.push(FreeBody::ball("ball", mass, radius).unwrap());
        states.push(FreeBodyState {
            pose: SE3::from_translation(centre),
            velocity: Motion::new(Vec3::new(0.0, 0.0, speed), Vec3::zeros()),
        });
        v[6 * b + 2] = speed;
        let top = centre - Vec3::new(0.0, 0.0, radius);
        let under = cubes
            .iter()
            .position(|c| (c.centre.z + c.half - top.z).abs() < 1e-12 && (c.centre.xy() - top.xy()).amax() < c.half)
            .unwrap();
        let n = contacts.len();
        contacts.push(contact(Owner::Free { body: b }, Owner::Free { body: under }, top, n, mu));
    }
    let gravity = Vec3::new(0.0, 0.0, -G0);
    let mut v_free = Vec::new();
    for (b, s) in bodies.iter().zip(&states) {
        v_free.extend(b.free_velocity(s, &gravity, &Force::ZERO, dt).to_vector().iter());
    }
    let system = Bodies { robot: None, free: &bodies, free_states: &states };
    let mut problem = ContactProblem::with_capacity(contacts.len());
    let mut assembly = Assembly::with_capacity(contacts.len(), system.nv(), 0);
    assembly
        .assemble(&system, &contacts, &[], &v, &v_free, dt, &ProblemSettings::default(), &mut problem, Build::Delassus)
        .unwrap();
    Scene { name: name.to_owned(), problem, dt, contacts, masses: bodies.iter().map(|b| b.inertia.mass).collect() }
}

/// One cube of `mass` (side 0.1 m) on the ground: 4 contacts, G 12 × 12 of rank 6.
pub fn box_on_ground(mass: f64, mu: f64) -> Scene {
    stack("box on the ground", &[Cube { centre: Vec3::new(0.0, 0.0, 0.05), half: 0.05, mass }], None, mu, 1e-3)
}

/// A cube of `top` kg on a cube of `bottom` kg on the ground (seed 002 Fig. 13).
pub fn two_cubes(bottom: f64, top: f64, mu: f64) -> Scene {
    let cubes = [
        Cube { centre: Vec3::new(0.0, 0.0, 0.05), half: 0.05, mass: bottom },
        Cube { centre: Vec3::new(0.0, 0.0, 0.15), half: 0.05, mass: top },
    ];
    stack(&format!("{top:e} kg on {bottom:e} kg"), &cubes, None, mu, 1e-3)
}

/// The wall of seed 000 Fig. 1: 15 cubes (side 0.1 m) in rows of 5, 4, 3, 2, 1, each
/// brick straddling two below; 1 kg on the bottom row up to 10⁴ kg on the top one, a
/// 10³ kg ball (radius 0.1 m) landing on the top at 1 m/s. 101 contacts, μ = 0.5.
pub fn cube_wall() -> Scene {
    let mut cubes = Vec::new();
    for row in 0..5i32 {
        for j in 0..5 - row {
            let x = 0.1 * (j as f64 + 0.5 * row as f64);
            cubes.push(Cube { centre: Vec3::new(x, 0.0, 0.05 + 0.1 * row as f64), half: 0.05, mass: 10f64.powi(row) });
        }
    }
    let ball = (Vec3::new(0.2, 0.0, 0.6), 0.1, 1e3, -1.0);
    stack("15-cube wall, 1 to 1e4 kg, 1e3 kg ball", &cubes, Some(ball), 0.5, 1e-3)
}

/// A problem given as G, g, μ (rows of G, 3 per contact).
pub fn dense(name: &str, g_rows: &[Vec<f64>], g: &[f64], mu: &[f64], dt: f64) -> Scene {
    Scene {
        name: name.to_owned(),
        problem: ContactProblem::from_dense(g_rows, g, mu, &[]).unwrap(),
        dt,
        contacts: Vec::new(),
        masses: Vec::new(),
    }
}

/// The Pinocchio fixture `name` (tests/fixtures/contact/<name>.json) as parsed JSON.
pub fn fixture(name: &str) -> serde_json::Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/contact/{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The bundled quadruped (floating base) and the fixture's standing configuration, its
/// feet exactly on the ground.
pub fn quadruped_standing() -> (signorini::model::Model, Vec<f64>) {
    let urdf = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("urdf/quadruped.urdf");
    let options = signorini::model::ModelOptions { floating_base: true, ..Default::default() };
    let model = signorini::model::Model::from_urdf_file(&urdf, &options).unwrap();
    let q = serde_json::from_value(fixture("quadruped_standing")["robot"]["q"].clone()).unwrap();
    (model, q)
}

/// The fixture's problem (G, g, μ from Pinocchio).
pub fn fixture_scene(name: &str) -> Scene {
    let f = fixture(name);
    let rows: Vec<Vec<f64>> = serde_json::from_value(f["problem"]["G"].clone()).unwrap();
    let g: Vec<f64> = serde_json::from_value(f["problem"]["g"].clone()).unwrap();
    let mu: Vec<f64> = serde_json::from_value(f["problem"]["mu"].clone()).unwrap();
    dense(name, &rows, &g, &mu, f["dt"].as_f64().unwrap())
}

/// The fixtures of tests/fixtures/contact.
pub const FIXTURES: [&str; 4] = ["quadruped_standing", "solo12_standing", "solo12_sliding", "cube_stack_4"];

/// The problems the solver benchmarks time, with a file-name key: the fixtures, a box on
/// the ground, a ton on a gram and the 15-cube wall.
pub fn benchmark_problems() -> Vec<(String, Scene)> {
    let mut out: Vec<(String, Scene)> = FIXTURES.iter().map(|&n| (n.to_owned(), fixture_scene(n))).collect();
    out.push(("box_on_ground".into(), box_on_ground(1.0, 0.5)));
    out.push(("ton_on_gram".into(), two_cubes(1e-3, 1e3, 0.5)));
    out.push(("cube_wall_15".into(), cube_wall()));
    out
}
