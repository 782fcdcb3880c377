#pragma once
// The process-wide random generator of the random ops (rand, randn, randperm, dropout's masks):
// counter-based, SplitMix64 of a stream and an element index, so chunks fill in parallel and a
// seed gives the same values on every platform. Each call of a random op draws a new stream from
// a process-wide counter that manual_seed() resets.

#include <cstdint>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// SplitMix64's finaliser: 64 well-mixed bits of `z`.
uint64_t mix64(uint64_t z);
/// Resets the process-wide stream counter (xport::manual_seed).
void seed_random(uint64_t seed);
/// A stream no earlier call got (since the last seed_random).
uint64_t next_stream();
/// Draw i of `stream`, uniform in [0, 1) with 53 random bits.
double uniform01(uint64_t stream, uint64_t i);

/// out (floating) = uniform [0, 1) draws i = 0, 1, ... keyed by `key` (draw i is
/// mix64(key + (i + 1) * golden ratio), so the same key gives the same values everywhere). A
/// stream's key is stream * 0xbf58476d1ce4e5b9; the seeded factories (xport::rand) use the seed.
void uniform_fill(const Tensor& out, uint64_t key);
/// out (floating) = standard normals from the draws keyed by `key` (Box-Muller: draws 2j and
/// 2j + 1 give elements 2j and 2j + 1).
void normal_fill(const Tensor& out, uint64_t key);
/// out = uniform [0, 1) draws of a new stream (floating out).
void uniform_out(const Tensor& out);
/// out = standard normal draws of a new stream (floating out).
void normal_out(const Tensor& out);
/// out (1-D, n elements) = a uniformly random permutation of 0 .. n - 1 (Fisher-Yates on a new
/// stream), in out's dtype.
void randperm_out(const Tensor& out);

}  // namespace xport::kernels::cpu
