//! Every example-robot-data URDF that Pinocchio loads loads here too, with the same
//! dimensions, joint order, frames and collision geometry count (inventory written by
//! scripts/gen_erd_inventory.py). Mimic joints are loaded as independent joints, as
//! Pinocchio does by default; `package://` mesh paths are resolved against the package's
//! `share` directory and must exist.

mod common;

use serde::Deserialize;
use signorini::collision::{CollisionWorld, Owner};
use signorini::model::{MimicPolicy, Model, ModelError, ModelOptions, Shape};

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
            Ok(m) => m,
            // Refused by default, loaded on request: counted and listed below.
            Err(ModelError::BadBodyInertia { joint, .. }) => {
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
    println!("needed allow_invalid_inertia (a moving body with an indefinite inertia): {needed_lenience:?}");
    assert_eq!(loaded, loadable);
    assert!(needed_lenience.len() <= 2, "{needed_lenience:?}");
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
