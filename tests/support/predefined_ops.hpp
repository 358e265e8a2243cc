// The predefined operators, computed by the test itself (MPI standard, "Predefined Reduction Operations"),
// and inputs that keep every result exact: sums and products of small integers (and of halves and quarters
// for floating point and complex types), full-range values for MAX, MIN and the bitwise operators, few
// distinct values and indices for MINLOC and MAXLOC so that ties occur and the smallest-index rule shows.
//
// predefined_operand<T>(name, datatype, op) gives the ValueOperand for one predefined datatype whose C layout
// is T; predefined_operand_on<T>(...) the same for a derived datatype whose elements hold several T.
#pragma once

#include "operand.hpp"

#include <algorithm>
#include <complex>
#include <stdexcept>

namespace redux_test {

enum class OpKind { max, min, sum, prod, land, band, lor, bor, lxor, bxor, minloc, maxloc };

inline OpKind op_kind(MPI_Op op) {
    const std::pair<MPI_Op, OpKind> known[] = {
        {MPI_MAX, OpKind::max},   {MPI_MIN, OpKind::min},   {MPI_SUM, OpKind::sum},       {MPI_PROD, OpKind::prod},
        {MPI_LAND, OpKind::land}, {MPI_BAND, OpKind::band}, {MPI_LOR, OpKind::lor},       {MPI_BOR, OpKind::bor},
        {MPI_LXOR, OpKind::lxor}, {MPI_BXOR, OpKind::bxor}, {MPI_MINLOC, OpKind::minloc}, {MPI_MAXLOC, OpKind::maxloc},
    };
    for (const auto& [handle, kind] : known) {
        if (handle == op) return kind;
    }
    throw std::invalid_argument("not a predefined reduction operator");
}

inline const char* op_name(MPI_Op op) {
    static const char* const names[] = {"MPI_MAX", "MPI_MIN", "MPI_SUM",  "MPI_PROD", "MPI_LAND",   "MPI_BAND",
                                        "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC"};
    return names[static_cast<int>(op_kind(op))];
}

// Fortran LOGICAL as MPI_LOGICAL sees it from C: an int, 0 for .FALSE. and 1 for .TRUE. (gfortran's values).
struct FortranLogical {
    int32_t value;
    bool operator==(const FortranLogical& o) const { return value == o.value; }
};

// The C layout of the MINLOC/MAXLOC pair types (MPI_2INT, MPI_DOUBLE_INT, MPI_2REAL, ...).
template <typename V, typename I>
struct Pair {
    V value;
    I index;
    bool operator==(const Pair& o) const { return value == o.value && index == o.index; }
};

template <typename T>
struct is_complex : std::false_type {};
template <typename F>
struct is_complex<std::complex<F>> : std::true_type {};
template <typename T>
struct is_pair : std::false_type {};
template <typename V, typename I>
struct is_pair<Pair<V, I>> : std::true_type {};

template <typename T>
T predefined_value(OpKind op, int rank, uint64_t bits) {
    if constexpr (std::is_same_v<T, bool>) {
        return bits % 4 != 0;
    } else if constexpr (std::is_same_v<T, FortranLogical>) {
        return {bits % 4 != 0 ? 1 : 0};
    } else if constexpr (std::is_integral_v<T>) {
        constexpr bool is_signed = std::is_signed_v<T>;
        switch (op) {
            case OpKind::sum:  // |sum| <= 8 * 15 fits even a signed char
                return is_signed ? static_cast<T>(static_cast<int>(bits % 31) - 15) : static_cast<T>(bits % 32);
            case OpKind::prod: {  // at most six factors of 2: |product| <= 64
                const int factors[] = {-2, -1, 1, 2};
                if (rank >= 6) return is_signed && bits % 2 ? static_cast<T>(-1) : static_cast<T>(1);
                return is_signed ? static_cast<T>(factors[bits % 4]) : static_cast<T>(1 + bits % 2);
            }
            case OpKind::land:
            case OpKind::lor:
            case OpKind::lxor: {  // any non-zero value is true
                const int truth[] = {0, 1, 5, 1};
                return static_cast<T>(truth[bits % 4]);
            }
            case OpKind::max:
            case OpKind::min:
                // Non-negative values with the top bit clear: there the MPI libraries agree with C. Above it they
                // do not (Open MPI 4.1 compares MPI_UNSIGNED_LONG as signed and MPI_OFFSET as unsigned; MPICH
                // 4.0.2 compares every unsigned type as signed), and these tests are about libredux.
                return static_cast<T>(bits >> (65 - 8 * sizeof(T)));
            default:
                return static_cast<T>(bits);
        }
    } else if constexpr (std::is_floating_point_v<T>) {
        switch (op) {
            case OpKind::sum:
                return static_cast<T>(static_cast<int>(bits % 41) - 20) / 4;
            case OpKind::prod: {
                const T factors[] = {-2, -1, T(-0.5), T(0.5), 1, 2};
                return factors[bits % 6];
            }
            default:
                return static_cast<T>(static_cast<int>(bits % 2001) - 1000) / 8;
        }
    } else if constexpr (is_complex<T>::value) {
        using F = typename T::value_type;
        if (op == OpKind::prod) {
            const T factors[] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}};
            return factors[bits % 6];
        }
        return {static_cast<F>(static_cast<int>(bits % 41) - 20) / 2,
                static_cast<F>(static_cast<int>((bits >> 16) % 41) - 20) / 2};
    } else {
        static_assert(is_pair<T>::value, "no inputs for this type");
        T pair;
        std::memset(static_cast<void*>(&pair), 0, sizeof pair);  // padding too (Pair<long double, int>)
        pair.value = static_cast<decltype(pair.value)>(bits % 4);
        pair.index = static_cast<decltype(pair.index)>((bits >> 16) % 6);
        return pair;
    }
}

// Integer arithmetic in the unsigned type of the same width: exact, and wrap-around is defined.
template <typename T>
T wrapping(OpKind op, T a, T b) {
    const uint64_t x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
    return static_cast<T>(op == OpKind::sum ? x + y : x * y);
}

template <typename T>
T predefined_combine(OpKind op, const T& a, const T& b) {
    if constexpr (std::is_same_v<T, bool>) {
        switch (op) {
            case OpKind::land:
                return a && b;
            case OpKind::lor:
                return a || b;
            default:
                return a != b;
        }
    } else if constexpr (std::is_same_v<T, FortranLogical>) {
        return {predefined_combine<bool>(op, a.value != 0, b.value != 0) ? 1 : 0};
    } else if constexpr (is_pair<T>::value) {
        const bool a_wins = op == OpKind::minloc ? a.value < b.value : a.value > b.value;
        const bool b_wins = op == OpKind::minloc ? b.value < a.value : b.value > a.value;
        if (a_wins) return a;
        if (b_wins) return b;
        return {a.value, std::min(a.index, b.index)};
    } else if constexpr (is_complex<T>::value) {
        return op == OpKind::sum ? a + b : a * b;
    } else if constexpr (std::is_floating_point_v<T>) {
        switch (op) {
            case OpKind::max:
                return std::max(a, b);
            case OpKind::min:
                return std::min(a, b);
            case OpKind::sum:
                return a + b;
            default:
                return a * b;
        }
    } else {
        switch (op) {
            case OpKind::max:
                return std::max(a, b);
            case OpKind::min:
                return std::min(a, b);
            case OpKind::sum:
            case OpKind::prod:
                return wrapping(op, a, b);
            case OpKind::land:
                return static_cast<T>(a != 0 && b != 0);
            case OpKind::lor:
                return static_cast<T>(a != 0 || b != 0);
            case OpKind::lxor:
                return static_cast<T>((a != 0) != (b != 0));
            case OpKind::band:
                return static_cast<T>(a & b);
            case OpKind::bor:
                return static_cast<T>(a | b);
            default:
                return static_cast<T>(a ^ b);
        }
    }
}

// A derived (or predefined) datatype whose elements hold values of T at `displacements`, reduced by the
// predefined `op` element-wise.
template <typename T>
std::unique_ptr<Operand> predefined_operand_on(std::string name, MPI_Datatype datatype, MPI_Op op, MPI_Aint extent,
                                               std::vector<MPI_Aint> displacements,
                                               std::shared_ptr<void> owned = nullptr) {
    const OpKind kind = op_kind(op);
    typename ValueOperand<T>::Spec spec;
    spec.name = std::move(name) + " " + op_name(op);
    spec.datatype = datatype;
    spec.op = op;
    spec.extent = extent;
    spec.displacements = std::move(displacements);
    spec.value = [kind](T& out, int rank, uint64_t bits) { out = predefined_value<T>(kind, rank, bits); };
    const size_t arity = spec.displacements.size();
    spec.combine = [kind, arity](const T* left, const T* right, T* out) {
        for (size_t j = 0; j < arity; ++j) out[j] = predefined_combine<T>(kind, left[j], right[j]);
    };
    if constexpr (is_pair<T>::value) {
        spec.show = [](const T& v) { return "(" + show_value(v.value) + ", " + show_value(v.index) + ")"; };
    } else if constexpr (is_complex<T>::value) {
        spec.show = [](const T& v) { return "(" + show_value(v.real()) + ", " + show_value(v.imag()) + ")"; };
    } else if constexpr (std::is_same_v<T, FortranLogical>) {
        spec.show = [](const T& v) { return show_value(v.value); };
    }
    spec.owned = std::move(owned);
    return std::make_unique<ValueOperand<T>>(std::move(spec));
}

template <typename T>
std::unique_ptr<Operand> predefined_operand(std::string name, MPI_Datatype datatype, MPI_Op op) {
    return predefined_operand_on<T>(std::move(name), datatype, op, sizeof(T), {0});
}

}  // namespace redux_test
