// The timing method shared by the Pinocchio harnesses (and examples/*_timing.rs): a batch
// of calls calibrated to ~2 ms, cycling through `n_states` states, then the median
// per-call time over `rounds` batches.
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

using Clock = std::chrono::steady_clock;

template<class F>
double median_us(F && f, int n_states, int rounds)
{
  // Calibrate a batch to ~2 ms, then time `rounds` batches.
  int calls = 16;
  for (;;)
  {
    auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) f(i % n_states);
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (ms > 2.0 || calls > (1 << 24)) break;
    calls *= 2;
  }
  std::vector<double> per_call;
  for (int r = 0; r < rounds; ++r)
  {
    auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) f(i % n_states);
    per_call.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / calls);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}
