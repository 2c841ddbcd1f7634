// Times Pinocchio's contactInverseDynamics header-only (-O3 -march=native), with the
// kinematics it needs, on the state written by scripts/bench_control.py (the state at which
// examples/control_timing.rs times signorini's control tick). One call =
// computeJointJacobians + each contact's calc + contactInverseDynamics, started from the
// same impulses every call. Timing: timing.hpp.
//
//   pinocchio_contact_id MODEL_TEXT SCENE ROUNDS        -> "contact_id US ITERATIONS CONVERGED"
//   pinocchio_contact_id MODEL_TEXT SCENE 0 CALLS       (no timing: for callgrind)
//
// SCENE (whitespace-separated): nq nv; q; v; a; dt; mu_prox abs_tol rel_tol max_iter;
// n; n times: joint, the contact frame in that joint's frame (rotation 9 numbers row-major,
// translation 3), friction; then the 3n starting forces (N).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "timing.hpp"

#include <pinocchio/multibody.hpp>
#include <pinocchio/serialization.hpp>
#include <pinocchio/constraints.hpp>
#include <pinocchio/algorithm/contact-inverse-dynamics.hpp>
#include <pinocchio/algorithm/jacobian.hpp>
#include <pinocchio/algorithm/kinematics.hpp>

int main(int argc, char ** argv)
{
  if (argc != 4 && argc != 5)
  {
    std::fprintf(stderr, "usage: %s MODEL_TEXT SCENE ROUNDS [CALLS]\n", argv[0]);
    return 2;
  }
  pinocchio::Model model;
  model.loadFromText(argv[1]);
  pinocchio::Data data(model);
  const int rounds = std::stoi(argv[3]);

  std::ifstream in(argv[2]);
  int nq, nv;
  in >> nq >> nv;
  if (!in || nq != model.nq || nv != model.nv)
  {
    std::fprintf(stderr, "%s: scene is for nq %d nv %d, the model has %d %d\n", argv[2], nq, nv, model.nq, model.nv);
    return 2;
  }
  Eigen::VectorXd q(nq), v(nv), a(nv);
  for (int i = 0; i < nq; ++i) in >> q[i];
  for (int i = 0; i < nv; ++i) in >> v[i];
  for (int i = 0; i < nv; ++i) in >> a[i];
  double dt, mu_prox, abs_tol, rel_tol;
  int max_iter, n;
  in >> dt >> mu_prox >> abs_tol >> rel_tol >> max_iter >> n;
  pinocchio::forwardKinematics(model, data, q);
  std::vector<pinocchio::PointContactConstraintModel> models;
  for (int c = 0; c < n; ++c)
  {
    int joint;
    Eigen::Matrix3d R;
    Eigen::Vector3d t;
    double friction;
    in >> joint;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) in >> R(i, j);
    in >> t[0] >> t[1] >> t[2] >> friction;
    // Our sign: joint1 is the ground (the universe), joint2 the robot's joint.
    const pinocchio::SE3 in_joint(R, t);
    const pinocchio::SE3 in_world = data.oMi[joint] * in_joint;
    models.emplace_back(model, 0, in_world, joint, in_joint);
    models.back().setFriction(friction);
  }
  Eigen::VectorXd guess(3 * n);
  for (int i = 0; i < 3 * n; ++i) in >> guess[i];
  if (!in)
  {
    std::fprintf(stderr, "%s: truncated scene\n", argv[2]);
    return 2;
  }
  std::vector<pinocchio::PointContactConstraintData> datas;
  for (const auto & m : models) datas.push_back(m.createData());
  const Eigen::VectorXd correction = Eigen::VectorXd::Zero(3 * n);
  Eigen::VectorXd lambda(3 * n);
  pinocchio::ProximalSettings settings(abs_tol, rel_tol, mu_prox, max_iter);

  auto once = [&]() {
    lambda = guess;
    pinocchio::computeJointJacobians(model, data, q);
    for (std::size_t c = 0; c < models.size(); ++c) models[c].calc(model, data, datas[c]);
    return pinocchio::contactInverseDynamics(model, data, q, v, a, dt, models, datas, correction, lambda, settings);
  };
  // The caller sets max_iter (the sweeps signorini took at this state) and reads whether
  // Pinocchio's own stopping test was met within them.
  const int converged = once() ? 1 : 0;
  const int iterations = std::min(settings.iter, max_iter);
  if (argc == 5)
  {
    const int calls = std::stoi(argv[4]);
    for (int i = 0; i < calls; ++i) once();
    return 0;
  }
  std::printf("contact_id %.5f %d %d\n", median_us([&](int) { once(); }, 1, rounds), iterations, converged);
  return 0;
}
