// Predefined operators against datatypes, without calling the MPI library: its own check raises errors on
// MPI_COMM_WORLD's error handler (Open MPI and MPICH alike), which would abort a job whose communicator
// returns errors. The table follows the standard's groups:
//   MPI_MAX, MPI_MIN            C integer, Fortran integer, floating point
//   MPI_SUM, MPI_PROD           C integer, Fortran integer, floating point, complex
//   MPI_LAND, MPI_LOR, MPI_LXOR C integer, logical
//   MPI_BAND, MPI_BOR, MPI_BXOR C integer, Fortran integer, byte
//   MPI_MINLOC, MPI_MAXLOC      the pair types (MPI_2INT, MPI_FLOAT_INT, ...)
// Derived datatypes never count: the standard defines predefined operators on the listed types only, and
// Open MPI 4.1 and MPICH 4.0 both answer MPI_ERR_OP for any derived type. The decision depends only on the
// type signature, which MPI requires to match on every rank, so all ranks take the same path. Anything not
// listed goes to PMPI_Reduce -- never a wrong answer, at worst the library's own algorithm.
#include "mpi/op_types.hpp"

#include <initializer_list>

namespace redux {
namespace {

enum Group : unsigned {
    c_integer = 1,
    fortran_integer = 2,
    floating = 4,
    complex_ = 8,
    logical = 16,
    byte = 32,
    pair = 64
};

bool in(MPI_Datatype t, std::initializer_list<MPI_Datatype> list) {
    for (MPI_Datatype x : list) {
        if (t == x) return true;
    }
    return false;
}

unsigned group_of(MPI_Datatype t) {
    if (in(t, {MPI_INT,
               MPI_LONG,
               MPI_SHORT,
               MPI_UNSIGNED_SHORT,
               MPI_UNSIGNED,
               MPI_UNSIGNED_LONG,
               MPI_LONG_LONG_INT,
               MPI_LONG_LONG,
               MPI_UNSIGNED_LONG_LONG,
               MPI_SIGNED_CHAR,
               MPI_UNSIGNED_CHAR,
               MPI_INT8_T,
               MPI_INT16_T,
               MPI_INT32_T,
               MPI_INT64_T,
               MPI_UINT8_T,
               MPI_UINT16_T,
               MPI_UINT32_T,
               MPI_UINT64_T,
               MPI_AINT,
               MPI_OFFSET,
               MPI_COUNT})) {
        return c_integer;
    }
    if (in(t, {MPI_INTEGER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8})) return fortran_integer;
    if (in(t, {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_REAL4, MPI_REAL8})) {
        return floating;
    }
    if (in(t, {MPI_C_COMPLEX, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, MPI_COMPLEX,
               MPI_DOUBLE_COMPLEX, MPI_COMPLEX8, MPI_COMPLEX16})) {
        return complex_;
    }
#ifndef SMPI_H  // SimGrid 3.32 names MPI_CXX_FLOAT_COMPLEX and friends but misspells their symbols
    if (in(t, {MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX})) return complex_;
#endif
    if (in(t, {MPI_C_BOOL, MPI_CXX_BOOL, MPI_LOGICAL})) return logical;
    if (t == MPI_BYTE) return byte;
    if (in(t, {MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2REAL,
               MPI_2DOUBLE_PRECISION, MPI_2INTEGER})) {
        return pair;
    }
    return 0;
}

unsigned groups_for(MPI_Op op) {
    if (op == MPI_MAX || op == MPI_MIN) return c_integer | fortran_integer | floating;
    if (op == MPI_SUM || op == MPI_PROD) return c_integer | fortran_integer | floating | complex_;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return c_integer | logical;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return c_integer | fortran_integer | byte;
    if (op == MPI_MINLOC || op == MPI_MAXLOC) return pair;
    return 0;  // MPI_REPLACE, MPI_NO_OP: for one-sided accumulates; MPI_Reduce decides
}

}  // namespace

const char* predefined_op_name(MPI_Op op) {
    static const struct {
        MPI_Op op;
        const char* name;
    } kOps[] = {{MPI_MAX, "MPI_MAX"},         {MPI_MIN, "MPI_MIN"},       {MPI_SUM, "MPI_SUM"},
                {MPI_PROD, "MPI_PROD"},       {MPI_LAND, "MPI_LAND"},     {MPI_BAND, "MPI_BAND"},
                {MPI_LOR, "MPI_LOR"},         {MPI_BOR, "MPI_BOR"},       {MPI_LXOR, "MPI_LXOR"},
                {MPI_BXOR, "MPI_BXOR"},       {MPI_MINLOC, "MPI_MINLOC"}, {MPI_MAXLOC, "MPI_MAXLOC"},
                {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"}};
    for (const auto& known : kOps) {
        if (op == known.op) return known.name;
    }
    return nullptr;
}

bool is_predefined(MPI_Op op) { return predefined_op_name(op) != nullptr; }

bool op_defined_on(MPI_Op op, MPI_Datatype datatype) {
    if (!is_predefined(op)) return true;  // a user op takes whatever it is given
    // Programs repeat the same (op, basic type) pair: remember the last answer for a named type, whose handle
    // never changes.
    thread_local MPI_Op last_op = MPI_OP_NULL;
    thread_local MPI_Datatype last_type = MPI_DATATYPE_NULL;
    thread_local bool last_answer = false;
    if (op == last_op && datatype == last_type) return last_answer;
    const bool answer = (group_of(datatype) & groups_for(op)) != 0;
    int integers = 0, addresses = 0, datatypes = 0, combiner = 0;
    MPI_Type_get_envelope(datatype, &integers, &addresses, &datatypes, &combiner);
    if (combiner == MPI_COMBINER_NAMED) {
        last_op = op;
        last_type = datatype;
        last_answer = answer;
    }
    return answer;
}

}  // namespace redux
