// Which MPI a library version text names (policy/mpi_library.hpp), the table of known native MPI_Reduce failures
// (policy/native_failures.hpp), and auto's exclusion of native (policy/auto_select.hpp) -- all without MPI.
#include "policy/native_failures.hpp"
#include "policy/auto_select.hpp"
#include "policy/mpi_library.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using redux::known_native_reduce_failure;
using redux::MpiFamily;
using redux::MpiLibrary;
using redux::NativeReduceCall;
using redux::parse_mpi_library;

// MPI_Get_library_version of Debian 12's two MPIs (MPICH's shortened after its first lines).
const char* const kOpenMpi = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022";
const char* const kMpich =
    "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\nMPICH ABI:\t14:2:2\n"
    "MPICH Device:\tch4:ucx\n";

TEST(MpiLibrary, ParsesOpenMpi) {
    const MpiLibrary library = parse_mpi_library(kOpenMpi);
    EXPECT_EQ(library.family, MpiFamily::open_mpi);
    EXPECT_EQ(library.describe(), "Open MPI 4.1.4");
}

TEST(MpiLibrary, ParsesMpichAndItsDerivatives) {
    const MpiLibrary mpich = parse_mpi_library(kMpich);
    EXPECT_EQ(mpich.family, MpiFamily::mpich);
    EXPECT_EQ(mpich.describe(), "MPICH 4.0.2");
    const MpiLibrary intel = parse_mpi_library("Intel(R) MPI Library 2021.6 for Linux* OS\n");
    EXPECT_EQ(intel.family, MpiFamily::mpich);
    EXPECT_EQ(intel.name, "Intel MPI");
    EXPECT_EQ(intel.describe(), "Intel MPI 2021.6.0");
    EXPECT_EQ(parse_mpi_library("MVAPICH2 Version      :\t2.3.7\n").family, MpiFamily::mpich);
}

TEST(MpiLibrary, UnknownTextIsUnknown) {
    EXPECT_EQ(parse_mpi_library("").family, MpiFamily::unknown);
    EXPECT_EQ(parse_mpi_library("Some MPI 1.0").family, MpiFamily::unknown);
    EXPECT_FALSE(parse_mpi_library("").at_least(0, 0, 0));
}

TEST(MpiLibrary, ComparesVersions) {
    const MpiLibrary mpich = parse_mpi_library(kMpich);
    EXPECT_TRUE(mpich.at_least(4, 0, 2));
    EXPECT_TRUE(mpich.at_least(3, 9, 9));
    EXPECT_FALSE(mpich.at_least(4, 0, 3));
    EXPECT_FALSE(mpich.at_least(4, 1, 0));
}

NativeReduceCall in_place_call(int size, int root, long long bytes, bool commutative = true) {
    NativeReduceCall call;
    call.comm_size = size;
    call.root = root;
    call.in_place = true;
    call.bytes = bytes;
    call.commutative = commutative;
    return call;
}

// What tests/mpi/reduce_in_place_test.cpp reproduces on Debian 12's MPICH 4.0.2 (docs/testing.md).
TEST(NativeFailures, Mpich402InPlaceAtANonZeroRootOverTwoKilobytes) {
    const MpiLibrary mpich = parse_mpi_library(kMpich);
    for (int size : {2, 3, 4, 7, 8}) {
        for (int root = 1; root < size; ++root) {
            EXPECT_NE(known_native_reduce_failure(mpich, in_place_call(size, root, 2052)), nullptr) << size << root;
            EXPECT_EQ(known_native_reduce_failure(mpich, in_place_call(size, root, 2048)), nullptr) << "seen to work";
            EXPECT_EQ(known_native_reduce_failure(mpich, in_place_call(size, root, 1 << 20, false)), nullptr)
                << "non-commutative ops were seen to work";
        }
        EXPECT_EQ(known_native_reduce_failure(mpich, in_place_call(size, 0, 1 << 20)), nullptr) << "root 0 works";
    }
    NativeReduceCall not_in_place = in_place_call(4, 3, 1 << 20);
    not_in_place.in_place = false;
    EXPECT_EQ(known_native_reduce_failure(mpich, not_in_place), nullptr);
    const std::string why = known_native_reduce_failure(mpich, in_place_call(4, 3, 4096));
    EXPECT_NE(why.find("MPI_IN_PLACE"), std::string::npos) << why;
    EXPECT_NE(why.find("mpich#6540"), std::string::npos) << why;
}

TEST(NativeFailures, OtherVersionsAndLibraries) {
    const auto failure = [](const char* text, long long bytes) {
        return known_native_reduce_failure(parse_mpi_library(text), in_place_call(4, 2, bytes)) != nullptr;
    };
    EXPECT_TRUE(failure("MPICH Version:\t4.1.1\n", 8)) << "reported, not observed: every size";
    EXPECT_TRUE(failure("MPICH Version:\t4.2.0\n", 8));
    EXPECT_FALSE(failure("MPICH Version:\t4.2.1\n", 1 << 20)) << "fixed";
    EXPECT_FALSE(failure("MPICH Version:\t3.4.3\n", 1 << 20));
    EXPECT_FALSE(failure(kOpenMpi, 1 << 20));
    EXPECT_FALSE(failure("Intel(R) MPI Library 2021.6 for Linux* OS\n", 1 << 20)) << "its own numbering";
    EXPECT_FALSE(failure("", 1 << 20));
}

// MPICH 4.0's MPI_Reduce_scatter_block: a non-commutative op on a datatype whose lower bound is not 0.
TEST(NativeFailures, Mpich40ReduceScatterBlockOnAMovedLowerBound) {
    using redux::known_native_reduce_scatter_block_failure;
    const MpiLibrary mpich = parse_mpi_library(kMpich);
    EXPECT_NE(known_native_reduce_scatter_block_failure(mpich, 2, false, true), nullptr);
    EXPECT_NE(known_native_reduce_scatter_block_failure(mpich, 7, false, true), nullptr);
    EXPECT_EQ(known_native_reduce_scatter_block_failure(mpich, 2, true, true), nullptr) << "commutative";
    EXPECT_EQ(known_native_reduce_scatter_block_failure(mpich, 2, false, false), nullptr) << "lower bound 0";
    EXPECT_EQ(known_native_reduce_scatter_block_failure(mpich, 1, false, true), nullptr) << "one rank";
    EXPECT_EQ(known_native_reduce_scatter_block_failure(parse_mpi_library(kOpenMpi), 2, false, true), nullptr);
    EXPECT_EQ(known_native_reduce_scatter_block_failure(parse_mpi_library("MPICH Version:\t4.1.1\n"), 2, false, true),
              nullptr);
}

// What tests/mpi/reduce_datatypes_test.cpp reproduces on Debian 12's Open MPI 4.1.4 (docs/testing.md): a root
// receiving at MPI_BOTTOM, in place or not, at any root and size; MPICH 4.0.2 receives there.
TEST(NativeFailures, OpenMpiRootReceivingAtMPIBottom) {
    const MpiLibrary open_mpi = parse_mpi_library(kOpenMpi);
    for (int size : {2, 3, 4, 7}) {
        for (int root : {0, size - 1}) {
            for (bool in_place : {false, true}) {
                NativeReduceCall call{size, root, in_place, 20, true, /*recv_at_bottom=*/true};
                EXPECT_NE(known_native_reduce_failure(open_mpi, call), nullptr) << size << root << in_place;
                call.recv_at_bottom = false;
                EXPECT_EQ(known_native_reduce_failure(open_mpi, call), nullptr) << size << root << in_place;
            }
        }
    }
    const NativeReduceCall one_rank{1, 0, false, 20, true, true};
    EXPECT_EQ(known_native_reduce_failure(open_mpi, one_rank), nullptr) << "one rank: seen to work";
    const std::string why = known_native_reduce_failure(open_mpi, {4, 0, false, 20, true, true});
    EXPECT_NE(why.find("MPI_BOTTOM"), std::string::npos) << why;
    EXPECT_EQ(known_native_reduce_failure(parse_mpi_library(kMpich), {4, 0, false, 20, true, true}), nullptr);
}

TEST(AutoSelect, ExcludedNativeIsNeverTriedAgain) {
    redux::AutoSelect select;
    select.record(1.0);  // one planned trial, then the root turns out to be in place
    select.exclude_native();
    EXPECT_TRUE(select.native_excluded());
    EXPECT_TRUE(select.decided());
    for (int call = 0; call < 3 * redux::AutoSelect::kWindow; ++call) {
        const redux::AutoSelect::Step step = select.next();
        ASSERT_EQ(step.run, redux::AutoSelect::Run::planned);
        ASSERT_FALSE(step.timed);
        select.record(call % 2 == 0 ? 1.0 : 100.0);  // drift would restart the trials of a key not excluded
        ASSERT_FALSE(select.needs_agreement()) << "no agreement, so no collective, ever";
    }
}

}  // namespace
