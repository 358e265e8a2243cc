// choose_segments' answers kept for the process, by what decides them: every rank of a communicator plans each new
// key, and a program's keys often share a shape (the same count at every root, the same count on communicators of
// the same size: MPICH's reduce test calls each of 17 counts at every root of every communicator). See
// choice_cache.cpp.
#pragma once

#include "plan/predict/segments.hpp"

#include <optional>
#include <string>

namespace redux {

// What choose_segments(plan) depends on, as bytes: the trees' shapes with the ranks numbered from the sink down (in
// preorder, children in fold order), the root's number, the request's costs, vector, curve and knobs, the plan's own
// unsegmented prediction. Two plans with the same key get the same answer from the search, to the bit: the search
// does the same arithmetic on them, rank for rank. Empty where the answer depends on which rank is which (per-link
// or per-rank costs, release times): such a plan is searched every time.
std::string choice_key(const Plan& plan);

// The answer kept under `key`, if any.
std::optional<SegmentChoice> cached_choice(const std::string& key);
// Keeps `choice` under `key` (thread-safe; the oldest answers go when the cache is full).
void keep_choice(const std::string& key, const SegmentChoice& choice);
// Empties the cache (the soak test does before it samples memory: the cache is bounded, not flat).
void forget_segment_choices();

}  // namespace redux
