// redux_reduce_scatter_block against MPI_Reduce_scatter_block's contract (MPI standard, "Reduce-Scatter"): rank i
// receives block i (recvcount elements) of the reduction of every rank's size x recvcount elements. Every algorithm
// asked for per call (recursive halving, the trees followed by a scatter, auto, native), on predefined and user
// operators, commutative or not, derived datatypes with gaps, MPI_IN_PLACE (the input in recvbuf, the block
// returned at its start), recvcount 1, 3 and 1000, on MPI_COMM_WORLD and on a communicator whose rank order is not
// the world's.
//
// check_reduce_scatter_block() checks each call on every rank: its block against the same block of the test's own
// reduction in rank order (operand.hpp: v0 o v1 o ... o v(n-1)), every byte of the receive buffer that is not data
// left as it was (and, not in place, every byte after the block), sendbuf unchanged, every request started during
// the call completed by its end (request_counter.hpp), every rank reporting the same redux_call_info (gathered by
// PMPI, never by the code under test). Order-sensitive double sums: within the rounding bound of the exact sum, and
// the same bits on repeated calls of one planned algorithm. Then 250 calls under auto, the interposed
// MPI_Reduce_scatter_block, and wrong arguments.
#include "counting_errhandler.hpp"
#include "predefined_ops.hpp"
#include "reduce_check.hpp"
#include "request_counter.hpp"
#include "user_ops.hpp"
#include "yielding_wait.hpp"

#include "redux/redux.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using redux_test::Operand;
using redux_test::TypedBuffer;

constexpr redux_algorithm kAlgorithms[] = {
    REDUX_ALGORITHM_REDUCE_SCATTER, REDUX_ALGORITHM_RING,      REDUX_ALGORITHM_BINOMIAL, REDUX_ALGORITHM_OPTIMAL,
    REDUX_ALGORITHM_CHAIN,          REDUX_ALGORITHM_TWO_TREE,  REDUX_ALGORITHM_AUTO,     REDUX_ALGORITHM_NATIVE,
    REDUX_ALGORITHM_LATE_RANK,      REDUX_ALGORITHM_ALLGATHER,
};

constexpr int kRecvcounts[] = {1, 3, 1000};

// Every algorithm value with its name (REDUX_ALGORITHM's spelling), from redux/algorithms.h's tables.
struct NamedAlgorithm {
    redux_algorithm algorithm;
    const char* text;
};
#define REDUX_TEST_NAMED_ALGORITHM_(ENUM, name, text, ...) {REDUX_ALGORITHM_##ENUM, text},
constexpr NamedAlgorithm kNamedAlgorithms[] = {{REDUX_ALGORITHM_CONFIGURED, "configured"},
                                               {REDUX_ALGORITHM_AUTO, "auto"},
                                               {REDUX_ALGORITHM_NATIVE, "native"},
                                               REDUX_STRATEGIES(REDUX_TEST_NAMED_ALGORITHM_)
                                                   REDUX_FAMILY_ALGORITHMS(REDUX_TEST_NAMED_ALGORITHM_)};
#undef REDUX_TEST_NAMED_ALGORITHM_

const char* algorithm_text(int algorithm) {
    for (const NamedAlgorithm& named : kNamedAlgorithms) {
        if (named.algorithm == algorithm) return named.text;
    }
    return "none";
}

// What REDUX_ALGORITHM asks for in this process: auto when it is unset, empty or not a name.
redux_algorithm configured_algorithm() {
    static const redux_algorithm configured = [] {
        const char* value = std::getenv("REDUX_ALGORITHM");
        for (const NamedAlgorithm& named : kNamedAlgorithms) {
            if (value != nullptr && std::strcmp(named.text, value) == 0) return named.algorithm;
        }
        return REDUX_ALGORITHM_AUTO;
    }();
    return configured;
}

int rank_of(MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    return rank;
}

int size_of(MPI_Comm comm) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    return size;
}

// Which bytes of a TypedBuffer for `count` elements MPI treats as data: MPI_Unpack of all-ones bytes into zeros.
std::string data_mask(MPI_Datatype datatype, int count) {
    TypedBuffer mask(datatype, count, 0x00);
    int type_size = 0;
    MPI_Type_size(datatype, &type_size);
    if (type_size > 0 && count > 0) {
        std::string ones(static_cast<size_t>(type_size) * static_cast<size_t>(count), '\xff');
        int position = 0;
        MPI_Unpack(ones.data(), static_cast<int>(ones.size()), &position, mask.origin(), count, datatype,
                   MPI_COMM_SELF);
    }
    return mask.bytes();
}

// "" when every byte that is not data (mask 0) is as it was, otherwise the first one that is not.
std::string gaps_changed(const std::string& before, const std::string& after, const std::string& mask) {
    for (size_t i = 0; i < after.size(); ++i) {
        if (mask[i] == 0 && after[i] != before[i]) {
            return "byte " + std::to_string(i) + " of the receive buffer is not data but was changed";
        }
    }
    return "";
}

// Every rank reports the same call (gathered by PMPI, not through libredux).
void expect_same_info_on_every_rank(const redux_call_info& info, MPI_Comm comm) {
    const int mine[2] = {static_cast<int>(info.algorithm), info.planned};
    std::vector<int> all(2 * static_cast<size_t>(size_of(comm)));
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Iallgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, comm, &request);
    redux_test::wait_yielding(request);
    for (size_t r = 1; 2 * r < all.size(); ++r) {
        EXPECT_EQ(all[2 * r], all[0]) << "rank " << r << " reports another algorithm than rank 0";
        EXPECT_EQ(all[2 * r + 1], all[1]) << "rank " << r << " reports planned unlike rank 0";
    }
}

// Which algorithm ran for each one asked, counted on world rank 0 and printed after the tests.
std::map<std::pair<int, int>, int>& ran_for_asked() {
    static std::map<std::pair<int, int>, int> counts;
    return counts;
}

class RanSummary : public ::testing::Environment {
public:
    void TearDown() override {
        if (rank_of(MPI_COMM_WORLD) != 0) return;
        std::printf("redux_reduce_scatter_block_ex at %d ranks, asked -> ran (calls):", size_of(MPI_COMM_WORLD));
        for (const auto& [pair, calls] : ran_for_asked()) {
            std::printf(" %s->%s (%d)", algorithm_text(pair.first), algorithm_text(pair.second), calls);
        }
        std::printf("\n");
    }
};
[[maybe_unused]] ::testing::Environment* const kRanSummary = ::testing::AddGlobalTestEnvironment(new RanSummary);

struct ScatterCall {
    MPI_Comm comm = MPI_COMM_WORLD;
    int recvcount = 1;
    bool in_place = false;  // MPI_IN_PLACE on every rank: the input in recvbuf
    uint64_t seed = 1;
    redux_algorithm algorithm = REDUX_ALGORITHM_CONFIGURED;
    long long segment_bytes = -1;  // redux_options.segment_bytes: < 0 the library's choice
};

std::string describe(const Operand& operand, const ScatterCall& call) {
    std::ostringstream out;
    out << operand.name() << ", algorithm " << algorithm_text(call.algorithm) << ", comm size " << size_of(call.comm)
        << ", recvcount " << call.recvcount << (call.in_place ? ", in place" : "") << ", seed " << call.seed;
    if (call.segment_bytes >= 0) out << ", segment_bytes " << call.segment_bytes;
    return out.str();
}

// Checks one call of redux_reduce_scatter_block_ex on every rank of call.comm (see the top of the file). Returns
// this rank's block, data and gaps, as bytes.
std::string check_reduce_scatter_block(const Operand& operand, const ScatterCall& call) {
    SCOPED_TRACE(describe(operand, call));
    static const bool trace = std::getenv("REDUX_TEST_TRACE") != nullptr;
    if (trace) std::fprintf(stderr, "[rank %d] %s\n", rank_of(MPI_COMM_WORLD), describe(operand, call).c_str());
    const int rank = rank_of(call.comm), size = size_of(call.comm);
    const MPI_Datatype datatype = operand.datatype();
    const int total = size * call.recvcount;
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(datatype, &lb, &extent);

    TypedBuffer send(datatype, total);
    operand.fill(send.origin(), total, rank, call.seed);
    const std::string send_before = send.bytes();
    // In place, recvbuf holds the whole input; the block comes back in its first recvcount elements.
    TypedBuffer recv(datatype, call.in_place ? total : call.recvcount);
    if (call.in_place) operand.fill(recv.origin(), total, rank, call.seed);
    const std::string recv_before = recv.bytes();

    redux_options options = REDUX_OPTIONS_INIT;
    options.algorithm = call.algorithm;
    options.segment_bytes = call.segment_bytes;
    redux_call_info info{};
    const redux_test::RequestCounts before = redux_test::request_counts();
    const int rc = redux_reduce_scatter_block_ex(call.in_place ? MPI_IN_PLACE : send.origin(), recv.origin(),
                                                 call.recvcount, datatype, operand.op(), call.comm, &options, &info);
    const redux_test::RequestCounts after = redux_test::request_counts();
    EXPECT_EQ(rc, MPI_SUCCESS);
    const long long started = after.started - before.started;
    EXPECT_EQ(started, after.completed - before.completed)
        << "requests started and completed during one redux_reduce_scatter_block_ex differ";

    const redux_algorithm runs = call.algorithm == REDUX_ALGORITHM_CONFIGURED ? configured_algorithm() : call.algorithm;
    if (runs == REDUX_ALGORITHM_NATIVE) {
        EXPECT_EQ(started, 0) << "requests started where native was asked for";
        EXPECT_EQ(info.planned, 0);
        EXPECT_EQ(info.algorithm, REDUX_ALGORITHM_NATIVE);
    } else if (runs != REDUX_ALGORITHM_AUTO && size >= 2 && call.recvcount > 0) {
        EXPECT_EQ(info.planned, 1) << "asked for " << algorithm_text(runs) << ", ran "
                                   << algorithm_text(info.algorithm);
    }
    if (rank_of(MPI_COMM_WORLD) == 0) ++ran_for_asked()[{call.algorithm, info.algorithm}];
    expect_same_info_on_every_rank(info, call.comm);

    if (!call.in_place) {
        EXPECT_TRUE(send.bytes() == send_before) << "sendbuf was changed";
    }
    TypedBuffer want(datatype, total);
    operand.expect(want.origin(), total, size, call.seed);
    const char* block = want.origin() + static_cast<MPI_Aint>(rank) * call.recvcount * extent;
    EXPECT_EQ(operand.compare(recv.origin(), block, call.recvcount), "")
        << "rank " << rank << "'s block differs from block " << rank << " of the test's own computation";
    EXPECT_EQ(gaps_changed(recv_before, recv.bytes(), data_mask(datatype, call.in_place ? total : call.recvcount)), "");
    return std::string(recv.origin(), static_cast<size_t>(call.recvcount * extent));
}

void every_algorithm(const Operand& operand, std::initializer_list<int> recvcounts, uint64_t seed,
                     MPI_Comm comm = MPI_COMM_WORLD, bool library_fails = false) {
    for (redux_algorithm algorithm : kAlgorithms) {
        if (library_fails && algorithm == REDUX_ALGORITHM_NATIVE) continue;
        for (int recvcount : recvcounts) {
            for (bool in_place : {false, true}) {
                ScatterCall call;
                call.comm = comm;
                call.recvcount = recvcount;
                call.in_place = in_place;
                call.seed = seed++;
                call.algorithm = algorithm;
                check_reduce_scatter_block(operand, call);
            }
        }
    }
}

void every_algorithm(const Operand& operand, uint64_t seed) {
    for (int recvcount : kRecvcounts) every_algorithm(operand, {recvcount}, seed++ * 1000);
}

TEST(ReduceScatterBlock, PredefinedOperators) {
    every_algorithm(*redux_test::predefined_operand<int32_t>("MPI_INT", MPI_INT, MPI_SUM), 1);
    every_algorithm(*redux_test::predefined_operand<double>("MPI_DOUBLE", MPI_DOUBLE, MPI_SUM), 10);
    every_algorithm(*redux_test::predefined_operand<double>("MPI_DOUBLE", MPI_DOUBLE, MPI_MAX), 20);
}

// Block i must be exactly block i of M0 M1 ... M(n-1) on every rank.
TEST(ReduceScatterBlock, NonCommutativeMatrixProduct) {
    every_algorithm(*redux_test::packed_matrix_operand(), 100);
    every_algorithm(*redux_test::matrix_operand(redux_test::MatrixLayout::contiguous), 110);
}

TEST(ReduceScatterBlock, CommutativeUserOps) {
    every_algorithm(*redux_test::user_sum_operand(true), 200);
    every_algorithm(*redux_test::struct_operand(), {3, 1000}, 210);
}

// User operators on derived datatypes (predefined ones are defined on predefined datatypes only): a gap inside
// each matrix, padding between matrices, and MPI_Type_vector(3, 1, 2, MPI_DOUBLE) with two gaps per element.
TEST(ReduceScatterBlock, DerivedDatatypesWithGaps) {
    every_algorithm(*redux_test::matrix_operand(redux_test::MatrixLayout::vector_with_gap), 300);
    // MPICH 4.0.2's own MPI_Reduce_scatter_block returns wrong blocks for this type (a lower bound of -8) with a
    // non-commutative op at 2 ranks, and crashes in place: its native call is left out there.
    every_algorithm(*redux_test::matrix_operand(redux_test::MatrixLayout::resized_padded), {3}, 310, MPI_COMM_WORLD,
                    redux_test::mpi_library_is("MPICH"));
    MPI_Datatype vector = MPI_DATATYPE_NULL;
    MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vector);
    MPI_Type_commit(&vector);
    every_algorithm(
        *redux_test::user_sum_on<double>("MPI_Type_vector(3, 1, 2, MPI_DOUBLE)", vector, {40, {0, 16, 32}}, {vector}),
        320);
}

// recvcount 0: success, nothing written.
TEST(ReduceScatterBlock, RecvcountZero) {
    const int rank = rank_of(MPI_COMM_WORLD);
    for (redux_algorithm algorithm : kAlgorithms) {
        SCOPED_TRACE(algorithm_text(algorithm));
        std::vector<int> send(4, rank), recv(4, -7);
        redux_options options = REDUX_OPTIONS_INIT;
        options.algorithm = algorithm;
        EXPECT_EQ(redux_reduce_scatter_block_ex(send.data(), recv.data(), 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &options,
                                                nullptr),
                  MPI_SUCCESS);
        EXPECT_EQ(redux_reduce_scatter_block_ex(MPI_IN_PLACE, recv.data(), 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                                &options, nullptr),
                  MPI_SUCCESS);
        EXPECT_EQ(recv, std::vector<int>(4, -7));
    }
}

// Two halves split with the world order reversed: blocks and the product follow the new ranks. MPI_COMM_SELF.
TEST(ReduceScatterBlock, OtherCommunicators) {
    const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
    MPI_Comm half = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank < (size + 1) / 2 ? 0 : 1, size - rank, &half);
    const auto matrices = redux_test::matrix_operand(redux_test::MatrixLayout::contiguous);
    every_algorithm(*matrices, {3, 100}, 400, half);
    every_algorithm(*matrices, {3}, 410, MPI_COMM_SELF);
    MPI_Comm_free(&half);
}

// Segments (redux_options.segment_bytes) for every algorithm but native: unsegmented, about one element per
// segment, and a size that cuts elements unevenly, on the non-commutative product packed in 8 bytes and laid out
// with a gap (16 bytes of data in 20).
TEST(ReduceScatterBlock, Segments) {
    const auto packed = redux_test::packed_matrix_operand();
    const auto gapped = redux_test::matrix_operand(redux_test::MatrixLayout::vector_with_gap);
    uint64_t seed = 450;
    for (redux_algorithm algorithm : kAlgorithms) {
        if (algorithm == REDUX_ALGORITHM_NATIVE) continue;
        for (const Operand* operand : {packed.get(), gapped.get()}) {
            for (long long segment_bytes : {0LL, 16LL, 200LL}) {
                for (int recvcount : {2, 101}) {
                    ScatterCall call;
                    call.recvcount = recvcount;
                    call.in_place = recvcount == 2;
                    call.seed = seed++;
                    call.algorithm = algorithm;
                    call.segment_bytes = segment_bytes;
                    check_reduce_scatter_block(*operand, call);
                }
            }
        }
    }
}

// A wildcard receive the user posted on the communicator before the calls must get the user's message, sent after
// them, and nothing of libredux's.
TEST(ReduceScatterBlock, UserWildcardReceiveNeverMatchesLibreduxTraffic) {
    const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
    constexpr int kTag = 4344;
    int received[2] = {-1, -1};
    MPI_Request receive = MPI_REQUEST_NULL;
    PMPI_Irecv(received, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &receive);
    const auto matrices = redux_test::packed_matrix_operand();
    uint64_t seed = 470;
    for (redux_algorithm algorithm : kAlgorithms) {
        for (int recvcount : {2, 300}) {
            ScatterCall call;
            call.recvcount = recvcount;
            call.seed = seed++;
            call.algorithm = algorithm;
            check_reduce_scatter_block(*matrices, call);
        }
    }
    const int message[2] = {rank, 7 * rank};
    MPI_Request send = MPI_REQUEST_NULL;
    PMPI_Isend(message, 2, MPI_INT, (rank + 1) % size, kTag, MPI_COMM_WORLD, &send);
    MPI_Status status;
    int done = 0;
    while (!done) PMPI_Test(&receive, &done, &status);
    redux_test::wait_yielding(send);
    const int from = (rank + size - 1) % size;
    EXPECT_EQ(status.MPI_SOURCE, from);
    EXPECT_EQ(status.MPI_TAG, kTag);
    EXPECT_EQ(received[0], from);
    EXPECT_EQ(received[1], 7 * from);
}

// Doubles whose sum depends on the order of the additions (1e16 + 1 - 1e16 is 0 or 1 by the order): each element
// within (size - 1) roundings of the exact sum (halves, exact in an int64_t), and repeated calls of a planned
// algorithm, with another rank late each time, give the same bits.
double order_sensitive_value(int rank, int index) {
    const double values[] = {1e16, -1e16, 1.0, 0.5, 3.0, -2.0, 7e15, -3e15};
    return values[redux_test::input_bits(8000, rank, static_cast<uint64_t>(index)) % 8];
}

TEST(ReduceScatterBlock, OrderSensitiveSums) {
    const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
    for (int recvcount : {3, 1000}) {
        const int total = size * recvcount;
        std::vector<double> send(static_cast<size_t>(total));
        for (int i = 0; i < total; ++i) send[static_cast<size_t>(i)] = order_sensitive_value(rank, i);
        for (redux_algorithm algorithm : kAlgorithms) {
            const bool repeats = algorithm != REDUX_ALGORITHM_AUTO && algorithm != REDUX_ALGORITHM_NATIVE;
            std::vector<double> first;
            for (int repeat = 0; repeat < (repeats ? 3 : 1); ++repeat) {
                SCOPED_TRACE("recvcount " + std::to_string(recvcount) + ", algorithm " + algorithm_text(algorithm) +
                             ", repeat " + std::to_string(repeat));
                const bool in_place = repeat == 1;
                std::vector<double> recv = in_place ? send : std::vector<double>(static_cast<size_t>(recvcount), -1.0);
                redux_options options = REDUX_OPTIONS_INIT;
                options.algorithm = algorithm;
                redux_call_info info{};
                redux_test::barrier(MPI_COMM_WORLD);
                if (rank == (repeat + 1) % size) usleep(2000);
                EXPECT_EQ(redux_reduce_scatter_block_ex(in_place ? MPI_IN_PLACE : send.data(), recv.data(), recvcount,
                                                        MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &options, &info),
                          MPI_SUCCESS);
                expect_same_info_on_every_rank(info, MPI_COMM_WORLD);
                recv.resize(static_cast<size_t>(recvcount));
                int far = 0;
                for (int k = 0; k < recvcount && far < 3; ++k) {
                    const int i = rank * recvcount + k;
                    int64_t halves = 0;
                    double magnitudes = 0;
                    for (int r = 0; r < size; ++r) {
                        halves += static_cast<int64_t>(order_sensitive_value(r, i) * 2);
                        magnitudes += std::fabs(order_sensitive_value(r, i));
                    }
                    const double want = static_cast<double>(halves) / 2;
                    const double got = recv[static_cast<size_t>(k)];
                    if (!(std::fabs(got - want) <= (size - 1) * std::ldexp(magnitudes, -52))) {
                        ++far;
                        ADD_FAILURE() << "element " << k << " of the block: got " << got << ", the exact sum is "
                                      << want;
                    }
                }
                if (repeat == 0) {
                    first = recv;
                } else {
                    EXPECT_EQ(std::memcmp(first.data(), recv.data(), recv.size() * sizeof(double)), 0)
                        << "not the same bits as the first call of this algorithm";
                }
            }
        }
    }
}

// Auto's first calls of a key take turns between algorithms, the MPI library's included: 250 calls of one small
// key, each checked.
TEST(ReduceScatterBlock, RepeatedCallsUnderAuto) {
    const auto matrices = redux_test::packed_matrix_operand();
    for (int i = 0; i < 250; ++i) {
        SCOPED_TRACE("call " + std::to_string(i));
        ScatterCall call;
        call.recvcount = 5;
        call.in_place = i % 7 == 6;
        call.seed = 5000 + static_cast<uint64_t>(i);
        call.algorithm = REDUX_ALGORITHM_AUTO;
        check_reduce_scatter_block(*matrices, call);
    }
}

// The configured algorithm (REDUX_ALGORITHM) through REDUX_ALGORITHM_CONFIGURED, and redux_reduce_scatter_block.
TEST(ReduceScatterBlock, ConfiguredAlgorithm) {
    const auto matrices = redux_test::packed_matrix_operand();
    for (int recvcount : {1, 3, 1000}) {
        for (bool in_place : {false, true}) {
            ScatterCall call;
            call.recvcount = recvcount;
            call.in_place = in_place;
            call.seed = 6000 + static_cast<uint64_t>(recvcount);
            check_reduce_scatter_block(*matrices, call);
        }
    }
    const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
    const int recvcount = 100;
    std::vector<int> send(static_cast<size_t>(size * recvcount)), recv(recvcount, -1);
    for (int i = 0; i < size * recvcount; ++i) send[static_cast<size_t>(i)] = rank * 100000 + i;
    EXPECT_EQ(redux_reduce_scatter_block(send.data(), recv.data(), recvcount, MPI_INT, MPI_MAX, MPI_COMM_WORLD),
              MPI_SUCCESS);
    for (int k = 0; k < recvcount; ++k) {
        EXPECT_EQ(recv[static_cast<size_t>(k)], (size - 1) * 100000 + rank * recvcount + k) << "element " << k;
    }
}

// Linking libredux makes MPI_Reduce_scatter_block go through it: under a configured planned algorithm a call with
// something to reduce starts requests (libredux's transfers); under native none.
TEST(ReduceScatterBlock, InterposedMpiReduceScatterBlock) {
    const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
    const redux_algorithm configured = configured_algorithm();
    for (int recvcount : {1, 3, 1000}) {
        SCOPED_TRACE("recvcount " + std::to_string(recvcount));
        const int total = size * recvcount;
        std::vector<int64_t> send(static_cast<size_t>(total)), recv(static_cast<size_t>(recvcount), -1);
        for (int i = 0; i < total; ++i) send[static_cast<size_t>(i)] = (rank + 1) * (i + 1);
        const redux_test::RequestCounts before = redux_test::request_counts();
        EXPECT_EQ(MPI_Reduce_scatter_block(send.data(), recv.data(), recvcount, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        const redux_test::RequestCounts after = redux_test::request_counts();
        EXPECT_EQ(after.started - before.started, after.completed - before.completed);
        if (configured == REDUX_ALGORITHM_NATIVE) {
            EXPECT_EQ(after.started - before.started, 0);
        } else if (configured != REDUX_ALGORITHM_AUTO && size >= 2) {
            EXPECT_GT(after.started - before.started, 0) << "MPI_Reduce_scatter_block did not run libredux's algorithm";
        }
        const int64_t ranks_sum = static_cast<int64_t>(size) * (size + 1) / 2;
        for (int k = 0; k < recvcount; ++k) {
            ASSERT_EQ(recv[static_cast<size_t>(k)], ranks_sum * (rank * recvcount + k + 1)) << "element " << k;
        }
        EXPECT_EQ(MPI_Reduce_scatter_block(MPI_IN_PLACE, send.data(), recvcount, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        for (int k = 0; k < recvcount; ++k) {
            ASSERT_EQ(send[static_cast<size_t>(k)], size * (rank * recvcount + k + 1)) << "element " << k;
        }
    }
    // A non-commutative user op through MPI_Reduce_scatter_block: rank order.
    const auto matrices = redux_test::packed_matrix_operand();
    const int recvcount = 17;
    TypedBuffer send(MPI_UINT64_T, size * recvcount), recv(MPI_UINT64_T, recvcount),
        want(MPI_UINT64_T, size * recvcount);
    matrices->fill(send.origin(), size * recvcount, rank, 77);
    matrices->expect(want.origin(), size * recvcount, size, 77);
    EXPECT_EQ(
        MPI_Reduce_scatter_block(send.origin(), recv.origin(), recvcount, MPI_UINT64_T, matrices->op(), MPI_COMM_WORLD),
        MPI_SUCCESS);
    EXPECT_EQ(matrices->compare(recv.origin(), want.origin() + rank * recvcount * 8, recvcount), "");
}

// Wrong arguments, the same on every rank: an error through the communicator's error handler (called once, with
// the class PMPI_Reduce_scatter_block reports where it reports one), no request started, the receive buffer
// untouched, under every algorithm.
class ReduceScatterBlockErrors : public ::testing::Test {
protected:
    void SetUp() override {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
        handler_ = redux_test::make_counting_errhandler();
        MPI_Comm_set_errhandler(comm_, handler_);
    }
    void TearDown() override {
        MPI_Comm_free(&comm_);
        MPI_Errhandler_free(&handler_);
    }

    // PMPI_Reduce_scatter_block's error class for these arguments, or MPI_SUCCESS when it accepts them.
    int library_class(int recvcount, MPI_Datatype datatype, MPI_Op op) {
        std::vector<char> send(4096, 1), recv(4096, 0);
        const int rc = PMPI_Reduce_scatter_block(send.data(), recv.data(), recvcount, datatype, op, comm_);
        int cls = MPI_SUCCESS;
        MPI_Error_class(rc, &cls);
        return cls;
    }

    void expect_failure(const std::string& what, int recvcount, MPI_Datatype datatype, MPI_Op op, int expected_class,
                        redux_algorithm algorithm) {
        SCOPED_TRACE(what + ", algorithm " + algorithm_text(algorithm));
        std::vector<char> send(4096, 1), recv(4096, 0);
        redux_options options = REDUX_OPTIONS_INIT;
        options.algorithm = algorithm;
        redux_test::reset_error_count();
        const redux_test::RequestCounts before = redux_test::request_counts();
        const int rc =
            redux_reduce_scatter_block_ex(send.data(), recv.data(), recvcount, datatype, op, comm_, &options, nullptr);
        const redux_test::RequestCounts after = redux_test::request_counts();
        EXPECT_NE(rc, MPI_SUCCESS);
        int cls = MPI_SUCCESS;
        MPI_Error_class(rc, &cls);
        if (expected_class != MPI_SUCCESS) {
            EXPECT_EQ(cls, expected_class);
        }
        EXPECT_EQ(redux_test::error_count().calls, 1) << "the communicator's error handler was not called once";
        EXPECT_EQ(after.started - before.started, 0) << "requests started for a call that fails its checks";
        EXPECT_TRUE(recv == std::vector<char>(4096, 0)) << "the receive buffer was written";
    }

    MPI_Comm comm_ = MPI_COMM_NULL;
    MPI_Errhandler handler_ = MPI_ERRHANDLER_NULL;
};

TEST_F(ReduceScatterBlockErrors, NegativeRecvcount) {
    if (redux_test::mpi_library_is("MPICH")) {
        GTEST_SKIP() << "MPICH 4.0.2 does not check for a negative count (it crashes)";
    }
    const int expected = library_class(-1, MPI_INT, MPI_SUM);
    for (redux_algorithm algorithm : kAlgorithms) {
        expect_failure("recvcount -1", -1, MPI_INT, MPI_SUM, expected, algorithm);
    }
    MPI_Comm returning = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &returning);
    MPI_Comm_set_errhandler(returning, MPI_ERRORS_RETURN);
    std::vector<int> send(64, 1), recv(64, 0);
    EXPECT_NE(redux_reduce_scatter_block(send.data(), recv.data(), -3, MPI_INT, MPI_SUM, returning), MPI_SUCCESS);
    EXPECT_NE(MPI_Reduce_scatter_block(send.data(), recv.data(), -3, MPI_INT, MPI_SUM, returning), MPI_SUCCESS);
    EXPECT_NE(redux_reduce_scatter_block(MPI_IN_PLACE, recv.data(), -1, MPI_INT, MPI_SUM, returning), MPI_SUCCESS);
    MPI_Comm_free(&returning);
}

TEST_F(ReduceScatterBlockErrors, NullHandles) {
    const int null_type = library_class(4, MPI_DATATYPE_NULL, MPI_SUM);
    const int null_op = library_class(4, MPI_INT, MPI_OP_NULL);
    for (redux_algorithm algorithm : kAlgorithms) {
        expect_failure("MPI_DATATYPE_NULL", 4, MPI_DATATYPE_NULL, MPI_SUM, null_type, algorithm);
        expect_failure("MPI_OP_NULL", 4, MPI_INT, MPI_OP_NULL, null_op, algorithm);
    }
}

TEST_F(ReduceScatterBlockErrors, UnknownAlgorithm) {
    redux_algorithm unknown;
    const int value = 99;
    std::memcpy(&unknown, &value, sizeof value);
    expect_failure("algorithm 99", 4, MPI_INT, MPI_SUM, MPI_ERR_ARG, unknown);
}

// Recursive doubling is an allreduce algorithm: asked of a reduce-scatter it must still give a right answer or fail
// cleanly (no crash, no hang), on every rank alike.
TEST(ReduceScatterBlock, AllreduceOnlyAlgorithm) {
    const auto matrices = redux_test::packed_matrix_operand();
    const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
    const int recvcount = 9;
    TypedBuffer send(MPI_UINT64_T, size * recvcount), recv(MPI_UINT64_T, recvcount),
        want(MPI_UINT64_T, size * recvcount);
    matrices->fill(send.origin(), size * recvcount, rank, 91);
    matrices->expect(want.origin(), size * recvcount, size, 91);
    MPI_Comm returning = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &returning);
    MPI_Comm_set_errhandler(returning, MPI_ERRORS_RETURN);
    redux_options options = REDUX_OPTIONS_INIT;
    options.algorithm = REDUX_ALGORITHM_RECURSIVE_DOUBLING;
    redux_call_info info{};
    const int rc = redux_reduce_scatter_block_ex(send.origin(), recv.origin(), recvcount, MPI_UINT64_T, matrices->op(),
                                                 returning, &options, &info);
    EXPECT_TRUE(redux_test::all_of(rc == MPI_SUCCESS, MPI_COMM_WORLD) ||
                redux_test::all_of(rc != MPI_SUCCESS, MPI_COMM_WORLD))
        << "some ranks succeeded and some failed";
    if (rank == 0) ++ran_for_asked()[{REDUX_ALGORITHM_RECURSIVE_DOUBLING, rc == MPI_SUCCESS ? info.algorithm : -1}];
    if (rc == MPI_SUCCESS) {
        EXPECT_EQ(matrices->compare(recv.origin(), want.origin() + rank * recvcount * 8, recvcount), "");
        expect_same_info_on_every_rank(info, MPI_COMM_WORLD);
    }
    MPI_Comm_free(&returning);
}

}  // namespace
