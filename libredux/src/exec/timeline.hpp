// A record of what each execution does at this rank, and when (REDUX_TIMELINE): the call's start and end, each
// send and receive of an exchange schedule as it is posted and as the runner sees it complete, each chunk of a
// fold or copy as it begins and ends. One CSV file per process; mpi_bench/timeline.py lines the ranks' files up.
// Off (the default), the runners ask once per call (Timeline::active) and an event costs them a test of what they
// kept.
#pragma once

#include "exec/call.hpp"

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace redux {

enum class TimelineEvent : uint8_t {
    start,         // the execution's start (step: -1; detail: the algorithm)
    phase,         // a tree's reduction is over at this rank, and its second phase (a schedule) starts
    post_send,     // MPI_Isend of the elements [begin, end) to peer
    post_receive,  // MPI_Irecv of [begin, end) from peer
    sent,          // the runner saw the send complete
    received,      // the runner saw the receive complete
    fold,          // a chunk [begin, end) of a fold begins
    folded,        // and ends
    copy,          // a copy of [begin, end) begins
    copied,        // and ends
    end,           // this rank's part of the call is over
};

class Timeline {
public:
    // Records every execution of this process from now on into `<prefix>.<host>.<pid>.csv` (truncated). Returns
    // "" or why the file cannot be written.
    static std::string open(const std::string& prefix);
    // The process's timeline; null when not recording.
    static Timeline* active() { return active_.load(std::memory_order_acquire); }

    void start(const ExecCall& call, std::string_view algorithm);
    void event(TimelineEvent what, int step = -1, int peer = -1, int64_t begin = 0, int64_t end = 0);

private:
    static std::atomic<Timeline*> active_;
};

}  // namespace redux
