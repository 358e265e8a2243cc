// The operators the benchmark reduces with, each with the inputs every rank contributes and an independent
// computation of the expected result.
//
//   sum, prod, max   MPI_SUM, MPI_PROD, MPI_MAX on --datatype (int, long, float, double; default double)
//   minloc           MPI_MINLOC on the (value, index) pair type of --datatype (MPI_DOUBLE_INT, ...)
//   matmul2          product of 2x2 integer matrices (int or long entries, default int), a user op created
//                    non-commutative: the result is exactly v0 v1 ... v(n-1). Entries wrap modulo 2^bits
//                    (the product is computed on the unsigned type), so every order gives a defined result
//                    and a misordered fold a different one.
//   spin:NS          MPI_SUM's result from a user op that then busy-waits NS nanoseconds per element: an op
//                    of controlled cost c that takes a core
//   delay:NS         the same, sleeping instead of spinning: an expensive op that leaves the core to the other
//                    ranks (the emulated cluster puts many ranks on 2 cores)
// spin and delay wait NS times the number of elements passed to one call, so a fold applied in chunks costs
// the same in total as one call; with --noncommutative they are created with MPI_Op_create(..., 0, ...). With
// --op-cost-cv CV > 0 each application's wait is that cost times a gamma draw of mean 1 (dynamic.hpp), the
// draws restarted before every call by seed_op_costs.
//
// Every input is a small integer (for prod, mostly +-1), so sums and products are exact in float and double
// whatever the order of the fold, and the result can be compared exactly. The expected result is computed by
// plain loops over every rank's inputs, in rank order, without MPI.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>

namespace redux_bench {

enum class OpKind { sum, prod, max, minloc, matmul2, spin, delay };
enum class ElementType { int_, long_, float_, double_ };

struct OpSpec {
    OpKind kind = OpKind::sum;
    long cost_ns = 0;    // spin and delay: nanoseconds per element
    long call_ns = 0;    // spin and delay: nanoseconds per call (an op with a cost whatever its length)
    double cost_cv = 0;  // spin and delay: coefficient of variation of each application's cost (0: constant)
    bool noncommutative = false;
    ElementType type = ElementType::double_;
};

// "sum", "prod", "max", "minloc", "matmul2", "spin:NS", "delay:NS" (NS an integer >= 0) and --datatype
// ("" = the op's default); nothing, with `error` saying why, when the combination is not valid.
std::optional<OpSpec> parse_op(const std::string& op_text, const std::string& datatype_text, bool noncommutative,
                               std::string& error);

// The op column of the CSV: the op as given ("delay:1000"), with "/noncommutative" when so registered.
std::string op_label(const OpSpec& spec);

std::string datatype_name(ElementType type);

class BenchOp {
public:
    virtual ~BenchOp() = default;
    BenchOp(const BenchOp&) = delete;
    BenchOp& operator=(const BenchOp&) = delete;

    MPI_Datatype datatype() const { return datatype_; }
    MPI_Op op() const { return op_; }
    int element_bytes() const { return element_bytes_; }  // the datatype's extent

    // Rank `rank`'s `count` input elements.
    virtual void fill(int rank, int count, void* buffer) const = 0;
    // The reduction of every rank's inputs over `ranks` ranks, in rank order.
    virtual void expected(int ranks, int count, void* result) const = 0;
    // -1 when `result` equals `expected`, else the first differing element, described in `description`.
    virtual long first_mismatch(const void* result, const void* expected, int count,
                                std::string& description) const = 0;
    // Changes element 0 of `result` (tests check that verification catches it).
    virtual void corrupt(void* result) const = 0;

protected:
    BenchOp() = default;
    MPI_Datatype datatype_ = MPI_DATATYPE_NULL;
    MPI_Op op_ = MPI_OP_NULL;
    int element_bytes_ = 0;
};

// The op of `spec`, its MPI handles created (between MPI_Init and MPI_Finalize); freed with the object.
std::unique_ptr<BenchOp> make_bench_op(const OpSpec& spec);

// Before a call of `iteration` on `rank`: restarts the op's cost draws (nothing unless cost_cv > 0), so that
// every algorithm's turn of an iteration draws the same costs on each rank, in order.
void seed_op_costs(int rank, long iteration);

}  // namespace redux_bench
