//! The simulator on the analytic scenarios of the design notes (seeds-000-002.md §4):
//! AT-04 (sliding point mass), a rolling ball, AT-06 (cube dragged by a ramp force), AT-07
//! (cube on an incline), AT-09 (a ton on a gram), AT-16 (restitution), AT-19 (Δt
//! self-consistency), and the CCP's lift-off artifact, which proves the model switch
//! reaches the simulator; then no rigid penetration where the contacts chosen at a step's
//! start do not hold its end (`contact.regenerate`): a cube thrown faster than the margin
//! per step, a hull rocking onto its bulging sole.

mod counting;

use signorini::collision::CollisionShape;
use signorini::config::ContactConfig;
use signorini::model::{FreeBody, FreeBodyState};
use signorini::scenes::G0;
use signorini::scenes::worlds::{bulging_sole, cube, ground, heavy_on_light, incline, shape, total_impulse, velocity};
use signorini::sim::{Stepper, World};
use signorini::spatial::{Force, Inertia, Mat3, Motion, SE3, Vec3};

const DT: f64 = 1e-3;

fn contact_config(yaml: &str) -> ContactConfig {
    serde_yaml_ng::from_str(yaml).unwrap()
}

/// A sphere of radius r whose rotational inertia is so large it cannot spin: a point mass
/// with a round contact.
fn point_mass_ball(world: &mut World, r: f64, centre: Vec3, v: Vec3) -> usize {
    let inertia = Inertia::new(1.0, Vec3::zeros(), Mat3::identity() * 1e12);
    let state = FreeBodyState { pose: SE3::from_translation(centre), velocity: Motion::new(v, Vec3::zeros()) };
    world.add_body(FreeBody::new("ball", inertia).unwrap(), &[shape("ball", CollisionShape::sphere(r))], state)
}

#[test]
fn at04_a_sliding_point_mass_keeps_its_heading_and_stops_at_the_analytic_time() {
    let (mu, u) = (0.5, 1.0);
    for phi in [0.0f64, 30.0, 137.0] {
        let heading = Vec3::new(phi.to_radians().cos(), phi.to_radians().sin(), 0.0);
        let mut world = ground(Vec3::z(), mu, 0.0);
        let b = point_mass_ball(&mut world, 0.1, Vec3::new(0.0, 0.0, 0.1), heading * u);
        let mut stepper = Stepper::new(&world, DT, &contact_config("tolerance: 1e-12").settings(), 16);
        let mut stopped_at = None;
        for k in 1..=300 {
            let before = velocity(&world, b);
            let report = *stepper.step(&mut world, &[]);
            assert_eq!(report.contacts, 1, "φ = {phi}°, step {k}");
            let v = velocity(&world, b);
            assert!((world.states[b].pose.translation.z - 0.1).abs() < 1e-9, "no lift-off");
            if stopped_at.is_none() {
                if before.norm() > mu * G0 * DT {
                    // Sliding: the speed drops by μ g Δt exactly, along the same heading.
                    assert!((before.norm() - v.norm() - mu * G0 * DT).abs() < 1e-9, "step {k}");
                    assert!((v.normalize() - heading).norm() < 1e-9, "heading at step {k}");
                } else {
                    assert!(v.norm() < 1e-9, "sticks once slower than μ g Δt: {v:?}");
                    stopped_at = Some(k as f64 * DT);
                }
            } else {
                assert!(v.norm() < 1e-9, "stays stopped");
            }
            assert!(report.metrics.eps_abs < 1e-6, "{:?}", report.metrics);
        }
        let t = stopped_at.expect("it stops");
        assert!((t - u / (mu * G0)).abs() <= DT, "stopped at {t} s, analytic 0.2039 s");
    }
}

#[test]
fn a_solid_ball_slides_then_rolls_at_five_sevenths_of_its_speed() {
    // Slip ends at t = 2u/(7μg), then v = 5u/7 with ω r = v (no rolling resistance).
    let (mu, u, r) = (0.5, 1.0, 0.1);
    let mut world = ground(Vec3::z(), mu, 0.0);
    let state = FreeBodyState {
        pose: SE3::from_translation(Vec3::new(0.0, 0.0, r)),
        velocity: Motion::new(Vec3::new(u, 0.0, 0.0), Vec3::zeros()),
    };
    let b = world.add_body(FreeBody::ball("ball", 1.0, r).unwrap(), &[shape("ball", CollisionShape::sphere(r))], state);
    let mut stepper = Stepper::new(&world, DT, &contact_config("tolerance: 1e-12").settings(), 16);
    for _ in 0..200 {
        stepper.step(&mut world, &[]);
    }
    let v = velocity(&world, b);
    let omega = world.states[b].pose.rotation * world.states[b].velocity.angular;
    assert!((v.x - 5.0 * u / 7.0).abs() < mu * G0 * DT, "rolling speed {}", v.x);
    // Rolling contact at rest to O((ωΔt)²): the free flyer's body-frame velocity, solved
    // in the frame of step k, is read in the frame of step k + 1 (rotated by ωΔt).
    assert!((omega.y * r - v.x).abs() < (omega.y * DT).powi(2), "rolls: ω r = {}, v = {}", omega.y * r, v.x);
    assert!(v.y.abs() < 1e-12 && omega.x.abs() < 1e-9 && omega.z.abs() < 1e-9);
}

#[test]
fn at06_a_cube_dragged_by_a_ramp_force_slips_at_the_analytic_time_without_internal_forces() {
    let (mu, m, half) = (0.4, 1.0, 0.1);
    let t_slip = mu * m * G0 / 20.0;
    let mut world = ground(Vec3::z(), mu, 0.0);
    let b = cube(&mut world, "cube", m, half, SE3::from_translation(Vec3::new(0.0, 0.0, half)));
    let mut stepper = Stepper::new(&world, DT, &contact_config("tolerance: 1e-10").settings(), 16);
    let mut slip = None;
    for k in 0..1000 {
        let force = 20.0 * world.time;
        world.wrenches[b] = Force { linear: Vec3::new(force, 0.0, 0.0), angular: Vec3::zeros() };
        let report = *stepper.step(&mut world, &[]);
        assert_eq!(report.contacts, 4, "step {k}");
        // Friction in the world frame: no y-component (no internal forces), x sums to −F
        // while sticking and to −μ m g once sliding.
        let mut total = Vec3::zeros();
        for (i, c) in stepper.contacts().contacts().iter().enumerate() {
            let l = &stepper.impulses()[3 * i..3 * i + 3];
            let f = c.frame * Vec3::new(l[0], l[1], l[2]) / DT;
            assert!(f.y.abs() < 1e-6 * f.norm().max(1.0), "internal y-force {f:?} at step {k}");
            total += f;
        }
        let v = velocity(&world, b);
        if slip.is_none() && v.x > 1e-6 {
            slip = Some(world.time);
        }
        if slip.is_none() {
            assert!((total.x + force).abs() < 1e-6, "sticking: friction {} vs F {force}", total.x);
        } else if world.time > t_slip + 2.0 * DT {
            assert!((total.x + mu * m * G0).abs() < 1e-6, "sliding: friction {} at step {k}", total.x);
        }
        assert!((total.z - m * G0).abs() < 1e-6, "weight carried: {}", total.z);
    }
    let slip = slip.expect("it slips");
    assert!((slip - t_slip).abs() <= 2.0 * DT, "slip at {slip} s, analytic {t_slip} s");
    let v = velocity(&world, b);
    // v(1) = 10 (1 − t_s)² = 6.461 m/s, to O(Δt).
    assert!((v.x - 10.0 * (1.0 - t_slip).powi(2)).abs() < 0.05, "v(1 s) = {}", v.x);
    assert!(v.y.abs() < 1e-9 && world.states[b].pose.translation.y.abs() < 1e-9);
}

#[test]
fn at07_a_cube_on_an_incline_sticks_iff_mu_exceeds_tan_theta_and_slides_with_the_analytic_acceleration() {
    // Sticks: θ = 30°, μ = 0.7 > tan 30°; 2 s without drift, friction m g sin θ Δt per step.
    let (mut world, b, _) = incline(30.0, 0.7);
    let start = world.states[b].pose.translation;
    let mut stepper = Stepper::new(&world, DT, &contact_config("tolerance: 1e-12").settings(), 16);
    for _ in 0..2000 {
        let report = *stepper.step(&mut world, &[]);
        assert_eq!(report.contacts, 4);
        let total = total_impulse(&stepper);
        let n = Vec3::new(30f64.to_radians().sin(), 0.0, 30f64.to_radians().cos());
        let friction = (total - n * total.dot(&n)).norm();
        assert!((friction - G0 * 30f64.to_radians().sin() * DT).abs() < 1e-9, "friction impulse {friction}");
    }
    let drift = (world.states[b].pose.translation - start).norm();
    assert!(drift < 1e-9, "drift {drift} m over 2 s");

    // Slides: a = g (sin θ − μ cos θ), Δv = a Δt every step from rest, contact kept.
    for (theta, mu, a) in [(30.0f64, 0.3, 2.3563), (20.0, 0.2, 1.5115)] {
        let (mut world, b, downhill) = incline(theta, mu);
        let exact = G0 * (theta.to_radians().sin() - mu * theta.to_radians().cos());
        assert!((exact - a).abs() < 1e-4, "the digest's figure");
        let mut stepper = Stepper::new(&world, DT, &contact_config("tolerance: 1e-12").settings(), 16);
        for k in 1..=500 {
            let report = *stepper.step(&mut world, &[]);
            assert_eq!(report.contacts, 4, "contact kept at step {k}");
            let v = velocity(&world, b);
            assert!((v.dot(&downhill) - k as f64 * exact * DT).abs() < 1e-9 * k as f64, "θ {theta}: step {k}");
            assert!((v - downhill * v.dot(&downhill)).norm() < 1e-9, "moves straight downhill");
        }
    }
}

#[test]
fn at09_a_ton_on_a_gram_does_not_sink() {
    let (mut world, heavy) = heavy_on_light();
    let mut stepper = Stepper::new(&world, DT, &contact_config("{}").settings(), 32);
    let mut deepest = 0.0f64;
    for k in 0..1000 {
        let report = *stepper.step(&mut world, &[]);
        assert_eq!(report.contacts, 8, "step {k}");
        assert!(report.converged, "ADMM reaches 1e-6 at step {k}: {report:?}");
        deepest = deepest.max(report.max_penetration);
    }
    let sink = 0.15 - world.states[heavy].pose.translation.z;
    assert!(deepest < 1e-6 && sink.abs() < 1e-6, "penetration {deepest} m, heavy box moved down {sink} m");
}

#[test]
fn at16_restitution_zero_stops_dead_and_one_half_returns_half_the_impact_speed() {
    let impact = (2.0 * G0 * 1.0f64).sqrt(); // 4.429 m/s after a 1 m fall
    for e in [0.0, 0.5] {
        let mut world = ground(Vec3::z(), 0.5, e);
        let b = point_mass_ball(&mut world, 0.1, Vec3::new(0.0, 0.0, 1.1), Vec3::zeros());
        let mut stepper = Stepper::new(&world, DT, &contact_config("tolerance: 1e-10").settings(), 16);
        let (mut landing, mut fastest_up, mut lowest) = (None, f64::NEG_INFINITY, f64::INFINITY);
        for _ in 0..700 {
            let before = velocity(&world, b).z;
            stepper.step(&mut world, &[]);
            let after = velocity(&world, b).z;
            lowest = lowest.min(world.states[b].pose.translation.z);
            if landing.is_none() && after > before + 1.0 {
                landing = Some(before);
            }
            if landing.is_some() {
                fastest_up = fastest_up.max(after);
            }
        }
        let landing = landing.expect("it lands");
        assert!((landing + impact).abs() < 2.0 * G0 * DT, "impact speed {landing}");
        // The contact step lands the ball exactly on the plane (the gap bias −φ/Δt), so
        // the rebound is the fastest upward speed from then on.
        assert!((fastest_up - e * impact).abs() < 2.0 * G0 * DT, "e = {e}: rebound {fastest_up} m/s");
        assert!(lowest > 0.1 - 1e-9, "no penetration: centre down to {lowest}");
        if e == 0.0 {
            assert!(fastest_up < 1e-6, "no bounce");
            assert!((world.states[b].pose.translation.z - 0.1).abs() < 1e-9, "rests on the plane");
        }
    }
}

#[test]
fn the_ccp_lifts_a_sliding_point_mass_off_the_ground() {
    // The documented artifact (seed 002 eqs. 16–19): under the CCP a sliding contact
    // separates at μ‖c_T‖; the NCP keeps it on the plane (AT-04 above).
    let mut world = ground(Vec3::z(), 0.5, 0.0);
    let b = point_mass_ball(&mut world, 0.1, Vec3::new(0.0, 0.0, 0.1), Vec3::new(1.0, 0.0, 0.0));
    let mut stepper = Stepper::new(&world, DT, &contact_config("{model: ccp, tolerance: 1e-12}").settings(), 16);
    let mut highest = 0.0f64;
    for _ in 0..100 {
        stepper.step(&mut world, &[]);
        highest = highest.max(world.states[b].pose.translation.z - 0.1);
    }
    assert!(highest > 1e-4, "the CCP ball rose only {highest} m");
}

/// AT-06's cube dragged for 1 s at time step `dt`: positions x(t) sampled every 4 ms, and
/// the highest the cube rode above the plane.
fn dragged_cube(dt: f64, model: &str) -> (Vec<f64>, f64) {
    let mut world = ground(Vec3::z(), 0.4, 0.0);
    let b = cube(&mut world, "cube", 1.0, 0.1, SE3::from_translation(Vec3::new(0.0, 0.0, 0.1)));
    let mut stepper =
        Stepper::new(&world, dt, &contact_config(&format!("{{model: {model}, tolerance: 1e-10}}")).settings(), 16);
    let steps = (1.0 / dt).round() as usize;
    let every = (4e-3 / dt).round() as usize;
    let (mut xs, mut ride) = (Vec::new(), 0.0f64);
    for k in 1..=steps {
        world.wrenches[b] = Force { linear: Vec3::new(20.0 * world.time, 0.0, 0.0), angular: Vec3::zeros() };
        stepper.step(&mut world, &[]);
        let p = world.states[b].pose.translation;
        ride = ride.max(p.z - 0.1);
        if k % every == 0 {
            xs.push(p.x);
        }
    }
    (xs, ride)
}

#[test]
fn at19_the_ncp_trajectory_is_self_consistent_in_dt_and_the_ccp_rides_at_a_height_proportional_to_it() {
    let (reference, _) = dragged_cube(1e-5, "ncp");
    let error = |xs: &[f64]| {
        assert_eq!(xs.len(), reference.len(), "the same sample times as the reference");
        xs.iter().zip(&reference).map(|(a, b)| (a - b).abs() * 4e-3).sum::<f64>()
    };
    let ncp: Vec<f64> = [4e-3, 2e-3, 1e-3, 1e-4].iter().map(|&dt| error(&dragged_cube(dt, "ncp").0)).collect();
    assert!(ncp.windows(2).all(|w| w[1] < w[0]), "Σ|x − x_ref|Δt shrinks with Δt: {ncp:?}");
    assert!(ncp[2] < 1e-5, "Δt = 1 ms: {} m·s", ncp[2]);
    let (_, ride_2) = dragged_cube(2e-3, "ccp");
    let (_, ride_1) = dragged_cube(1e-3, "ccp");
    let (_, ride_ncp) = dragged_cube(1e-3, "ncp");
    println!("Σ|x − x_ref|Δt at Δt = 4, 2, 1, 0.1 ms: {ncp:?}; CCP ride at 2 / 1 ms: {ride_2} / {ride_1} m");
    assert!(ride_ncp < 1e-9, "the NCP cube stays on the plane: {ride_ncp}");
    assert!(ride_1 > 1e-4 && (ride_2 / ride_1 - 2.0).abs() < 0.3, "CCP ride heights {ride_2} / {ride_1}");
}

/// The lowest z of a free body's corners or hull vertices `points` (body frame).
fn lowest_of(world: &World, b: usize, points: &[Vec3]) -> f64 {
    points.iter().map(|p| world.states[b].pose.act_point(p).z).fold(f64::INFINITY, f64::min)
}

#[test]
fn a_cube_thrown_faster_than_the_margin_per_step_stops_on_the_ground_not_in_it() {
    // 10 m/s down with its face 7 mm up: beyond the 5 mm margin at the step's start, 3 mm
    // below the ground at its end without contacts. `contact.regenerate` solves that step
    // again with the corners it put below (at their 7 mm): they land on the plane and the
    // cube stops there (restitution 0). Without it the cube ends its step 3 mm in.
    let half = 0.05;
    let sign = |k: usize, bit: usize| if k & bit == 0 { -half } else { half };
    let corners: Vec<Vec3> = (0..8).map(|k| Vec3::new(sign(k, 1), sign(k, 2), sign(k, 4))).collect();
    for (regenerate, expect_below) in [(0, true), (3, false)] {
        let mut world = ground(Vec3::z(), 0.5, 0.0);
        let b = cube(&mut world, "cube", 1.0, half, SE3::from_translation(Vec3::new(0.0, 0.0, half + 0.007)));
        world.states[b].velocity = Motion::new(Vec3::new(0.0, 0.0, -10.0), Vec3::zeros());
        let config = contact_config(&format!("{{tolerance: 1e-10, regenerate: {regenerate}}}"));
        let mut stepper = Stepper::new(&world, DT, &config.settings(), 16);
        let mut lowest = f64::INFINITY;
        let mut again = 0;
        for _ in 0..50 {
            again += stepper.step(&mut world, &[]).regenerated;
            lowest = lowest.min(lowest_of(&world, b, &corners));
        }
        if expect_below {
            assert!(lowest < -2.9e-3, "without regeneration the cube went {lowest} m into the ground");
        } else {
            assert!(lowest > -1e-9, "the cube went {lowest} m into the ground");
            assert_eq!(again, 1, "one step solved again");
            assert!((world.states[b].pose.translation.z - half).abs() < 1e-9, "rests on the ground");
            assert!(velocity(&world, b).norm() < 1e-9, "stopped dead");
        }
    }
}

#[test]
fn a_hull_rocking_onto_its_bulging_sole_does_not_sink_the_vertices_its_contacts_left_out() {
    // A box-shaped hull whose sole bulges 1.5 mm down at its middle (as talos's feet do:
    // their 20 lowest vertices span 1 mm of height), dropped tilted: it lands on an edge
    // and rocks onto its sole. Its contacts are chosen at each step's start (the support
    // face, reduced to 4 points), so a vertex outside them can end the step below the
    // ground; `contact.regenerate` solves such a step again with it, allocating nothing.
    let points = bulging_sole();
    let mut deepest = [0.0; 2];
    for (k, regenerate) in [0, 3].into_iter().enumerate() {
        let mut world = ground(Vec3::z(), 0.8, 0.0);
        let body = FreeBody::cuboid("sole", 1.0, &Vec3::new(0.12, 0.06, 0.05)).unwrap();
        let hull = CollisionShape::convex_hull(&points, "sole").unwrap();
        let pose = SE3::new(signorini::spatial::rotation_from_rpy(0.25, 0.15, 0.0), Vec3::new(0.0, 0.0, 0.1));
        let b = world.add_body(body, &[shape("sole", hull)], FreeBodyState::at_rest(pose));
        let config = contact_config(&format!("{{regenerate: {regenerate}}}"));
        let mut stepper = Stepper::new(&world, DT, &config.settings(), 64);
        let (mut again, mut allocations) = (0, 0);
        for step in 0..1000 {
            let during = counting::allocations_during(|| again += stepper.step(&mut world, &[]).regenerated);
            if step > 0 {
                allocations += during;
            }
            deepest[k] = f64::max(deepest[k], -lowest_of(&world, b, &points));
        }
        println!("regenerate {regenerate}: deepest {:.2e} m, {again} steps solved again", deepest[k]);
        assert_eq!(allocations, 0, "allocations after the first step");
    }
    assert!(deepest[0] > 5e-5, "the scene does not show the defect: {:.2e} m without regeneration", deepest[0]);
    assert!(deepest[1] <= 1e-6, "{:.2e} m below the ground", deepest[1]);
}
