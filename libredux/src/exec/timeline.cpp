// The timeline file (timeline.hpp). Columns: t_s (the host's real-time clock, which every process on one host reads
// alike, as on the emulated cluster, and hosts keep close where they synchronise theirs; MPI_Wtime is not one clock:
// Open MPI counts it from each process's start. Simulated ranks: the simulated time), execution (this
// process's executions numbered from 0 in the order they start: the same call on every rank of a communicator that
// makes the same calls), rank and size (in the call's communicator), event (TimelineEvent's name), step (the
// schedule's step, -1 elsewhere), peer, begin and end (elements), detail (at a start: the algorithm, collective
// and count). A line is written whole under a lock, and the file flushed at each execution's end.
#include "exec/timeline.hpp"

#include "mpi/yielding.hpp"

#include <mpi.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace redux {
namespace {

std::mutex g_mutex;
std::FILE* g_file = nullptr;
int64_t g_executions = 0;
thread_local int64_t t_execution = -1;
thread_local int t_rank = 0, t_size = 1;

const char* event_name(TimelineEvent what) {
    switch (what) {
        case TimelineEvent::start:
            return "start";
        case TimelineEvent::phase:
            return "phase";
        case TimelineEvent::post_send:
            return "post_send";
        case TimelineEvent::post_receive:
            return "post_receive";
        case TimelineEvent::sent:
            return "sent";
        case TimelineEvent::received:
            return "received";
        case TimelineEvent::fold:
            return "fold";
        case TimelineEvent::folded:
            return "folded";
        case TimelineEvent::copy:
            return "copy";
        case TimelineEvent::copied:
            return "copied";
        case TimelineEvent::end:
            return "end";
    }
    return "";
}

double now_s() {
    if constexpr (kSimulatedRanks) return MPI_Wtime();
    timespec t{};
    clock_gettime(CLOCK_REALTIME, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void write_line(TimelineEvent what, int step, int peer, int64_t begin, int64_t end, const char* detail) {
    std::fprintf(g_file, "%.9f,%lld,%d,%d,%s,%d,%d,%lld,%lld,%s\n", now_s(), static_cast<long long>(t_execution),
                 t_rank, t_size, event_name(what), step, peer, static_cast<long long>(begin),
                 static_cast<long long>(end), detail);
}

}  // namespace

std::atomic<Timeline*> Timeline::active_{nullptr};

std::string Timeline::open(const std::string& prefix) {
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (g_file != nullptr) return "";
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    const std::string path = prefix + "." + host + "." + std::to_string(getpid()) + ".csv";
    g_file = std::fopen(path.c_str(), "w");
    if (g_file == nullptr) return "cannot write " + path + ": " + std::strerror(errno);
    std::fprintf(g_file, "t_s,execution,rank,size,event,step,peer,begin,end,detail\n");
    static Timeline timeline;
    active_.store(&timeline, std::memory_order_release);
    return "";
}

void Timeline::start(const ExecCall& call, std::string_view algorithm) {
    const std::lock_guard<std::mutex> lock(g_mutex);
    t_execution = g_executions++;
    t_rank = call.rank;
    t_size = call.size;
    char detail[96];
    const std::string_view collective = collective_name(call.collective);
    std::snprintf(detail, sizeof detail, "%.*s %.*s count=%d", static_cast<int>(algorithm.size()), algorithm.data(),
                  static_cast<int>(collective.size()), collective.data(), call.count);
    write_line(TimelineEvent::start, -1, -1, 0, call.total(), detail);
}

void Timeline::event(TimelineEvent what, int step, int peer, int64_t begin, int64_t end) {
    const std::lock_guard<std::mutex> lock(g_mutex);
    write_line(what, step, peer, begin, end, "");
    if (what == TimelineEvent::end) std::fflush(g_file);
}

}  // namespace redux
