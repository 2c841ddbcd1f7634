//! Spawning free bodies while the quadruped is simulated at 1 kHz (issue 25): 20 boxes,
//! one per simulated second, dropped over five spots so that they stack four high; each
//! ends at rest at its analytic stacking height; deleting them all returns the contact
//! count to the one before the first spawn. What the spawning ticks cost is measured by
//! `examples/spawn_timing.rs` on the same scenario (`scenario.rs`), not asserted here;
//! that they allocate nothing on the loop thread is `tests/loop_allocations.rs`'s.

mod scenario;

use scenario::{BOXES, Run, SECOND, SIDE, SPOTS, box_name, cube_at, quadruped};
use signorini::app::ResetScope;
use signorini::app::spawning::prepare;

#[test]
fn twenty_boxes_spawned_while_running_stack_at_rest_and_deleting_them_restores_the_contacts() {
    let mut run = Run::new(&quadruped(BOXES));
    // The robot settles on its feet for a second.
    run.ticks(SECOND, drop);
    let initial_contacts = run.contacts();
    let first = run.job.world().spawn_slots.first;

    run.spawn_the_boxes(|_, _| {});
    // Two more seconds to come to rest.
    run.ticks(2 * SECOND, drop);

    // Each box at rest on the ground or on the box below it: its centre at
    // (level + 1/2)·side, over its spot, level; slower than 1 cm/s.
    let world = run.job.world();
    for b in 0..BOXES {
        let slot = run.spawns.slot_of(&box_name(b)).expect("spawned");
        let s = &world.states[first + slot];
        let (x, y) = SPOTS[b % SPOTS.len()];
        let level = (b / SPOTS.len()) as f64;
        let p = s.pose.translation;
        let want = SIDE * (level + 0.5);
        assert!((p.z - want).abs() < 2e-3, "box {b}: z = {} m, stacked {want} m", p.z);
        assert!((p.x - x).hypot(p.y - y) < 0.02, "box {b}: at ({}, {}), dropped over ({x}, {y})", p.x, p.y);
        assert!(s.pose.rotation[(2, 2)] > 0.999, "box {b}: upright");
        let speed = s.velocity.linear.norm() + s.velocity.angular.norm() * SIDE;
        assert!(speed < 1e-2, "box {b}: at rest, {speed} m/s");
    }
    // Each box rests on one face: four corner contacts under it.
    assert_eq!(run.contacts(), initial_contacts + 4 * BOXES as u64, "4 contacts per box");

    // Deleting them all: the contacts of before.
    for b in 0..BOXES {
        run.spawns.delete(&box_name(b)).unwrap();
    }
    assert!(run.spawns.names().is_empty());
    run.tick();
    let all_empty = run.job.world().spawn_slots.occupant.iter().all(Option::is_none);
    assert!(all_empty, "every slot emptied at the next tick");
    run.tick();
    assert_eq!(run.contacts(), initial_contacts, "back to the contacts before the first spawn");
}

/// A reset of SCOPE_STATE puts a spawned body back at rest where it was spawned (not
/// where the world started); SCOPE_SPAWNED, through the table, removes it.
#[test]
fn a_state_reset_puts_a_spawned_body_back_at_its_spawn_pose_and_spawned_removes_it() {
    let mut run = Run::new(&quadruped(2));
    let requests = run.job.requests();
    let (name, _) = run.spawns.spawn(prepare(&cube_at("", 1.6, 0.0, 1.0)).unwrap()).unwrap();
    assert_eq!(name, "cube", "the URDF's name");
    run.ticks(300, drop);
    let b = run.job.world().spawn_slots.first + run.spawns.slot_of("cube").unwrap();
    assert!(run.job.world().states[b].pose.translation.z < 0.6, "it fell");
    requests.reset(ResetScope::STATE);
    run.tick();
    // The reset, then one step from rest: 1 ms of free fall.
    let z = run.job.world().states[b].pose.translation.z;
    assert!((z - (1.0 - 9.81e-6)).abs() < 1e-9, "back at 1 m: {z}");
    let before = run.contacts();
    assert!(run.spawns.delete_all().unwrap().is_some());
    run.tick();
    assert_eq!(run.job.world().spawn_slots.occupant, [None, None]);
    assert_eq!(run.contacts(), before, "in the air: no contact lost");
}
