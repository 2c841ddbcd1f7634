//! Every example-robot-data URDF that Pinocchio loads loads here too, with the same
//! dimensions, joint order, frames and collision geometry count (inventory written by
//! scripts/gen_erd_inventory.py). Mimic joints are loaded as independent joints, as
//! Pinocchio does by default; `package://` mesh paths are resolved against the package's
//! `share` directory and must exist.

mod common;

use serde::Deserialize;
use signorini::app::{check_mass_matrix, mass_matrix_condition};
use signorini::collision::{CollisionWorld, Owner};
use signorini::dynamics;
use signorini::model::{Data, MimicPolicy, Model, ModelError, ModelOptions, Shape};

use common::{erd_share, repo};

#[derive(Deserialize)]
struct Inventory {
    urdfs: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    urdf: String,
    nq: Option<usize>,
    nv: Option<usize>,
    njoints: Option<usize>,
    nframes: Option<usize>,
    joint_names: Option<Vec<String>>,
    ngeoms: Option<usize>,
    pinocchio_error: Option<String>,
    /// Movable joints whose body Pinocchio builds with a mass or principal moment below
    /// MuJoCo's mjMINVAL (the generator's own computation).
    #[serde(default)]
    invalid_inertia: Vec<String>,
}

#[test]
fn every_urdf_pinocchio_loads_loads_here_with_the_same_counts() {
    let text = std::fs::read_to_string(repo("tests/fixtures/erd_inventory.json")).unwrap();
    let inventory: Inventory = serde_json::from_str(&text).unwrap();
    let share = erd_share();
    let options =
        ModelOptions { mimic: MimicPolicy::Independent, package_dirs: vec![share.clone()], ..Default::default() };
    let lenient = ModelOptions { allow_invalid_inertia: true, ..options.clone() };
    let (mut loaded, mut meshes) = (0, 0);
    let mut needed_lenience = Vec::new();
    let mut worst_condition = (0.0f64, String::new());
    println!("{:<80} {:>4} {:>4} {:>7} {:>7} {:>6}", "urdf", "nq", "nv", "joints", "frames", "geoms");
    for e in &inventory.urdfs {
        let path = share.join(&e.urdf);
        if let Some(err) = &e.pinocchio_error {
            let ours =
                Model::from_urdf_file(&path, &options).map(|_| "loads".to_owned()).unwrap_or_else(|e| e.to_string());
            println!("{:<80} Pinocchio: {err}; signorini: {ours}", e.urdf);
            continue;
        }
        let m = match Model::from_urdf_file(&path, &options) {
            Ok(m) => {
                assert!(
                    e.invalid_inertia.is_empty(),
                    "{}: accepted, but {:?} break the rule",
                    e.urdf,
                    e.invalid_inertia
                );
                m
            }
            // Refused by default, exactly where Pinocchio's inertias break the rule; loaded on
            // request: counted and listed below.
            Err(err @ ModelError::BadBodyInertia { .. }) => {
                let ModelError::BadBodyInertia { joint, .. } = &err else { unreachable!() };
                assert_eq!(Some(joint), e.invalid_inertia.first(), "{}: {err}", e.urdf);
                needed_lenience.push(format!("{} (joint {joint})", e.urdf));
                Model::from_urdf_file(&path, &lenient).unwrap_or_else(|err| panic!("{}: {err}", e.urdf))
            }
            Err(err) => panic!("{}: {err}", e.urdf),
        };
        assert_eq!(Some(m.nq), e.nq, "{}: nq", e.urdf);
        assert_eq!(Some(m.nv), e.nv, "{}: nv", e.urdf);
        assert_eq!(Some(m.njoints()), e.njoints, "{}: joints", e.urdf);
        assert_eq!(Some(m.nframes()), e.nframes, "{}: frames", e.urdf);
        assert_eq!(Some(&m.joint_names), e.joint_names.as_ref(), "{}: joint order", e.urdf);
        assert_eq!(Some(m.collision_geometries.len()), e.ngeoms, "{}: collision geometries", e.urdf);
        for g in &m.collision_geometries {
            if let Shape::Mesh { file, .. } = &g.shape {
                assert!(file.is_file(), "{}: {}", e.urdf, file.display());
                meshes += 1;
            }
        }
        // Bodies that pass the inertia rule make a well-conditioned M (start-up's check).
        if e.invalid_inertia.is_empty() {
            let (condition, _) = mass_matrix_condition(&m, m.neutral_configuration().as_slice());
            if condition > worst_condition.0 {
                worst_condition = (condition, e.urdf.clone());
            }
        }
        // Every collision mesh loads (STL, OBJ, COLLADA) and makes a convex hull.
        let world = CollisionWorld::new(&m, &Default::default(), &Default::default())
            .unwrap_or_else(|err| panic!("{}: {err}", e.urdf));
        let robot_shapes = world.objects().iter().filter(|o| matches!(o.owner, Owner::Robot { .. })).count();
        assert_eq!(Some(robot_shapes), e.ngeoms, "{}: collision world", e.urdf);
        println!(
            "{:<80} {:>4} {:>4} {:>7} {:>7} {:>6}",
            e.urdf,
            m.nq,
            m.nv,
            m.njoints(),
            m.nframes(),
            m.collision_geometries.len()
        );
        loaded += 1;
    }
    let loadable = inventory.urdfs.iter().filter(|e| e.pinocchio_error.is_none()).count();
    println!(
        "{loaded} of {loadable} Pinocchio-loadable URDFs load with equal counts; {meshes} collision meshes resolved"
    );
    println!("needed allow_invalid_inertia (a moving body without a positive mass and inertia): {needed_lenience:?}");
    assert_eq!(loaded, loadable);
    println!("largest mass matrix condition number at the neutral configuration: {worst_condition:?}");
    // Within 10x of README's figure (8e6, pr2), far below start-up's bound (1e12).
    assert!(worst_condition.0 <= 5e7, "{worst_condition:?}");
    let expected = inventory.urdfs.iter().filter(|e| !e.invalid_inertia.is_empty()).count();
    assert_eq!(needed_lenience.len(), expected, "{needed_lenience:?}");
    assert!(loadable >= 68, "the inventory lists every URDF of the package");
}

#[test]
fn mimic_joints_are_refused_by_default_with_the_way_out() {
    let path = erd_share().join("example-robot-data/robots/panda_description/urdf/panda.urdf");
    let e = Model::from_urdf_file(&path, &ModelOptions { package_dirs: vec![erd_share()], ..Default::default() })
        .unwrap_err()
        .to_string();
    assert!(e.contains("joint `panda_finger_joint2` mimics `panda_finger_joint1`"), "{e}");
    assert!(e.contains("independent"), "{e}");
}

/// With `allow_invalid_inertia`, every example-robot-data robot whose moving bodies break
/// the rule (massless links, point masses) either has a positive definite mass matrix at
/// its neutral configuration — and then CRBA, the LTDL solve of M·a = τ − g and ABA are
/// finite there and at 20 configurations around it (joints moved up to ±1.5 rad), and
/// agree — or is refused at start-up with a one-line error naming the joint
/// ([`check_mass_matrix`]), never a division by zero in the loop.
#[test]
fn lenient_robots_have_finite_dynamics_or_a_clear_refusal() {
    let text = std::fs::read_to_string(repo("tests/fixtures/erd_inventory.json")).unwrap();
    let inventory: Inventory = serde_json::from_str(&text).unwrap();
    let share = erd_share();
    let lenient = ModelOptions {
        mimic: MimicPolicy::Independent,
        package_dirs: vec![share.clone()],
        allow_invalid_inertia: true,
        skip_meshes: true,
        ..Default::default()
    };
    let (mut finite, mut refused) = (Vec::new(), Vec::new());
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut uniform = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    for e in inventory.urdfs.iter().filter(|e| !e.invalid_inertia.is_empty()) {
        let m = Model::from_urdf_file(&share.join(&e.urdf), &lenient).unwrap();
        let q0 = m.neutral_configuration().as_slice().to_vec();
        if let Err(err) = check_mass_matrix(&m, &q0) {
            let message = err.to_string();
            assert!(!message.contains('\n') && message.contains(&format!("joint `{}`", err.joint)), "{message}");
            assert!(err.condition > signorini::app::MAX_MASS_MATRIX_CONDITION, "{}: {err:?}", e.urdf);
            refused.push(format!("{} ({}, κ = {:e})", e.urdf, err.joint, err.condition));
            continue;
        }
        let mut data = Data::new(&m);
        let mut q = q0.clone();
        for k in 0..21 {
            if k > 0 {
                let v: Vec<f64> = (0..m.nv).map(|_| 3.0 * uniform() - 1.5).collect();
                dynamics::integrate(&m, &q0, &v, &mut q);
            }
            let zero = vec![0.0; m.nv];
            let g = dynamics::rnea(&m, &mut data, &q, &zero, &zero).clone();
            let tau: Vec<f64> = (0..m.nv).map(|_| uniform() - 0.5).collect();
            let aba = dynamics::aba(&m, &mut data, &q, &zero, &tau).clone();
            dynamics::crba(&m, &mut data, &q);
            dynamics::ltdl_decompose(&m, &mut data);
            let mut a: Vec<f64> = tau.iter().zip(g.iter()).map(|(t, g)| t - g).collect();
            dynamics::ltdl_solve(&m, &data, &mut a);
            let mut all = a.iter().chain(aba.iter()).chain(data.mass_matrix.iter());
            assert!(all.all(|x| x.is_finite()), "{}: configuration {k}", e.urdf);
            let scale = aba.iter().fold(1.0f64, |s, x| s.max(x.abs()));
            let gap = a.iter().zip(aba.iter()).fold(0.0f64, |s, (x, y)| s.max((x - y).abs()));
            assert!(gap <= 1e-6 * scale, "{}: configuration {k}: ABA and the LTDL solve differ by {gap}", e.urdf);
        }
        finite.push(e.urdf.clone());
    }
    println!("finite dynamics: {finite:?}\nrefused at start-up: {refused:?}");
    assert_eq!(finite.len() + refused.len(), inventory.urdfs.iter().filter(|e| !e.invalid_inertia.is_empty()).count());
    assert!(!refused.is_empty(), "romeo's massless fingers make M singular: the check must refuse it");
}
