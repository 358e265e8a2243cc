// redux_reduce with every predefined operator on every predefined datatype it is defined for, as the MPI
// standard's table lists them ("Predefined Reduction Operations": C integer, Fortran integer, floating point,
// logical, complex, byte, and the MINLOC/MAXLOC pair types), each checked against the test's own computation
// and against PMPI_Reduce (every input is chosen so that the result is exact; predefined_ops.hpp).
//
// Roots, counts and MPI_IN_PLACE rotate over the cases. Combinations the standard leaves out (MPI_CHAR,
// MPI_BYTE with arithmetic, ...) are in reduce_errors_test.cpp: there libredux must merely agree with MPI.
#include "predefined_ops.hpp"
#include "reduce_check.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <complex>
#include <vector>

namespace {

using redux_test::FortranLogical;
using redux_test::Operand;
using redux_test::Pair;

class Cases {
public:
    // Adds `type` with each of `ops`, if this MPI has the datatype and it is laid out as T.
    template <typename T>
    Cases& add(const char* name, MPI_Datatype type, std::initializer_list<MPI_Op> ops, bool tree_optional = false) {
        MPI_Aint lb = 0, extent = 0;
        if (type == MPI_DATATYPE_NULL || MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
            extent != static_cast<MPI_Aint>(sizeof(T)) || lb != 0) {
            skipped_.push_back(name);
            return *this;
        }
        for (MPI_Op op : ops) {
            operands_.push_back(redux_test::predefined_operand<T>(name, type, op));
            tree_optional_.push_back(tree_optional);
        }
        return *this;
    }

    // Reduces every case once; case i at root i mod size, with MPI_IN_PLACE every other round of roots.
    void run(MPI_Comm comm, uint64_t seed) const {
        int size = 1;
        MPI_Comm_size(comm, &size);
        const int counts[] = {1, 7, 64, 301};
        for (size_t i = 0; i < operands_.size(); ++i) {
            redux_test::ReduceCall call;
            call.comm = comm;
            call.root = static_cast<int>(i % static_cast<size_t>(size));
            call.count = counts[i % 4];
            call.in_place = (i / static_cast<size_t>(size)) % 2 == 1;
            call.seed = seed + i;
            call.compare_with_pmpi = true;
            call.tree_optional = tree_optional_[i];
            redux_test::check_reduce(*operands_[i], call);
        }
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        if (rank == 0 && !skipped_.empty()) {
            std::string names;
            for (const char* name : skipped_) names += std::string(" ") + name;
            std::printf("note: not in this MPI (or not laid out as in C):%s\n", names.c_str());
        }
    }

private:
    std::vector<std::unique_ptr<Operand>> operands_;
    std::vector<bool> tree_optional_;
    std::vector<const char*> skipped_;
};

// The C integer types: MAX, MIN, SUM, PROD, the logical and the bitwise operators.
const std::initializer_list<MPI_Op> kCIntegerOps = {MPI_MAX, MPI_MIN,  MPI_SUM,  MPI_PROD, MPI_LAND,
                                                    MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR,  MPI_BXOR};
// Fortran integers and the multi-language types (MPI_AINT, MPI_OFFSET, MPI_COUNT): no logical operators.
const std::initializer_list<MPI_Op> kIntegerOps = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_BAND, MPI_BOR, MPI_BXOR};
const std::initializer_list<MPI_Op> kFloatingOps = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD};
const std::initializer_list<MPI_Op> kLogicalOps = {MPI_LAND, MPI_LOR, MPI_LXOR};
const std::initializer_list<MPI_Op> kComplexOps = {MPI_SUM, MPI_PROD};
const std::initializer_list<MPI_Op> kByteOps = {MPI_BAND, MPI_BOR, MPI_BXOR};
const std::initializer_list<MPI_Op> kLocOps = {MPI_MINLOC, MPI_MAXLOC};

TEST(ReducePredefined, CIntegers) {
    Cases cases;
    cases.add<int>("MPI_INT", MPI_INT, kCIntegerOps)
        .add<long>("MPI_LONG", MPI_LONG, kCIntegerOps)
        .add<short>("MPI_SHORT", MPI_SHORT, kCIntegerOps)
        .add<unsigned short>("MPI_UNSIGNED_SHORT", MPI_UNSIGNED_SHORT, kCIntegerOps)
        .add<unsigned>("MPI_UNSIGNED", MPI_UNSIGNED, kCIntegerOps)
        .add<unsigned long>("MPI_UNSIGNED_LONG", MPI_UNSIGNED_LONG, kCIntegerOps)
        .add<long long>("MPI_LONG_LONG_INT", MPI_LONG_LONG_INT, kCIntegerOps)
        .add<long long>("MPI_LONG_LONG", MPI_LONG_LONG, kCIntegerOps)
        .add<unsigned long long>("MPI_UNSIGNED_LONG_LONG", MPI_UNSIGNED_LONG_LONG, kCIntegerOps)
        .add<signed char>("MPI_SIGNED_CHAR", MPI_SIGNED_CHAR, kCIntegerOps)
        .add<unsigned char>("MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, kCIntegerOps)
        .add<int8_t>("MPI_INT8_T", MPI_INT8_T, kCIntegerOps)
        .add<int16_t>("MPI_INT16_T", MPI_INT16_T, kCIntegerOps)
        .add<int32_t>("MPI_INT32_T", MPI_INT32_T, kCIntegerOps)
        .add<int64_t>("MPI_INT64_T", MPI_INT64_T, kCIntegerOps)
        .add<uint8_t>("MPI_UINT8_T", MPI_UINT8_T, kCIntegerOps)
        .add<uint16_t>("MPI_UINT16_T", MPI_UINT16_T, kCIntegerOps)
        .add<uint32_t>("MPI_UINT32_T", MPI_UINT32_T, kCIntegerOps)
        .add<uint64_t>("MPI_UINT64_T", MPI_UINT64_T, kCIntegerOps)
        .add<MPI_Aint>("MPI_AINT", MPI_AINT, kIntegerOps)
        .add<MPI_Offset>("MPI_OFFSET", MPI_OFFSET, kIntegerOps)
        .add<MPI_Count>("MPI_COUNT", MPI_COUNT, kIntegerOps)
        .run(MPI_COMM_WORLD, 100);
}

TEST(ReducePredefined, FortranIntegers) {
    Cases cases;
    cases.add<int32_t>("MPI_INTEGER", MPI_INTEGER, kIntegerOps)
        .add<int8_t>("MPI_INTEGER1", MPI_INTEGER1, kIntegerOps)
        .add<int16_t>("MPI_INTEGER2", MPI_INTEGER2, kIntegerOps)
        .add<int32_t>("MPI_INTEGER4", MPI_INTEGER4, kIntegerOps)
        .add<int64_t>("MPI_INTEGER8", MPI_INTEGER8, kIntegerOps)
        .run(MPI_COMM_WORLD, 200);
}

TEST(ReducePredefined, FloatingPoint) {
    Cases cases;
    cases.add<float>("MPI_FLOAT", MPI_FLOAT, kFloatingOps)
        .add<double>("MPI_DOUBLE", MPI_DOUBLE, kFloatingOps)
        .add<long double>("MPI_LONG_DOUBLE", MPI_LONG_DOUBLE, kFloatingOps)
        .add<float>("MPI_REAL", MPI_REAL, kFloatingOps)
        .add<double>("MPI_DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, kFloatingOps)
        .add<float>("MPI_REAL4", MPI_REAL4, kFloatingOps)
        .add<double>("MPI_REAL8", MPI_REAL8, kFloatingOps)
        .run(MPI_COMM_WORLD, 300);
}

TEST(ReducePredefined, Logical) {
    Cases cases;
    cases.add<bool>("MPI_C_BOOL", MPI_C_BOOL, kLogicalOps)
        .add<bool>("MPI_CXX_BOOL", MPI_CXX_BOOL, kLogicalOps)
        .add<FortranLogical>("MPI_LOGICAL", MPI_LOGICAL, kLogicalOps)
        .run(MPI_COMM_WORLD, 400);
}

TEST(ReducePredefined, Complex) {
    Cases cases;
    cases.add<std::complex<float>>("MPI_C_COMPLEX", MPI_C_COMPLEX, kComplexOps)
        .add<std::complex<float>>("MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, kComplexOps)
        .add<std::complex<double>>("MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, kComplexOps)
        .add<std::complex<long double>>("MPI_C_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX, kComplexOps)
        .add<std::complex<float>>("MPI_CXX_FLOAT_COMPLEX", MPI_CXX_FLOAT_COMPLEX, kComplexOps)
        .add<std::complex<double>>("MPI_CXX_DOUBLE_COMPLEX", MPI_CXX_DOUBLE_COMPLEX, kComplexOps)
        .add<std::complex<long double>>("MPI_CXX_LONG_DOUBLE_COMPLEX", MPI_CXX_LONG_DOUBLE_COMPLEX, kComplexOps)
        .add<std::complex<float>>("MPI_COMPLEX", MPI_COMPLEX, kComplexOps)
        .add<std::complex<double>>("MPI_DOUBLE_COMPLEX", MPI_DOUBLE_COMPLEX, kComplexOps)
        .add<std::complex<float>>("MPI_COMPLEX8", MPI_COMPLEX8, kComplexOps)
        .add<std::complex<double>>("MPI_COMPLEX16", MPI_COMPLEX16, kComplexOps)
        .run(MPI_COMM_WORLD, 500);
}

TEST(ReducePredefined, Byte) {
    Cases cases;
    cases.add<unsigned char>("MPI_BYTE", MPI_BYTE, kByteOps).run(MPI_COMM_WORLD, 600);
}

// Values 0..3 and indices 0..5 over up to 8 ranks: equal values with different indices (the smallest index
// wins) and equal pairs occur in almost every element.
TEST(ReducePredefined, MinlocMaxlocWithTies) {
    Cases cases;
    cases.add<Pair<int, int>>("MPI_2INT", MPI_2INT, kLocOps)
        .add<Pair<float, int>>("MPI_FLOAT_INT", MPI_FLOAT_INT, kLocOps)
        .add<Pair<double, int>>("MPI_DOUBLE_INT", MPI_DOUBLE_INT, kLocOps)
        .add<Pair<long, int>>("MPI_LONG_INT", MPI_LONG_INT, kLocOps)
        .add<Pair<short, int>>("MPI_SHORT_INT", MPI_SHORT_INT, kLocOps)
        .add<Pair<long double, int>>("MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, kLocOps)
        .add<Pair<int32_t, int32_t>>("MPI_2INTEGER", MPI_2INTEGER, kLocOps)
        .add<Pair<float, float>>("MPI_2REAL", MPI_2REAL, kLocOps)
        .add<Pair<double, double>>("MPI_2DOUBLE_PRECISION", MPI_2DOUBLE_PRECISION, kLocOps)
        .run(MPI_COMM_WORLD, 700);
}

// Counts large enough for many chunks of the op (64 KiB by default, REDUX_CHUNK_BYTES in the stress variant)
// and more than one transfer's worth of pipelining.
TEST(ReducePredefined, LargeCounts) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const auto sum = redux_test::predefined_operand<int64_t>("MPI_INT64_T", MPI_INT64_T, MPI_SUM);
    const auto prod = redux_test::predefined_operand<double>("MPI_DOUBLE", MPI_DOUBLE, MPI_PROD);
    const auto minloc = redux_test::predefined_operand<Pair<double, int>>("MPI_DOUBLE_INT", MPI_DOUBLE_INT, MPI_MINLOC);
    int i = 0;
    for (const Operand* operand : {sum.get(), prod.get(), minloc.get()}) {
        redux_test::ReduceCall call;
        call.root = (size - 1) * (i % 2);
        call.count = 20000 + 17 * i;
        call.in_place = i == 1;
        call.seed = 800 + static_cast<uint64_t>(i);
        call.compare_with_pmpi = true;
        redux_test::check_reduce(*operand, call);
        ++i;
    }
}

}  // namespace
