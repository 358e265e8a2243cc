// Link calibration from several threads at once, one communicator each (MPI_THREAD_MULTIPLE; skipped where the MPI
// library gives less). The process keeps the link fits it knows in one cache that every calibration reads (step 1 of
// calibrate_links) and writes (after it), so threads that calibrate different communicators at once share it.
//
// The main thread duplicates MPI_COMM_WORLD kThreads times and gathers the topology; then kThreads threads each
// calibrate their own duplicate kRounds times, at once. Nothing in this process has calibrated before, so the first
// round of some threads measures (a pair of ranks ping-pongs); the other rounds, and threads that start after another
// has finished, take the fits the process knows. After the threads:
//   - every calibration succeeded, and every link class the communicator has is measured and sane: d(8 B) positive
//     and finite, d growing with the size, the time in flight within [0, d(8 B)], a call's cost not negative;
//   - at least one thread measured, and each round's source and fits are the same on every rank (all ranks plan
//     with the same numbers);
//   - a calibration on the main thread afterwards, as a single-threaded program makes it, takes the process's fits
//     ("process"), and they are exactly the fits one of the threads measured: not a mixture of two, not torn.
// Under ThreadSanitizer (tests/run-sanitizers.sh builds it so) the test also shows that no two threads touch the
// cache without ordering.
#include "calib/link_calibration.hpp"
#include "calib/topology.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 20;

struct Round {
    int rc = MPI_SUCCESS;
    redux::LinkCalibration links;
};

bool same_samples(const std::vector<redux::PingSample>& x, const std::vector<redux::PingSample>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
        if (x[i].bytes != y[i].bytes || x[i].one_way_s != y[i].one_way_s) return false;
    }
    return true;
}

bool same_fit(const redux::LinkFit& x, const redux::LinkFit& y) {
    return x.measured == y.measured && x.alpha_s == y.alpha_s && x.beta_s_per_byte == y.beta_s_per_byte &&
           x.flight_s == y.flight_s && x.call_s == y.call_s && same_samples(x.points, y.points) &&
           same_samples(x.flight_points, y.flight_points);
}

bool same_fits(const redux::Topology& topology, const redux::LinkFits& x, const redux::LinkFits& y) {
    for (int c = 0; c < redux::kLinkClasses; ++c) {
        if (topology.present[c] && !same_fit(x[c], y[c])) return false;
    }
    return true;
}

// A measured class's fit, as a single-threaded calibration gives it.
void expect_sane(const redux::LinkFit& fit, const std::string& where) {
    SCOPED_TRACE(where);
    ASSERT_TRUE(fit.measured);
    EXPECT_FALSE(fit.points.empty());
    const double d8_s = fit.at(8);
    EXPECT_GT(d8_s, 0);
    EXPECT_LT(d8_s, 1.0);
    EXPECT_TRUE(std::isfinite(fit.at(size_t{64} << 20)));
    EXPECT_GE(fit.at(size_t{1} << 20), d8_s);
    EXPECT_GE(fit.flight_s, 0);
    EXPECT_LE(fit.flight_s, d8_s);
    EXPECT_GE(fit.call_s, 0);
}

// Whether `mine` (a number of this rank's) is the same on every rank of `comm`.
bool same_everywhere(double mine, MPI_Comm comm) {
    double low = 0, high = 0;
    MPI_Allreduce(&mine, &low, 1, MPI_DOUBLE, MPI_MIN, comm);
    MPI_Allreduce(&mine, &high, 1, MPI_DOUBLE, MPI_MAX, comm);
    return low == high;
}

TEST(CalibrationThreads, ThreadsCalibrateTheirOwnCommunicatorsAtOnce) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_MULTIPLE) GTEST_SKIP() << "the MPI library gives no MPI_THREAD_MULTIPLE";

    redux::Topology topology;
    ASSERT_EQ(redux::gather_topology(MPI_COMM_WORLD, topology), MPI_SUCCESS);
    std::array<MPI_Comm, kThreads> comms{};
    for (MPI_Comm& comm : comms) MPI_Comm_dup(MPI_COMM_WORLD, &comm);

    std::vector<std::vector<Round>> rounds(kThreads, std::vector<Round>(kRounds));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (Round& round : rounds[static_cast<size_t>(t)]) {
                round.rc = redux::calibrate_links(comms[static_cast<size_t>(t)], topology, {}, round.links);
                if (round.rc != MPI_SUCCESS) return;  // the communicator's other ranks may wait; the test fails
            }
        });
    }
    for (std::thread& thread : threads) thread.join();

    int measured_by = -1;  // a thread whose first round measured
    for (int t = 0; t < kThreads; ++t) {
        for (int r = 0; r < kRounds; ++r) {
            const Round& round = rounds[static_cast<size_t>(t)][static_cast<size_t>(r)];
            const std::string where = "thread " + std::to_string(t) + ", round " + std::to_string(r);
            ASSERT_EQ(round.rc, MPI_SUCCESS) << where;
            const std::string& source = round.links.source;
            EXPECT_TRUE(source == "measured" || source == "process") << where << ": " << source;
            if (source == "measured") {
                EXPECT_EQ(r, 0) << where << ": measured again although the process knew the links";
                measured_by = t;
            }
            EXPECT_TRUE(same_everywhere(source == "measured" ? 1 : 0, MPI_COMM_WORLD)) << where << ": source";
            for (int c = 0; c < redux::kLinkClasses; ++c) {
                const redux::LinkFit& fit = round.links.fits[static_cast<size_t>(c)];
                if (!topology.present[c]) {
                    EXPECT_FALSE(fit.measured) << where << ", class " << c << ": the communicator has none";
                    continue;
                }
                expect_sane(fit, where + ", class " + std::to_string(c));
                EXPECT_TRUE(same_everywhere(fit.at(8), MPI_COMM_WORLD)) << where << ", class " << c;
                EXPECT_TRUE(same_everywhere(fit.call_s, MPI_COMM_WORLD)) << where << ", class " << c;
                EXPECT_TRUE(same_everywhere(fit.flight_s, MPI_COMM_WORLD)) << where << ", class " << c;
            }
        }
    }

    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm single = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &single);
    redux::LinkCalibration after;
    ASSERT_EQ(redux::calibrate_links(single, topology, {}, after), MPI_SUCCESS);
    EXPECT_EQ(after.source, "process");
    if (size > 1) {
        EXPECT_GE(measured_by, 0) << "no thread measured, in a process that knew no links";
        bool one_threads = false;
        for (int t = 0; t < kThreads; ++t) {
            const Round& first = rounds[static_cast<size_t>(t)][0];
            if (first.links.source == "measured" && same_fits(topology, after.fits, first.links.fits)) {
                one_threads = true;
            }
        }
        EXPECT_TRUE(one_threads) << "the process's fits are not those any one thread measured";
    }
    MPI_Comm_free(&single);
    for (MPI_Comm& comm : comms) MPI_Comm_free(&comm);
}

}  // namespace
