// Shared by the randomised reduce tests (reduce_random_test.cpp, reduce_soak_test.cpp): a mix of operands and
// random counts. Every rank draws the same choices from a generator with the same seed, so the ranks agree on
// every call without communicating.
#pragma once

#include "operand.hpp"

#include <memory>
#include <random>
#include <vector>

namespace redux_test {

// Predefined operators (SUM, MAX, BXOR, MINLOC), the non-commutative matrix product on a predefined type and on
// derived types (contiguous, negative lower bound, padded), a commutative sum declared non-commutative, a
// commutative user op on a struct with padding, and a user sum on a strided vector.
std::vector<std::unique_ptr<Operand>> mixed_operands();

// REDUX_TEST_SEED from the environment, or `fallback`.
uint64_t test_seed(uint64_t fallback);

// 10% zero, 40% 1-16, 30% 17-316, 20% 317-5000 elements (up to 160 KB: several 64 KiB chunks of the op by
// default, thousands at REDUX_CHUNK_BYTES=8).
int random_count(std::mt19937_64& random);

}  // namespace redux_test
