// Auto's decisions kept between jobs (REDUX_WISDOM; the file: policy/wisdom_file.hpp). A key whose call the file
// holds for this job starts at its first call with what the earlier job settled on, re-checked on its first calls
// (AutoSelect::start_from), instead of the library's own first calls, the op's timing and the trials. See wisdom.cpp.
#pragma once

#include "api/comm_state.hpp"

#include <mpi.h>

#include <string>

namespace redux {

// What the wisdom file knows of a key about to be planned.
struct KeyWisdom {
    std::string call;                    // the key's text in the file; empty: the key's decisions are not kept
    const WisdomEntry* entry = nullptr;  // the entry every rank found for it, or null
};

// Under auto with REDUX_WISDOM, for a key not planned yet: its text and entry. Collective over state.comm on a
// key's first call (every rank makes the same calls, so every rank takes the same steps): the first time on the
// communicator rank 0 reads the file and shares the job's entries, and on each key's first call the ranks agree
// that every one of them found the same entry (a hash of its text), else none is used. Not collective on the
// key's later calls: the answer is kept until the key is planned.
int key_wisdom(CommState& state, const PlanKey& key, MPI_Op op, KeyWisdom& out);

// On rank 0: the decision `cached`'s AutoSelect holds (just made, or re-checked), queued for the file (written at
// MPI_Finalize, or once enough are queued); a re-check that failed drops the key's entry instead.
void keep_decision(const CommState& state, const CachedPlan& cached);
void drop_decision(const CommState& state, const CachedPlan& cached);

// Writes what is queued (at MPI_Finalize).
void flush_wisdom();

}  // namespace redux
