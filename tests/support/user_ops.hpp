// User-defined operators for the reduce tests, commutative and not, on predefined and derived datatypes.
//
// The non-commutative one is the product of 2x2 matrices with wrap-around entries (unsigned arithmetic, so
// every product is exact and associative but M0 M1 != M1 M0): MPI_Reduce must give exactly M0 M1 ... M(n-1).
// MPI calls a user function as f(in, inout) and defines the result as inout = in o inout, so each function
// below computes inout = in * inout.
#pragma once

#include "operand.hpp"

#include <array>
#include <cstdint>
#include <cstring>

namespace redux_test {

using Matrix32 = std::array<uint32_t, 4>;  // row-major: m00 m01 m10 m11

inline void multiply(const uint32_t* a, const uint32_t* b, uint32_t* out) {
    const uint32_t m00 = a[0] * b[0] + a[1] * b[2], m01 = a[0] * b[1] + a[1] * b[3];
    const uint32_t m10 = a[2] * b[0] + a[3] * b[2], m11 = a[2] * b[1] + a[3] * b[3];
    out[0] = m00, out[1] = m01, out[2] = m10, out[3] = m11;
}

// A 2x2 matrix of uint16_t entries packed into one uint64_t (entry k in bits 16k .. 16k+15).
uint64_t multiply_packed(uint64_t a, uint64_t b);

// 2x2 matrices packed into MPI_UINT64_T: a non-commutative user op on a predefined datatype.
std::unique_ptr<Operand> packed_matrix_operand();

// The same product on matrices of four uint32_t laid out by a derived datatype.
enum class MatrixLayout {
    contiguous,          // MPI_Type_contiguous(4, MPI_UINT32_T)
    vector_with_gap,     // two rows of two, stride three: a gap inside each element
    struct_positive_lb,  // struct with a leading displacement: lb = true_lb = 8, gap inside
    struct_negative_lb,  // struct with a negative displacement: lb = true_lb = -16
    resized_padded,      // contiguous(4) resized to lb = -8, extent 32: gaps between elements
    hindexed_permuted,   // the four entries at descending addresses, in type-map order m00 m01 m10 m11
};
std::unique_ptr<Operand> matrix_operand(MatrixLayout layout);
const char* layout_name(MatrixLayout layout);

// Wrap-around sum of MPI_UINT32_T by a user function, created with commute = 1 or 0 (a commutative operation
// declared non-commutative must still be reduced correctly).
std::unique_ptr<Operand> user_sum_operand(bool declared_commutative);

// Where the values of one element lie in a derived datatype, attached to the datatype as an attribute so that
// a user function can read any layout from the datatype MPI hands it.
struct ValueLayout {
    MPI_Aint extent = 0;
    std::vector<MPI_Aint> displacements;
};
void set_value_layout(MPI_Datatype datatype, const ValueLayout& layout);
const ValueLayout& value_layout_of(MPI_Datatype datatype);  // aborts if the datatype has none

// inout += in for every value of every element (wrap-around for integer T), as a user function.
template <typename T>
void sum_by_layout(void* in, void* inout, int* len, MPI_Datatype* datatype) {
    const ValueLayout& layout = value_layout_of(*datatype);
    for (int k = 0; k < *len; ++k) {
        for (MPI_Aint displacement : layout.displacements) {
            // On integers: a buffer's origin may lie outside its allocation (datatypes with a large true lower
            // bound), where pointer arithmetic is undefined.
            const MPI_Aint at = k * layout.extent + displacement;
            const auto in_at =
                reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(in) + static_cast<uintptr_t>(at));
            auto* inout_at = reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(inout) + static_cast<uintptr_t>(at));
            T a, b;
            std::memcpy(&a, in_at, sizeof(T));
            std::memcpy(&b, inout_at, sizeof(T));
            if constexpr (std::is_integral_v<T>) {
                b = static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
            } else {
                b = a + b;
            }
            std::memcpy(inout_at, &b, sizeof(T));
        }
    }
}

// A commutative user op adding the values of T in each element of a committed derived `datatype` (values
// small enough to be exact for floating-point T). The operand frees `owned_types` and its op.
template <typename T>
std::unique_ptr<Operand> user_sum_on(std::string name, MPI_Datatype datatype, ValueLayout layout,
                                     std::vector<MPI_Datatype> owned_types) {
    set_value_layout(datatype, layout);
    MPI_Op op = MPI_OP_NULL;
    MPI_Op_create(sum_by_layout<T>, 1, &op);
    typename ValueOperand<T>::Spec spec;
    spec.name = std::move(name) + ", user sum";
    spec.datatype = datatype;
    spec.op = op;
    spec.extent = layout.extent;
    spec.displacements = layout.displacements;
    spec.value = [](T& out, int, uint64_t bits) {
        if constexpr (std::is_integral_v<T>) {
            out = static_cast<T>(bits);
        } else {
            out = static_cast<T>(static_cast<int>(bits % 41) - 20) / 4;
        }
    };
    const size_t arity = layout.displacements.size();
    spec.combine = [arity](const T* left, const T* right, T* out) {
        for (size_t j = 0; j < arity; ++j) {
            if constexpr (std::is_integral_v<T>) {
                out[j] = static_cast<T>(static_cast<uint64_t>(left[j]) + static_cast<uint64_t>(right[j]));
            } else {
                out[j] = left[j] + right[j];
            }
        }
    };
    spec.owned = owning(std::move(owned_types), op);
    return std::make_unique<ValueOperand<T>>(std::move(spec));
}

// A commutative user op on a struct {int32 count; double peak;} datatype (with its padding as a gap):
// count adds (wrapping), peak takes the maximum.
std::unique_ptr<Operand> struct_operand();

}  // namespace redux_test
