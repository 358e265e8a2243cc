// redux_allreduce against MPI_Allreduce's contract (MPI standard, "All-Reduce"): every algorithm asked for per
// call (recursive doubling, reduce-scatter then allgather, the trees followed by a broadcast, auto, native), on
// predefined and user operators, commutative or not, derived datatypes with gaps, MPI_IN_PLACE, counts from 1 to
// a prime above 10000, on MPI_COMM_WORLD and on communicators whose rank order is not the world's.
//
// check_allreduce() checks each call on every rank: the result against the test's own computation in rank order
// (operand.hpp: v0 o v1 o ... o v(n-1), so a non-commutative op folded out of order shows), every byte of the
// receive buffer that is not data left as it was, sendbuf unchanged, every request started during the call
// completed by its end (request_counter.hpp), and every rank holding the same bytes and reporting the same
// redux_call_info: a hash of each rank's receive buffer gathered by PMPI_Iallgather, never by the code under test.
// Sums of doubles whose rounding depends on the order of the additions must agree bit for bit across ranks, for
// every algorithm, and between repeated calls of one planned algorithm. Then 250 calls under auto (whose first
// calls of a key take turns between algorithms), the interposed MPI_Allreduce, and wrong arguments.
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
    REDUX_ALGORITHM_RECURSIVE_DOUBLING, REDUX_ALGORITHM_REDUCE_SCATTER, REDUX_ALGORITHM_RING,
    REDUX_ALGORITHM_BINOMIAL,           REDUX_ALGORITHM_OPTIMAL,        REDUX_ALGORITHM_CHAIN,
    REDUX_ALGORITHM_TWO_TREE,           REDUX_ALGORITHM_AUTO,           REDUX_ALGORITHM_NATIVE,
    REDUX_ALGORITHM_LATE_RANK,          REDUX_ALGORITHM_ALLGATHER,
};

// 10007 is prime: no rank count divides it, so blocks and segments come out uneven.
constexpr int kCounts[] = {1, 2, 7, 300, 10007};

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

uint64_t fnv1a(const std::string& bytes) {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (unsigned char byte : bytes) hash = (hash ^ byte) * 0x100000001b3ull;
    return hash;
}

// What one rank saw of a call; every rank's, gathered to every rank by PMPI (not through libredux).
struct Seen {
    uint64_t result_hash = 0;
    uint64_t algorithm = 0;
    uint64_t planned = 0;
};

std::vector<Seen> gather_seen(const Seen& mine, MPI_Comm comm) {
    std::vector<Seen> all(static_cast<size_t>(size_of(comm)));
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Iallgather(&mine, 3, MPI_UINT64_T, all.data(), 3, MPI_UINT64_T, comm, &request);
    redux_test::wait_yielding(request);
    return all;
}

// Every rank holds the same result bytes and reports the same call.
void expect_same_on_every_rank(const std::string& result, const redux_call_info& info, MPI_Comm comm) {
    const auto seen =
        gather_seen({fnv1a(result), static_cast<uint64_t>(info.algorithm), static_cast<uint64_t>(info.planned)}, comm);
    for (size_t r = 1; r < seen.size(); ++r) {
        EXPECT_EQ(seen[r].result_hash, seen[0].result_hash)
            << "rank " << r << "'s result bytes differ from rank 0's (same call, same communicator)";
        EXPECT_EQ(seen[r].algorithm, seen[0].algorithm) << "rank " << r << " reports another algorithm than rank 0";
        EXPECT_EQ(seen[r].planned, seen[0].planned) << "rank " << r << " reports planned unlike rank 0";
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
        std::printf("redux_allreduce_ex at %d ranks, asked -> ran (calls):", size_of(MPI_COMM_WORLD));
        for (const auto& [pair, calls] : ran_for_asked()) {
            std::printf(" %s->%s (%d)", algorithm_text(pair.first), algorithm_text(pair.second), calls);
        }
        std::printf("\n");
    }
};
[[maybe_unused]] ::testing::Environment* const kRanSummary = ::testing::AddGlobalTestEnvironment(new RanSummary);

struct AllreduceCall {
    MPI_Comm comm = MPI_COMM_WORLD;
    int count = 1;
    bool in_place = false;  // MPI_IN_PLACE on every rank
    uint64_t seed = 1;
    redux_algorithm algorithm = REDUX_ALGORITHM_CONFIGURED;
    long long segment_bytes = -1;  // redux_options.segment_bytes: < 0 the library's choice
};

std::string describe(const Operand& operand, const AllreduceCall& call) {
    std::ostringstream out;
    out << operand.name() << ", algorithm " << algorithm_text(call.algorithm) << ", comm size " << size_of(call.comm)
        << ", count " << call.count << (call.in_place ? ", in place" : "") << ", seed " << call.seed;
    if (call.segment_bytes >= 0) out << ", segment_bytes " << call.segment_bytes;
    return out.str();
}

// Checks one call of redux_allreduce_ex on every rank of call.comm (see the top of the file). Returns the
// receive buffer's bytes.
std::string check_allreduce(const Operand& operand, const AllreduceCall& call) {
    SCOPED_TRACE(describe(operand, call));
    static const bool trace = std::getenv("REDUX_TEST_TRACE") != nullptr;
    if (trace) std::fprintf(stderr, "[rank %d] %s\n", rank_of(MPI_COMM_WORLD), describe(operand, call).c_str());
    const int rank = rank_of(call.comm), size = size_of(call.comm);
    const MPI_Datatype datatype = operand.datatype();

    TypedBuffer send(datatype, call.count);
    operand.fill(send.origin(), call.count, rank, call.seed);
    const std::string send_before = send.bytes();
    TypedBuffer recv(datatype, call.count);
    if (call.in_place) operand.fill(recv.origin(), call.count, rank, call.seed);
    const std::string recv_before = recv.bytes();

    redux_options options = REDUX_OPTIONS_INIT;
    options.algorithm = call.algorithm;
    options.segment_bytes = call.segment_bytes;
    redux_call_info info{};
    const redux_test::RequestCounts before = redux_test::request_counts();
    const int rc = redux_allreduce_ex(call.in_place ? MPI_IN_PLACE : send.origin(), recv.origin(), call.count, datatype,
                                      operand.op(), call.comm, &options, &info);
    const redux_test::RequestCounts after = redux_test::request_counts();
    EXPECT_EQ(rc, MPI_SUCCESS);
    const long long started = after.started - before.started;
    EXPECT_EQ(started, after.completed - before.completed)
        << "requests started and completed during one redux_allreduce_ex differ";

    const redux_algorithm runs = call.algorithm == REDUX_ALGORITHM_CONFIGURED ? configured_algorithm() : call.algorithm;
    if (runs == REDUX_ALGORITHM_NATIVE) {
        EXPECT_EQ(started, 0) << "requests started where native was asked for";
        EXPECT_EQ(info.planned, 0);
        EXPECT_EQ(info.algorithm, REDUX_ALGORITHM_NATIVE);
    } else if (runs != REDUX_ALGORITHM_AUTO && size >= 2 && call.count > 0) {
        EXPECT_EQ(info.planned, 1) << "asked for " << algorithm_text(runs) << ", ran "
                                   << algorithm_text(info.algorithm);
    }
    if (rank_of(MPI_COMM_WORLD) == 0) ++ran_for_asked()[{call.algorithm, info.algorithm}];

    if (!call.in_place) {
        EXPECT_TRUE(send.bytes() == send_before) << "sendbuf was changed";
    }
    TypedBuffer want(datatype, call.count);
    operand.expect(want.origin(), call.count, size, call.seed);
    EXPECT_EQ(operand.compare(recv.origin(), want.origin(), call.count), "")
        << "redux_allreduce_ex's result differs from the test's own computation on rank " << rank;
    EXPECT_EQ(gaps_changed(recv_before, recv.bytes(), data_mask(datatype, call.count)), "");
    expect_same_on_every_rank(recv.bytes(), info, call.comm);
    return recv.bytes();
}

// Every algorithm, count and in-place choice for one operand.
void every_algorithm(const Operand& operand, std::initializer_list<int> counts, uint64_t seed,
                     MPI_Comm comm = MPI_COMM_WORLD) {
    for (redux_algorithm algorithm : kAlgorithms) {
        for (int count : counts) {
            for (bool in_place : {false, true}) {
                AllreduceCall call;
                call.comm = comm;
                call.count = count;
                call.in_place = in_place;
                call.seed = seed++;
                call.algorithm = algorithm;
                check_allreduce(operand, call);
            }
        }
    }
}

void every_algorithm(const Operand& operand, uint64_t seed) {
    for (int count : kCounts) every_algorithm(operand, {count}, seed++ * 1000);
}

TEST(Allreduce, PredefinedOperators) {
    every_algorithm(*redux_test::predefined_operand<int32_t>("MPI_INT", MPI_INT, MPI_SUM), 1);
    every_algorithm(*redux_test::predefined_operand<double>("MPI_DOUBLE", MPI_DOUBLE, MPI_SUM), 10);
    every_algorithm(*redux_test::predefined_operand<double>("MPI_DOUBLE", MPI_DOUBLE, MPI_MAX), 20);
    every_algorithm(*redux_test::predefined_operand<int32_t>("MPI_INT", MPI_INT, MPI_MIN), {7, 300}, 30);
}

// The result must be exactly M0 M1 ... M(n-1): an algorithm that folds a partial result from the wrong side
// gives another matrix.
TEST(Allreduce, NonCommutativeMatrixProduct) {
    every_algorithm(*redux_test::packed_matrix_operand(), 100);
    every_algorithm(*redux_test::matrix_operand(redux_test::MatrixLayout::contiguous), 110);
}

TEST(Allreduce, CommutativeUserOps) {
    every_algorithm(*redux_test::user_sum_operand(true), 200);
    every_algorithm(*redux_test::user_sum_operand(false), {1, 300, 10007}, 210);  // commutative, declared not
    every_algorithm(*redux_test::struct_operand(), {1, 7, 300}, 220);
}

// Predefined operators are defined on predefined datatypes only (MPI-4.0 6.9.2), so derived datatypes carry user
// operators: the matrix product with a gap inside each element and padding between elements, and a sum of doubles
// on MPI_Type_vector(3, 1, 2, MPI_DOUBLE), whose two gaps per element must stay as they were.
TEST(Allreduce, DerivedDatatypesWithGaps) {
    every_algorithm(*redux_test::matrix_operand(redux_test::MatrixLayout::vector_with_gap), {1, 7, 300, 10007}, 300);
    every_algorithm(*redux_test::matrix_operand(redux_test::MatrixLayout::resized_padded), {2, 300}, 310);
    MPI_Datatype vector = MPI_DATATYPE_NULL;
    MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vector);
    MPI_Type_commit(&vector);
    every_algorithm(
        *redux_test::user_sum_on<double>("MPI_Type_vector(3, 1, 2, MPI_DOUBLE)", vector, {40, {0, 16, 32}}, {vector}),
        {1, 7, 300, 10007}, 320);
}

// Count 0: success, nothing written.
TEST(Allreduce, CountZero) {
    const int rank = rank_of(MPI_COMM_WORLD);
    for (redux_algorithm algorithm : kAlgorithms) {
        SCOPED_TRACE(algorithm_text(algorithm));
        std::vector<int> send(4, rank), recv(4, -7);
        redux_options options = REDUX_OPTIONS_INIT;
        options.algorithm = algorithm;
        EXPECT_EQ(redux_allreduce_ex(send.data(), recv.data(), 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &options, nullptr),
                  MPI_SUCCESS);
        EXPECT_EQ(redux_allreduce_ex(MPI_IN_PLACE, recv.data(), 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &options, nullptr),
                  MPI_SUCCESS);
        EXPECT_EQ(recv, std::vector<int>(4, -7));
    }
}

// Communicators other than MPI_COMM_WORLD: two halves split with the world order reversed (the product must follow
// the new ranks), and MPI_COMM_SELF.
TEST(Allreduce, OtherCommunicators) {
    const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
    MPI_Comm half = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank < (size + 1) / 2 ? 0 : 1, size - rank, &half);
    const auto matrices = redux_test::matrix_operand(redux_test::MatrixLayout::contiguous);
    every_algorithm(*matrices, {7, 300}, 400, half);
    every_algorithm(*matrices, {7}, 410, MPI_COMM_SELF);
    MPI_Comm_free(&half);
}

// Segments (redux_options.segment_bytes) for every algorithm but native: unsegmented, about one element per
// segment, and a size that cuts elements unevenly (the call rounds to whole elements), on the non-commutative
// product packed in 8 bytes and laid out with a gap (16 bytes of data in 20).
TEST(Allreduce, Segments) {
    const auto packed = redux_test::packed_matrix_operand();
    const auto gapped = redux_test::matrix_operand(redux_test::MatrixLayout::vector_with_gap);
    uint64_t seed = 450;
    for (redux_algorithm algorithm : kAlgorithms) {
        if (algorithm == REDUX_ALGORITHM_NATIVE) continue;
        for (const Operand* operand : {packed.get(), gapped.get()}) {
            for (long long segment_bytes : {0LL, 16LL, 200LL}) {
                for (int count : {13, 1009}) {
                    AllreduceCall call;
                    call.count = count;
                    call.in_place = count == 13;
                    call.seed = seed++;
                    call.algorithm = algorithm;
                    call.segment_bytes = segment_bytes;
                    check_allreduce(*operand, call);
                }
            }
        }
    }
}

// A wildcard receive the user posted on the communicator before the calls must get the user's message, sent after
// them, and nothing of libredux's.
TEST(Allreduce, UserWildcardReceiveNeverMatchesLibreduxTraffic) {
    const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
    constexpr int kTag = 4343;
    int received[2] = {-1, -1};
    MPI_Request receive = MPI_REQUEST_NULL;
    PMPI_Irecv(received, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &receive);
    const auto matrices = redux_test::packed_matrix_operand();
    uint64_t seed = 470;
    for (redux_algorithm algorithm : kAlgorithms) {
        for (int count : {2, 300}) {
            AllreduceCall call;
            call.count = count;
            call.seed = seed++;
            call.algorithm = algorithm;
            check_allreduce(*matrices, call);
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

// Doubles whose sum depends on the order of the additions. `mix` 0: 1e16, -1e16 and small halves (1e16 + 1 - 1e16
// is 0 or 1 by the order); exact sums fit an int64_t of halves. `mix` 1: random signs and magnitudes from 2^-30
// to 2^60.
double order_sensitive_value(int mix, int rank, int index) {
    const uint64_t bits = redux_test::input_bits(7000 + static_cast<uint64_t>(mix), rank, static_cast<uint64_t>(index));
    if (mix == 0) {
        const double values[] = {1e16, -1e16, 1.0, 0.5, 3.0, -2.0, 7e15, -3e15};
        return values[bits % 8];
    }
    const double mantissa = 1.0 + static_cast<double>((bits >> 8) & 0xFFFFF) / 0x100000;
    const int exponent = static_cast<int>((bits >> 32) % 91) - 30;
    return (bits & 1 ? -1.0 : 1.0) * std::ldexp(mantissa, exponent);
}

// How far from the exact sum a sum of these values in any order may be: (size - 1) roundings, each at most half a
// unit in the last place of a partial sum no larger than the sum of the magnitudes.
double rounding_bound(int mix, int size, int index) {
    double magnitudes = 0;
    for (int r = 0; r < size; ++r) magnitudes += std::fabs(order_sensitive_value(mix, r, index));
    return (size - 1) * std::ldexp(magnitudes, -52);
}

double reference_sum(int mix, int size, int index) {
    if (mix == 0) {
        int64_t halves = 0;
        for (int r = 0; r < size; ++r) halves += static_cast<int64_t>(order_sensitive_value(mix, r, index) * 2);
        return static_cast<double>(halves) / 2;
    }
    long double sum = 0;
    for (int r = 0; r < size; ++r) sum += order_sensitive_value(mix, r, index);
    return static_cast<double>(sum);
}

TEST(Allreduce, OrderSensitiveSumsAreTheSameBitsOnEveryRank) {
    const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
    for (int mix : {0, 1}) {
        for (int count : {7, 1000, 10007}) {
            std::vector<double> send(static_cast<size_t>(count));
            for (int i = 0; i < count; ++i) send[static_cast<size_t>(i)] = order_sensitive_value(mix, rank, i);
            if (size >= 3 && mix == 0) {  // the inputs are worth the test: rank order and reverse order differ
                int differing = 0;
                for (int i = 0; i < count; ++i) {
                    double forward = 0, backward = 0;
                    for (int r = 0; r < size; ++r) forward += order_sensitive_value(mix, r, i);
                    for (int r = size - 1; r >= 0; --r) backward += order_sensitive_value(mix, r, i);
                    differing += forward != backward;
                }
                EXPECT_GT(differing, 0);
            }
            for (redux_algorithm algorithm : kAlgorithms) {
                // Repeated calls with another rank late each time: a planned algorithm folds in its fixed order, so
                // the bits repeat too. (Auto's first calls of a key try several algorithms; native's order is the
                // MPI library's business.)
                const bool repeats = algorithm != REDUX_ALGORITHM_AUTO && algorithm != REDUX_ALGORITHM_NATIVE;
                std::vector<double> first;
                for (int repeat = 0; repeat < (repeats ? 3 : 1); ++repeat) {
                    SCOPED_TRACE(std::string("mix ") + std::to_string(mix) + ", count " + std::to_string(count) +
                                 ", algorithm " + algorithm_text(algorithm) + ", repeat " + std::to_string(repeat));
                    const bool in_place = repeat == 1;
                    std::vector<double> recv = in_place ? send : std::vector<double>(static_cast<size_t>(count), -1.0);
                    redux_options options = REDUX_OPTIONS_INIT;
                    options.algorithm = algorithm;
                    redux_call_info info{};
                    redux_test::barrier(MPI_COMM_WORLD);
                    if (rank == (repeat + count) % size) usleep(2000);
                    EXPECT_EQ(redux_allreduce_ex(in_place ? MPI_IN_PLACE : send.data(), recv.data(), count, MPI_DOUBLE,
                                                 MPI_SUM, MPI_COMM_WORLD, &options, &info),
                              MPI_SUCCESS);
                    int far = 0;
                    for (int i = 0; i < count && far < 3; ++i) {
                        const double want = reference_sum(mix, size, i);
                        const double got = recv[static_cast<size_t>(i)];
                        if (!(std::fabs(got - want) <= rounding_bound(mix, size, i))) {
                            ++far;
                            ADD_FAILURE() << "element " << i << ": got " << got << ", the exact sum is " << want;
                        }
                    }
                    expect_same_on_every_rank(
                        std::string(reinterpret_cast<const char*>(recv.data()), recv.size() * sizeof(double)), info,
                        MPI_COMM_WORLD);
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
}

// Auto's first calls of a key take turns between algorithms, the MPI library's included, then it keeps one: 250
// calls of one small key, each checked (a non-commutative product, and order-sensitive sums whose bits must agree
// on every rank whichever algorithm the call ran).
TEST(Allreduce, RepeatedCallsUnderAuto) {
    const auto matrices = redux_test::packed_matrix_operand();
    const auto doubles = redux_test::predefined_operand<double>("MPI_DOUBLE", MPI_DOUBLE, MPI_SUM);
    const int rank = rank_of(MPI_COMM_WORLD);
    std::vector<double> send(64), recv(64);
    for (int i = 0; i < 64; ++i) send[static_cast<size_t>(i)] = order_sensitive_value(1, rank, i);
    for (int i = 0; i < 250; ++i) {
        SCOPED_TRACE("call " + std::to_string(i));
        AllreduceCall call;
        call.count = 33;
        call.seed = 5000 + static_cast<uint64_t>(i);
        call.algorithm = REDUX_ALGORITHM_AUTO;
        check_allreduce(*matrices, call);

        redux_options options = REDUX_OPTIONS_INIT;
        options.algorithm = REDUX_ALGORITHM_AUTO;
        redux_call_info info{};
        EXPECT_EQ(
            redux_allreduce_ex(send.data(), recv.data(), 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &options, &info),
            MPI_SUCCESS);
        expect_same_on_every_rank(std::string(reinterpret_cast<const char*>(recv.data()), recv.size() * sizeof(double)),
                                  info, MPI_COMM_WORLD);
        if (i % 50 == 0) {
            call.count = 100;
            call.in_place = true;
            check_allreduce(*doubles, call);
        }
    }
}

// The configured algorithm (REDUX_ALGORITHM, which the ctest variants set) through redux_allreduce_ex with
// REDUX_ALGORITHM_CONFIGURED, and redux_allreduce itself.
TEST(Allreduce, ConfiguredAlgorithm) {
    const auto matrices = redux_test::packed_matrix_operand();
    for (int count : {1, 7, 1000}) {
        for (bool in_place : {false, true}) {
            AllreduceCall call;
            call.count = count;
            call.in_place = in_place;
            call.seed = 6000 + static_cast<uint64_t>(count);
            check_allreduce(*matrices, call);
        }
    }
    const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
    std::vector<int> send(500), recv(500, -1);
    for (int i = 0; i < 500; ++i) send[static_cast<size_t>(i)] = rank * 1000 + i;
    EXPECT_EQ(redux_allreduce(send.data(), recv.data(), 500, MPI_INT, MPI_MAX, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int i = 0; i < 500; ++i) EXPECT_EQ(recv[static_cast<size_t>(i)], (size - 1) * 1000 + i) << "element " << i;
}

// Linking libredux makes MPI_Allreduce go through it. Under a configured planned algorithm, a call with something to
// reduce starts requests (the request counter sees libredux's transfers); under native it starts none.
TEST(Allreduce, InterposedMpiAllreduce) {
    const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
    const redux_algorithm configured = configured_algorithm();
    for (int count : {1, 7, 3001}) {
        SCOPED_TRACE("count " + std::to_string(count));
        std::vector<int64_t> send(static_cast<size_t>(count)), recv(static_cast<size_t>(count), -1);
        for (int i = 0; i < count; ++i) send[static_cast<size_t>(i)] = (rank + 1) * (i + 1);
        const redux_test::RequestCounts before = redux_test::request_counts();
        EXPECT_EQ(MPI_Allreduce(send.data(), recv.data(), count, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
        const redux_test::RequestCounts after = redux_test::request_counts();
        EXPECT_EQ(after.started - before.started, after.completed - before.completed);
        if (configured == REDUX_ALGORITHM_NATIVE) {
            EXPECT_EQ(after.started - before.started, 0);
        } else if (configured != REDUX_ALGORITHM_AUTO && size >= 2) {
            EXPECT_GT(after.started - before.started, 0) << "MPI_Allreduce did not run libredux's algorithm";
        }
        const int64_t ranks_sum = static_cast<int64_t>(size) * (size + 1) / 2;
        for (int i = 0; i < count; ++i) {
            ASSERT_EQ(recv[static_cast<size_t>(i)], ranks_sum * (i + 1)) << "element " << i;
        }
        EXPECT_EQ(MPI_Allreduce(MPI_IN_PLACE, send.data(), count, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD), MPI_SUCCESS);
        for (int i = 0; i < count; ++i) ASSERT_EQ(send[static_cast<size_t>(i)], size * (i + 1)) << "element " << i;
    }
    // A non-commutative user op through MPI_Allreduce: rank order.
    const auto matrices = redux_test::packed_matrix_operand();
    TypedBuffer send(MPI_UINT64_T, 257), recv(MPI_UINT64_T, 257), want(MPI_UINT64_T, 257);
    matrices->fill(send.origin(), 257, rank, 77);
    matrices->expect(want.origin(), 257, size, 77);
    EXPECT_EQ(MPI_Allreduce(send.origin(), recv.origin(), 257, MPI_UINT64_T, matrices->op(), MPI_COMM_WORLD),
              MPI_SUCCESS);
    EXPECT_EQ(matrices->compare(recv.origin(), want.origin(), 257), "");
}

// Wrong arguments, the same on every rank: an error through the communicator's error handler (called once, with
// the class PMPI_Allreduce reports where it reports one), no request started, the receive buffer untouched, under
// every algorithm. The counting handler returns, so the call must too.
class AllreduceErrors : public ::testing::Test {
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

    // PMPI_Allreduce's error class for these arguments, or MPI_SUCCESS when it accepts them (then not compared).
    int library_class(int count, MPI_Datatype datatype, MPI_Op op) {
        std::vector<char> send(4096, 1), recv(4096, 0);
        redux_test::reset_error_count();
        const int rc = PMPI_Allreduce(send.data(), recv.data(), count, datatype, op, comm_);
        int cls = MPI_SUCCESS;
        MPI_Error_class(rc, &cls);
        return cls;
    }

    void expect_failure(const std::string& what, int count, MPI_Datatype datatype, MPI_Op op, int expected_class,
                        redux_algorithm algorithm) {
        SCOPED_TRACE(what + ", algorithm " + algorithm_text(algorithm));
        std::vector<char> send(4096, 1), recv(4096, 0);
        redux_options options = REDUX_OPTIONS_INIT;
        options.algorithm = algorithm;
        redux_test::reset_error_count();
        const redux_test::RequestCounts before = redux_test::request_counts();
        const int rc = redux_allreduce_ex(send.data(), recv.data(), count, datatype, op, comm_, &options, nullptr);
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

TEST_F(AllreduceErrors, NegativeCount) {
    if (redux_test::mpi_library_is("MPICH")) {
        GTEST_SKIP() << "MPICH 4.0.2 does not check for a negative count (it crashes)";
    }
    const int expected = library_class(-1, MPI_INT, MPI_SUM);
    for (redux_algorithm algorithm : kAlgorithms) expect_failure("count -1", -1, MPI_INT, MPI_SUM, expected, algorithm);

    // The brief's form: MPI_ERRORS_RETURN on a duplicate, the return code checked.
    MPI_Comm returning = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &returning);
    MPI_Comm_set_errhandler(returning, MPI_ERRORS_RETURN);
    int send[4] = {1, 2, 3, 4}, recv[4] = {0, 0, 0, 0};
    EXPECT_NE(redux_allreduce(send, recv, -5, MPI_INT, MPI_SUM, returning), MPI_SUCCESS);
    EXPECT_NE(MPI_Allreduce(send, recv, -5, MPI_INT, MPI_SUM, returning), MPI_SUCCESS);
    EXPECT_NE(redux_allreduce(MPI_IN_PLACE, recv, -1, MPI_INT, MPI_SUM, returning), MPI_SUCCESS);
    MPI_Comm_free(&returning);
}

TEST_F(AllreduceErrors, NullHandles) {
    const int null_type = library_class(4, MPI_DATATYPE_NULL, MPI_SUM);
    const int null_op = library_class(4, MPI_INT, MPI_OP_NULL);
    for (redux_algorithm algorithm : kAlgorithms) {
        expect_failure("MPI_DATATYPE_NULL", 4, MPI_DATATYPE_NULL, MPI_SUM, null_type, algorithm);
        expect_failure("MPI_OP_NULL", 4, MPI_INT, MPI_OP_NULL, null_op, algorithm);
    }
}

// An algorithm value that names nothing: MPI_ERR_ARG (redux.h).
TEST_F(AllreduceErrors, UnknownAlgorithm) {
    redux_algorithm unknown;
    const int value = 99;
    std::memcpy(&unknown, &value, sizeof value);
    expect_failure("algorithm 99", 4, MPI_INT, MPI_SUM, MPI_ERR_ARG, unknown);
}

}  // namespace
