// Times Pinocchio's dynamics algorithms header-only (-O3 -march=native), on the states
// written by scripts/bench_dynamics.py, with the same method as
// examples/dynamics_timing.rs: batches of calls cycling through the states, the median
// per-call time over rounds. Output: one line "algorithm microseconds" per algorithm.
//
//   pinocchio_dynamics MODEL_TEXT STATES_FILE ROUNDS [ALGORITHM]   (default: every algorithm)
//   pinocchio_dynamics MODEL_TEXT STATES_FILE 0 ALGORITHM CALLS     (no timing: for callgrind)
//
// The model comes from Pinocchio's own text serialization (written by pin in Python from
// the URDF): Pinocchio stays entirely header-only here, so nothing compiled with other
// flags (Eigen alignment) is mixed in.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "timing.hpp"

#include <pinocchio/multibody.hpp>
#include <pinocchio/serialization.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/cholesky.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/jacobian.hpp>
#include <pinocchio/algorithm/kinematics.hpp>
#include <pinocchio/algorithm/rnea.hpp>

int main(int argc, char ** argv)
{
  if (argc < 4 || argc > 6)
  {
    std::fprintf(stderr, "usage: %s MODEL_TEXT STATES ROUNDS [ALGORITHM [CALLS]]\n", argv[0]);
    return 2;
  }
  const std::string only = argc >= 5 ? argv[4] : "";
  auto wanted = [&](const char * name) { return only.empty() || only == name; };
  pinocchio::Model model;
  model.loadFromText(argv[1]);
  pinocchio::Data data(model);
  const int rounds = std::stoi(argv[3]);

  std::ifstream in(argv[2]);
  int nq, nv, n;
  in >> nq >> nv >> n;
  if (nq != model.nq || nv != model.nv)
  {
    std::fprintf(stderr, "states are for nq %d nv %d, model has %d %d\n", nq, nv, model.nq, model.nv);
    return 2;
  }
  std::vector<Eigen::VectorXd> q(n, Eigen::VectorXd(nq)), v(n, Eigen::VectorXd(nv)),
    a(n, Eigen::VectorXd(nv)), tau(n, Eigen::VectorXd(nv));
  for (int k = 0; k < n; ++k)
  {
    for (int i = 0; i < nq; ++i) in >> q[k][i];
    for (int i = 0; i < nv; ++i) in >> v[k][i];
    for (int i = 0; i < nv; ++i) in >> a[k][i];
    for (int i = 0; i < nv; ++i) in >> tau[k][i];
  }

  using pinocchio::Convention;
  if (argc == 6)
  {
    const std::string algo = argv[4];
    const int calls = std::stoi(argv[5]);
    pinocchio::crba(model, data, q[0], Convention::WORLD);
    data.M.triangularView<Eigen::StrictlyLower>() = data.M.transpose().triangularView<Eigen::StrictlyLower>();
    for (int i = 0; i < calls; ++i)
    {
      const int k = i % n;
      if (algo == "fk") pinocchio::forwardKinematics(model, data, q[k]);
      else if (algo == "rnea") pinocchio::rnea(model, data, q[k], v[k], a[k]);
      else if (algo == "crba") pinocchio::crba(model, data, q[k], Convention::WORLD);
      else if (algo == "crba_local") pinocchio::crba(model, data, q[k], Convention::LOCAL);
      else if (algo == "aba") pinocchio::aba(model, data, q[k], v[k], tau[k], Convention::WORLD);
      else if (algo == "aba_local") pinocchio::aba(model, data, q[k], v[k], tau[k], Convention::LOCAL);
      else if (algo == "jacobians") pinocchio::computeJointJacobians(model, data, q[k]);
      else if (algo == "ltdl") pinocchio::cholesky::decompose(model, data);
      else return 2;
    }
    return 0;
  }
  if (wanted("fk"))
    std::printf("fk %.5f\n", median_us([&](int k) { pinocchio::forwardKinematics(model, data, q[k]); }, n, rounds));
  if (wanted("rnea"))
    std::printf("rnea %.5f\n", median_us([&](int k) { pinocchio::rnea(model, data, q[k], v[k], a[k]); }, n, rounds));
  // Both conventions of CRBA and ABA; the faster one is the reference.
  if (wanted("crba"))
  {
    double local = median_us([&](int k) { pinocchio::crba(model, data, q[k], Convention::LOCAL); }, n, rounds);
    double world = median_us([&](int k) { pinocchio::crba(model, data, q[k], Convention::WORLD); }, n, rounds);
    std::printf("crba %.5f\n", std::min(local, world));
  }
  if (wanted("aba"))
  {
    double local = median_us([&](int k) { pinocchio::aba(model, data, q[k], v[k], tau[k], Convention::LOCAL); }, n, rounds);
    double world = median_us([&](int k) { pinocchio::aba(model, data, q[k], v[k], tau[k], Convention::WORLD); }, n, rounds);
    std::printf("aba %.5f\n", std::min(local, world));
  }
  if (wanted("jacobians"))
    std::printf("jacobians %.5f\n", median_us([&](int k) { pinocchio::computeJointJacobians(model, data, q[k]); }, n, rounds));
  if (wanted("ltdl"))
  {
    pinocchio::crba(model, data, q[0], Convention::WORLD);
    data.M.triangularView<Eigen::StrictlyLower>() = data.M.transpose().triangularView<Eigen::StrictlyLower>();
    std::printf("ltdl %.5f\n", median_us([&](int) { pinocchio::cholesky::decompose(model, data); }, n, rounds));
  }
  return 0;
}
